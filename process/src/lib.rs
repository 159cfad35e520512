//! The children plugins start: spawned through the sandbox helper ([`airlock_sandbox`]),
//! streamed, timed out and killed; and programs airlock speaks a protocol with (an MCP
//! server), whose stdin and stdout stay open for the caller ([`Child::spawn_interactive`]).
//!
//! Every child is `airlock __sandbox - <parent-pid>` (the spec in the helper's environment,
//! never on its world-readable command line) started from `/proc/self/exe` (a path nobody
//! can swap), with an environment of that one variable, as the leader of its own process
//! group (which the sandbox forbids it to leave), with a private temp folder (and a private
//! home when the request brings no [`Base`]). A spec that asks for the namespace view gets
//! it where [`airlock_sandbox::view_support`] says the machine allows it, and runs without it
//! otherwise (the caller says so).
//!
//! Invariants:
//! - the whole group dies when the leader exits, at the timeout, on [`Child::kill`] and when
//!   a foreground [`Child`] is dropped (a cancelled call, a dropped wasm instance); a group
//!   is only signalled while its leader is unreaped, so never a recycled pid ([`group`]);
//! - [`Child::next`] never blocks the executor: pipes are read by tokio tasks, the leader is
//!   awaited and the private folders removed on a plain thread;
//! - `Exited` is reported after the exit and the end of both pipes, or at most
//!   [`DRAIN_LIMIT`] after the exit;
//! - at most 64 children live at once, 16 of them in the background; background children
//!   write to a log and outlive their handle until [`stop_background`].
//!
//! This crate uses `airlock-sandbox` alone; the engine and the front ends use it.

#![deny(clippy::print_stdout, clippy::print_stderr)]

mod background;
mod environment;
mod group;
mod run;

use std::os::unix::fs::{DirBuilderExt, PermissionsExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Duration;

use rustix::process::Pid;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinHandle;
use tokio::time::Instant;

pub use background::{background, stop_background};
pub use environment::{Base, SYSTEM_PATH, is_reserved as is_reserved_variable};
pub use run::CommandRun;

use airlock_sandbox::{HELPER_ARG, SPEC_FROM_ENV, SPEC_VAR, Spec};
use group::{Group, Slot};

/// The largest chunk [`Child::next`] returns.
pub const CHUNK: usize = 64 * 1024;
/// How long the pipes are drained after the program exited before `Exited` is reported.
pub const DRAIN_LIMIT: Duration = Duration::from_secs(2);
/// Chunks buffered between the pipe readers and [`Child::next`]; a full buffer makes the
/// program wait on its writes.
const BUFFERED_CHUNKS: usize = 16;
/// The helper in production: this very executable.
pub const SELF_EXE: &str = "/proc/self/exe";

/// A child to start.
#[derive(Debug, Clone, Default)]
pub struct Request {
    /// The program, its folder, its folders and network; `env` holds only the extra variables.
    pub spec: Spec,
    /// The user's `PATH`, `HOME` and toolchain variables; `None`: the system's program
    /// folders and a private home.
    pub base: Option<Base>,
    /// Variables the host itself sets for this child (never a plugin's): they may use names
    /// a plugin may not set (`GIT_CONFIG_COUNT` that neutralises a repository's programs),
    /// and win over `spec.env`. `PATH`, `HOME` and `TMPDIR` stay airlock's.
    pub host_env: Vec<(String, String)>,
    /// Bytes written to its stdin, then closed; `None`: stdin is `/dev/null`.
    pub stdin: Option<Vec<u8>>,
    /// The whole group is killed this long after the start; zero means no limit.
    pub timeout: Duration,
    /// For a background child: the file its output goes to (created new, 0600).
    pub background_log: Option<PathBuf>,
}

/// How a child ended, and what it used (the kernel's figures from `wait4`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct ExitInfo {
    pub code: Option<i32>,
    pub signal: Option<i32>,
    pub timed_out: bool,
    /// CPU time, user and system, of the child and of every descendant that was waited for
    /// (the kernel adds a reaped process's time to its parent's).
    pub cpu: Duration,
    /// The largest resident set of the child or of one of those descendants, in bytes; zero
    /// when it did not pass airlock's own, which the kernel counts for the child too (see
    /// `group`): then the command's own is not known, only that it was smaller.
    pub peak_memory: u64,
}

