//! `airlock mcp serve`: the session's sandboxed tools offered to any MCP client, over stdio
//! ([`serve_stdio`]) or streamable HTTP ([`http`]). The server is an rmcp
//! [`ServerHandler`] with hand-written `tools/list` and `tools/call`: the list is the
//! session's tools as its policy offers them ([`tools`]), and each call runs through the
//! session exactly as a model's call does ([`airlock_door::Session::call`]): validation,
//! policy rules, approval mode, grants, limits, output caps and whole-output saving. A
//! call that needs a person's approval is put to the client's user ([`approve`]); its live
//! output becomes `notifications/progress` when the request carries a progress token; the
//! request's cancellation cancels the call; a change of the plugin folders reaches the
//! client as `notifications/tools/list_changed`.
//!
//! Invariants:
//! - in stdio mode stdout carries the protocol only (this module never prints);
//! - nothing a client sends grants anything, changes the approval mode or answers a
//!   question beyond what its user chose in an elicitation;
//! - an unknown tool is a protocol error (`METHOD_NOT_FOUND`); a tool's failure, a refusal
//!   or a cancellation is the call's error result, with the text the model would get.

mod approve;
pub mod http;
mod route;
mod tools;

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, PoisonError};

use futures_util::StreamExt as _;
use futures_util::future::{AbortHandle, abortable};
use futures_util::stream::FuturesUnordered;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ElicitRequest, ElicitResult, ErrorCode,
    ErrorData, Implementation, InputRequest, InputRequiredResult, ListToolsResult, PaginatedRequestParams,
    ProgressNotificationParam, ProgressToken, ProtocolVersion, ServerCapabilities, ServerConfig, SubscriptionFilter,
};
use rmcp::service::{NotificationContext, RequestContext, SubscriptionContext};
use rmcp::{RoleServer, ServerHandler, ServiceExt};
use tokio::sync::mpsc;

use crate::ExitCode;
use airlock_door::{Cancellation, Orders, Output, Session};
use airlock_protocol::shown as sanitize;
use airlock_protocol::{Answer, ApprovalMode, CallResult, Order};
use route::{CallOutput, Routes};

pub(crate) use approve::message as approval_text;

/// How the server answers.
#[derive(Debug, Clone, Copy)]
pub struct Options {
    /// The session's approval mode, named in refusals.
    pub mode: ApprovalMode,
}

/// How long a call waits for a 2026-07-28 client's retry with its user's answer.
const PARKED_LIMIT: std::time::Duration = std::time::Duration::from_secs(600);

/// The key of the one input request an approval puts in an `InputRequiredResult`.
const APPROVAL_INPUT: &str = "approval";

/// Serves `session` over stdin and stdout until the client closes the stream.
pub async fn serve_stdio(session: Session, outputs: mpsc::UnboundedReceiver<Output>, options: Options) -> ExitCode {
    let server = Server::new(session, outputs, options, Parking::default());
    let running = match server.clone().serve(rmcp::transport::stdio()).await {
        Ok(running) => running,
        Err(error) => {
            tracing::warn!("the MCP client went away before it initialised: {error}");
            return ExitCode::Failure;
        }
    };
    let ended = running.waiting().await;
    server.shutdown().await;
    match ended {
        Ok(_) => ExitCode::Success,
        Err(error) => {
            tracing::warn!("the MCP server stopped: {error}");
            ExitCode::Failure
        }
    }
}

/// One MCP connection's server: its own engine session, so its "always" answers and
/// policy state are its own.
#[derive(Clone)]
pub(crate) struct Server(Arc<Inner>);

struct Inner {
    session: Mutex<Option<Session>>,
    orders: Orders,
    tools: airlock_door::Tools,
    routes: Routes,
    mode: ApprovalMode,
    /// Calls waiting for a 2026-07-28 client's retry with its user's answer, by the
    /// request state handed out: shared by the servers of one HTTP endpoint, since each
    /// stateless request gets a server of its own.
    parked: Parking,
    router: tokio::task::JoinHandle<()>,
}

impl Drop for Inner {
    fn drop(&mut self) {
        self.router.abort();
    }
}

/// Calls parked until a retry answers their question.
pub(crate) type Parking = Arc<Mutex<HashMap<String, Parked>>>;

/// A call waiting for the answer to question `question`, with the server (and so the
/// engine session) it runs in.
pub(crate) struct Parked {
    server: Server,
    run: Running,
    question: u64,
}

/// A call in flight.
struct Running {
    id: String,
    end: tokio::task::JoinHandle<CallResult>,
    outputs: mpsc::UnboundedReceiver<CallOutput>,
    cancel: Cancellation,
    progress: u32,
}

