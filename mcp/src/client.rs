//! A live connection to a server: its tools, and calls with live progress, cancellation and
//! a timeout. Results come out as plain data ([`CallOutcome`]).

use std::sync::Arc;
use std::time::Duration;

use futures_util::StreamExt;
use rmcp::handler::client::progress::ProgressDispatcher;
use rmcp::model::{
    CallToolRequestParams, CancelledNotificationParam, ClientCapabilities, ClientConfig, ClientRequest, ContentBlock,
    Implementation, ProgressNotificationParam, Request, RequestId, ResourceContents, ServerResult,
};
use rmcp::service::{NotificationContext, Peer, PeerRequestOptions, RoleClient, RunningService, ServiceError};
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use crate::McpError;
use crate::health::Health;

/// airlock's side of the protocol: it only listens for progress.
#[derive(Default)]
pub(crate) struct Handler {
    progress: ProgressDispatcher,
}

impl rmcp::ClientHandler for Handler {
    async fn on_progress(&self, params: ProgressNotificationParam, _context: NotificationContext<RoleClient>) {
        self.progress.handle_notification(params).await;
    }

    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(ClientCapabilities::default(), Implementation::new("airlock", env!("CARGO_PKG_VERSION")))
    }
}

/// The task that owns a stdio server's child: aborted (the group killed) with the connection.
pub(crate) struct Watcher(pub(crate) JoinHandle<()>);

impl Drop for Watcher {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// A tool as the server declared it (unchecked: the engine checks it before offering it).
#[derive(Debug, Clone, PartialEq)]
pub struct ServerTool {
    pub name: String,
    pub title: Option<String>,
    pub description: String,
    pub input_schema: serde_json::Value,
    /// The server's hint that the tool changes nothing (a hint only: calls are still asked).
    pub read_only_hint: bool,
}

/// One piece of a call's result.
#[derive(Debug, Clone, PartialEq)]
pub enum Part {
    Text(String),
    /// An image, an audio clip or a binary resource: its type and its decoded bytes.
    Media {
        mime_type: String,
        data: Vec<u8>,
    },
    /// A resource the server embedded as text.
    Resource {
        uri: String,
        text: String,
    },
    /// A resource by reference (or binary), for a link line.
    Link {
        uri: String,
        name: String,
        mime_type: Option<String>,
    },
}

/// A finished call: its parts, and whether the server says it failed (`isError`).
#[derive(Debug, Clone, PartialEq)]
pub struct CallOutcome {
    pub parts: Vec<Part>,
    pub is_error: bool,
}

/// A connection to a started server.
pub struct Connection {
    service: RunningService<RoleClient, Handler>,
    health: Arc<Health>,
    _watcher: Option<Watcher>,
    list_timeout: Duration,
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Connection").field("failure", &self.health.failure()).finish_non_exhaustive()
    }
}

impl Connection {
    pub(crate) fn new(
        service: RunningService<RoleClient, Handler>,
        health: Arc<Health>,
        watcher: Option<Watcher>,
        list_timeout: Duration,
    ) -> Self {
        Self { service, health, _watcher: watcher, list_timeout }
    }

    /// Every tool the server declares (all pages), within the start-up timeout.
    pub async fn tools(&self) -> Result<Vec<ServerTool>, McpError> {
        let listed = tokio::time::timeout(self.list_timeout, self.service.list_all_tools()).await;
        let tools = match listed {
            Ok(Ok(tools)) => tools,
            Ok(Err(error)) => return Err(self.stopped(error)),
            Err(_) => {
                let secs = self.list_timeout.as_secs();
                self.health.fail(format!("the server did not list its tools within {secs} s (it hangs)"));
                return Err(McpError::StartupTimeout { secs, stderr: self.health.stderr_hint() });
            }
        };
        Ok(tools
            .into_iter()
            .map(|tool| ServerTool {
                name: tool.name.to_string(),
                title: tool.title.clone(),
                description: tool.description.as_deref().unwrap_or_default().to_owned(),
                input_schema: serde_json::Value::Object((*tool.input_schema).clone()),
                read_only_hint: tool.annotations.as_ref().and_then(|a| a.read_only_hint).unwrap_or(false),
            })
            .collect())
    }