/// What [`Child::next`] reports.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChildEvent {
    Stdout(Vec<u8>),
    Stderr(Vec<u8>),
    Exited(ExitInfo),
    Idle,
}

/// Why a child could not start.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct SpawnFailure(pub String);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stream {
    Stdout,
    Stderr,
}

/// How a child's stdin and stdout are used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Bytes written to stdin then closed; stdout read by [`Child::next`].
    Collected,
    /// Both handed to the caller ([`Interactive`]).
    Interactive,
}

/// A child started by [`Child::spawn_interactive`]: the handle (stderr, exit, kill; dropping
/// it kills the group) and the two pipes the caller speaks to the program on. Closing
/// `stdin` tells a well-behaved program to end; the pipes do not keep it alive past the
/// handle.
#[derive(Debug)]
pub struct Interactive {
    pub child: Child,
    pub stdin: tokio::process::ChildStdin,
    pub stdout: tokio::process::ChildStdout,
}

/// What the pipe readers send to [`Child::next`].
#[derive(Debug)]
enum Output {
    Chunk(Stream, Vec<u8>),
    End,
}

/// A started child.
#[derive(Debug)]
pub struct Child {
    pid: u32,
    group: Arc<Group>,
    /// Output of a foreground child; `None` for a background one (its output goes to the log).
    output: Option<mpsc::Receiver<Output>>,
    open_pipes: usize,
    exit: oneshot::Receiver<ExitInfo>,
    exited: Option<ExitInfo>,
    drain_until: Option<Instant>,
    reported: Option<ExitInfo>,
    /// Pipe readers and the stdin writer.
    tasks: Vec<JoinHandle<()>>,
    timer: Option<JoinHandle<()>>,
    log: Option<PathBuf>,
}

impl Child {
    /// Starts `request` in the sandbox. Call it inside a tokio runtime.
    pub fn spawn(request: Request) -> Result<Self, SpawnFailure> {
        Self::spawn_with_helper(Path::new(SELF_EXE), request)
    }

    /// [`Child::spawn`] with another `airlock` executable as the helper: for tests and
    /// benchmarks, whose own executable is not airlock.
    #[doc(hidden)]
    pub fn spawn_with_helper(helper: &Path, request: Request) -> Result<Self, SpawnFailure> {
        Self::start(helper, request, Mode::Collected).map(|(child, _)| child)
    }

    /// Starts `request` in the sandbox with its stdin and stdout handed to the caller as
    /// pipes that stay open: for a program that speaks a protocol on them (an MCP server).
    /// [`Child::next`] then reports its stderr and its exit only. Everything else is as for
    /// [`Child::spawn`]: the sandbox, the group, the timeout, the kill when the [`Child`] is
    /// dropped. `request.stdin` must be `None` and `request.background_log` too.
    pub fn spawn_interactive(request: Request) -> Result<Interactive, SpawnFailure> {
        Self::spawn_interactive_with_helper(Path::new(SELF_EXE), request)
    }

    /// [`Child::spawn_interactive`] with another `airlock` executable as the helper (tests).
    #[doc(hidden)]
    pub fn spawn_interactive_with_helper(helper: &Path, request: Request) -> Result<Interactive, SpawnFailure> {
        if request.stdin.is_some() || request.background_log.is_some() {
            return Err(SpawnFailure("an interactive command takes no stdin bytes and no log".into()));
        }
        let (child, pipes) = Self::start(helper, request, Mode::Interactive)?;
        let (stdin, stdout) = pipes.ok_or_else(|| SpawnFailure("the command's stdio pipes are missing".into()))?;
        Ok(Interactive { child, stdin, stdout })
    }

