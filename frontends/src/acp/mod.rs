//! `airlock acp`: airlock as an agent of the Agent Client Protocol (v1, over stdio), so
//! an editor (Zed, JetBrains IDEs, Neovim plugins) drives it. Each ACP session is an engine
//! session of its own ([`session`]), started by the binary through [`Start`]; its outputs
//! become `session/update` notifications ([`update`]), its questions permission requests
//! ([`permission`]), a recorded session loaded is replayed ([`replay`]), and a prompt's
//! blocks become the user turn's text ([`prompt`]). There is no agent loop here: orders go
//! in through the door, outputs come out, as for the TUI and the headless run.
//!
//! Invariants:
//! - stdout carries the protocol only (this module never prints; logs go to the log file);
//! - nothing a client sends grants anything or answers a question beyond its user's choice
//!   among the options airlock offered; the mode it sets is the session's approval mode,
//!   under which the policy's rules and deny lists still hold;
//! - a session's `cwd` lies in the workspace airlock was started for, or the request fails;
//! - a handler never returns an error to the SDK (that would end the connection): a bad
//!   request gets an error response and the connection goes on.

mod permission;
mod prompt;
mod replay;
mod session;
mod update;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::schema::{
    AgentCapabilities, CancelNotification, Implementation, InitializeRequest, InitializeResponse, LoadSessionRequest,
    LoadSessionResponse, McpCapabilities, NewSessionRequest, NewSessionResponse, PromptCapabilities, PromptRequest,
    SetSessionModeRequest, SetSessionModeResponse,
};
use agent_client_protocol::v1::{ConnectionTo, Responder};
use agent_client_protocol::{Agent, Client, Error, ErrorCode, Stdio};
use futures_util::future::BoxFuture;
use tokio::sync::mpsc;

use crate::ExitCode;
use airlock_door::{Output, Session};
use airlock_protocol::ApprovalMode;
use session::Live;

/// What the binary needs to start an engine session for an ACP session: the folder the
/// client works in (`cwd`, inside the workspace) and, for `session/load`, the recorded
/// session to continue.
#[derive(Debug, Clone)]
pub struct StartSession {
    pub cwd: PathBuf,
    pub resume: Option<String>,
}

/// Starts an engine session (its own tools and policy, so its "always" answers are its own).
pub type Start = Arc<
    dyn Fn(StartSession) -> BoxFuture<'static, Result<(Session, mpsc::UnboundedReceiver<Output>), String>>
        + Send
        + Sync,
>;

/// How the agent runs.
#[derive(Debug, Clone)]
pub struct Options {
    /// The workspace (absolute, canonical): a session's `cwd` must lie in it.
    pub workspace: PathBuf,
    /// The approval mode a new session starts in.
    pub mode: ApprovalMode,
}

/// The agent's state: its sessions by ACP session id (airlock's recorded session id).
#[derive(Clone)]
struct Server(Arc<Inner>);

struct Inner {
    start: Start,
    options: Options,
    sessions: Mutex<HashMap<String, Arc<Live>>>,
    /// The client takes `notice` updates (it declared `session.notices`).
    notices: std::sync::atomic::AtomicBool,
}

