//! The URLs `web_fetch` takes: absolute `http`/`https` URLs, parsed and resolved by the
//! `url` crate (the WHATWG URL standard: international host names to their ASCII form,
//! percent-encoding, `.` and `..` segments), with the checks that are web_fetch's own: no
//! other scheme, no user name or password, a bounded length, and no fragment (it is never
//! sent).

use std::fmt;

/// Longest URL accepted.
const MAX_URL: usize = 4096;

/// An absolute `http://` or `https://` URL with a host and without a fragment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Url(url::Url);

impl Url {
    /// Parses an absolute URL; the error says what is wrong, for the model.
    pub fn parse(text: &str) -> Result<Self, String> {
        let text = text.trim();
        if text.len() > MAX_URL {
            return Err(format!("the URL is longer than {MAX_URL} characters"));
        }
        if let Some(bad) = text.chars().find(|c| c.is_whitespace() || c.is_control()) {
            return Err(format!("the URL contains {bad:?}; percent-encode it"));
        }
        match url::Url::parse(text) {
            Ok(url) => Self::checked(url),
            Err(url::ParseError::RelativeUrlWithoutBase) => {
                Err(format!("`{text}` is not an absolute URL: write `https://{text}`"))
            }
            Err(e) => Err(format!("`{text}` is not a valid URL: {e}")),
        }
    }

    fn checked(mut url: url::Url) -> Result<Self, String> {
        let scheme = url.scheme();
        if scheme != "http" && scheme != "https" {
            return Err(format!("only http:// and https:// URLs can be fetched, not {scheme}://"));
        }
        if url.host_str().is_none_or(str::is_empty) {
            return Err(format!("`{url}` has no host"));
        }
        if !url.username().is_empty() || url.password().is_some() {
            return Err("URLs with a user name or password are not fetched".into());
        }
        if url.as_str().len() > MAX_URL {
            return Err(format!("the URL is longer than {MAX_URL} characters"));
        }
        url.set_fragment(None);
        Ok(Self(url))
    }

    /// A GitHub `blob` page as its raw file, which is what a model wants from it.
    pub fn raw_github(self) -> Self {
        if self.0.host_str() != Some("github.com") {
            return self;
        }
        let parts: Vec<&str> = self.0.path().splitn(5, '/').collect();
        let ["", owner, repo, "blob", rest] = parts.as_slice() else { return self };
        let query = self.0.query().map(|q| format!("?{q}")).unwrap_or_default();
        Self::parse(&format!("https://raw.githubusercontent.com/{owner}/{repo}/{rest}{query}")).unwrap_or(self)
    }

    /// A `Location` (or link) resolved against this URL.
    pub fn join(&self, reference: &str) -> Result<Self, String> {
        let joined = self.0.join(reference.trim()).map_err(|e| e.to_string())?;
        Self::checked(joined)
    }

    /// `http` or `https`.
    pub fn scheme(&self) -> &str {
        self.0.scheme()
    }

    /// `host[:port]` (an IPv6 host in brackets; the port only when it is not the scheme's).
    pub fn authority(&self) -> String {
        let host = self.0.host_str().unwrap_or_default();
        match self.0.port() {
            Some(port) => format!("{host}:{port}"),
            None => host.to_string(),
        }
    }

    /// The path and query, starting with `/`.
    pub fn path_and_query(&self) -> &str {
        &self.0[url::Position::BeforePath..url::Position::AfterQuery]
    }

    pub fn as_url(&self) -> &url::Url {
        &self.0
    }
}

impl fmt::Display for Url {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.as_str())
    }
}

#[cfg(test)]
#[path = "url_tests.rs"]
mod tests;
