//! `airlock mcp serve --http`: the MCP server over streamable HTTP on a loopback address.
//! rmcp's [`StreamableHttpService`] serves the protocol at `/mcp`; a layer in front of it
//! refuses, before anything else runs, a request whose `Host` is not loopback (403: DNS
//! rebinding), whose `Origin` is present and not a loopback origin (403: a web page), or
//! that lacks `Authorization: Bearer <token>` (401: another local user or program).
//!
//! Invariants: the token is compared in constant time; each MCP session (and each
//! stateless request of the 2026-07-28 protocol) gets its own engine session from
//! [`Start`], so one client's "always" answers and policy state never reach another's.

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use subtle::ConstantTimeEq;
use tokio::sync::mpsc;

use super::{Options, Parking, Server};
use crate::ExitCode;
use airlock_door::{Output, Session};

/// Starts a fresh engine session for a new MCP session.
pub type Start = Arc<dyn Fn() -> Result<(Session, mpsc::UnboundedReceiver<Output>), String> + Send + Sync>;

/// Whether `host` (an IP literal or a name) is loopback: `127.0.0.0/8`, `::1`, `localhost`.
pub fn is_loopback_host(host: &str) -> bool {
    let host = host.trim_start_matches('[').trim_end_matches(']');
    if host.eq_ignore_ascii_case("localhost") {
        return true;
    }
    host.parse::<std::net::IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// The host of an HTTP `Host` header value (`127.0.0.1:8080`, `[::1]:80`, `localhost`).
fn authority_host(authority: &str) -> &str {
    if let Some(rest) = authority.strip_prefix('[') {
        return rest.split(']').next().unwrap_or_default();
    }
    authority.rsplit_once(':').map_or(authority, |(host, _port)| host)
}

/// Whether an `Origin` header names a loopback origin over http or https.
fn loopback_origin(origin: &str) -> bool {
    let Some(rest) = origin.strip_prefix("http://").or_else(|| origin.strip_prefix("https://")) else {
        return false;
    };
    // An origin is scheme://host[:port], nothing after.
    !rest.contains('/') && !rest.contains('@') && is_loopback_host(authority_host(rest))
}

/// Why a request is refused before it reaches the MCP service, if it is.
fn refusal(headers: &HeaderMap, token: &str) -> Option<(StatusCode, &'static str)> {
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    if !host.is_some_and(|host| is_loopback_host(authority_host(host))) {
        return Some((StatusCode::FORBIDDEN, "airlock mcp serve answers loopback hosts only"));
    }
    if let Some(origin) = headers.get(header::ORIGIN)
        && !origin.to_str().is_ok_and(loopback_origin)
    {
        return Some((StatusCode::FORBIDDEN, "airlock mcp serve refuses requests from other origins"));
    }
    let offered = headers
        .get(header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "))
        .unwrap_or_default();
    if !bool::from(offered.as_bytes().ct_eq(token.as_bytes())) {
        return Some((StatusCode::UNAUTHORIZED, "airlock mcp serve needs `Authorization: Bearer <token>`"));
    }
    None
}

async fn guard(State(token): State<Arc<str>>, request: Request, next: Next) -> Response {
    match refusal(request.headers(), &token) {
        Some((status, why)) => {
            let mut response = (status, why).into_response();
            if status == StatusCode::UNAUTHORIZED {
                response.headers_mut().insert(header::WWW_AUTHENTICATE, header::HeaderValue::from_static("Bearer"));
            }
            response
        }
        None => next.run(request).await,
    }
}

/// Serves MCP at `/mcp` on `listener` (bound to a loopback address by the caller) until
/// Ctrl-C or SIGTERM.
pub async fn serve(listener: tokio::net::TcpListener, token: String, start: Start, options: Options) -> ExitCode {
    let parked = Parking::default();
    let factory = move || {
        let (session, outputs) = start().map_err(std::io::Error::other)?;
        Ok(Server::new(session, outputs, options, parked.clone()))
    };
    let config = StreamableHttpServerConfig::default();
    // Ends every MCP session (their open event streams) when the server stops, so the
    // graceful shutdown does not wait on a client that keeps a stream open.
    let sessions = config.cancellation_token.clone();
    let service: StreamableHttpService<Server, LocalSessionManager> =
        StreamableHttpService::new(factory, Arc::default(), config);
    let app = axum::Router::new()
        .nest_service("/mcp", service)
        .layer(middleware::from_fn_with_state(Arc::<str>::from(token), guard));
    let stop = async move {
        stop_signal().await;
        sessions.cancel();
    };
    let stopped = axum::serve(listener, app.into_make_service()).with_graceful_shutdown(stop).await;
    match stopped {
        Ok(()) => ExitCode::Success,
        Err(error) => {
            tracing::warn!("the MCP HTTP server stopped: {error}");
            ExitCode::Failure
        }
    }
}

async fn stop_signal() {
    use tokio::signal::unix::{SignalKind, signal};
    match signal(SignalKind::terminate()) {
        Ok(mut terminate) => {
            tokio::select! {
                _ = tokio::signal::ctrl_c() => {}
                _ = terminate.recv() => {}
            }
        }
        Err(_) => {
            let _ = tokio::signal::ctrl_c().await;
        }
    }
}

#[cfg(test)]
#[path = "http_tests.rs"]
mod tests;
