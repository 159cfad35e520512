//! The MCP servers of one session: each started on its own task when the session starts, so
//! none delays the first prompt. A server is `Starting`, then `Ready` (its checked tools
//! offered from the next model request on) or `Failed`. A failure — it could not start,
//! it exited, crashed, hung or flooded — is reported once as a warning, and the session
//! goes on without its tools. Dropping the hub drops the connections, which kills the
//! servers' process groups.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use airlock_mcp::{CallOutcome, Connection, McpError};
use airlock_sandbox::folders::{CommandView, HostEnv, Settings};
use tokio::sync::mpsc;

use super::checks::{OfferedTool, SkippedTool, check_tools};
use super::launch::{Host, http_launch, launch};
use super::{ConfiguredServer, Servers};
use crate::events::{Event, EventSink};
use crate::paths::Paths;
use crate::sanitize;

/// A server started and listed.
pub(super) struct Ready {
    pub connection: Connection,
    pub offered: Vec<OfferedTool>,
    pub skipped: Vec<SkippedTool>,
    pub warnings: Vec<String>,
    /// The folders its sandbox lets it write (its resolved `write` grant; none for an HTTP
    /// server): the roots of its calls' checkpoints.
    pub write: Vec<PathBuf>,
}

/// Starts `server` in its sandbox, lists and checks its tools. The error is one sanitised
/// line saying why it cannot be used.
pub(super) async fn connect(server: &ConfiguredServer, host: &Host<'_>) -> Result<Ready, String> {
    let name = &server.name;
    let (connection, warnings, write) = if server.config.url.is_some() {
        let (launch, warnings) = http_launch(server).map_err(|e| sanitize::line(&e))?;
        let connection = airlock_mcp::start_http(launch)
            .await
            .map_err(|e| sanitize::line(&format!("MCP server {name} did not start: {e}")))?;
        (connection, warnings, Vec::new())
    } else {
        let (launch, warnings) = launch(server, host).map_err(|e| sanitize::line(&e))?;
        let write = launch.spec.read_write.clone();
        let connection = airlock_mcp::start_stdio(launch)
            .await
            .map_err(|e| sanitize::line(&format!("MCP server {name} did not start: {e}{}", widen_hint(server))))?;
        (connection, warnings, write)
    };
    let tools = connection.tools().await.map_err(|e| sanitize::line(&format!("MCP server {name}: {e}")))?;
    let (offered, skipped) = check_tools(name, &tools, |tool| server.config.wants(tool));
    Ok(Ready { connection, offered, skipped, warnings, write })
}

/// What a server that fails runs with, and how to widen it: a server that needs more than
/// its grant fails, and the person sees the grant and the command that changes it.
fn widen_hint(server: &ConfiguredServer) -> String {
    format!(
        "; it runs with its grant ({}); if it needs more: airlock mcp grant {} with --read DIR, --write DIR, \
         --network or --env VAR",
        server.grant.describe(),
        server.name
    )
}

/// The [`CommandView`] servers see, as commands of a session in `workspace` would.
pub(super) fn view_for(paths: &Paths, workspace: &Path, commands: &Settings) -> CommandView {
    CommandView::detect(&HostEnv::current(), commands, &paths.protected(), workspace)
}

/// The user's home folder, canonical.
pub(crate) fn user_home() -> Option<PathBuf> {
    std::env::var_os("HOME").filter(|h| !h.is_empty()).map(PathBuf::from).and_then(|h| h.canonicalize().ok())
}

enum State {
    Starting,
    Ready { connection: Arc<Connection>, offered: Vec<OfferedTool>, write: Vec<PathBuf> },
    Failed,
}

/// One server of the session.
pub struct Live {
    pub server: ConfiguredServer,
    state: Mutex<State>,
}

impl Live {
    /// The folders the running server may write, as its sandbox was built at launch (none
    /// before it is ready, and none for an HTTP server).
    pub fn write_folders(&self) -> Vec<PathBuf> {
        match &*lock(&self.state) {
            State::Ready { write, .. } => write.clone(),
            _ => Vec::new(),
        }
    }
}

