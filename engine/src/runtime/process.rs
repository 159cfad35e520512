//! `airlock:host/process` (contract 0.2.0): the children a call starts. Every `spawn` passes
//! the [`gate`] first (the tool's `processes` grant, the line the user approved, the deny
//! rules, the folders its redirections write); what passes runs through [`airlock_process`]
//! in the operating system's sandbox ([`airlock_sandbox`]) built from the same grant as the
//! instance's and the session's [`CommandView`]: the call's writable folders and the package
//! caches are the child's to write, its read-only folders and the user's toolchains are
//! read only, the secrets are hidden, and it gets the network only when its tool was
//! granted every host. What the sandbox blocked is recognised from each child's output
//! ([`airlock_sandbox::explain`]) and kept for the scheduler.
//!
//! Invariants: a call that holds no [`ProcessAccess`] (every check phase, and every tool not
//! granted `processes`) starts nothing; the children of an instance live in its resource
//! table, so dropping the instance (the call ended, ran out of time or was cancelled) kills
//! their process groups; a call starts at most [`MAX_CHILDREN`] children in all.

use std::os::unix::fs::DirBuilderExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use wasmtime::component::Resource;

use super::bindings::v2::airlock::host::process as wit;
use super::gate::{self, Gate};
use super::state::CallState;
use airlock_process::{Base, Child, ChildEvent, Request};
use airlock_sandbox::Spec;
use airlock_sandbox::explain::{self, Blocked};
use airlock_sandbox::folders::CommandView;

/// Most children one call may start.
pub const MAX_CHILDREN: u32 = 64;
/// Time kept between a child's timeout and its call's deadline (a tenth of what is left, at
/// most this).
const REPORT_MARGIN: Duration = Duration::from_secs(2);
/// Most bytes one spawn may hand its child on standard input. They stay in airlock's memory
/// until the child reads them, a copy per child, so without a cap a plugin could multiply its
/// own memory cap by the [`MAX_CHILDREN`] it starts (one buffer, sent 64 times, to children
/// that never read).
pub const MAX_STDIN: usize = 16 << 20;
/// The longest wait one `next` does, whatever the guest asks (the guest's deadline and
/// cancellation are checked between waits).
const MAX_WAIT: Duration = Duration::from_millis(1_000);

/// What a call's children may get: the gate's facts and the sandbox they run in.
#[derive(Debug, Clone, Default)]
pub struct ProcessAccess {
    /// What decides whether a command line may start.
    pub gate: Gate,
    /// Folders the children may read and write.
    pub read_write: Vec<PathBuf>,
    /// Folders the children may only read.
    pub read_only: Vec<PathBuf>,
    /// Whether the children get the network.
    pub network: bool,
    /// Names of the variables the tool may pass to its children.
    pub env_names: Vec<String>,
    /// What every command of the session sees besides the call's folders.
    pub view: std::sync::Arc<CommandView>,
    /// The workspace root: relative folders are resolved against it.
    pub workspace: PathBuf,
    /// Where background children's logs go (the session's outputs folder).
    pub log_dir: Option<PathBuf>,
}

/// A child in a call's resource table: the child, the spec it runs under, and the end of
/// its output (to recognise what the sandbox blocked).
#[derive(Debug)]
pub struct ChildSlot {
    child: Child,
    spec: Spec,
    tail: Vec<u8>,
    /// Its end was added to the call's meter (`next` repeats `Exited`; it counts once).
    counted: bool,
}

/// The processes of one call: its access, how many children it started, and what the
/// sandbox blocked them from.
#[derive(Debug, Default)]
pub struct CallProcesses {
    pub access: Option<ProcessAccess>,
    started: u32,
    blocked: Vec<Blocked>,
}

impl CallProcesses {
    pub fn new(access: Option<ProcessAccess>) -> Self {
        Self { access, started: 0, blocked: Vec::new() }
    }

    /// What the sandbox blocked this call's children from (each finding once).
    pub fn blocked(&self) -> &[Blocked] {
        &self.blocked
    }
}

impl wit::Host for CallState {
    fn spawn(&mut self, options: wit::SpawnOptions) -> wasmtime::Result<Result<Resource<ChildSlot>, wit::SpawnError>> {
        let remaining = self.deadline.saturating_duration_since(Instant::now());
        let request = match prepare(&mut self.processes, &self.label, options, remaining) {
            Ok(request) => request,
            Err(error) => {
                tracing::info!(plugin = &*self.label, call = self.call_id, "spawn refused: {error:?}");
                return Ok(Err(error));
            }
        };
        let spec = request.spec.clone();
        let child = match Child::spawn(request) {
            Ok(child) => child,
            Err(failure) => return Ok(Err(wit::SpawnError::Failed(failure.to_string()))),
        };
        tracing::info!(plugin = &*self.label, call = self.call_id, pid = child.pid(), "started a child");
        Ok(Ok(self.table.push(ChildSlot { child, spec, tail: Vec::new(), counted: false })?))
    }

