//! `airlock acp` driven by a real ACP client: the `agent-client-protocol` crate's own client
//! side (`Client.v1()`, over the child's stdio), against the scripted mock model. Each test
//! has its own `$AIRLOCK_HOME` and workspace ([`session`]). The areas: prompts, tool calls,
//! approvals, cancellation, modes, the plan and commands ([`turns`]); loaded sessions
//! ([`load`]); bad input and a client that leaves while asked, spoken as raw JSON-RPC lines
//! ([`wire`]).

mod load;
mod media;
mod telemetry;
mod turns;
mod wire;

use std::collections::VecDeque;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    ContentBlock, InitializeRequest, InitializeResponse, NewSessionRequest, NewSessionResponse, PromptRequest,
    PromptResponse, RequestPermissionOutcome, RequestPermissionRequest, RequestPermissionResponse,
    SelectedPermissionOutcome, SessionNotification, SessionUpdate, TextContent, ToolCallContent,
};
use agent_client_protocol::{Agent, ByteStreams, Client, Error};
use airlock_tests::{MockModel, Session};
use tokio_util::compat::{TokioAsyncReadCompatExt, TokioAsyncWriteCompatExt};

pub(crate) use crate::session;

/// How long one client's conversation may take.
const LIMIT: Duration = Duration::from_secs(120);

/// What the client saw: every `session/update` in order, and every permission request.
#[derive(Default)]
struct Seen {
    updates: Mutex<Vec<SessionUpdate>>,
    permissions: Mutex<Vec<RequestPermissionRequest>>,
    /// The option each permission request is answered with, in order; `reject` once empty.
    answers: Mutex<VecDeque<String>>,
}

impl Seen {
    fn updates(&self) -> Vec<SessionUpdate> {
        self.updates.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn permissions(&self) -> Vec<RequestPermissionRequest> {
        self.permissions.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }

    /// The agent's message chunks so far, joined.
    fn said(&self) -> String {
        chunks(&self.updates(), |u| match u {
            SessionUpdate::AgentMessageChunk(chunk) => Some(&chunk.content),
            _ => None,
        })
    }
}

/// The text of the content blocks `pick` takes from `updates`, joined.
fn chunks(updates: &[SessionUpdate], pick: impl Fn(&SessionUpdate) -> Option<&ContentBlock>) -> String {
    updates
        .iter()
        .filter_map(pick)
        .filter_map(|block| match block {
            ContentBlock::Text(text) => Some(text.text.as_str()),
            _ => None,
        })
        .collect()
}

/// The text of tool call content.
fn content_text(content: &[ToolCallContent]) -> String {
    content
        .iter()
        .filter_map(|c| match c {
            ToolCallContent::Content(c) => match &c.content {
                ContentBlock::Text(text) => Some(text.text.clone()),
                _ => None,
            },
            _ => None,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// A text prompt.
fn prompt(session: &NewSessionResponse, text: &str) -> PromptRequest {
    PromptRequest::new(session.session_id.clone(), vec![ContentBlock::Text(TextContent::new(text))])
}

/// `airlock acp` in `s` pointed at `mock`, driven by `script` once initialised; permission
/// requests are answered with `answers` in order. Returns what `script` returned, the
/// initialize response and what the client saw.
fn acp<R>(
    s: &Session,
    mock: &MockModel,
    answers: &[&str],
    script: impl AsyncFnOnce(ConnectionTo<Agent>, Arc<Seen>) -> Result<R, Error>,
) -> (R, InitializeResponse, Arc<Seen>) {
    acp_initialized(s, mock, answers, InitializeRequest::new(ProtocolVersion::V1), script)
}

/// As [`acp`], initialising with `initialize` (a client's capabilities).
fn acp_initialized<R>(
    s: &Session,
    mock: &MockModel,
    answers: &[&str],
    initialize: InitializeRequest,
    script: impl AsyncFnOnce(ConnectionTo<Agent>, Arc<Seen>) -> Result<R, Error>,
) -> (R, InitializeResponse, Arc<Seen>) {
    let seen = Arc::new(Seen::default());
    seen.answers.lock().unwrap_or_else(|e| e.into_inner()).extend(answers.iter().map(|a| a.to_string()));
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap_or_else(|e| panic!("runtime: {e}"));
    let mut command = tokio::process::Command::from(s.command(mock));
    command.arg("acp").stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null()).kill_on_drop(true);
    let seen_by_client = seen.clone();
    let (result, init) = runtime.block_on(async move {
        let mut child = command.spawn().unwrap_or_else(|e| panic!("spawn airlock acp: {e}"));
        let stdin = child.stdin.take().unwrap_or_else(|| panic!("no stdin"));
        let stdout = child.stdout.take().unwrap_or_else(|| panic!("no stdout"));
        let transport = ByteStreams::new(stdin.compat_write(), stdout.compat());
        let (updates, asked) = (seen_by_client.clone(), seen_by_client.clone());
        let connected = Client
            .v1()
            .name("airlock-e2e")
            .on_receive_notification(
                async move |notification: SessionNotification, _cx| {
                    updates.updates.lock().unwrap_or_else(|e| e.into_inner()).push(notification.update);
                    Ok(())
                },
                agent_client_protocol::on_receive_notification!(),
            )
            .on_receive_request(
                async move |request: RequestPermissionRequest, responder, _cx| {
                    asked.permissions.lock().unwrap_or_else(|e| e.into_inner()).push(request);
                    let choice = asked.answers.lock().unwrap_or_else(|e| e.into_inner()).pop_front();
                    let choice = choice.unwrap_or_else(|| "reject".into());
                    let outcome = match choice.as_str() {
                        "cancelled" => RequestPermissionOutcome::Cancelled,
                        id => RequestPermissionOutcome::Selected(SelectedPermissionOutcome::new(id.to_owned())),
                    };
                    responder.respond(RequestPermissionResponse::new(outcome))
                },
                agent_client_protocol::on_receive_request!(),
            )
            .connect_with(transport, async move |cx: ConnectionTo<Agent>| {
                let init = cx.send_request(initialize).block_task().await?;
                let result = script(cx, seen_by_client).await?;
                Ok((result, init))
            });
        let ended = tokio::time::timeout(LIMIT, connected).await;
        drop(child);
        match ended {
            Ok(Ok(done)) => done,
            Ok(Err(error)) => panic!("the ACP conversation failed: {error:?}"),
            Err(_) => panic!("the ACP conversation took over {LIMIT:?}"),
        }
    });
    (result, init, seen)
}

/// Opens a session in the workspace.
async fn new_session(cx: &ConnectionTo<Agent>, s: &Session) -> Result<NewSessionResponse, Error> {
    cx.send_request(NewSessionRequest::new(s.workspace.clone())).block_task().await
}

/// Sends `request` and waits for its answer.
async fn send(cx: &ConnectionTo<Agent>, request: PromptRequest) -> Result<PromptResponse, Error> {
    cx.send_request(request).block_task().await
}
