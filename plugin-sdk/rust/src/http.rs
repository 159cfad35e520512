//! Outgoing HTTP through the host (`wasi:http`), the only way out of a plugin.
//!
//! A tool reaches a destination only when it requests it (`Capabilities::network`, rules
//! such as `https://api.github.com`) and the user grants it (`airlock plugins grant NAME
//! --net https://api.github.com`). The host checks every request, redirects included (they
//! are never followed for you: a 3xx comes back as it is), resolves the name itself and
//! connects only to an address the grant allows; anything else fails with
//! [`HttpError::Denied`], which becomes a `permission-denied` error the model is told.
//!
//! ```ignore
//! use airlock_plugin_sdk::http;
//!
//! let response = http::get("https://api.github.com/zen")?; // `?`: a refusal goes to the model
//! let text = response.text();
//! ```

use crate::ToolError;

/// Bytes of a response body a request reads unless told otherwise ([`Request::max_body`]).
pub const DEFAULT_MAX_BODY: usize = 8 << 20;

/// Why a request got no response.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HttpError {
    /// The host refused the destination: not granted, or an address that is not public
    /// and not named by the grant. The message says which.
    Denied(String),
    /// The URL is not `http://` or `https://` followed by a host.
    InvalidUrl(String),
    /// The request was sent, or tried, and failed (no such host, refused, timed out).
    Failed(String),
}

impl std::fmt::Display for HttpError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Denied(message) | Self::InvalidUrl(message) | Self::Failed(message) => f.write_str(message),
        }
    }
}

impl std::error::Error for HttpError {}

/// A failed request as the tool's error, so `http::get(url)?` tells the model why: refused
/// → `permission-denied`, a bad URL → `invalid-params`, a failure → `execution`.
impl From<HttpError> for ToolError {
    fn from(error: HttpError) -> Self {
        match error {
            HttpError::Denied(message) => Self::PermissionDenied(message),
            HttpError::InvalidUrl(message) => Self::InvalidParams(message),
            HttpError::Failed(message) => Self::Execution(message),
        }
    }
}

/// A response: its status, headers and (at most the request's cap of) its body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Response {
    pub status: u16,
    /// Header names in lower case, in the order the server sent them.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// Whether the body went on past the cap (the rest was not read).
    pub truncated: bool,
}

impl Response {
    /// The first value of header `name` (any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    /// The body as text (invalid UTF-8 replaced).
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }

    /// Whether the status is 2xx.
    pub fn is_success(&self) -> bool {
        (200..300).contains(&self.status)
    }
}

/// A request to build and [`Request::send`]; [`get`] is the short way.
#[derive(Debug, Clone)]
// A native build (the tool's own tests) sends nothing, so reads none of the fields.
#[cfg_attr(not(target_arch = "wasm32"), allow(dead_code))]
pub struct Request {
    method: String,
    url: String,
    headers: Vec<(String, String)>,
    body: Option<Vec<u8>>,
    max_body: usize,
}

impl Request {
    /// A request with `method` (`GET`, `POST`, …) for `url`.
    pub fn new(method: &str, url: impl Into<String>) -> Self {
        Self {
            method: method.to_string(),
            url: url.into(),
            headers: Vec::new(),
            body: None,
            max_body: DEFAULT_MAX_BODY,
        }
    }

    pub fn get(url: impl Into<String>) -> Self {
        Self::new("GET", url)
    }

    pub fn post(url: impl Into<String>, body: impl Into<Vec<u8>>) -> Self {
        Self::new("POST", url).body(body)
    }

    /// Adds a header (`authorization`, `content-type`, …).
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// The body to send.
    pub fn body(mut self, bytes: impl Into<Vec<u8>>) -> Self {
        self.body = Some(bytes.into());
        self
    }

    /// Reads at most `bytes` of the response body (default [`DEFAULT_MAX_BODY`]); the host
    /// caps it as well.
    pub fn max_body(mut self, bytes: usize) -> Self {
        self.max_body = bytes;
        self
    }