impl Server {
    pub(crate) fn new(
        session: Session,
        outputs: mpsc::UnboundedReceiver<Output>,
        options: Options,
        parked: Parking,
    ) -> Self {
        let routes = Routes::default();
        let orders = session.orders();
        let router = tokio::spawn(routes.clone().run(outputs, orders.clone()));
        Self(Arc::new(Inner {
            tools: session.tools(),
            session: Mutex::new(Some(session)),
            orders,
            routes,
            mode: options.mode,
            parked,
            router,
        }))
    }

    /// Ends the engine session: cancels what runs and waits for it to stop.
    pub(crate) async fn shutdown(&self) {
        let session = self.0.session.lock().unwrap_or_else(PoisonError::into_inner).take();
        if let Some(session) = session {
            session.shutdown().await;
        }
    }

    fn start(&self, tool: &str, arguments: &serde_json::Value) -> Option<Running> {
        let cancel = Cancellation::default();
        let guard = self.0.session.lock().unwrap_or_else(PoisonError::into_inner);
        let call = guard.as_ref()?.call(tool, arguments, cancel.clone());
        drop(guard);
        let id = call.id().to_owned();
        let outputs = self.0.routes.add(&id, tool);
        let end = tokio::spawn(call.finish());
        Some(Running { id, end, outputs, cancel, progress: 0 })
    }

    /// Follows `run` to its end, or to a question a 2026-07-28 client must answer in a retry.
    async fn drive(&self, mut run: Running, context: &RequestContext<RoleServer>) -> CallToolResponse {
        let token = context.meta.get_progress_token();
        let modern = context
            .protocol_version()
            .is_some_and(|version| version.as_str() >= ProtocolVersion::V_2026_07_28.as_str());
        let can_ask = context.client_capabilities().is_some_and(|c| c.elicitation.is_some());
        // Questions put to the client's user, polled here rather than spawned: rmcp routes a
        // request the server sends to the stream of the request being handled (over HTTP,
        // that call's response stream) only from the handler's own task.
        let mut asking = FuturesUnordered::new();
        let mut withdraw: HashMap<u64, AbortHandle> = HashMap::new();
        let mut cancelled = false;
        let mut warnings = Vec::new();
        let response = loop {
            tokio::select! {
                ended = &mut run.end => break result(ended.unwrap_or_else(|error| CallResult {
                    call_id: run.id.clone(),
                    text: format!("execution: the call failed inside airlock: {error}"),
                    is_error: true,
                }), &warnings),
                Some(output) = run.outputs.recv() => match output {
                    CallOutput::Live(chunk) => {
                        if let Some(token) = &token {
                            run.progress += 1;
                            self.progress(context, token, run.progress, &chunk).await;
                        }
                    }
                    CallOutput::Question(question) if !can_ask => {
                        let message = approve::no_one_to_ask(&question, self.0.mode);
                        self.0.orders.submit(Order::Approve { id: question.id, answer: Answer::Refuse { message } });
                    }
                    CallOutput::Question(question) if modern => {
                        let form = approve::form(&question);
                        let state = random_token();
                        let requests = BTreeMap::from([(
                            APPROVAL_INPUT.to_owned(),
                            InputRequest::Elicitation(ElicitRequest::new(form)),
                        )]);
                        let parked = Parked { server: self.clone(), run, question: question.id };
                        self.lock_parked().insert(state.clone(), parked);
                        self.expire(state.clone());
                        return InputRequiredResult::new(Some(requests), Some(state)).into();
                    }
                    CallOutput::Question(question) => {
                        let (peer, id) = (context.peer.clone(), question.id);
                        let form = approve::form(&question);
                        let (ask, handle) = abortable(async move {
                            let answer = match peer.create_elicitation(form).await {
                                Ok(result) => approve::answer(&result.action, result.content.as_ref()),
                                Err(error) => Answer::Refuse {
                                    message: format!("the client could not ask its user ({error}), so airlock did not run the call"),
                                },
                            };
                            (id, answer)
                        });
                        withdraw.insert(id, handle);
                        asking.push(ask);
                    }
                    CallOutput::Warning(message) => warnings.push(message),
                    CallOutput::Withdrawn(id) => {
                        if let Some(handle) = withdraw.remove(&id) {
                            handle.abort();
                        }
                    }
                },
                Some(asked) = asking.next(), if !asking.is_empty() => {
                    if let Ok((id, answer)) = asked {
                        withdraw.remove(&id);
                        self.0.orders.submit(Order::Approve { id, answer });
                    }
                }
                () = context.ct.cancelled(), if !cancelled => {
                    cancelled = true;
                    run.cancel.cancel();
                }
            }
        };
        drop(asking);
        self.0.routes.remove(&run.id);
        let ended = response.content.first().and_then(|c| c.as_text()).map_or("", |t| t.text.as_str());
        let how = if response.is_error == Some(true) { ended.split(':').next().unwrap_or_default() } else { "success" };
        tracing::info!("served call {} ended: {how}", run.id);
        response.into()
    }

