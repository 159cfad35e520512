//! Starting a stdio server: the sandboxed child, the reader of its stderr, the flood guard
//! on its stdout, the handshake — all within the start-up timeout.

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use airlock_process::{Base, Child, ChildEvent, Interactive, Request};
use airlock_sandbox::Spec;
use rmcp::ServiceExt;

use crate::McpError;
use crate::client::{Connection, Handler, Watcher};
use crate::flood::FloodGuard;
use crate::health::Health;

/// How to start one stdio server, as the engine built it from the server's config and grant.
#[derive(Debug, Clone)]
pub struct Launch {
    /// The program, its folder, its environment and what the OS sandbox lets it do.
    pub spec: Spec,
    /// The user's `PATH`, `HOME` and toolchain variables.
    pub base: Option<Base>,
    /// The `airlock` executable that runs the sandbox helper (`/proc/self/exe` in airlock).
    pub helper: PathBuf,
    /// How long the start, the handshake and the first tool list may take.
    pub startup_timeout: Duration,
    /// Longest message the server may send ([`crate::MAX_MESSAGE`] by default).
    pub max_message: usize,
}

/// Starts the server of `launch` and completes the MCP handshake.
pub async fn start_stdio(launch: Launch) -> Result<Connection, McpError> {
    let Launch { spec, base, helper, startup_timeout, max_message } = launch;
    let request = Request { spec, base, ..Request::default() };
    let Interactive { child, stdin, stdout } =
        Child::spawn_interactive_with_helper(&helper, request).map_err(|e| McpError::Spawn(e.0))?;
    let health = Arc::new(Health::default());
    let watcher = Watcher(tokio::spawn(watch(child, health.clone())));
    let reader = FloodGuard::new(stdout, max_message, health.clone());
    let handler = Handler::default();
    let secs = startup_timeout.as_secs();
    let served = tokio::time::timeout(startup_timeout, handler.serve((reader, stdin))).await;
    match served {
        Ok(Ok(service)) => Ok(Connection::new(service, health, Some(watcher), startup_timeout)),
        Ok(Err(error)) => {
            // The watcher may learn of the exit a moment after the pipe closed.
            tokio::time::sleep(Duration::from_millis(50)).await;
            let reason = health.failure().unwrap_or_else(|| format!("the handshake failed: {error}"));
            Err(McpError::Stopped(format!("{reason}{}", health.stderr_hint())))
        }
        Err(_) => Err(McpError::StartupTimeout { secs, stderr: health.stderr_hint() }),
    }
}

/// Reads the child's stderr into the health's tail and records its exit; owns the child, so
/// aborting this task kills the server's group.
async fn watch(mut child: Child, health: Arc<Health>) {
    loop {
        match child.next(Duration::from_secs(3600)).await {
            ChildEvent::Stderr(bytes) => health.stderr(&bytes),
            ChildEvent::Stdout(_) | ChildEvent::Idle => {}
            ChildEvent::Exited(info) => {
                let how = match (info.code, info.signal) {
                    (Some(code), _) => format!("exit code {code}"),
                    (None, Some(signal)) => format!("signal {signal}"),
                    (None, None) => "no exit code".to_owned(),
                };
                health.fail(format!("the server exited ({how})"));
                return;
            }
        }
    }
}
