//! A hermetic run of the real `airlock` binary: a temporary home (`AIRLOCK_HOME`, `HOME`),
//! system settings folder (`AIRLOCK_SYSTEM_DIR`, empty unless a test writes to it)
//! and workspace, an environment holding nothing but what the test sets (no user config,
//! no real API keys), stdin closed, and the model at a [`MockModel`] on 127.0.0.1. The home
//! starts with a `config.toml` holding [`FAST_RETRIES`], so a test that scripts a failure
//! does not wait out real backoff; a test that writes its own `config.toml` replaces it.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::mock_model::{MockModel, Wire};

/// The `[retry]` table every session starts with: the default attempts, waits of a few
/// milliseconds.
pub const FAST_RETRIES: &str = "[retry]\nbase_delay_ms = 1\nmax_delay_ms = 20\n";

/// The compile-cache key every session's home holds, so that sessions share the cache.
const SHARED_CACHE_KEY: &[u8; 32] = b"airlock tests share this key....";

/// A temporary home and workspace for one run.
pub struct Session {
    home: tempfile::TempDir,
    workspace_dir: tempfile::TempDir,
    /// The workspace, canonical (as airlock reports it).
    pub workspace: PathBuf,
    binary: PathBuf,
    cache: PathBuf,
    /// What the test keeps while the session lives ([`Session::holding`]).
    held: Vec<Box<dyn std::any::Any + Send + Sync>>,
}

/// What a finished run printed.
#[derive(Debug)]
pub struct Finished {
    /// The exit code (`None` when killed by a signal).
    pub code: Option<i32>,
    pub stdout: String,
    pub stderr: String,
}

impl Session {
    /// `binary` is `env!("CARGO_BIN_EXE_airlock")`; `cache` a compile cache shared by tests.
    pub fn new(binary: &str, cache: &Path) -> Self {
        let home = tempfile::tempdir().unwrap_or_else(|e| panic!("temp home: {e}"));
        let workspace_dir = tempfile::tempdir().unwrap_or_else(|e| panic!("temp workspace: {e}"));
        let workspace = workspace_dir.path().canonicalize().unwrap_or_else(|e| panic!("canonical workspace: {e}"));
        let session =
            Self { home, workspace_dir, workspace, binary: binary.into(), cache: cache.into(), held: Vec::new() };
        session.write_config(FAST_RETRIES);
        // airlock tags its compile cache with a key kept in the home; sessions that share one
        // cache must share that key too, or each would throw the others' entries away.
        let key = session.airlock_home().join("cache.key");
        std::fs::write(&key, SHARED_CACHE_KEY).unwrap_or_else(|e| panic!("write {}: {e}", key.display()));
        session
    }

    /// The session, keeping `held` (a guard, say) until it is dropped.
    pub fn holding(mut self, held: impl std::any::Any + Send + Sync) -> Self {
        self.held.push(Box::new(held));
        self
    }

    /// Replaces `$AIRLOCK_HOME/config.toml` with `text`.
    pub fn write_config(&self, text: &str) {
        let home = self.airlock_home();
        std::fs::create_dir_all(&home).unwrap_or_else(|e| panic!("mkdir {}: {e}", home.display()));
        std::fs::write(home.join("config.toml"), text).unwrap_or_else(|e| panic!("write config.toml: {e}"));
    }

    /// `$AIRLOCK_SYSTEM_DIR`: the system layer's folder (created by [`Session::write_system`]).
    pub fn system_dir(&self) -> PathBuf {
        self.home.path().join("system")
    }