impl std::fmt::Debug for Live {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Live").field("server", &self.server.name).finish_non_exhaustive()
    }
}

/// The session's MCP servers.
#[derive(Debug)]
pub struct Hub {
    servers: Vec<Arc<Live>>,
    events: EventSink,
    /// Warnings and notices already given (each once).
    said: Mutex<HashSet<String>>,
}

impl Hub {
    /// Starts every enabled server of `servers` in the background (each on its own task),
    /// reporting to `events`. Call it inside the async runtime; without one no server starts
    /// (each says so).
    pub fn start(
        servers: Servers,
        paths: &Paths,
        workspace: &Path,
        commands: &Settings,
        helper: &Path,
        events: EventSink,
    ) -> Arc<Self> {
        let lives: Vec<Arc<Live>> = servers
            .servers
            .into_iter()
            .filter(|server| server.config.enabled())
            .map(|server| Arc::new(Live { server, state: Mutex::new(State::Starting) }))
            .collect();
        let hub = Arc::new(Self { servers: lives, events, said: Mutex::default() });
        for notice in &servers.notices {
            hub.say(Event::Notice { message: sanitize::line(notice) });
        }
        if hub.servers.is_empty() {
            return hub;
        }
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            for live in &hub.servers {
                hub.fail(live, format!("MCP server {} cannot start outside the async runtime", live.server.name));
            }
            return hub;
        };
        let view = Arc::new(view_for(paths, workspace, commands));
        let protected = Arc::new(paths.protected());
        for live in &hub.servers {
            let (hub, live, view, protected) = (Arc::downgrade(&hub), live.clone(), view.clone(), protected.clone());
            let (workspace, helper) = (workspace.to_path_buf(), helper.to_path_buf());
            runtime.spawn(async move {
                let home = user_home();
                let host = Host {
                    workspace: &workspace,
                    home: home.as_deref(),
                    view: &view,
                    protected: &protected,
                    helper: &helper,
                };
                let connected = connect(&live.server, &host).await;
                // A hub dropped meanwhile (the session ended) takes no more servers.
                let Some(hub) = hub.upgrade() else { return };
                hub.settle(&live, connected);
            });
        }
        hub
    }

    /// The hub of a session in `workspace`: every server configured for it, started as
    /// [`Hub::start`] does with airlock itself as the sandbox helper. A config that cannot
    /// be read is one warning, and no server starts.
    pub fn for_session(paths: &Paths, workspace: &Path, commands: &Settings, events: EventSink) -> Arc<Self> {
        let servers = match super::servers(paths, workspace) {
            Ok(servers) => servers,
            Err(error) => {
                events.send(Event::Warning { message: sanitize::line(&format!("no MCP server starts: {error}")) });
                Servers::default()
            }
        };
        Self::start(servers, paths, workspace, commands, Path::new(airlock_process::SELF_EXE), events)
    }

    fn settle(&self, live: &Live, connected: Result<Ready, String>) {
        let name = &live.server.name;
        match connected {
            Ok(ready) => {
                for warning in &ready.warnings {
                    self.say(Event::Warning { message: sanitize::line(warning) });
                }
                if let Some(message) = skipped_warning(name, &ready.skipped) {
                    self.say(Event::Warning { message });
                }
                *lock(&live.state) =
                    State::Ready { connection: Arc::new(ready.connection), offered: ready.offered, write: ready.write };
            }
            Err(reason) => self.fail(live, reason),
        }
    }

    /// Marks `live` failed and says why, once.
    fn fail(&self, live: &Live, reason: String) {
        *lock(&live.state) = State::Failed;
        self.say(Event::Warning {
            message: sanitize::line(&format!("{reason}; the session goes on without its tools")),
        });
    }

    /// Sends `event` unless the same was already said this session.
    fn say(&self, event: Event) {
        let key = format!("{event:?}");
        if lock(&self.said).insert(key) {
            self.events.send(event);
        }
    }

    /// The tools of the ready servers, with their server.
    pub fn offered(&self) -> Vec<(Arc<Live>, OfferedTool)> {
        let mut tools = Vec::new();
        let mut names = HashSet::new();
        for live in &self.servers {
            let ready = match &*lock(&live.state) {
                State::Ready { offered, .. } => offered.clone(),
                _ => continue,
            };
            for tool in ready {
                // `a_` + `_b` and `a` + `__b` give one name: the first server's tool keeps it.
                if names.insert(tool.name.clone()) {
                    tools.push((live.clone(), tool));
                } else {
                    self.say(Event::Warning {
                        message: sanitize::line(&format!(
                            "the tool {} of MCP server {} is not offered: another MCP server's tool has that name",
                            tool.name, live.server.name
                        )),
                    });
                }
            }
        }
        tools
    }

    /// The ready tool offered as `name`.
    pub fn find(&self, name: &str) -> Option<(Arc<Live>, OfferedTool)> {
        self.offered().into_iter().find(|(_, tool)| tool.name == name)
    }

    /// Whether a server is still starting.
    pub fn is_starting(&self) -> bool {
        self.servers.iter().any(|live| matches!(&*lock(&live.state), State::Starting))
    }

    /// Says once per server still starting that its tools come once it is ready.
    pub fn notice_starting(&self) {
        for live in &self.servers {
            if matches!(&*lock(&live.state), State::Starting) {
                self.say(Event::Notice {
                    message: format!(
                        "MCP server {} is still starting: its tools are offered from the next request once it is ready",
                        live.server.name
                    ),
                });
            }
        }
    }

    /// Warns once that `tool` of `live` is not offered because a built-in or plugin owns
    /// its name.
    pub fn warn_clash(&self, live: &Live, tool: &OfferedTool) {
        self.say(Event::Warning {
            message: sanitize::line(&format!(
                "the tool {} of MCP server {} is not offered: a built-in or plugin tool has that name",
                tool.name, live.server.name
            )),
        });
    }

    /// Calls `tool` of `live`: its progress to `live_output`, at most `timeout`. A server
    /// that stopped working is reported once and its tools are withdrawn.
    pub async fn call(
        &self,
        live: &Live,
        tool: &OfferedTool,
        args: serde_json::Map<String, serde_json::Value>,
        live_output: Option<mpsc::UnboundedSender<String>>,
    ) -> Result<CallOutcome, McpError> {
        let connection = match &*lock(&live.state) {
            State::Ready { connection, .. } => connection.clone(),
            _ => return Err(McpError::Stopped(format!("MCP server {} is not running", live.server.name))),
        };
        let timeout = Duration::from_secs(live.server.config.tool_secs());
        let result = connection.call(&tool.tool, args, timeout, live_output).await;
        if let Some(failure) = connection.failure() {
            self.fail(
                live,
                format!("MCP server {} stopped working: {failure}{}", live.server.name, widen_hint(&live.server)),
            );
        }
        result
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// How many skipped tools one warning names; the rest are counted (a server listing a
/// hundred thousand bad tools is one line, never a flood of them).
const SKIPPED_NAMED: usize = 3;

/// The one warning that says which tools of server `name` are not offered and why.
fn skipped_warning(name: &str, skipped: &[SkippedTool]) -> Option<String> {
    let named: Vec<String> = skipped.iter().take(SKIPPED_NAMED).map(|s| format!("{} ({})", s.tool, s.reason)).collect();
    let message = match skipped.len() {
        0 => return None,
        1 => format!("the tool {} of MCP server {name} is not offered: {}", skipped[0].tool, skipped[0].reason),
        n if n <= SKIPPED_NAMED => format!("{n} tools of MCP server {name} are not offered: {}", named.join("; ")),
        n => format!(
            "{n} tools of MCP server {name} are not offered: {}; and {} more (`airlock mcp show {name}` lists them)",
            named.join("; "),
            n - SKIPPED_NAMED
        ),
    };
    Some(sanitize::line_bounded(&message, 600))
}
