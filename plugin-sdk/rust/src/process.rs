//! Running programs through the host (`airlock:host/process`, contract 0.2.0).
//!
//! A tool may start programs only when it requests the `processes` capability (command
//! prefixes such as `git status`, or `*` for "the command line the user approved for this
//! call") and the user grants it. The host checks every start — each command of a shell line
//! on its own — and runs the program in the operating system's sandbox built from the
//! tool's grant. A refusal is a [`SpawnError`] whose message says why; pass it on to the
//! model.
//!
//! ```ignore
//! use airlock_plugin_sdk::process::{Event, Spawn};
//!
//! // The short way: run it to the end (`?`: a refusal goes to the model).
//! let output = Spawn::argv(["git", "--version"]).output()?;
//!
//! // Or follow it as it runs.
//! let child = Spawn::argv(["git", "status", "--short"]).start()?;
//! loop {
//!     match child.next(100) {
//!         Event::Stdout(bytes) => { /* … */ }
//!         Event::Stderr(bytes) => { /* … */ }
//!         Event::Exited(status) => break,
//!         Event::Idle => {}
//!     }
//! }
//! ```

use std::time::Duration;

pub use crate::bindings::airlock::host::process::{Child, Event, ExitStatus, SpawnError};
use crate::bindings::airlock::host::process::{self as host, Command, SpawnOptions};

/// A program to start: build it, then [`Spawn::start`].
#[derive(Debug, Clone)]
pub struct Spawn {
    command: Command,
    directory: String,
    env: Vec<(String, String)>,
    stdin: Option<Vec<u8>>,
    timeout: Option<Duration>,
    background: bool,
}

impl Spawn {
    /// A command line for `bash -c`; the host checks every command of it.
    pub fn shell(line: impl Into<String>) -> Self {
        Self::new(Command::Shell(line.into()))
    }

    /// A program and its arguments, without a shell.
    pub fn argv<I, S>(words: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: AsRef<str>,
    {
        let words: Vec<String> = words.into_iter().map(|w| w.as_ref().to_string()).collect();
        Self::new(Command::Argv(words.join("\0")))
    }

    fn new(command: Command) -> Self {
        Self { command, directory: String::new(), env: Vec::new(), stdin: None, timeout: None, background: false }
    }

    /// The folder to run in: absolute, or relative to the workspace root (the default).
    pub fn directory(mut self, directory: impl Into<String>) -> Self {
        self.directory = directory.into();
        self
    }

    /// Passes a variable the tool was granted (its `env` capability) to the program.
    pub fn env(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.push((name.into(), value.into()));
        self
    }

    /// Bytes for the program's standard input (otherwise it is empty).
    pub fn stdin(mut self, bytes: impl Into<Vec<u8>>) -> Self {
        self.stdin = Some(bytes.into());
        self
    }

    /// Kills the program's whole process group after `timeout` (at most the call's deadline,
    /// which is also the default; a background program has none unless given one).
    pub fn timeout(mut self, timeout: Duration) -> Self {
        self.timeout = Some(timeout);
        self
    }

    /// Keeps the program running after the call ends, its output going to a log file
    /// ([`Child::log_path`]); airlock stops it when it exits.
    pub fn background(mut self) -> Self {
        self.background = true;
        self
    }

    /// Starts the program and waits for its end, collecting what it wrote: the short way
    /// when the tool needs only the result (`Spawn::argv(["git", "--version"]).output()?`).
    pub fn output(self) -> Result<Output, SpawnError> {
        let child = self.start()?;
        let (mut stdout, mut stderr) = (Vec::new(), Vec::new());
        loop {
            match child.next(1000) {
                Event::Stdout(bytes) => stdout.extend_from_slice(&bytes),
                Event::Stderr(bytes) => stderr.extend_from_slice(&bytes),
                Event::Exited(status) => return Ok(Output { status, stdout, stderr }),
                Event::Idle => {}
            }
        }
    }

    /// Starts the program, or says why the host refused.
    pub fn start(self) -> Result<Child, SpawnError> {
        let env = self.env.iter().map(|(name, value)| format!("{name}={value}")).collect::<Vec<_>>().join("\0");
        let timeout_ms = self.timeout.map_or(0, |t| u64::try_from(t.as_millis()).unwrap_or(u64::MAX).max(1));
        host::spawn(&SpawnOptions {
            command: self.command,
            directory: self.directory,
            env,
            stdin: self.stdin,
            timeout_ms,
            background: self.background,
        })
    }
}

/// What a finished program wrote, and how it ended ([`Spawn::output`]).
#[derive(Debug, Clone)]
pub struct Output {
    pub status: ExitStatus,
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
}

impl Output {
    /// Whether the program exited by itself with code 0.
    pub fn success(&self) -> bool {
        self.status.code == Some(0)
    }

    /// Its standard output as text (invalid UTF-8 replaced).
    pub fn stdout_text(&self) -> String {
        String::from_utf8_lossy(&self.stdout).into_owned()
    }

    /// Its standard error as text (invalid UTF-8 replaced).
    pub fn stderr_text(&self) -> String {
        String::from_utf8_lossy(&self.stderr).into_owned()
    }
}

/// A refused start as the tool's error, so `Spawn::start()?` passes the host's reason on to
/// the model: not allowed → `permission-denied`, malformed → `invalid-params`, could not
/// start → `execution`.
impl From<SpawnError> for crate::ToolError {
    fn from(error: SpawnError) -> Self {
        match error {
            SpawnError::Denied(message) => Self::PermissionDenied(message),
            SpawnError::Invalid(message) => Self::InvalidParams(message),
            SpawnError::Failed(message) => Self::Execution(message),
        }
    }
}

/// The operating system's sandbox programs run in, in one line for people.
pub fn sandbox() -> String {
    host::sandbox()
}