    /// Writes `name` (`config.toml`, `policy.toml`) into the system layer's folder.
    pub fn write_system(&self, name: &str, text: &str) {
        let dir = self.system_dir();
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("mkdir {}: {e}", dir.display()));
        std::fs::write(dir.join(name), text).unwrap_or_else(|e| panic!("write {name}: {e}"));
    }

    /// `$AIRLOCK_HOME`.
    pub fn airlock_home(&self) -> PathBuf {
        self.home.path().join(".airlock")
    }

    /// Writes a workspace file (creating folders).
    pub fn write(&self, relative: &str, content: &str) {
        let path = self.workspace.join(relative);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("mkdir {}: {e}", parent.display()));
        }
        std::fs::write(&path, content).unwrap_or_else(|e| panic!("write {}: {e}", path.display()));
    }

    /// Reads a workspace file, or `None` when it does not exist.
    pub fn read(&self, relative: &str) -> Option<String> {
        std::fs::read_to_string(self.workspace.join(relative)).ok()
    }

    /// Installs a plugin component into `$AIRLOCK_HOME/plugins/`.
    pub fn install_plugin(&self, component: &str) {
        let dir = self.airlock_home().join("plugins");
        std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("mkdir {}: {e}", dir.display()));
        let name = Path::new(component).file_name().unwrap_or_default();
        std::fs::copy(component, dir.join(name)).unwrap_or_else(|e| panic!("copy {component}: {e}"));
    }

    /// The binary with a clean environment, the temporary dirs and no arguments.
    pub fn bare_command(&self) -> Command {
        let mut command = Command::new(&self.binary);
        command
            .env_clear()
            .env("HOME", self.home.path())
            .env("AIRLOCK_HOME", self.airlock_home())
            .env("AIRLOCK_CACHE_DIR", &self.cache)
            .env("AIRLOCK_SYSTEM_DIR", self.system_dir())
            .env("AIRLOCK_LOG", "info")
            .current_dir(self.workspace_dir.path())
            .stdin(Stdio::null());
        command
    }

    /// The binary pointed at `mock`, with the workspace and a test model.
    pub fn command(&self, mock: &MockModel) -> Command {
        let mut command = self.bare_command();
        let provider = match mock.wire() {
            Wire::Gemini => "gemini",
            Wire::OpenAi => "openai",
            Wire::Anthropic => "anthropic",
        };
        command
            .args(["--provider", provider, "--base-url", &mock.base_url(), "-m", "test-model", "--workspace"])
            .arg(&self.workspace);
        command
    }

    /// Runs the binary pointed at `mock` with `args` to the end.
    pub fn airlock(&self, mock: &MockModel, args: &[&str]) -> Finished {
        let mut command = self.command(mock);
        command.args(args);
        Self::run(command)
    }

    /// Runs `command` to the end.
    pub fn run(mut command: Command) -> Finished {
        let output = command.output().unwrap_or_else(|e| panic!("cannot run airlock: {e}"));
        Finished {
            code: output.status.code(),
            stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
        }
    }

    /// What airlock wrote to its log.
    pub fn log(&self) -> String {
        std::fs::read_to_string(self.airlock_home().join("logs/airlock.log")).unwrap_or_default()
    }
}

/// `target` as a path relative to the folder `from`, climbing with `..` to the root first:
/// the form a plugin uses to reach out of its preopen (wasmtime refuses absolute links).
pub fn climbing(from: &Path, target: &Path) -> String {
    let ups = from.components().count() - 1;
    format!("{}{}", "../".repeat(ups), target.strip_prefix("/").unwrap_or(target).display())
}

/// Runs `command` within `limit`, killing it past that (then the test fails). Its stdout and
/// stderr are read as they come (a chatty run cannot block on a full pipe); `stdin` is
/// written and closed, or with `None` held open until the run ends (a pipe nobody closes, as
/// in a CI job).
pub fn run_bounded(mut command: Command, stdin: Option<&str>, limit: Duration) -> Finished {
    command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = command.spawn().unwrap_or_else(|e| panic!("cannot run airlock: {e}"));
    let mut open_stdin = child.stdin.take();
    if let Some(input) = stdin {
        // Written, then closed (dropped) here.
        if let Some(mut pipe) = open_stdin.take() {
            let _ = pipe.write_all(input.as_bytes());
        }
    }
    let read = |pipe: Option<Box<dyn Read + Send>>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            if let Some(mut pipe) = pipe {
                let _ = pipe.read_to_end(&mut bytes);
            }
            String::from_utf8_lossy(&bytes).into_owned()
        })
    };
    let stdout = read(child.stdout.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    let stderr = read(child.stderr.take().map(|p| Box::new(p) as Box<dyn Read + Send>));
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap_or_else(|e| panic!("wait: {e}")) {
            break status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            let stderr = stderr.join().unwrap_or_default();
            panic!("airlock did not finish within {limit:?}; stderr:\n{stderr}");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    drop(open_stdin);
    Finished {
        code: status.code(),
        stdout: stdout.join().unwrap_or_default(),
        stderr: stderr.join().unwrap_or_default(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn given_input_is_written_and_closed() {
        let done = run_bounded(Command::new("cat"), Some("piped"), Duration::from_secs(30));
        assert_eq!((done.code, done.stdout.as_str()), (Some(0), "piped"));
    }

    /// `None` must hold stdin open: `cat` then never ends, and the limit stops it.
    #[test]
    #[should_panic(expected = "did not finish within")]
    fn no_input_holds_stdin_open() {
        run_bounded(Command::new("cat"), None, Duration::from_millis(500));
    }
}