    fn sandbox(&mut self) -> wasmtime::Result<String> {
        Ok(airlock_sandbox::support().to_string())
    }
}

impl wit::HostChild for CallState {
    fn pid(&mut self, slot: Resource<ChildSlot>) -> wasmtime::Result<u32> {
        Ok(self.table.get(&slot)?.child.pid())
    }

    async fn next(&mut self, slot: Resource<ChildSlot>, wait_ms: u32) -> wasmtime::Result<wit::Event> {
        let wait = Duration::from_millis(u64::from(wait_ms)).min(MAX_WAIT);
        let slot = self.table.get_mut(&slot)?;
        let event = slot.child.next(wait).await;
        Ok(match event {
            ChildEvent::Stdout(bytes) => {
                keep_tail(&mut slot.tail, &bytes);
                wit::Event::Stdout(bytes)
            }
            ChildEvent::Stderr(bytes) => {
                keep_tail(&mut slot.tail, &bytes);
                wit::Event::Stderr(bytes)
            }
            ChildEvent::Exited(info) => {
                // How the call's commands ended and what they used reach its card, once.
                if !std::mem::replace(&mut slot.counted, true) {
                    self.meter.command_ended(&info);
                    let succeeded = info.code == Some(0);
                    let tail = std::mem::take(&mut slot.tail);
                    if !succeeded {
                        for finding in explain::blocked(&tail, succeeded, explain::Rules { spec: &slot.spec }) {
                            if !self.processes.blocked.contains(&finding) {
                                self.processes.blocked.push(finding);
                            }
                        }
                    }
                }
                wit::Event::Exited(wit::ExitStatus { code: info.code, signal: info.signal, timed_out: info.timed_out })
            }
            ChildEvent::Idle => wit::Event::Idle,
        })
    }

    fn kill(&mut self, slot: Resource<ChildSlot>) -> wasmtime::Result<()> {
        self.table.get_mut(&slot)?.child.kill();
        Ok(())
    }

    fn log_path(&mut self, slot: Resource<ChildSlot>) -> wasmtime::Result<Option<String>> {
        Ok(self.table.get(&slot)?.child.log_path().map(|p| p.to_string_lossy().into_owned()))
    }

    fn drop(&mut self, slot: Resource<ChildSlot>) -> wasmtime::Result<()> {
        // Dropping the child kills its process group (a background one moves to the
        // process-wide list airlock stops at exit).
        self.table.delete(slot)?;
        Ok(())
    }
}