    fn start(
        helper: &Path,
        request: Request,
        mode: Mode,
    ) -> Result<(Self, Option<(tokio::process::ChildStdin, tokio::process::ChildStdout)>), SpawnFailure> {
        let runtime = tokio::runtime::Handle::try_current()
            .map_err(|_| SpawnFailure("a command can only be started inside the async runtime".into()))?;
        let _entered = runtime.enter();
        let Request { mut spec, base, host_env, stdin, timeout, background_log } = request;
        if spec.argv.is_empty() {
            return Err(SpawnFailure("no program to run".into()));
        }
        let slot = Slot::reserve(background_log.is_some())?;
        let private = PrivateFolders::create()?;
        spec.env = environment::build(
            &spec.env,
            &host_env,
            base.as_ref(),
            environment::Private { home: &private.home, tmp: &private.tmp },
            std::env::var_os("LANG").as_deref(),
        )?;
        spec.read_write.push(private.tmp.clone());
        if base.as_ref().is_none_or(|base| base.home.is_none()) {
            spec.read_write.push(private.home.clone());
        }
        if spec.view && airlock_sandbox::view_support(helper).is_err() {
            spec.view = false;
        }
        let log = match &background_log {
            Some(path) => Some(background::create_log(path).map_err(|error| {
                SpawnFailure(format!("cannot create the log {}: {error} (it must not exist yet)", path.display()))
            })?),
            None => None,
        };
        let json =
            serde_json::to_string(&spec).map_err(|error| SpawnFailure(format!("cannot encode the spec: {error}")))?;
        let mut command = Command::new(helper);
        // The spec (with the values of the variables passed on) goes through the helper's
        // environment, not its arguments, which every process on the machine can read.
        command
            .arg(HELPER_ARG)
            .arg(SPEC_FROM_ENV)
            .arg(std::process::id().to_string())
            .env_clear()
            .env(SPEC_VAR, json)
            .process_group(0)
            .stdin(if stdin.is_some() || mode == Mode::Interactive { Stdio::piped() } else { Stdio::null() })
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        let mut child =
            command.spawn().map_err(|error| SpawnFailure(format!("cannot start {}: {error}", spec.argv.join(" "))))?;
        let pid = child.id();
        let group = Group::new(Pid::from_child(&child));
        let pipes = (child.stdin.take(), child.stdout.take(), child.stderr.take());
        let (exit_sender, exit) = oneshot::channel();
        if let Err(error) = group::watch(child, Arc::clone(&group), exit_sender, (private, slot)) {
            // The leader was never reaped, so the group is still ours to kill.
            group.kill();
            return Err(SpawnFailure(format!("cannot watch the command: {error}")));
        }
        let mut started = Self {
            pid,
            group,
            output: None,
            open_pipes: 0,
            exit,
            exited: None,
            drain_until: None,
            reported: None,
            tasks: Vec::new(),
            timer: None,
            log: background_log.clone(),
        };
        // From here on, dropping `started` on an error kills the group.
        let handed = match mode {
            Mode::Collected => {
                started.connect(pipes, stdin, log)?;
                None
            }
            Mode::Interactive => Some(started.connect_interactive(pipes)?),
        };
        if !timeout.is_zero() {
            let group = Arc::clone(&started.group);
            started.timer = Some(tokio::spawn(async move {
                tokio::time::sleep(timeout).await;
                group.time_out();
            }));
        }
        if let Some(path) = background_log {
            background::register(pid, spec.argv.join(" "), path, Arc::clone(&started.group));
        }
        Ok((started, handed))
    }

