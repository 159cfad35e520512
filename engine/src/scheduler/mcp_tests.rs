//! MCP tools through the scheduler: a real server process (a small JSON-RPC server in
//! Python, speaking MCP over stdio) started by the session's hub, its checked tools offered,
//! its calls judged, asked about, run and capped. The helper here runs the server without
//! the OS sandbox: the sandbox's own refusals are proven by `airlock-mcp`'s tests (and the
//! end-to-end tests of the real binary).

use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::json;

use super::*;
use crate::capability::CallLimits;
use crate::contract::ErrorKind;
use crate::events::Event;
use crate::mcp::{ConfiguredServer, Hub, McpGrant, Scope, ServerConfig, Servers};
use crate::paths::Paths;
use crate::policy::{ApprovalMode, ApprovalOutcome, ApprovalRequest, Approver};
use crate::testing::{Recorder, Setup, runtime};

/// A server with three good tools and one whose name no model can call.
const SERVER: &str = r#"
import json, sys
def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()
def result(id, content, error=False):
    send({"jsonrpc": "2.0", "id": id, "result": {"content": content, "isError": error}})
obj = {"type": "object", "properties": {"text": {"type": "string"}}}
for line in sys.stdin:
    message = json.loads(line)
    id, method = message.get("id"), message.get("method")
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": id, "result": {"protocolVersion": message["params"]["protocolVersion"],
              "capabilities": {"tools": {}}, "serverInfo": {"name": "fixture", "version": "1"}}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": id, "result": {"tools": [
            {"name": "shout", "description": "Shouts\u001b[31m its text.", "inputSchema": obj},
            {"name": "fail", "description": "Fails.", "inputSchema": obj},
            {"name": "big", "description": "Says a lot.", "inputSchema": obj},
            {"name": "crash", "description": "Exits.", "inputSchema": obj},
            {"name": "bad name", "description": "Cannot be called.", "inputSchema": obj}]}})
    elif method == "tools/call":
        name, args = message["params"]["name"], message["params"].get("arguments", {})
        if name == "shout":
            result(id, [{"type": "text", "text": args.get("text", "").upper()}])
        elif name == "fail":
            result(id, [{"type": "text", "text": "it failed"}], True)
        elif name == "big":
            result(id, [{"type": "text", "text": "x" * 5000}, {"type": "image", "data": "aGk=", "mimeType": "image/png"}])
        elif name == "crash":
            sys.exit(7)
    elif id is not None:
        send({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "no such method"}})
"#;

/// Runs the spec's program as the sandbox helper would, without the sandbox.
const HELPER: &str = "#!/usr/bin/env python3
import json, os
spec = json.loads(os.environ['AIRLOCK_SANDBOX_SPEC'])
os.chdir(spec['cwd'])
os.execvpe(spec['argv'][0], spec['argv'], dict(spec['env']))
";

/// Answers every question with `AllowOnce`, keeping the questions.
#[derive(Default)]
struct Asked(Mutex<Vec<ApprovalRequest>>);

impl Approver for Asked {
    fn ask(&self, request: ApprovalRequest) -> Pin<Box<dyn Future<Output = ApprovalOutcome> + Send + '_>> {
        self.0.lock().unwrap().push(request);
        Box::pin(async { ApprovalOutcome::AllowOnce })
    }
}

fn call(id: &str, name: &str, args: serde_json::Value) -> FunctionCall {
    FunctionCall { id: id.into(), name: name.into(), arguments: args.to_string(), signature: None }
}

struct Fixture {
    setup: Setup,
    helper: PathBuf,
    server: ConfiguredServer,
}

fn fixture() -> Fixture {
    use std::os::unix::fs::PermissionsExt;
    let setup = Setup::new(&[]);
    let home = setup.home.path();
    let (script, helper) = (home.join("server.py"), home.join("helper"));
    std::fs::write(&script, SERVER).unwrap();
    std::fs::write(&helper, HELPER).unwrap();
    std::fs::set_permissions(&helper, std::fs::Permissions::from_mode(0o755)).unwrap();
    let config = ServerConfig {
        command: Some("python3".into()),
        args: vec![script.display().to_string()],
        ..ServerConfig::default()
    };
    let server = ConfiguredServer {
        name: "fx".into(),
        config,
        scope: Scope::User,
        config_file: home.join("config.toml"),
        grant: McpGrant::default(),
        grant_file: home.join("policy.toml"),
    };
    Fixture { setup, helper, server }
}