    async fn progress(&self, context: &RequestContext<RoleServer>, token: &ProgressToken, step: u32, chunk: &str) {
        let message = sanitize::stream(chunk);
        let param = ProgressNotificationParam::new(token.clone(), f64::from(step)).with_message(message);
        if let Err(error) = context.peer.notify_progress(param).await {
            tracing::debug!("a progress notification was not sent: {error}");
        }
    }

    /// Cancels the call parked under `state` if no retry takes it within [`PARKED_LIMIT`]:
    /// a client that never comes back must not hold a call (and its session) forever.
    fn expire(&self, state: String) {
        let parked = self.0.parked.clone();
        tokio::spawn(async move {
            tokio::time::sleep(PARKED_LIMIT).await;
            let expired = parked.lock().unwrap_or_else(PoisonError::into_inner).remove(&state);
            if let Some(expired) = expired {
                expired.run.cancel.cancel();
            }
        });
    }

    fn lock_parked(&self) -> std::sync::MutexGuard<'_, HashMap<String, Parked>> {
        self.0.parked.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// A 2026-07-28 client's retry: its user's answer to the parked call's question.
    async fn resume(
        &self,
        request: CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let state = request.request_state.unwrap_or_default();
        let Some(parked) = self.lock_parked().remove(&state) else {
            return Err(ErrorData::invalid_params(
                "no call waits for this requestState (it ended, or was answered)",
                None,
            ));
        };
        let response = request.input_responses.and_then(|mut responses| responses.remove(APPROVAL_INPUT));
        let answer = match response.map(serde_json::from_value::<ElicitResult>) {
            Some(Ok(result)) => approve::answer(&result.action, result.content.as_ref()),
            _ => Answer::Refuse {
                message: "the client sent no answer to the approval question, so airlock did not run the call".into(),
            },
        };
        parked.server.0.orders.submit(Order::Approve { id: parked.question, answer });
        Ok(parked.server.drive(parked.run, context).await)
    }
}

/// The MCP result of a call: its text, then what airlock warned of about its tool (the
/// grant it runs without), an error when it failed.
fn result(result: CallResult, warnings: &[String]) -> CallToolResult {
    let mut content = vec![ContentBlock::text(result.text)];
    content.extend(warnings.iter().map(|warning| ContentBlock::text(format!("airlock: {}", sanitize::block(warning)))));
    if result.is_error { CallToolResult::error(content) } else { CallToolResult::success(content) }
}

/// 32 random bytes, URL-safe base64 without padding (43 characters).
pub fn random_token() -> String {
    use base64::Engine as _;
    let mut bytes = [0u8; 32];
    // The OS's generator; when it fails there is no safe token to make.
    if let Err(error) = getrandom::fill(&mut bytes) {
        tracing::error!("no randomness from the OS: {error}");
        std::process::abort();
    }
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes)
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder().enable_tools().enable_tool_list_changed().build();
        ServerConfig::new(capabilities)
            .with_server_info(Implementation::new("airlock", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "airlock's tools: each call runs in a fresh WebAssembly sandbox holding only what the user granted, \
                 under the user's approval mode and rules; a call that needs approval asks the user.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let listed = self.0.tools.served().iter().map(tools::tool).collect();
        Ok(ListToolsResult::with_all_items(listed))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if request.request_state.is_some() {
            return self.resume(request, &context).await;
        }
        let name = request.name.to_string();
        if !self.0.tools.served().iter().any(|tool| tool.name == name) {
            let message = format!("airlock offers no tool `{}`", sanitize::line_bounded(&name, 80));
            return Err(ErrorData::new(ErrorCode::METHOD_NOT_FOUND, message, None));
        }
        let arguments = serde_json::Value::Object(request.arguments.unwrap_or_default());
        let Some(run) = self.start(&name, &arguments) else {
            return Err(ErrorData::internal_error("the session has ended", None));
        };
        Ok(self.drive(run, &context).await)
    }

    async fn on_initialized(&self, context: NotificationContext<RoleServer>) {
        let mut changes = self.0.tools.changes();
        let peer = context.peer;
        tokio::spawn(async move {
            while changes.changed().await.is_ok() {
                if peer.notify_tool_list_changed().await.is_err() {
                    break;
                }
            }
        });
    }

    fn accepted_subscription_filter(&self, requested: &SubscriptionFilter) -> Option<SubscriptionFilter> {
        let mut accepted = SubscriptionFilter::new();
        accepted.tools_list_changed = requested.tools_list_changed;
        Some(accepted)
    }

    async fn listen(&self, context: SubscriptionContext) -> Result<(), ErrorData> {
        let mut changes = self.0.tools.changes();
        loop {
            tokio::select! {
                () = context.cancelled() => return Ok(()),
                changed = changes.changed() => {
                    if changed.is_err() {
                        return Ok(());
                    }
                    if context.sink().notify_tool_list_changed().await.is_err() {
                        return Ok(());
                    }
                }
            }
        }
    }
}