    /// Wires an interactive child: its stderr read into the output channel, its stdin and
    /// stdout returned to the caller.
    fn connect_interactive(
        &mut self,
        (stdin, stdout, stderr): (
            Option<std::process::ChildStdin>,
            Option<std::process::ChildStdout>,
            Option<std::process::ChildStderr>,
        ),
    ) -> Result<(tokio::process::ChildStdin, tokio::process::ChildStdout), SpawnFailure> {
        let failure = |error: std::io::Error| SpawnFailure(format!("cannot connect to the command's pipes: {error}"));
        let (Some(stdin), Some(stdout), Some(stderr)) = (stdin, stdout, stderr) else {
            return Err(SpawnFailure("the command's pipes are missing".into()));
        };
        let (sender, receiver) = mpsc::channel(BUFFERED_CHUNKS);
        let stderr = tokio::process::ChildStderr::from_std(stderr).map_err(failure)?;
        self.tasks.push(tokio::spawn(pump(stderr, Stream::Stderr, sender)));
        self.output = Some(receiver);
        self.open_pipes = 1;
        let stdin = tokio::process::ChildStdin::from_std(stdin).map_err(failure)?;
        let stdout = tokio::process::ChildStdout::from_std(stdout).map_err(failure)?;
        Ok((stdin, stdout))
    }

    /// Wires the pipes: readers into the output channel (or copiers into the log) and the
    /// stdin writer.
    fn connect(
        &mut self,
        (stdin_pipe, stdout, stderr): (
            Option<std::process::ChildStdin>,
            Option<std::process::ChildStdout>,
            Option<std::process::ChildStderr>,
        ),
        stdin: Option<Vec<u8>>,
        log: Option<std::fs::File>,
    ) -> Result<(), SpawnFailure> {
        let failure = |error: std::io::Error| SpawnFailure(format!("cannot connect to the command's pipes: {error}"));
        let (Some(stdout), Some(stderr)) = (stdout, stderr) else {
            return Err(SpawnFailure("the command's output pipes are missing".into()));
        };
        match log {
            Some(file) => {
                let log = background::Log::new(file);
                background::copy_to_log(stdout, Arc::clone(&log)).map_err(failure)?;
                background::copy_to_log(stderr, log).map_err(failure)?;
            }
            None => {
                let (sender, receiver) = mpsc::channel(BUFFERED_CHUNKS);
                let stdout = tokio::process::ChildStdout::from_std(stdout).map_err(failure)?;
                let stderr = tokio::process::ChildStderr::from_std(stderr).map_err(failure)?;
                self.tasks.push(tokio::spawn(pump(stdout, Stream::Stdout, sender.clone())));
                self.tasks.push(tokio::spawn(pump(stderr, Stream::Stderr, sender)));
                self.output = Some(receiver);
                self.open_pipes = 2;
            }
        }
        if let (Some(pipe), Some(bytes)) = (stdin_pipe, stdin) {
            let mut pipe = tokio::process::ChildStdin::from_std(pipe).map_err(failure)?;
            self.tasks.push(tokio::spawn(async move {
                // A program that exits without reading its input is not an error.
                let _ = pipe.write_all(&bytes).await;
            }));
        }
        Ok(())
    }

    /// The pid of the program (the leader of its process group).
    pub fn pid(&self) -> u32 {
        self.pid
    }

