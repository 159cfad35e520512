//! `airlock mcp serve` driven by the official Rust SDK's client (rmcp) over stdio, the real
//! binary in a temporary home and workspace: the tool list and its annotations, a read, an
//! edit refused when the client cannot ask and run when its user allows it, live output as
//! progress, a cancelled call, and a plugin dropped in reaching the client as
//! `tools/list_changed`. The HTTP endpoint's checks are in [`http`].

#![allow(clippy::unwrap_used, clippy::expect_used)]

mod http;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use airlock_tests::Session;
use airlock_tests::fixtures;
use rmcp::model::{
    CallToolRequestParams, CallToolResult, ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult,
    ElicitationAction, ElicitationCapability, ErrorData, Implementation, JsonObject, NumberOrString,
    ProgressNotificationParam, ProgressToken, ProtocolVersion, RequestMetaObject,
};
use rmcp::service::{ClientLifecycleMode, ClientServiceExt};
use rmcp::service::{NotificationContext, RequestContext, RunningService};
use rmcp::transport::TokioChildProcess;
use rmcp::{ClientHandler, RoleClient, ServiceExt};
use serde_json::json;

use super::session;

/// Long enough for a loaded machine; a hang fails the test instead of the suite.
const PATIENCE: Duration = Duration::from_secs(90);

/// What the test client did and saw.
#[derive(Clone, Default)]
struct Client {
    /// The choice its user makes when asked (`None`: it declares no elicitation).
    choice: Option<&'static str>,
    asked: Arc<Mutex<Vec<String>>>,
    progress: Arc<Mutex<Vec<String>>>,
    changed: Arc<tokio::sync::Notify>,
}

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        if self.choice.is_some() {
            capabilities.elicitation = Some(ElicitationCapability::new());
        }
        ClientConfig::new(capabilities, Implementation::new("airlock-e2e", "1"))
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        if let ElicitRequestParams::FormElicitationParams { message, .. } = request {
            self.asked.lock().unwrap().push(message);
        }
        let choice = self.choice.unwrap_or("no");
        Ok(ElicitResult::new(ElicitationAction::Accept).with_content(json!({ "decision": choice })))
    }

    async fn on_progress(&self, params: ProgressNotificationParam, _context: NotificationContext<RoleClient>) {
        self.progress.lock().unwrap().push(params.message.unwrap_or_default());
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.changed.notify_one();
    }
}

/// `airlock mcp serve ARGS` in `s`'s workspace.
fn server(s: &Session, args: &[&str]) -> TokioChildProcess {
    let mut command = s.bare_command();
    command.args(["mcp", "serve"]).args(args).current_dir(&s.workspace);
    let (transport, _stderr) = TokioChildProcess::builder(tokio::process::Command::from(command))
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    transport
}

/// `airlock mcp serve ARGS`, connected with the `initialize` handshake.
async fn connect(s: &Session, client: Client, args: &[&str]) -> RunningService<RoleClient, Client> {
    tokio::time::timeout(PATIENCE, client.serve(server(s, args))).await.unwrap().unwrap()
}

fn call(name: &'static str, arguments: serde_json::Value) -> CallToolRequestParams {
    let serde_json::Value::Object(arguments) = arguments else { panic!("arguments must be an object") };
    CallToolRequestParams::new(name).with_arguments(JsonObject::from_iter(arguments))
}

