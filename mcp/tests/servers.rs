//! The MCP client against real servers: this test binary is also the sandbox helper (as
//! airlock is) and the fixture server (an rmcp stdio server), so every server here runs
//! through the real OS sandbox, started exactly as airlock starts one.
//!
//! The HTTP tests ([`http`]) serve the same fixture tools over streamable HTTP in-process.
//!
//! `servers fixture MODE [MARKS]`: the fixture server. MODE `normal` serves the tools below;
//! `crash` writes to stderr and exits at once; `hang` never answers; `flood` writes an
//! endless line.

#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout, clippy::print_stderr)]

use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use airlock_mcp::{Connection, Launch, McpError, Part, start_stdio};
use airlock_sandbox::Spec;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ErrorData, ListToolsResult,
    PaginatedRequestParams, ProgressNotificationParam, Resource, ResourceContents, ServerCapabilities, ServerConfig,
    Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ServerHandler, ServiceExt};

mod http;

fn main() -> ExitCode {
    if let Some(code) = airlock_sandbox::run_helper_if_asked() {
        return code;
    }
    let args: Vec<String> = std::env::args().collect();
    if args.get(1).map(String::as_str) == Some("fixture") {
        return fixture(&args[2], args.get(3).map(PathBuf::from));
    }
    let filter = args.iter().skip(1).find(|a| !a.starts_with('-')).cloned().unwrap_or_default();
    let tests: &[(&str, fn())] = &[
        ("lists_every_page_of_tools_and_calls_one", lists_every_page_of_tools_and_calls_one),
        (
            "http_lists_tools_calls_one_and_cancels_a_dropped_call",
            http::http_lists_tools_calls_one_and_cancels_a_dropped_call,
        ),
        ("http_a_wrong_token_is_a_start_failure", http::http_a_wrong_token_is_a_start_failure),
        (
            "http_a_server_that_is_not_there_is_a_start_failure",
            http::http_a_server_that_is_not_there_is_a_start_failure,
        ),
        ("http_a_redirect_to_another_origin_is_not_followed", http::http_a_redirect_to_another_origin_is_not_followed),
        ("a_read_outside_the_grant_gets_the_os_refusal", a_read_outside_the_grant_gets_the_os_refusal),
        ("results_carry_media_resources_links_and_errors", results_carry_media_resources_links_and_errors),
        (
            "progress_is_live_and_a_dropped_call_is_cancelled_at_the_server",
            progress_is_live_and_a_dropped_call_is_cancelled_at_the_server,
        ),
        ("a_call_past_its_timeout_fails_and_is_cancelled", a_call_past_its_timeout_fails_and_is_cancelled),
        (
            "a_server_that_exits_at_start_is_reported_with_its_stderr",
            a_server_that_exits_at_start_is_reported_with_its_stderr,
        ),
        ("a_server_that_hangs_at_start_times_out", a_server_that_hangs_at_start_times_out),
        ("a_server_that_floods_is_cut_off", a_server_that_floods_is_cut_off),
        (
            "a_crash_during_a_call_is_reported_once_with_its_cause",
            a_crash_during_a_call_is_reported_once_with_its_cause,
        ),
    ];
    let mut failed = 0;
    for (name, test) in tests.iter().filter(|(name, _)| name.contains(&filter)) {
        let outcome = std::panic::catch_unwind(test);
        println!("test {name} ... {}", if outcome.is_ok() { "ok" } else { "FAILED" });
        failed += usize::from(outcome.is_err());
    }
    println!("test result: {} failed", failed);
    if failed == 0 { ExitCode::SUCCESS } else { ExitCode::FAILURE }
}

// ---- the fixture server ----

fn fixture(mode: &str, marks: Option<PathBuf>) -> ExitCode {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    match mode {
        "crash" => {
            eprintln!("fixture: boom, the configuration is missing");
            ExitCode::from(3)
        }
        "hang" => {
            std::thread::sleep(Duration::from_secs(3600));
            ExitCode::SUCCESS
        }
        "flood" => {
            use std::io::Write;
            let chunk = vec![b'x'; 1 << 16];
            let mut out = std::io::stdout().lock();
            while out.write_all(&chunk).is_ok() {}
            ExitCode::SUCCESS
        }
        _ => runtime.block_on(async {
            let service = Fixture { marks }.serve(rmcp::transport::stdio()).await.unwrap();
            let _ = service.waiting().await;
            ExitCode::SUCCESS
        }),
    }
}

#[derive(Clone)]
struct Fixture {
    marks: Option<PathBuf>,
}

fn tool(name: &str, description: &str) -> Tool {
    let schema =
        serde_json::json!({"type": "object", "properties": {"text": {"type": "string"}, "path": {"type": "string"}}});
    Tool::new(name.to_owned(), description.to_owned(), std::sync::Arc::new(schema.as_object().unwrap().clone()))
}