    /// Sends the request and reads the response.
    pub fn send(self) -> Result<Response, HttpError> {
        let url = Url::parse(&self.url)?;
        imp::send(&self, &url)
    }
}

/// GETs `url` (`http://` or `https://`), reading at most [`DEFAULT_MAX_BODY`] of the body.
pub fn get(url: &str) -> Result<Response, HttpError> {
    Request::get(url).send()
}

/// The parts of a URL `wasi:http` takes.
#[derive(Debug, PartialEq, Eq)]
struct Url<'a> {
    https: bool,
    authority: &'a str,
    /// The path and query, `/` at least; the fragment is dropped (it is never sent).
    path_and_query: String,
}

impl<'a> Url<'a> {
    fn parse(url: &'a str) -> Result<Self, HttpError> {
        let invalid = || HttpError::InvalidUrl(format!("`{url}` is not an http:// or https:// URL with a host"));
        let (scheme, rest) = url.split_once("://").ok_or_else(invalid)?;
        let https = if scheme.eq_ignore_ascii_case("https") {
            true
        } else if scheme.eq_ignore_ascii_case("http") {
            false
        } else {
            return Err(invalid());
        };
        let rest = rest.split('#').next().unwrap_or_default();
        let end = rest.find(['/', '?']).unwrap_or(rest.len());
        let (authority, tail) = rest.split_at(end);
        if authority.is_empty() || authority.contains(['@', ' ']) {
            return Err(invalid());
        }
        let path_and_query = if tail.starts_with('/') { tail.to_string() } else { format!("/{tail}") };
        Ok(Self { https, authority, path_and_query })
    }
}

#[cfg(target_arch = "wasm32")]
mod imp {
    use wasip2::http::outgoing_handler;
    use wasip2::http::types::{ErrorCode, Fields, Method, OutgoingBody, OutgoingRequest, Scheme};
    use wasip2::io::streams::StreamError;

    use super::{HttpError, Request, Response, Url};

    pub(super) fn send(request: &Request, url: &Url<'_>) -> Result<Response, HttpError> {
        let headers = Fields::new();
        for (name, value) in &request.headers {
            headers
                .append(name, value.as_bytes())
                .map_err(|e| HttpError::InvalidUrl(format!("the header `{name}` was refused: {e:?}")))?;
        }
        let outgoing = OutgoingRequest::new(headers);
        let method = match request.method.to_ascii_uppercase().as_str() {
            "GET" => Method::Get,
            "HEAD" => Method::Head,
            "POST" => Method::Post,
            "PUT" => Method::Put,
            "DELETE" => Method::Delete,
            "PATCH" => Method::Patch,
            "OPTIONS" => Method::Options,
            other => Method::Other(other.to_string()),
        };
        let refused = |what: &str| HttpError::InvalidUrl(format!("the {what} of `{}` was refused", request.url));
        outgoing.set_method(&method).map_err(|()| refused("method"))?;
        let scheme = if url.https { Scheme::Https } else { Scheme::Http };
        outgoing.set_scheme(Some(&scheme)).map_err(|()| refused("scheme"))?;
        outgoing.set_authority(Some(url.authority)).map_err(|()| refused("host"))?;
        outgoing.set_path_with_query(Some(&url.path_and_query)).map_err(|()| refused("path"))?;
        let body = outgoing.body().map_err(|()| failed("the request body was already taken"))?;
        let pending = outgoing_handler::handle(outgoing, None).map_err(|code| explain(&code))?;
        if let Some(bytes) = &request.body {
            let stream = body.write().map_err(|()| failed("the request body stream was already taken"))?;
            for chunk in bytes.chunks(4096) {
                stream
                    .blocking_write_and_flush(chunk)
                    .map_err(|e| failed(&format!("sending the body failed: {e:?}")))?;
            }
        }
        OutgoingBody::finish(body, None).map_err(|code| explain(&code))?;
        pending.subscribe().block();
        let response = match pending.get() {
            Some(Ok(Ok(response))) => response,
            Some(Ok(Err(code))) => return Err(explain(&code)),
            Some(Err(())) | None => return Err(failed("the response was lost")),
        };
        let status = response.status();
        let headers = response
            .headers()
            .entries()
            .into_iter()
            .map(|(name, value)| (name.to_ascii_lowercase(), String::from_utf8_lossy(&value).into_owned()))
            .collect();
        let incoming = response.consume().map_err(|()| failed("the response body was already taken"))?;
        let mut bytes = Vec::new();
        let mut truncated = false;
        {
            let stream = incoming.stream().map_err(|()| failed("the response body stream was already taken"))?;
            loop {
                let room = request.max_body - bytes.len();
                if room == 0 {
                    truncated = true;
                    break;
                }
                match stream.blocking_read((room as u64).min(64 << 10)) {
                    Ok(chunk) => bytes.extend_from_slice(&chunk),
                    Err(StreamError::Closed) => break,
                    Err(StreamError::LastOperationFailed(error)) => {
                        let detail = match wasip2::http::types::http_error_code(&error) {
                            Some(code) => explain(&code).to_string(),
                            None => error.to_debug_string(),
                        };
                        return Err(failed(&format!("reading the body failed after {} bytes: {detail}", bytes.len())));
                    }
                }
            }
        }
        drop(incoming);
        Ok(Response { status, headers, body: bytes, truncated })
    }

