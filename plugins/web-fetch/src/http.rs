//! One GET through `wasi:http`. Redirects are not followed here: the caller sends a new
//! request for each hop, which the host checks again.

use wasip2::http::outgoing_handler;
use wasip2::http::types::{ErrorCode, Fields, OutgoingRequest, RequestOptions, Scheme};
use wasip2::io::streams::StreamError;

use crate::url::Url;

/// Nanoseconds in a second, for `wasi:clocks` durations.
const SECOND: u64 = 1_000_000_000;

/// A response that is not a redirect.
pub struct Page {
    pub status: u16,
    /// The `Content-Type` header, or empty.
    pub content_type: String,
    /// At most the cap's bytes of the body.
    pub body: Vec<u8>,
    /// Whether the body went on past the cap.
    pub truncated: bool,
}

pub enum Outcome {
    Redirect(String),
    Page(Page),
}

/// GETs `url`, reading at most `cap` bytes of the body.
pub fn get(url: &Url, cap: usize) -> Result<Outcome, String> {
    let headers = Fields::new();
    let field =
        |name: &str, value: &str| headers.append(name, value.as_bytes()).map_err(|e| format!("header {name}: {e:?}"));
    field("user-agent", concat!("airlock-web-fetch/", env!("CARGO_PKG_VERSION")))?;
    field("accept", "text/html,application/xhtml+xml,text/markdown,text/plain;q=0.9,application/json;q=0.8,*/*;q=0.5")?;
    let request = OutgoingRequest::new(headers);
    let scheme = if url.scheme() == "https" { Scheme::Https } else { Scheme::Http };
    request.set_scheme(Some(&scheme)).map_err(|()| "the scheme was refused".to_string())?;
    let authority = url.authority();
    request.set_authority(Some(&authority)).map_err(|()| format!("`{authority}` is not a valid host"))?;
    request.set_path_with_query(Some(url.path_and_query())).map_err(|()| "the path was refused".to_string())?;
    let options = RequestOptions::new();
    // The host bounds each of these by what is left of the call's time as well.
    let _ = options.set_connect_timeout(Some(15 * SECOND));
    let _ = options.set_first_byte_timeout(Some(30 * SECOND));
    let _ = options.set_between_bytes_timeout(Some(30 * SECOND));
    let pending = outgoing_handler::handle(request, Some(options)).map_err(|code| explain(&code))?;
    pending.subscribe().block();
    let response = match pending.get() {
        Some(Ok(Ok(response))) => response,
        Some(Ok(Err(code))) => return Err(explain(&code)),
        Some(Err(())) | None => return Err("the response was lost".into()),
    };
    let status = response.status();
    let header = |name: &str| {
        response
            .headers()
            .get(name)
            .first()
            .map(|value| String::from_utf8_lossy(value).into_owned())
            .unwrap_or_default()
    };
    if matches!(status, 301 | 302 | 303 | 307 | 308) {
        let location = header("location");
        if !location.is_empty() {
            return Ok(Outcome::Redirect(location));
        }
    }
    let content_type = header("content-type");
    let body = response.consume().map_err(|()| "the body was already taken".to_string())?;
    let mut bytes = Vec::new();
    let mut truncated = false;
    {
        let stream = body.stream().map_err(|()| "the body stream was already taken".to_string())?;
        loop {
            let room = cap - bytes.len();
            if room == 0 {
                truncated = true;
                break;
            }
            match stream.blocking_read((room as u64).min(64 << 10)) {
                Ok(chunk) => bytes.extend_from_slice(&chunk),
                Err(StreamError::Closed) => break,
                Err(StreamError::LastOperationFailed(error)) => {
                    let detail = match wasip2::http::types::http_error_code(&error) {
                        Some(code) => explain(&code),
                        None => error.to_debug_string(),
                    };
                    return Err(format!("reading the page failed after {} bytes: {detail}", bytes.len()));
                }
            }
        }
    }
    // Past the cap the body is dropped unread: the connection closes.
    drop(body);
    Ok(Outcome::Page(Page { status, content_type, body: bytes, truncated }))
}

/// A `wasi:http` error code in words, for the model.
fn explain(code: &ErrorCode) -> String {
    match code {
        ErrorCode::HttpRequestDenied => "the request was denied: no network grant allows this destination".into(),
        ErrorCode::DestinationIpProhibited => {
            "the host is at an address that is not public (loopback, private, link-local or metadata), which is never reached unless the user granted that address".into()
        }
        ErrorCode::DnsError(_) | ErrorCode::DestinationNotFound => "the host name could not be resolved".into(),
        ErrorCode::DnsTimeout => "resolving the host name timed out".into(),
        ErrorCode::ConnectionRefused => "the connection was refused".into(),
        ErrorCode::ConnectionTimeout => "connecting timed out".into(),
        ErrorCode::ConnectionReadTimeout | ErrorCode::HttpResponseTimeout => "the server took too long to answer".into(),
        ErrorCode::HttpResponseBodySize(_) => "the page is larger than the host's response cap".into(),
        ErrorCode::TlsCertificateError | ErrorCode::TlsProtocolError | ErrorCode::TlsAlertReceived(_) => {
            format!("the TLS connection failed ({code:?})")
        }
        other => format!("{other:?}"),
    }
}