impl ServerHandler for Fixture {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        // Two pages, so the client must follow the cursor.
        let second = request.and_then(|r| r.cursor).is_some();
        Ok(if second {
            ListToolsResult {
                tools: vec![
                    tool("slow", "Waits until cancelled."),
                    tool("mixed", "Returns every kind of content."),
                    tool("crash", "Exits."),
                ],
                ..Default::default()
            }
        } else {
            ListToolsResult {
                tools: vec![tool("echo", "Echoes its text."), tool("read", "Reads a file.")],
                next_cursor: Some("page-2".into()),
                ..Default::default()
            }
        })
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arg = |key: &str| {
            request.arguments.as_ref().and_then(|a| a.get(key)).and_then(|v| v.as_str()).unwrap_or_default().to_owned()
        };
        let result = match request.name.as_ref() {
            "echo" => CallToolResult::success(vec![ContentBlock::text(format!("echo: {}", arg("text")))]),
            "read" => match std::fs::read_to_string(arg("path")) {
                Ok(text) => CallToolResult::success(vec![ContentBlock::text(text)]),
                Err(error) => CallToolResult::error(vec![ContentBlock::text(format!("cannot read: {error}"))]),
            },
            "mixed" => CallToolResult::success(vec![
                ContentBlock::text("some text"),
                ContentBlock::image("aGVsbG8=", "image/png"),
                ContentBlock::resource(ResourceContents::text("inside", "file:///doc.txt")),
                ContentBlock::resource_link(Resource::new("https://example.com/x", "x")),
            ]),
            "crash" => std::process::exit(7),
            "slow" => {
                if let Some(token) = context.meta.get_progress_token() {
                    for step in 1..=2 {
                        let note = ProgressNotificationParam::new(token.clone(), f64::from(step))
                            .with_total(10.0)
                            .with_message(format!("step {step}"));
                        let _ = context.peer.notify_progress(note).await;
                    }
                }
                context.ct.cancelled().await;
                if let Some(marks) = &self.marks {
                    let _ = std::fs::write(marks.join("cancelled"), "yes");
                }
                CallToolResult::error(vec![ContentBlock::text("cancelled")])
            }
            _ => CallToolResult::error(vec![ContentBlock::text("no such tool")]),
        };
        Ok(result.into())
    }
}

// ---- the tests ----

struct Place {
    _dir: tempfile::TempDir,
    workspace: PathBuf,
    outside: PathBuf,
    marks: PathBuf,
}

fn place() -> Place {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let (workspace, outside, marks) = (root.join("workspace"), root.join("outside"), root.join("marks"));
    for folder in [&workspace, &outside, &marks] {
        std::fs::create_dir(folder).unwrap();
    }
    std::fs::write(workspace.join("inside.txt"), "the workspace's file").unwrap();
    std::fs::write(outside.join("secret.txt"), "a secret").unwrap();
    Place { _dir: dir, workspace, outside, marks }
}

/// A launch of the fixture in `mode`: it reads the workspace (and its own executable's
/// folder), writes only `marks`, no network.
fn launch(place: &Place, mode: &str, startup: Duration) -> Launch {
    let exe = std::env::current_exe().unwrap().canonicalize().unwrap();
    let spec = Spec {
        argv: vec![
            exe.to_string_lossy().into_owned(),
            "fixture".into(),
            mode.into(),
            place.marks.to_string_lossy().into_owned(),
        ],
        cwd: place.workspace.clone(),
        read_only: vec![place.workspace.clone(), exe.parent().unwrap().to_path_buf()],
        read_write: vec![place.marks.clone()],
        ..Spec::default()
    };
    Launch { spec, base: None, helper: exe, startup_timeout: startup, max_message: 1 << 20 }
}

fn run<F: std::future::Future>(future: F) -> F::Output {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap().block_on(future)
}

async fn started(place: &Place) -> Connection {
    start_stdio(launch(place, "normal", Duration::from_secs(30))).await.expect("the fixture starts")
}

fn args(pairs: &[(&str, &str)]) -> serde_json::Map<String, serde_json::Value> {
    pairs.iter().map(|(k, v)| ((*k).to_owned(), serde_json::Value::String((*v).to_owned()))).collect()
}

const CALL: Duration = Duration::from_secs(30);

fn lists_every_page_of_tools_and_calls_one() {
    let place = place();
    run(async {
        let server = started(&place).await;
        let tools = server.tools().await.expect("tools");
        let names: Vec<&str> = tools.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["echo", "read", "slow", "mixed", "crash"]);
        assert_eq!(tools[0].description, "Echoes its text.");
        assert_eq!(tools[0].input_schema["type"], "object");
        let outcome = server.call("echo", args(&[("text", "hi")]), CALL, None).await.expect("call");
        assert_eq!(outcome.parts, [Part::Text("echo: hi".into())]);
        assert!(!outcome.is_error);
    });
}

