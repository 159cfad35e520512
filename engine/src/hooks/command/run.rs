//! One run of a command hook: the program started through [`airlock_process`] under the
//! sandbox its [`Launch`] describes, the event written to its stdin (then closed), its stdout
//! and stderr collected up to [`MAX_OUTPUT`] each.
//!
//! Invariants: the whole process group dies at the deadline (the process manager's timer),
//! when the output passes the cap, and when the future is dropped (the [`Child`] is);
//! nothing the program writes is kept past the cap.

use std::path::PathBuf;
use std::time::Duration;

use airlock_process::{Child, ChildEvent, Request};

use super::claude::Ended;
use crate::hooks::HookFailure;

/// Most bytes kept of a hook's stdout, and of its stderr: past it the hook is `Flooded`.
pub const MAX_OUTPUT: usize = 64 * 1024;
/// How long one wait for output lasts (the deadline is the process manager's).
const WAIT: Duration = Duration::from_secs(1);

/// How to start a hook: the request (spec, base environment, timeout) and the sandbox helper.
#[derive(Debug, Clone)]
pub struct Launch {
    pub request: Request,
    /// The `airlock` executable that sets up the sandbox (`/proc/self/exe` in airlock).
    pub helper: PathBuf,
}

/// Runs the hook with `stdin` as its input, to its end.
pub async fn run(launch: &Launch, stdin: Vec<u8>) -> Result<Ended, HookFailure> {
    let mut request = launch.request.clone();
    request.stdin = Some(stdin);
    let timeout = request.timeout;
    let mut child =
        Child::spawn_with_helper(&launch.helper, request).map_err(|e| HookFailure::Unavailable(e.to_string()))?;
    let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
    loop {
        let (into, bytes) = match child.next(WAIT).await {
            ChildEvent::Stdout(bytes) => (&mut stdout, bytes),
            ChildEvent::Stderr(bytes) => (&mut stderr, bytes),
            ChildEvent::Idle => continue,
            ChildEvent::Exited(info) if info.timed_out => return Err(HookFailure::TimedOut(timeout)),
            ChildEvent::Exited(info) => return Ok(Ended { code: info.code, signal: info.signal, stdout, stderr }),
        };
        if into.len() + bytes.len() > MAX_OUTPUT {
            child.kill();
            return Err(HookFailure::Flooded(MAX_OUTPUT));
        }
        into.extend_from_slice(&bytes);
    }
}
