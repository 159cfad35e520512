//! The URLs `web_fetch` takes: absolute `http`/`https` URLs, split as `wasi:http` wants
//! them, and redirect targets resolved against the page.

use std::fmt;

/// Longest URL accepted.
const MAX_URL: usize = 4096;

/// An absolute `http://` or `https://` URL, split.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Url {
    /// `http` or `https`, lower-case.
    pub scheme: String,
    /// `host[:port]` (an IPv6 host in brackets), lower-case host.
    pub authority: String,
    /// The path and query, starting with `/`; no fragment.
    pub path: String,
}

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
        let Some((scheme, rest)) = text.split_once("://") else {
            return Err(format!("`{text}` is not an absolute URL: write `https://{text}`"));
        };
        let scheme = scheme.to_ascii_lowercase();
        if scheme != "http" && scheme != "https" {
            return Err(format!("only http:// and https:// URLs can be fetched, not {scheme}://"));
        }
        let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
        let (authority, tail) = rest.split_at(end);
        if authority.is_empty() {
            return Err(format!("`{text}` has no host"));
        }
        if authority.contains('@') {
            return Err("URLs with a user name or password are not fetched".into());
        }
        let tail = tail.split('#').next().unwrap_or_default();
        let path = if tail.starts_with('/') { tail.to_string() } else { format!("/{tail}") };
        Ok(Self { scheme, authority: lower_host(authority), path })
    }

    /// A GitHub `blob` page as its raw file, which is what a model wants from it.
    pub fn raw_github(self) -> Self {
        if self.authority != "github.com" {
            return self;
        }
        let parts: Vec<&str> = self.path.splitn(5, '/').collect();
        match parts.as_slice() {
            ["", owner, repo, "blob", rest] => Self {
                scheme: "https".into(),
                authority: "raw.githubusercontent.com".into(),
                path: format!("/{owner}/{repo}/{rest}"),
            },
            _ => self,
        }
    }

    /// A `Location` (or link) resolved against this URL: absolute, scheme-relative
    /// (`//host/x`), absolute-path (`/x`) or relative (`x`, `../x`, `?q`).
    pub fn join(&self, reference: &str) -> Result<Self, String> {
        let reference = reference.trim();
        if reference.contains("://") {
            return Self::parse(reference);
        }
        if let Some(rest) = reference.strip_prefix("//") {
            return Self::parse(&format!("{}://{rest}", self.scheme));
        }
        let reference = reference.split('#').next().unwrap_or_default();
        let path = if reference.is_empty() {
            self.path.clone()
        } else if reference.starts_with('/') {
            reference.to_string()
        } else if reference.starts_with('?') {
            format!("{}{reference}", self.path.split('?').next().unwrap_or("/"))
        } else {
            let base = self.path.split('?').next().unwrap_or("/");
            let dir = &base[..base.rfind('/').map_or(0, |at| at + 1)];
            format!("{dir}{reference}")
        };
        Self::parse(&format!("{}://{}{}", self.scheme, self.authority, normalize(&path)))
    }
}

/// Removes `.` and `..` segments from a path (its query kept as is).
fn normalize(path: &str) -> String {
    let (path, query) = match path.split_once('?') {
        Some((path, query)) => (path, Some(query)),
        None => (path, None),
    };
    let mut out: Vec<&str> = Vec::new();
    let segments: Vec<&str> = path.split('/').skip(1).collect();
    for (i, segment) in segments.iter().enumerate() {
        match *segment {
            "." => {}
            ".." => {
                out.pop();
            }
            other => out.push(other),
        }
        if matches!(*segment, "." | "..") && i + 1 == segments.len() {
            out.push("");
        }
    }
    let mut joined = format!("/{}", out.join("/"));
    if let Some(query) = query {
        joined.push('?');
        joined.push_str(query);
    }
    joined
}

/// The authority with its host in lower case (the port as written).
fn lower_host(authority: &str) -> String {
    authority.to_ascii_lowercase()
}

impl fmt::Display for Url {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}://{}{}", self.scheme, self.authority, self.path)
    }
}