    fn failed(message: &str) -> HttpError {
        HttpError::Failed(message.to_string())
    }

    /// A `wasi:http` error code as an [`HttpError`] in words, for the model.
    fn explain(code: &ErrorCode) -> HttpError {
        match code {
            ErrorCode::HttpRequestDenied => {
                HttpError::Denied("the request was denied: no network grant allows this destination".into())
            }
            ErrorCode::DestinationIpProhibited => HttpError::Denied(
                "the host is at an address that is not public (loopback, private, link-local), which is reached only when the user's grant names that address".into(),
            ),
            ErrorCode::DnsError(_) | ErrorCode::DestinationNotFound => failed("the host name could not be resolved"),
            ErrorCode::ConnectionRefused => failed("the connection was refused"),
            ErrorCode::ConnectionTimeout | ErrorCode::DnsTimeout => failed("connecting timed out"),
            ErrorCode::ConnectionReadTimeout | ErrorCode::HttpResponseTimeout => {
                failed("the server took too long to answer")
            }
            ErrorCode::HttpResponseBodySize(_) => failed("the response is larger than the host's cap"),
            other => failed(&format!("the request failed: {other:?}")),
        }
    }
}

/// Outside a component (a native `cargo test` of the tool's logic) there is no host to send
/// through: every request fails, saying so.
#[cfg(not(target_arch = "wasm32"))]
mod imp {
    use super::{HttpError, Request, Response, Url};

    pub(super) fn send(request: &Request, _url: &Url<'_>) -> Result<Response, HttpError> {
        Err(HttpError::Failed(format!(
            "{} was not sent: HTTP goes through wasi:http, inside a component only",
            request.url
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_split_into_what_wasi_http_takes() {
        let url = Url::parse("https://api.example.com:8443/v1/items?q=a#top").unwrap();
        assert_eq!(url, Url { https: true, authority: "api.example.com:8443", path_and_query: "/v1/items?q=a".into() });
        let url = Url::parse("HTTP://127.0.0.1:8080").unwrap();
        assert_eq!(url, Url { https: false, authority: "127.0.0.1:8080", path_and_query: "/".into() });
        let url = Url::parse("http://h?x=1").unwrap();
        assert_eq!(url.path_and_query, "/?x=1");
    }

    #[test]
    fn what_is_not_an_http_url_is_invalid_params() {
        for bad in ["ftp://example.com/", "example.com/x", "http:///path", "https://user@example.com/", ""] {
            let error = Url::parse(bad).unwrap_err();
            assert!(matches!(error, HttpError::InvalidUrl(_)), "{bad}: {error:?}");
            assert!(matches!(ToolError::from(error), ToolError::InvalidParams(_)), "{bad}");
        }
        assert!(matches!(ToolError::from(HttpError::Denied("no".into())), ToolError::PermissionDenied(_)));
    }
}