    /// The next chunk of output (at most [`CHUNK`] bytes), `Idle` when nothing came within
    /// `wait`, or `Exited` once the program exited and its pipes ended (or [`DRAIN_LIMIT`]
    /// after the exit); `Exited` again on every later call. A background child reports only
    /// `Exited` and `Idle`.
    pub async fn next(&mut self, wait: Duration) -> ChildEvent {
        if let Some(info) = self.reported {
            return ChildEvent::Exited(info);
        }
        let idle_at = Instant::now() + wait;
        loop {
            if let Some(info) = self.exited {
                let drained = self.open_pipes == 0 || self.drain_until.is_some_and(|at| Instant::now() >= at);
                if drained {
                    self.stop_tasks();
                    self.reported = Some(info);
                    return ChildEvent::Exited(info);
                }
            }
            let wake_at = self.drain_until.map_or(idle_at, |at| at.min(idle_at));
            let reading = self.open_pipes > 0;
            let waiting_exit = self.exited.is_none();
            let step = tokio::select! {
                biased;
                output = recv(&mut self.output), if reading => Step::Output(output),
                info = &mut self.exit, if waiting_exit => Step::Exit(info.unwrap_or_default()),
                () = tokio::time::sleep_until(wake_at) => Step::Timer,
            };
            match step {
                Step::Output(Some(Output::Chunk(Stream::Stdout, bytes))) => return ChildEvent::Stdout(bytes),
                Step::Output(Some(Output::Chunk(Stream::Stderr, bytes))) => return ChildEvent::Stderr(bytes),
                Step::Output(Some(Output::End)) => self.open_pipes -= 1,
                Step::Output(None) => self.open_pipes = 0,
                Step::Exit(info) => {
                    self.exited = Some(info);
                    self.drain_until = Some(Instant::now() + DRAIN_LIMIT);
                }
                Step::Timer if Instant::now() >= idle_at => return ChildEvent::Idle,
                Step::Timer => {}
            }
        }
    }

    /// Kills the program and everything it started (its process group).
    pub fn kill(&mut self) {
        self.group.kill();
    }

    /// The log file of a background child.
    pub fn log_path(&self) -> Option<PathBuf> {
        self.log.clone()
    }

    fn stop_tasks(&mut self) {
        for task in self.tasks.drain(..) {
            task.abort();
        }
    }
}

impl Drop for Child {
    /// A foreground child dies with its handle; a background one lives on in the registry.
    fn drop(&mut self) {
        self.stop_tasks();
        if self.log.is_none() {
            if let Some(timer) = self.timer.take() {
                timer.abort();
            }
            self.group.kill();
        }
    }
}

enum Step {
    Output(Option<Output>),
    Exit(ExitInfo),
    Timer,
}

async fn recv(output: &mut Option<mpsc::Receiver<Output>>) -> Option<Output> {
    match output {
        Some(receiver) => receiver.recv().await,
        None => None,
    }
}

/// Reads one pipe to its end in chunks of at most [`CHUNK`] bytes.
async fn pump(mut pipe: impl AsyncRead + Unpin, stream: Stream, sender: mpsc::Sender<Output>) {
    let mut buffer = vec![0; CHUNK];
    loop {
        match pipe.read(&mut buffer).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                if sender.send(Output::Chunk(stream, buffer[..n].to_vec())).await.is_err() {
                    return;
                }
            }
        }
    }
    let _ = sender.send(Output::End).await;
}

/// A child's private home and temp folder, in one 0700 folder that is removed (with all the
/// child left in it) when the waiter thread drops this, after the child is dead.
#[derive(Debug)]
struct PrivateFolders {
    /// Removed, with all the child left in it, when this is dropped.
    _root: tempfile::TempDir,
    home: PathBuf,
    tmp: PathBuf,
}

impl PrivateFolders {
    fn create() -> Result<Self, SpawnFailure> {
        let failure =
            |error: std::io::Error| SpawnFailure(format!("cannot create the command's private folders: {error}"));
        let root = tempfile::Builder::new()
            .prefix("airlock-child-")
            .permissions(std::fs::Permissions::from_mode(0o700))
            .tempdir()
            .map_err(failure)?;
        // Canonical: the view reaches every writable folder without following links.
        let canonical = root.path().canonicalize().map_err(failure)?;
        let home = canonical.join("home");
        let tmp = canonical.join("tmp");
        for folder in [&home, &tmp] {
            std::fs::DirBuilder::new().mode(0o700).create(folder).map_err(failure)?;
        }
        Ok(Self { _root: root, home, tmp })
    }
}

#[cfg(test)]
#[path = "lib_tests.rs"]
mod tests;