/// Serves ACP on stdin and stdout until the client closes stdin, then ends every session.
pub async fn serve_stdio(start: Start, options: Options) -> ExitCode {
    let notices = std::sync::atomic::AtomicBool::new(false);
    let server = Server(Arc::new(Inner { start, options, sessions: Mutex::new(HashMap::new()), notices }));
    let (a, b, c, d, e, f) =
        (server.clone(), server.clone(), server.clone(), server.clone(), server.clone(), server.clone());
    let served = Agent
        .v1()
        .name("airlock")
        .on_receive_request(
            async move |request: InitializeRequest, responder: Responder<InitializeResponse>, _cx| {
                a.initialize(&request, responder)
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: NewSessionRequest, responder: Responder<NewSessionResponse>, cx| {
                b.new_session(request, responder, cx).await
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: LoadSessionRequest, responder: Responder<LoadSessionResponse>, cx| {
                c.load_session(request, responder, cx).await
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: PromptRequest, responder, _cx| d.prompt(request, responder),
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_request(
            async move |request: SetSessionModeRequest, responder: Responder<SetSessionModeResponse>, _cx| {
                e.set_mode(&request, responder)
            },
            agent_client_protocol::on_receive_request!(),
        )
        .on_receive_notification(
            async move |notification: CancelNotification, _cx| {
                f.cancel(&notification);
                Ok(())
            },
            agent_client_protocol::on_receive_notification!(),
        )
        .connect_to(Stdio::new())
        .await;
    server.shutdown().await;
    match served {
        Ok(()) => ExitCode::Success,
        Err(error) => {
            tracing::warn!("the ACP connection ended: {error}");
            ExitCode::Failure
        }
    }
}

/// An `invalid_params` error saying `message`.
fn invalid(message: impl Into<String>) -> Error {
    Error::new(ErrorCode::INVALID_PARAMS, message)
}

/// Answers `responder` with `result`; a response that cannot be sent means the client is
/// gone, which the connection's end handles.
fn answer<T: agent_client_protocol::JsonRpcResponse>(responder: Responder<T>, result: Result<T, Error>) {
    let sent = match result {
        Ok(response) => responder.respond(response),
        Err(error) => responder.respond_with_error(error),
    };
    if let Err(error) = sent {
        tracing::debug!("an ACP response was not sent: {error}");
    }
}

impl Server {
    fn initialize(&self, request: &InitializeRequest, responder: Responder<InitializeResponse>) -> Result<(), Error> {
        let notices = request.client_capabilities.session.as_ref().is_some_and(|s| s.notices.is_some());
        self.0.notices.store(notices, std::sync::atomic::Ordering::SeqCst);
        // airlock speaks v1; a client asking for a later version is told v1 and decides.
        let version = request.protocol_version.min(ProtocolVersion::V1);
        let prompts = PromptCapabilities::new().embedded_context(true).image(true);
        let capabilities = AgentCapabilities::new()
            .load_session(true)
            .prompt_capabilities(prompts)
            .mcp_capabilities(McpCapabilities::new());
        let info = Implementation::new("airlock", env!("CARGO_PKG_VERSION")).title("airlock".to_owned());
        answer(responder, Ok(InitializeResponse::new(version).agent_capabilities(capabilities).agent_info(info)));
        Ok(())
    }

    async fn new_session(
        &self,
        request: NewSessionRequest,
        responder: Responder<NewSessionResponse>,
        cx: ConnectionTo<Client>,
    ) -> Result<(), Error> {
        let result = self
            .open(&request.cwd, request.mcp_servers.len(), None, cx)
            .await
            .map(|live| NewSessionResponse::new(live.id().to_owned()).modes(session::modes(self.0.options.mode)));
        answer(responder, result);
        Ok(())
    }

    async fn load_session(
        &self,
        request: LoadSessionRequest,
        responder: Responder<LoadSessionResponse>,
        cx: ConnectionTo<Client>,
    ) -> Result<(), Error> {
        let id = request.session_id.0.to_string();
        let result = self
            .open(&request.cwd, request.mcp_servers.len(), Some(id), cx)
            .await
            .map(|_| LoadSessionResponse::new().modes(session::modes(self.0.options.mode)));
        answer(responder, result);
        Ok(())
    }

    /// Starts the engine session of an ACP session in `cwd` (a loaded one replays its
    /// conversation to the client before this returns).
    async fn open(
        &self,
        cwd: &Path,
        mcp_servers: usize,
        resume: Option<String>,
        cx: ConnectionTo<Client>,
    ) -> Result<Arc<Live>, Error> {
        let cwd = self.inside_workspace(cwd)?;
        if mcp_servers > 0 {
            // airlock's MCP servers are the user's own (`airlock mcp add`), each with its
            // sandbox and grant; an editor's list would run outside them.
            tracing::info!(
                "the ACP client named {mcp_servers} MCP server(s) for the session; airlock ignores them \
                 (add a server with `airlock mcp add` to give it a sandbox and a grant)"
            );
        }
        let loading = resume.is_some();
        let (session, outputs) =
            (self.0.start)(StartSession { cwd, resume: resume.clone() }).await.map_err(|reason| {
                if loading {
                    invalid(format!("cannot load the session: {}", airlock_protocol::shown::line(&reason)))
                } else {
                    Error::internal_error().data(reason)
                }
            })?;
        // A loaded session keeps the id the client knows it by.
        let id = resume.unwrap_or_else(|| session.info().id.clone());
        let notices = self.0.notices.load(std::sync::atomic::Ordering::SeqCst);
        let live = Live::start(session, outputs, id.clone(), self.0.options.workspace.clone(), notices, cx);
        self.lock().insert(id, live.clone());
        Ok(live)
    }

    /// `cwd` made canonical, when it is the workspace or inside it.
    fn inside_workspace(&self, cwd: &Path) -> Result<PathBuf, Error> {
        let workspace = &self.0.options.workspace;
        let shown = airlock_protocol::shown::line(&cwd.display().to_string());
        if !cwd.is_absolute() {
            return Err(invalid(format!("cwd {shown} is not an absolute path")));
        }
        let canonical = cwd.canonicalize().map_err(|e| invalid(format!("cwd {shown}: {e}")))?;
        if !canonical.starts_with(workspace) {
            return Err(invalid(format!(
                "cwd {shown} is outside the workspace airlock serves ({}); start `airlock acp` in that folder or \
                 with --workspace",
                workspace.display()
            )));
        }
        Ok(canonical)
    }

    fn prompt(
        &self,
        request: PromptRequest,
        responder: Responder<agent_client_protocol::v1::schema::PromptResponse>,
    ) -> Result<(), Error> {
        match self.live(&request.session_id.0) {
            Ok(live) => {
                // The turn runs beside the dispatch loop: its permission requests' answers
                // and a `session/cancel` must come in while it runs.
                tokio::spawn(async move {
                    let result = live.prompt(request.prompt).await;
                    answer(responder, result);
                });
            }
            Err(error) => answer(responder, Err(error)),
        }
        Ok(())
    }

    fn set_mode(
        &self,
        request: &SetSessionModeRequest,
        responder: Responder<SetSessionModeResponse>,
    ) -> Result<(), Error> {
        let result = self.live(&request.session_id.0).and_then(|live| live.set_mode(&request.mode_id.0));
        answer(responder, result.map(|()| SetSessionModeResponse::new()));
        Ok(())
    }

    fn cancel(&self, notification: &CancelNotification) {
        match self.live(&notification.session_id.0) {
            Ok(live) => live.cancel(),
            Err(_) => tracing::debug!("session/cancel for a session airlock does not hold"),
        }
    }

    fn live(&self, id: &str) -> Result<Arc<Live>, Error> {
        self.lock().get(id).cloned().ok_or_else(|| {
            invalid(format!("no session {} here: start one with session/new", airlock_protocol::shown::line(id)))
        })
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Live>>> {
        self.0.sessions.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Ends every session: what runs is cancelled, questions are refused.
    async fn shutdown(&self) {
        let sessions: Vec<Arc<Live>> = self.lock().drain().map(|(_, live)| live).collect();
        for live in sessions {
            live.shutdown().await;
        }
    }
}