fn a_read_outside_the_grant_gets_the_os_refusal() {
    if airlock_sandbox::support().landlock_abi.is_none() {
        println!("skipped: this kernel has no Landlock");
        return;
    }
    let place = place();
    run(async {
        let server = started(&place).await;
        let inside = place.workspace.join("inside.txt").to_string_lossy().into_owned();
        let read = server.call("read", args(&[("path", &inside)]), CALL, None).await.expect("call");
        assert_eq!(read.parts, [Part::Text("the workspace's file".into())]);
        let secret = place.outside.join("secret.txt").to_string_lossy().into_owned();
        let refused = server.call("read", args(&[("path", &secret)]), CALL, None).await.expect("call");
        assert!(refused.is_error, "{refused:?}");
        let [Part::Text(text)] = refused.parts.as_slice() else { panic!("{refused:?}") };
        assert!(text.contains("Permission denied"), "not the OS refusal: {text}");
        assert!(!text.contains("a secret"));
    });
}

fn results_carry_media_resources_links_and_errors() {
    let place = place();
    run(async {
        let server = started(&place).await;
        let outcome = server.call("mixed", args(&[]), CALL, None).await.expect("call");
        assert_eq!(
            outcome.parts,
            [
                Part::Text("some text".into()),
                Part::Media { mime_type: "image/png".into(), data: b"hello".to_vec() },
                Part::Resource { uri: "file:///doc.txt".into(), text: "inside".into() },
                Part::Link { uri: "https://example.com/x".into(), name: "x".into(), mime_type: None },
            ]
        );
        let failed = server.call("nothing", args(&[]), CALL, None).await.expect("call");
        assert!(failed.is_error);
    });
}

fn progress_is_live_and_a_dropped_call_is_cancelled_at_the_server() {
    let place = place();
    run(async {
        let server = started(&place).await;
        let (live, mut lines) = tokio::sync::mpsc::unbounded_channel();
        {
            let call = server.call("slow", args(&[]), CALL, Some(live));
            tokio::pin!(call);
            let mut seen = Vec::new();
            while seen.len() < 2 {
                tokio::select! {
                    line = lines.recv() => seen.push(line.expect("a progress line")),
                    done = &mut call => panic!("the slow call ended: {done:?}"),
                }
            }
            assert_eq!(seen, ["step 1 (1/10)\n", "step 2 (2/10)\n"]);
        }
        // The call's future is gone: the server was told, and its tool ended.
        wait_for(&place.marks.join("cancelled")).await;
        // The connection still works.
        let outcome = server.call("echo", args(&[("text", "after")]), CALL, None).await.expect("call");
        assert_eq!(outcome.parts, [Part::Text("echo: after".into())]);
    });
}

fn a_call_past_its_timeout_fails_and_is_cancelled() {
    let place = place();
    run(async {
        let server = started(&place).await;
        let error = server.call("slow", args(&[]), Duration::from_millis(500), None).await.expect_err("timed out");
        assert_eq!(error, McpError::CallTimeout { secs: 0 });
        wait_for(&place.marks.join("cancelled")).await;
        assert_eq!(server.failure(), None, "a slow call is not a broken server");
    });
}

fn a_server_that_exits_at_start_is_reported_with_its_stderr() {
    let place = place();
    run(async {
        let error = start_stdio(launch(&place, "crash", Duration::from_secs(30))).await.expect_err("it crashed");
        let McpError::Stopped(message) = &error else { panic!("{error:?}") };
        assert!(message.contains("exit code 3"), "{message}");
        assert!(message.contains("the configuration is missing"), "{message}");
    });
}

fn a_server_that_hangs_at_start_times_out() {
    let place = place();
    run(async {
        let started = std::time::Instant::now();
        let error = start_stdio(launch(&place, "hang", Duration::from_secs(1))).await.expect_err("it hangs");
        assert!(matches!(error, McpError::StartupTimeout { secs: 1, .. }), "{error:?}");
        assert!(started.elapsed() < Duration::from_secs(20));
    });
}

fn a_server_that_floods_is_cut_off() {
    let place = place();
    run(async {
        let error = start_stdio(launch(&place, "flood", Duration::from_secs(30))).await.expect_err("it floods");
        let McpError::Stopped(message) = &error else { panic!("{error:?}") };
        assert!(message.contains("longer than 1048576 bytes (a flood)"), "{message}");
    });
}

fn a_crash_during_a_call_is_reported_once_with_its_cause() {
    let place = place();
    run(async {
        let server = started(&place).await;
        let error = server.call("crash", args(&[]), CALL, None).await.expect_err("it crashed");
        let McpError::Stopped(message) = &error else { panic!("{error:?}") };
        // The pipe closing and the exit race; either way the reason kept is one of them, once.
        assert!(message.contains("exit") || message.contains("closed"), "{message}");
        tokio::time::sleep(Duration::from_millis(300)).await;
        let failure = server.failure().expect("a failure");
        let again = server.call("echo", args(&[]), CALL, None).await.expect_err("it is gone");
        assert!(again.to_string().contains(&failure), "{again} / {failure}");
    });
}

async fn wait_for(path: &Path) {
    for _ in 0..200 {
        if path.exists() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("{} never appeared", path.display());
}