/// A scheduler with the hub of `fixture` started, once the server is ready.
async fn started(fixture: &Fixture, policy: &str, approver: Arc<dyn Approver>, recorder: &Recorder) -> Scheduler {
    let runtime = runtime();
    let registry = fixture.setup.registry(&runtime).await;
    let policy = fixture.setup.policy(ApprovalMode::Default, policy);
    let limits = CallLimits { output: 1000, ..CallLimits::default() };
    let mut scheduler = Scheduler::new(runtime, registry, policy, approver, limits);
    let paths = Paths::new(fixture.setup.home.path(), None).unwrap();
    let servers = Servers { servers: vec![fixture.server.clone()], notices: Vec::new() };
    let hub = Hub::start(
        servers,
        &paths,
        &fixture.setup.workspace,
        &Default::default(),
        &fixture.helper,
        recorder.sink.clone(),
    );
    scheduler.set_mcp(hub.clone());
    for _ in 0..600 {
        if !hub.offered().is_empty() {
            return scheduler;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the fixture server never became ready");
}

fn text(done: &CompletedCall) -> String {
    done.result.as_ref().map(|o| o.llm_text()).unwrap_or_else(|e| panic!("{}: {e:?}", done.call.name))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_servers_tools_are_offered_asked_about_run_and_capped() {
    let fixture = fixture();
    let asked = Arc::new(Asked::default());
    let recorder = Recorder::new();
    let scheduler = started(&fixture, "", asked.clone(), &recorder).await;
    let offered: Vec<String> = scheduler.mcp_declarations().into_iter().map(|t| t.name).collect();
    assert_eq!(offered, ["fx__shout", "fx__fail", "fx__big", "fx__crash"]);
    let shout = scheduler.mcp_declarations().into_iter().find(|t| t.name == "fx__shout").unwrap();
    assert_eq!(shout.description, "Shouts[31m its text.", "the escape reached the model");
    let calls = [
        call("1", "fx__shout", json!({"text": "hi"})),
        call("2", "fx__fail", json!({})),
        call("3", "fx__big", json!({})),
        call("4", "fx__shout", json!({"text": 5})),
    ];
    let done = scheduler.run_batch(&calls, &recorder.sink, &Cancellation::default()).await;
    assert_eq!(text(&done[0]), "HI");
    let failed = done[1].result.as_ref().expect_err("isError is an error");
    assert_eq!((failed.kind, failed.message.as_str()), (ErrorKind::Execution, "it failed"));
    let big = text(&done[2]);
    assert!(big.starts_with(&"x".repeat(900)) && big.contains("the output was truncated"), "{big}");
    let invalid = done[3].result.as_ref().expect_err("a number for a string");
    assert_eq!(invalid.kind, ErrorKind::InvalidParams);
    // Each call that ran was asked about, exec-class, marked with its server and sandbox.
    let questions = asked.0.lock().unwrap().clone();
    assert_eq!(questions.len(), 3);
    let marker = "MCP server fx (sandboxed: reads the workspace; writes nothing; no network; no variables)";
    assert_eq!(questions[0].description, marker);
    assert!(questions[0].sandbox.folders.iter().all(|f| !f.writable));
    assert!(questions[0].sandbox.network.is_empty());
    // The recorder ends once every sender is gone: the hub's with the scheduler.
    drop(scheduler);
    let events = recorder.finish().await;
    let warned: Vec<&str> = events
        .iter()
        .filter_map(|e| match e {
            Event::Warning { message } => Some(message.as_str()),
            _ => None,
        })
        .collect();
    assert!(warned.iter().any(|w| w.contains("bad name") && w.contains("not one a model can call")), "{warned:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rules_per_server_and_per_tool_decide_mcp_calls() {
    let fixture = fixture();
    let recorder = Recorder::new();
    let policy = "[[rule]]\ntool = \"fx__shout\"\ndecision = \"allow\"\n\n\
                  [[rule]]\ntool = \"fx__*\"\ndecision = \"ask\"\npriority = -1\n\n\
                  [[rule]]\ntool = \"fx__big\"\ndecision = \"deny\"\n";
    let asked = Arc::new(Asked::default());
    let scheduler = started(&fixture, policy, asked.clone(), &recorder).await;
    let offered: Vec<String> = scheduler.mcp_declarations().into_iter().map(|t| t.name).collect();
    assert!(!offered.contains(&"fx__big".to_owned()), "a denied tool is offered: {offered:?}");
    let calls = [
        call("1", "fx__shout", json!({"text": "a"})),
        call("2", "fx__fail", json!({})),
        call("3", "fx__big", json!({})),
    ];
    let done = scheduler.run_batch(&calls, &recorder.sink, &Cancellation::default()).await;
    assert_eq!(text(&done[0]), "A");
    assert_eq!(done[2].result.as_ref().expect_err("denied").kind, ErrorKind::PolicyDenied);
    let questions = asked.0.lock().unwrap().clone();
    assert_eq!(questions.iter().map(|q| q.tool.as_str()).collect::<Vec<_>>(), ["fx__fail"], "only the ask rule asks");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_crashes_mid_session_is_reported_once_and_withdrawn() {
    let fixture = fixture();
    let recorder = Recorder::new();
    let scheduler =
        started(&fixture, "[[rule]]\ntool = \"fx__*\"\ndecision = \"allow\"\n", Arc::new(Asked::default()), &recorder)
            .await;
    let calls = [call("1", "fx__crash", json!({}))];
    let done = scheduler.run_batch(&calls, &recorder.sink, &Cancellation::default()).await;
    let error = done[0].result.as_ref().expect_err("it crashed");
    assert!(error.message.contains("MCP server fx"), "{error:?}");
    assert!(scheduler.mcp_declarations().is_empty(), "a stopped server's tools are still offered");
    let again =
        scheduler.run_batch(&[call("2", "fx__shout", json!({}))], &recorder.sink, &Cancellation::default()).await;
    assert_eq!(again[0].result.as_ref().expect_err("gone").kind, ErrorKind::ToolNotFound);
    drop(scheduler);
    let events = recorder.finish().await;
    let stopped = events
        .iter()
        .filter(|e| matches!(e, Event::Warning { message } if message.contains("stopped working")))
        .count();
    assert_eq!(stopped, 1, "{events:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_cannot_start_is_reported_once_and_the_session_goes_on() {
    let mut fixture = fixture();
    fixture.server.config.args =
        vec!["-c".into(), "import sys; sys.stderr.write('no config here\\n'); sys.exit(3)".into()];
    let recorder = Recorder::new();
    let paths = Paths::new(fixture.setup.home.path(), None).unwrap();
    let servers = Servers { servers: vec![fixture.server.clone()], notices: Vec::new() };
    let hub = Hub::start(
        servers,
        &paths,
        &fixture.setup.workspace,
        &Default::default(),
        &fixture.helper,
        recorder.sink.clone(),
    );
    hub.notice_starting();
    let mut warned = None;
    for _ in 0..600 {
        tokio::time::sleep(Duration::from_millis(50)).await;
        if hub.offered().is_empty() && !is_starting(&hub) {
            warned = Some(());
            break;
        }
    }
    assert!(warned.is_some(), "the server never failed");
    hub.notice_starting();
    drop(hub);
    let events = recorder.finish().await;
    let messages: Vec<String> = events
        .iter()
        .filter_map(|e| match e {
            Event::Warning { message } | Event::Notice { message } => Some(message.clone()),
            _ => None,
        })
        .collect();
    assert_eq!(messages.iter().filter(|m| m.contains("still starting")).count(), 1, "{messages:?}");
    let failures: Vec<&String> = messages.iter().filter(|m| m.contains("did not start")).collect();
    assert_eq!(failures.len(), 1, "{messages:?}");
    assert!(failures[0].contains("exit code 3") && failures[0].contains("no config here"), "{failures:?}");
    let hint = "it runs with its grant (reads the workspace; writes nothing; no network; no variables); \
                if it needs more: airlock mcp grant fx with";
    assert!(failures[0].contains(hint), "{failures:?}");
}

fn is_starting(hub: &Hub) -> bool {
    hub.is_starting()
}

#[test]
fn an_http_servers_question_holds_only_its_origin() {
    let held = remote("https://user:secret@mcp.example.com:8443/mcp?key=hidden", 60, 1000);
    assert!(held.folders.is_empty() && held.env.is_empty(), "{held:?}");
    assert_eq!(held.network, ["https://mcp.example.com:8443"]);
    assert!(held.commands.as_deref().is_some_and(|c| c.contains("remote service")), "{held:?}");
    assert_eq!((held.timeout_secs, held.output_bytes), (60, 1000));
}
