//! The MCP client against a streamable-HTTP server: the fixture's tools served by rmcp's
//! HTTP service on 127.0.0.1 behind a bearer-token check (401 otherwise), as a remote
//! server would be, reached through `start_http`.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use airlock_mcp::{HttpLaunch, McpError, Part, start_http};
use axum::extract::{Request, State};
use axum::http::StatusCode;
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use super::{CALL, Fixture, Place, args, place, run};

const TOKEN: &str = "the-right-token";

/// What the server saw of each request's `X-Team` header.
type Seen = Arc<Mutex<Vec<String>>>;

async fn guard(State(seen): State<Seen>, request: Request, next: Next) -> Response {
    // Read in a block, before any await: a borrowed request is not `Send`.
    let (team, authorization) = {
        let header = |name: &str| request.headers().get(name).and_then(|v| v.to_str().ok()).map(str::to_owned);
        (header("x-team").unwrap_or_default(), header("authorization"))
    };
    seen.lock().unwrap().push(team);
    if authorization.as_deref() != Some(&format!("Bearer {TOKEN}")) {
        return StatusCode::UNAUTHORIZED.into_response();
    }
    next.run(request).await
}

/// Serves the fixture at `http://127.0.0.1:PORT/mcp` on the current runtime.
async fn serve(place: &Place, seen: Seen) -> String {
    let marks = Some(place.marks.clone());
    let factory = move || Ok(Fixture { marks: marks.clone() });
    let service: StreamableHttpService<Fixture, LocalSessionManager> =
        StreamableHttpService::new(factory, Arc::default(), StreamableHttpServerConfig::default());
    let app = axum::Router::new().nest_service("/mcp", service).layer(middleware::from_fn_with_state(seen, guard));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move { axum::serve(listener, app).await });
    format!("http://{addr}/mcp")
}

fn launch(url: &str, token: &str) -> HttpLaunch {
    HttpLaunch {
        url: url.to_owned(),
        headers: vec![("X-Team".into(), "infra".into())],
        bearer_token: Some(token.to_owned()),
        startup_timeout: Duration::from_secs(30),
        max_message: 1 << 20,
    }
}

pub fn http_lists_tools_calls_one_and_cancels_a_dropped_call() {
    let place = place();
    run(async {
        let seen = Seen::default();
        let url = serve(&place, seen.clone()).await;
        let server = start_http(launch(&url, TOKEN)).await.expect("the HTTP server starts");
        let tools = server.tools().await.expect("tools");
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["echo", "read", "slow", "mixed", "crash"]);
        let outcome = server.call("echo", args(&[("text", "hi")]), CALL, None).await.expect("call");
        assert_eq!(outcome.parts, [Part::Text("echo: hi".into())]);
        let seen_teams = seen.lock().unwrap().clone();
        assert!(!seen_teams.is_empty() && seen_teams.iter().all(|team| team == "infra"), "{seen_teams:?}");

        let (live, mut lines) = tokio::sync::mpsc::unbounded_channel();
        {
            let call = server.call("slow", args(&[]), CALL, Some(live));
            tokio::pin!(call);
            let mut got = Vec::new();
            while got.len() < 2 {
                tokio::select! {
                    Some(line) = lines.recv() => got.push(line),
                    _ = &mut call => panic!("the slow call finished"),
                }
            }
            // Over HTTP the two notifications may be handed over in either order.
            got.sort();
            assert_eq!(got, ["step 1 (1/10)\n", "step 2 (2/10)\n"]);
        }
        let cancelled = place.marks.join("cancelled");
        for _ in 0..100 {
            if cancelled.exists() {
                break;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert!(cancelled.exists(), "the server did not learn of the cancellation");

        let timed_out = server.call("slow", args(&[]), Duration::from_millis(300), None).await;
        assert_eq!(timed_out, Err(McpError::CallTimeout { secs: 0 }));
        assert!(server.failure().is_none(), "{:?}", server.failure());
    });
}

pub fn http_a_wrong_token_is_a_start_failure() {
    let place = place();
    run(async {
        let url = serve(&place, Seen::default()).await;
        let error = start_http(launch(&url, "a-wrong-token")).await.expect_err("refused");
        let McpError::Stopped(reason) = &error else { panic!("{error:?}") };
        assert!(reason.contains("HTTP 401") && reason.contains("bearer_token_env"), "{reason}");
    });
}

pub fn http_a_server_that_is_not_there_is_a_start_failure() {
    run(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        drop(listener);
        let error = start_http(launch(&format!("http://{addr}/mcp"), TOKEN)).await.expect_err("no server");
        assert!(matches!(error, McpError::Stopped(_)), "{error:?}");
    });
}

/// A server whose endpoint redirects (307, which keeps the body) to another origin: the
/// client does not follow it, so the other origin never sees the token or the headers.
pub fn http_a_redirect_to_another_origin_is_not_followed() {
    run(async {
        let seen = Seen::default();
        let other = axum::Router::new()
            .fallback(|| async { StatusCode::OK })
            .layer(middleware::from_fn_with_state(seen.clone(), guard));
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let target = format!("http://{}/mcp", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, other).await });
        let redirecting = axum::Router::new().fallback(move || {
            let target = target.clone();
            async move { (StatusCode::TEMPORARY_REDIRECT, [(axum::http::header::LOCATION, target)]) }
        });
        // `localhost` and `127.0.0.1` are different origins.
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://localhost:{}/mcp", listener.local_addr().unwrap().port());
        tokio::spawn(async move { axum::serve(listener, redirecting).await });
        let error = start_http(launch(&url, TOKEN)).await.expect_err("not followed");
        let McpError::Stopped(reason) = &error else { panic!("{error:?}") };
        // The redirect itself came back (so the first server was reached, not refused).
        assert!(reason.contains("307"), "{reason}");
        assert!(seen.lock().unwrap().is_empty(), "the other origin was reached");
    });
}