fn text(result: &CallToolResult) -> String {
    result.content.iter().filter_map(|c| c.as_text()).map(|t| t.text.clone()).collect::<Vec<_>>().join("\n")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn lists_the_tools_with_their_kind_and_reads_a_file() {
    let s = session();
    s.write("notes.txt", "hello from the workspace\n");
    let client = connect(&s, Client::default(), &[]).await;
    let tools = client.list_all_tools().await.unwrap();
    let tool = |name: &str| tools.iter().find(|t| t.name == name).unwrap_or_else(|| panic!("no {name}: {tools:?}"));
    let read = tool("read_file").annotations.clone().unwrap();
    assert_eq!((read.read_only_hint, read.destructive_hint), (Some(true), Some(false)));
    let write = tool("write_file").annotations.clone().unwrap();
    assert_eq!((write.read_only_hint, write.destructive_hint), (Some(false), Some(true)));
    let shell = tool("run_shell_command").annotations.clone().unwrap();
    assert_eq!((shell.destructive_hint, shell.open_world_hint), (Some(true), Some(true)));
    assert_eq!(tool("web_fetch").annotations.clone().unwrap().open_world_hint, Some(true));
    assert!(tool("read_file").input_schema.get("properties").is_some());
    assert!(!tool("read_file").description.clone().unwrap_or_default().is_empty());

    let result = client.call_tool(call("read_file", json!({ "file_path": "notes.txt" }))).await.unwrap();
    assert_eq!(result.is_error, Some(false), "{result:?}");
    assert!(text(&result).contains("hello from the workspace"), "{result:?}");
    // A file outside the workspace is the tool's error, as the model would get it.
    let outside = client.call_tool(call("read_file", json!({ "file_path": "/etc/passwd" }))).await.unwrap();
    assert_eq!(outside.is_error, Some(true), "{outside:?}");
    assert!(!text(&outside).contains("root:"), "{outside:?}");
    // An unknown tool is a protocol error.
    let unknown = client.call_tool(call("no_such_tool", json!({}))).await;
    assert!(unknown.is_err(), "{unknown:?}");
    client.cancel().await.unwrap();

    // Plan mode offers the read-only tools only, to a client as to a model.
    let planning = connect(&s, Client::default(), &["--approval-mode", "plan"]).await;
    let offered = planning.list_all_tools().await.unwrap();
    assert!(offered.iter().any(|t| t.name == "read_file"), "{offered:?}");
    assert!(!offered.iter().any(|t| t.name == "write_file" || t.name == "run_shell_command"), "{offered:?}");
    let hidden = planning.call_tool(call("write_file", json!({ "file_path": "x.txt", "content": "x" }))).await;
    assert!(hidden.is_err() && !s.workspace.join("x.txt").exists(), "{hidden:?}");
    planning.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edit_is_refused_when_the_client_cannot_ask_and_runs_when_its_user_allows_it() {
    let s = session();
    s.write("out.txt", "old line\n");
    let edit = || call("write_file", json!({ "file_path": "out.txt", "content": "new line\n" }));

    let mute = connect(&s, Client::default(), &[]).await;
    let refused = mute.call_tool(edit()).await.unwrap();
    assert_eq!(refused.is_error, Some(true), "{refused:?}");
    let message = text(&refused);
    assert!(message.contains("approval mode default") && message.contains("--approval-mode auto-edit"), "{message}");
    assert!(message.contains("[[rule]] tool = \"write_file\""), "{message}");
    assert_eq!(s.read("out.txt").as_deref(), Some("old line\n"));
    mute.cancel().await.unwrap();

    let declining = Client { choice: Some("no"), ..Client::default() };
    let client = connect(&s, declining.clone(), &[]).await;
    let declined = client.call_tool(edit()).await.unwrap();
    assert_eq!(declined.is_error, Some(true), "{declined:?}");
    assert_eq!(s.read("out.txt").as_deref(), Some("old line\n"));
    client.cancel().await.unwrap();

    let allowing = Client { choice: Some("once"), ..Client::default() };
    let client = connect(&s, allowing.clone(), &[]).await;
    let allowed = client.call_tool(edit()).await.unwrap();
    assert_eq!(allowed.is_error, Some(false), "{allowed:?}");
    assert_eq!(s.read("out.txt").as_deref(), Some("new line\n"));
    // The user saw what airlock's confirmation shows: the diff and the sandbox.
    let asked = allowing.asked.lock().unwrap().clone();
    assert_eq!(asked.len(), 1, "{asked:?}");
    assert!(asked[0].contains("-old line") && asked[0].contains("+new line"), "{}", asked[0]);
    assert!(asked[0].contains("read-write"), "{}", asked[0]);
    client.cancel().await.unwrap();

    // Under auto-edit nobody is asked.
    let client = connect(&s, Client::default(), &["--approval-mode", "auto_edit"]).await;
    let result = client.call_tool(call("write_file", json!({ "file_path": "out.txt", "content": "auto\n" }))).await;
    assert_eq!(result.unwrap().is_error, Some(false));
    assert_eq!(s.read("out.txt").as_deref(), Some("auto\n"));
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_call_stops_and_the_server_goes_on() {
    let s = session();
    s.install_plugin(fixtures::SPIN_FOREVER);
    s.write("a.txt", "still here\n");
    let client = connect(&s, Client::default(), &["--approval-mode", "yolo"]).await;
    // Dropping the request sends `notifications/cancelled`.
    let spun = tokio::time::timeout(Duration::from_secs(3), client.call_tool(call("spin", json!({})))).await;
    assert!(spun.is_err(), "spin returned: {spun:?}");
    let deadline = tokio::time::Instant::now() + PATIENCE;
    while !s.log().contains("served call served-1 ended: cancelled") {
        assert!(tokio::time::Instant::now() < deadline, "the call was not cancelled: {}", s.log());
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let read = client.call_tool(call("read_file", json!({ "file_path": "a.txt" }))).await.unwrap();
    assert!(text(&read).contains("still here"));
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn live_output_comes_as_progress_when_the_request_asks_for_it() {
    let s = session();
    let seen = Client::default();
    let client = connect(&s, seen.clone(), &["--approval-mode", "yolo"]).await;
    let mut request = call("run_shell_command", json!({ "command": "echo first-line; sleep 1; echo second-line" }));
    let mut meta = RequestMetaObject::default();
    meta.set_progress_token(ProgressToken(NumberOrString::Number(7)));
    request.meta = Some(meta);
    let result = client.call_tool(request).await.unwrap();
    assert!(text(&result).contains("second-line"), "{result:?}");
    let progress = seen.progress.lock().unwrap().join("");
    assert!(progress.contains("first-line"), "progress: {progress:?}");
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plugin_dropped_in_reaches_the_client_as_list_changed() {
    let s = session();
    let seen = Client::default();
    let client = connect(&s, seen.clone(), &[]).await;
    let before = client.list_all_tools().await.unwrap();
    assert!(!before.iter().any(|t| t.name == "spin"));
    s.install_plugin(fixtures::SPIN_FOREVER);
    tokio::time::timeout(PATIENCE, seen.changed.notified()).await.expect("no tools/list_changed");
    let after = client.list_all_tools().await.unwrap();
    assert!(after.iter().any(|t| t.name == "spin"), "{after:?}");
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_2026_07_28_an_approval_comes_back_as_input_required_and_the_retry_runs_the_call() {
    let s = session();
    s.write("out.txt", "old\n");
    let allowing = Client { choice: Some("once"), ..Client::default() };
    let lifecycle = ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] };
    let client = tokio::time::timeout(PATIENCE, allowing.clone().serve_with_lifecycle(server(&s, &[]), lifecycle))
        .await
        .unwrap()
        .unwrap();
    // rmcp's client answers the InputRequiredResult through its handler and retries.
    let result = client.call_tool(call("write_file", json!({ "file_path": "out.txt", "content": "new\n" }))).await;
    let result = result.unwrap();
    assert_eq!(result.is_error, Some(false), "{result:?}");
    assert_eq!(s.read("out.txt").as_deref(), Some("new\n"));
    assert_eq!(allowing.asked.lock().unwrap().len(), 1);
    let read = client.call_tool(call("read_file", json!({ "file_path": "out.txt" }))).await.unwrap();
    assert!(text(&read).contains("new"), "{read:?}");
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plugin_without_its_grant_fails_and_the_client_learns_the_grant_command() {
    let s = session();
    s.install_plugin(fixtures::FS_PROBE);
    s.write("secret.txt", "the secret");
    let client = connect(&s, Client { choice: Some("once"), ..Client::default() }, &["--approval-mode", "yolo"]).await;
    let result = client.call_tool(call("read_path", json!({ "path": "secret.txt" }))).await.unwrap();
    let said = text(&result);
    assert!(!said.contains("the secret"), "{said}");
    assert!(said.contains("airlock plugins grant fs_probe --read ."), "{said}");
    // Nothing was granted: the policy file is untouched.
    assert!(!s.airlock_home().join("policy.toml").exists());
    client.cancel().await.unwrap();
}
