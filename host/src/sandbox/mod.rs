//! The operating system's sandbox of every program a plugin starts.
//!
//! `airlock` re-executes itself as a helper (`airlock __sandbox <spec-json | -> [parent-pid]`,
//! started by [`crate::process`]); [`run_helper_if_asked`], the first thing `main` does, turns
//! that process into the sandbox and then `exec`s the program, so the program inherits:
//!
//! - death with its parent (`PR_SET_PDEATHSIG`), no capabilities (bounding set included,
//!   root's implicit ones locked off) and `no_new_privs`;
//! - a Landlock domain ([`filesystem`]): read and execute beneath the system's program
//!   folders, a short allowlist of `/etc` and the spec's `read_only` folders; everything
//!   beneath `read_write` except device nodes; TCP denied without `network`; no signals to and
//!   no abstract sockets of processes outside the domain;
//! - a seccomp filter ([`syscalls`]) that answers `EPERM` to the escapes Landlock does not
//!   cover: Unix sockets on a path, `ptrace`, leaving the process group, namespaces,
//!   `TIOCSTI`, io_uring, …
//!
//! Invariants: the helper runs before any thread exists and never returns into airlock; the
//! host's environment never reaches the program (it gets exactly [`Spec::env`]); every
//! failure before `exec` prints one `airlock sandbox: …` line and exits 126 (127 when the
//! program does not exist). A kernel without Landlock still runs the program, and
//! [`support`] says so, so the caller can warn.

mod filesystem;
mod helper;
mod syscalls;

use std::fmt;
use std::path::PathBuf;
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

/// The system's program folders: the start of every child's `PATH`, and where the helper
/// looks for a program when the spec sets no `PATH`.
pub const SYSTEM_PATH: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/// The first argument that makes `airlock` the sandbox helper.
pub const HELPER_ARG: &str = "__sandbox";
/// Given instead of the spec's JSON: the helper reads it from [`SPEC_VAR`]. A process's
/// arguments are world-readable (`/proc/<pid>/cmdline`, `ps`), to other users and to other
/// sandboxed programs alike, and the spec holds the values of the variables passed on;
/// its environment is readable only by whoever may trace it.
pub const SPEC_FROM_ENV: &str = "-";
/// The helper's variable holding the spec with [`SPEC_FROM_ENV`]; never passed to the program.
pub const SPEC_VAR: &str = "AIRLOCK_SANDBOX_SPEC";

/// What one sandboxed program may do.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct Spec {
    /// The program and its arguments.
    pub argv: Vec<String>,
    /// The folder it starts in.
    pub cwd: PathBuf,
    /// Exactly the environment the program gets.
    pub env: Vec<(String, String)>,
    /// Folders it may read and write (and everything below them).
    pub read_write: Vec<PathBuf>,
    /// Folders it may read (besides the system's program folders).
    pub read_only: Vec<PathBuf>,
    /// Whether it may use the network.
    pub network: bool,
}

/// What this kernel enforces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Support {
    /// The kernel's Landlock ABI version; `None` when the kernel has no (enabled) Landlock.
    pub landlock_abi: Option<i32>,
    /// Whether seccomp filters can be installed (a kernel with seccomp on x86_64 or aarch64).
    pub seccomp: bool,
}

impl fmt::Display for Support {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match (self.landlock_abi, self.seccomp) {
            (Some(abi), true) => write!(f, "Landlock ABI {abi} + seccomp"),
            (Some(abi), false) => write!(f, "Landlock ABI {abi}, NO seccomp filter: this kernel or CPU has none"),
            (None, true) => write!(f, "NO file-system sandbox: this kernel has no Landlock (seccomp only)"),
            (None, false) => write!(f, "NO sandbox: this kernel has neither Landlock nor seccomp"),
        }
    }
}

/// What this machine's kernel enforces (probed once, cheap afterwards).
pub fn support() -> Support {
    static SUPPORT: OnceLock<Support> = OnceLock::new();
    *SUPPORT.get_or_init(|| Support { landlock_abi: filesystem::probe_abi(), seccomp: syscalls::available() })
}

/// Runs the helper when `airlock` was started as one (`argv[1] == HELPER_ARG`); `None`
/// otherwise. Call it first in `main`, before any thread exists: Landlock and seccomp apply
/// to the calling thread only, and the helper must be that process's only thread.
pub fn run_helper_if_asked() -> Option<std::process::ExitCode> {
    let mut args = std::env::args_os().skip(1);
    if args.next().as_deref() != Some(std::ffi::OsStr::new(HELPER_ARG)) {
        return None;
    }
    Some(helper::run(args.collect()))
}

#[cfg(test)]
#[path = "mod_tests.rs"]
mod tests;