/// Checks a spawn against the call's access and turns it into a request for
/// [`airlock_process`].
fn prepare(
    processes: &mut CallProcesses,
    plugin: &str,
    options: wit::SpawnOptions,
    remaining: Duration,
) -> Result<Request, wit::SpawnError> {
    let Some(access) = processes.access.as_mut() else {
        return Err(wit::SpawnError::Denied(format!(
            "the plugin {plugin} may not start programs: it was not granted any `processes` \
             (and check phases never start anything)"
        )));
    };
    if processes.started >= MAX_CHILDREN {
        return Err(wit::SpawnError::Failed(format!("a call may start at most {MAX_CHILDREN} programs")));
    }
    if let Some(stdin) = options.stdin.as_ref().filter(|bytes| bytes.len() > MAX_STDIN) {
        return Err(wit::SpawnError::Invalid(format!(
            "the standard input is {} bytes, over the {MAX_STDIN}-byte limit: write it to a file and pass its name",
            stdin.len()
        )));
    }
    let (argv, line) = match options.command {
        wit::Command::Argv(words) => {
            let argv: Vec<String> = words.split('\0').map(str::to_string).collect();
            if argv.first().is_none_or(String::is_empty) {
                return Err(wit::SpawnError::Invalid("the command is empty".into()));
            }
            let line = argv.iter().map(|w| airlock_shell::quote(w)).collect::<Vec<_>>().join(" ");
            (argv, line)
        }
        wit::Command::Shell(line) => {
            if line.trim().is_empty() {
                return Err(wit::SpawnError::Invalid("the command line is empty".into()));
            }
            (vec![shell_program(), "-c".into(), line.clone()], line)
        }
    };
    let directory = folder(&access.workspace, &options.directory)?;
    if !access.read_write.iter().chain(&access.read_only).any(|granted| directory.starts_with(granted)) {
        return Err(wit::SpawnError::Denied(format!(
            "{} is not a folder this call may use; it may run commands in: {}",
            directory.display(),
            access
                .read_write
                .iter()
                .chain(&access.read_only)
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    let env = environment(&options.env, &access.env_names)?;
    let pass =
        access.gate.check(&line, &directory, &access.read_write, options.stdin.is_some()).map_err(|refusal| {
            match refusal {
                gate::Refusal::Denied(message)
                | gate::Refusal::Unreadable(message)
                | gate::Refusal::Uncertain(message) => wit::SpawnError::Denied(message),
            }
        })?;
    processes.started += 1;
    // A child is killed a little before the call's deadline, so its tool can still tell
    // the model it timed out, with the output so far.
    let limit = remaining.saturating_sub(REPORT_MARGIN.min(remaining / 10));
    // Never zero, which means no limit at all to the process manager — except for a
    // background command without a timeout of its own: a server runs until airlock exits.
    let timeout = match (options.timeout_ms, options.background) {
        (0, true) => Duration::ZERO,
        (0, false) => limit.max(Duration::from_millis(1)),
        (ms, _) => Duration::from_millis(ms).min(limit).max(Duration::from_millis(1)),
    };
    let background_log = match options.background {
        false => None,
        true => Some(log_file(access.log_dir.as_deref())?),
    };
    let view = &access.view;
    let spec = Spec {
        argv,
        cwd: directory,
        env,
        read_write: union(&access.read_write, &view.write),
        read_only: union(&access.read_only, &view.read),
        hidden: view.hidden.clone(),
        network: access.network,
        view: view.view,
    };
    let base = Base { path: view.path.clone(), home: view.home.clone(), vars: view.env.clone() };
    Ok(Request { spec, base: Some(base), host_env: pass.host_env, stdin: options.stdin, timeout, background_log })
}

/// `first`, then the folders of `second` no folder of `first` holds.
fn union(first: &[PathBuf], second: &[PathBuf]) -> Vec<PathBuf> {
    let mut out = first.to_vec();
    out.extend(second.iter().filter(|path| !first.iter().any(|f| path.starts_with(f))).cloned());
    out
}

/// Keeps the last [`explain::TAIL`] bytes of a child's output.
fn keep_tail(tail: &mut Vec<u8>, bytes: &[u8]) {
    tail.extend_from_slice(bytes);
    if tail.len() > 2 * explain::TAIL {
        tail.drain(..tail.len() - explain::TAIL);
    }
}

/// bash where it is (the gate reads lines as bash does), else the POSIX shell.
fn shell_program() -> String {
    ["/bin/bash", "/usr/bin/bash"].into_iter().find(|path| Path::new(path).is_file()).unwrap_or("/bin/sh").to_string()
}

/// The folder a child starts in, canonical: the workspace when `raw` is empty.
fn folder(workspace: &Path, raw: &str) -> Result<PathBuf, wit::SpawnError> {
    let joined = if raw.is_empty() { workspace.to_path_buf() } else { workspace.join(raw) };
    let canonical = joined.canonicalize().map_err(|e| {
        wit::SpawnError::Invalid(format!(
            "the folder {} cannot be used: {e}",
            crate::sanitize::line(&joined.to_string_lossy())
        ))
    })?;
    if !canonical.is_dir() {
        return Err(wit::SpawnError::Invalid(format!("{} is not a folder", canonical.display())));
    }
    Ok(canonical)
}

/// The extra variables of a spawn: `NAME=value` entries joined by NUL, each a name the tool
/// was granted and never a reserved one (a name that makes the program load or run other
/// code: [`airlock_process::is_reserved_variable`]).
fn environment(raw: &str, granted: &[String]) -> Result<Vec<(String, String)>, wit::SpawnError> {
    let mut env = Vec::new();
    for entry in raw.split('\0').filter(|e| !e.is_empty()) {
        let Some((name, value)) = entry.split_once('=') else {
            return Err(wit::SpawnError::Invalid(format!("`{}` is not NAME=value", crate::sanitize::line(entry))));
        };
        if let Some(reason) = airlock_process::is_reserved_variable(name) {
            return Err(wit::SpawnError::Invalid(format!(
                "the variable {} cannot be set for a program: {reason}",
                crate::sanitize::line(name)
            )));
        }
        if !granted.iter().any(|g| g == name) {
            return Err(wit::SpawnError::Invalid(format!(
                "the variable {} was not granted to this tool, so it cannot pass it on",
                crate::sanitize::line(name)
            )));
        }
        env.push((name.to_string(), value.to_string()));
    }
    Ok(env)
}

/// A new log file's path for a background child, in the session's outputs folder (made
/// private to the user when it does not exist yet).
fn log_file(dir: Option<&Path>) -> Result<PathBuf, wit::SpawnError> {
    let Some(dir) = dir else {
        return Err(wit::SpawnError::Failed("background commands need a session folder for their logs".into()));
    };
    let dir = dir.join("commands");
    let made = std::fs::DirBuilder::new().recursive(true).mode(0o700).create(&dir);
    made.map_err(|e| wit::SpawnError::Failed(format!("cannot make {} for the log: {e}", dir.display())))?;
    Ok(dir.join(format!("background-{}-{}.log", std::process::id(), next_log_number())))
}

/// A number for each background log of this process.
fn next_log_number() -> u64 {
    static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(1);
    NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
}

#[cfg(test)]
#[path = "process_tests.rs"]
mod tests;
