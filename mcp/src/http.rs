//! Starting a streamable-HTTP server: rmcp's reqwest transport to the one configured URL,
//! with the bearer token and the configured headers on every request, the handshake within
//! the start-up timeout. The connection is airlock's own (not sandboxed): it goes only to
//! that URL, and rmcp's client follows a redirect only to the same origin (307/308), so
//! the token and headers never reach another host.

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Duration;

use http::{HeaderName, HeaderValue};
use rmcp::ServiceExt;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig;

use crate::McpError;
use crate::client::{Connection, Handler};
use crate::health::Health;

/// How to reach one HTTP server, as the engine built it from the server's config.
#[derive(Clone)]
pub struct HttpLaunch {
    /// The server's endpoint (`https://…/mcp`).
    pub url: String,
    /// Headers sent with every request (`headers` of the config).
    pub headers: Vec<(String, String)>,
    /// The bearer token, sent as `Authorization: Bearer …` (read from `bearer_token_env`).
    pub bearer_token: Option<String>,
    /// How long the handshake and the first tool list may take.
    pub startup_timeout: Duration,
    /// Longest message (JSON body or SSE event) the server may send.
    pub max_message: usize,
}

impl std::fmt::Debug for HttpLaunch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // The token and the header values may be secrets: never printed.
        let headers: Vec<&str> = self.headers.iter().map(|(name, _)| name.as_str()).collect();
        f.debug_struct("HttpLaunch")
            .field("url", &self.url)
            .field("headers", &headers)
            .field("bearer_token", &self.bearer_token.as_ref().map(|_| "…"))
            .finish_non_exhaustive()
    }
}

/// Connects to the server of `launch` and completes the MCP handshake.
pub async fn start_http(launch: HttpLaunch) -> Result<Connection, McpError> {
    let HttpLaunch { url, headers, bearer_token, startup_timeout, max_message } = launch;
    let mut custom = HashMap::new();
    for (name, value) in headers {
        let header = HeaderName::from_bytes(name.as_bytes())
            .map_err(|_| McpError::Spawn(format!("`{name}` is not a valid header name")))?;
        let value = HeaderValue::from_str(&value)
            .map_err(|_| McpError::Spawn(format!("the value of the header `{name}` is not valid in a header")))?;
        custom.insert(header, value);
    }
    let mut config = StreamableHttpClientTransportConfig::with_uri(url)
        .custom_headers(custom)
        .max_json_response_size(max_message)
        .max_sse_event_size(max_message);
    if let Some(token) = bearer_token {
        config = config.auth_header(token);
    }
    let transport = StreamableHttpClientTransport::from_config(config);
    let handler = Handler::default();
    let secs = startup_timeout.as_secs();
    match tokio::time::timeout(startup_timeout, handler.serve(transport)).await {
        Ok(Ok(service)) => Ok(Connection::new(service, Arc::new(Health::default()), None, startup_timeout)),
        Ok(Err(error)) => Err(McpError::Stopped(handshake_failure(&error.to_string()))),
        Err(_) => Err(McpError::StartupTimeout { secs, stderr: String::new() }),
    }
}

/// The reason for a failed handshake, in words a person can act on.
fn handshake_failure(error: &str) -> String {
    // rmcp names a refusal `Auth required` (with a challenge) or `HTTP 401 …` (without).
    if error.contains("Auth required") || error.contains("HTTP 401") {
        "the server refused the credentials (HTTP 401): check the token in `bearer_token_env`".to_owned()
    } else if error.contains("Insufficient scope") || error.contains("HTTP 403") {
        format!("the server refused the request (HTTP 403): {error}")
    } else {
        format!("the handshake failed: {error}")
    }
}

/// Whether `url` is plain `http://` to a host other than this machine (what it sends
/// travels in clear). A URL that does not parse counts as in clear.
pub fn in_clear(url: &str) -> bool {
    let Ok(uri) = url.parse::<http::Uri>() else { return true };
    if uri.scheme_str() != Some("http") {
        return false;
    }
    let host = uri.host().unwrap_or_default().trim_start_matches('[').trim_end_matches(']');
    let loopback =
        host.eq_ignore_ascii_case("localhost") || host.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback());
    !loopback
}

#[cfg(test)]
#[path = "http_tests.rs"]
mod tests;