    /// Calls `tool` with `args`; its progress messages go to `live`. Dropping the future
    /// cancels the call at the server; past `timeout` it is cancelled and fails.
    pub async fn call(
        &self,
        tool: &str,
        args: serde_json::Map<String, serde_json::Value>,
        timeout: Duration,
        live: Option<mpsc::UnboundedSender<String>>,
    ) -> Result<CallOutcome, McpError> {
        let params = CallToolRequestParams::new(tool.to_owned()).with_arguments(args);
        let request = ClientRequest::CallToolRequest(Request::new(params));
        let handle = self
            .service
            .send_cancellable_request(request, PeerRequestOptions::no_options())
            .await
            .map_err(|e| self.stopped(e))?;
        let mut guard = CancelOnDrop { peer: self.service.peer().clone(), id: Some(handle.id.clone()) };
        let mut progress = self.service.service().progress.subscribe(handle.progress_token.clone()).await;
        let response = handle.await_response();
        tokio::pin!(response);
        let deadline = tokio::time::sleep(timeout);
        tokio::pin!(deadline);
        let result = loop {
            tokio::select! {
                result = &mut response => break result,
                Some(note) = progress.next() => {
                    if let Some(live) = &live {
                        let _ = live.send(progress_line(&note));
                    }
                }
                () = &mut deadline => {
                    return Err(McpError::CallTimeout { secs: timeout.as_secs() });
                }
            }
        };
        guard.id = None;
        match result {
            Ok(ServerResult::CallToolResult(result)) => Ok(CallOutcome {
                parts: result.content.into_iter().map(part).collect(),
                is_error: result.is_error.unwrap_or(false),
            }),
            Ok(other) => Err(McpError::Protocol(format!("{other:?}").chars().take(200).collect())),
            Err(error) => Err(self.stopped(error)),
        }
    }

    /// Why the server stopped working, the first time it was noticed; `None` while it works.
    pub fn failure(&self) -> Option<String> {
        self.health.failure()
    }

    /// The last [`crate::STDERR_TAIL`] bytes of the server's stderr (unsanitised).
    pub fn stderr_tail(&self) -> String {
        self.health.stderr_tail()
    }

    /// The error for a request that failed at the transport: the recorded reason (an exit,
    /// a flood) when there is one, else this one, which becomes the reason.
    fn stopped(&self, error: ServiceError) -> McpError {
        let reason = match error {
            ServiceError::McpError(data) => return McpError::Protocol(data.message.to_string()),
            ServiceError::TransportClosed => "the server closed the connection".to_owned(),
            other => format!("the connection failed: {other}"),
        };
        self.health.fail(reason);
        let reason = self.health.failure().unwrap_or_default();
        McpError::Stopped(format!("{reason}{}", self.health.stderr_hint()))
    }
}

/// Tells the server a call was abandoned, unless it finished.
struct CancelOnDrop {
    peer: Peer<RoleClient>,
    id: Option<RequestId>,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else { return };
        let peer = self.peer.clone();
        let param = CancelledNotificationParam::new(Some(id), Some("cancelled by airlock".into()));
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let _ = peer.notify_cancelled(param).await;
            });
        }
    }
}

/// A progress notification as one line of live output.
fn progress_line(note: &ProgressNotificationParam) -> String {
    let amount = match note.total {
        Some(total) => format!("{}/{}", note.progress, total),
        None => format!("{}", note.progress),
    };
    match &note.message {
        Some(message) => format!("{message} ({amount})\n"),
        None => format!("progress {amount}\n"),
    }
}

fn part(block: ContentBlock) -> Part {
    match block {
        ContentBlock::Text(text) => Part::Text(text.text),
        ContentBlock::Image(image) => media(image.mime_type, &image.data),
        ContentBlock::Audio(audio) => media(audio.mime_type, &audio.data),
        ContentBlock::Resource(embedded) => match embedded.resource {
            ResourceContents::TextResourceContents { uri, text, .. } => Part::Resource { uri, text },
            ResourceContents::BlobResourceContents { mime_type: Some(mime_type), blob, .. } => media(mime_type, &blob),
            ResourceContents::BlobResourceContents { uri, mime_type, .. } => {
                Part::Link { name: uri.clone(), uri, mime_type }
            }
            // A later kind of resource: named by what the protocol knows of it.
            _ => Part::Text("[a resource of a kind airlock does not read]".into()),
        },
        ContentBlock::ResourceLink(link) => Part::Link { uri: link.uri, name: link.name, mime_type: link.mime_type },
        _ => Part::Text("[content of a kind airlock does not read]".into()),
    }
}

/// Media sent as base64, decoded; data that is not base64 is named, not kept.
fn media(mime_type: String, data: &str) -> Part {
    use base64::Engine as _;
    match base64::engine::general_purpose::STANDARD.decode(data) {
        Ok(data) => Part::Media { mime_type, data },
        Err(_) => Part::Text(format!("[{mime_type} content that was not valid base64]")),
    }
}
