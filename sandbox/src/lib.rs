//! The operating system's sandbox of every program a plugin starts.
//!
//! `airlock` re-executes itself as a helper (`airlock __sandbox - <parent-pid>`, started by
//! [`airlock_process`]); [`run_helper_if_asked`], the first thing `main` does, turns that
//! process into the sandbox. Two layers, the second beneath the first:
//!
//! - **the view** ([`view`], where the kernel allows unprivileged user namespaces): the
//!   helper enters new user, mount and PID namespaces (and a network namespace of its own
//!   without `network`), makes every mount of the system read-only, binds the writable
//!   folders back read-write, hides the secrets ([`Spec::hidden`]: an empty, unreadable
//!   folder or file over each) and gives the program a private `/dev/shm`; then it starts an
//!   init process ([`init`], PID 1 of the new PID namespace), which starts the program. When
//!   PID 1 exits — with the program, or killed with airlock — the kernel kills everything the
//!   program left behind. Changing metadata (`chmod`, times, extended attributes) outside
//!   the writable folders fails with `EROFS`.
//! - **the confinement** of the program itself: death with its parent
//!   (`PR_SET_PDEATHSIG`), no capabilities (bounding set included, root's implicit ones
//!   locked off) and `no_new_privs`; a Landlock domain ([`filesystem`]): read and execute
//!   beneath the system's program folders, an allowlist of `/etc` and the spec's
//!   `read_only` folders, everything beneath `read_write` except device nodes, never a
//!   hidden path; no signals to and no abstract sockets of processes outside the domain; a
//!   seccomp filter ([`syscalls`]) for what Landlock does not cover: Unix sockets on a path,
//!   `ptrace`, leaving the process group, new namespaces and mounts, `TIOCSTI`, io_uring, and
//!   sockets beyond what [`Network`] allows.
//!
//! Invariants: the helper runs before any thread exists and never returns into airlock; the
//! host's environment never reaches the program (it gets exactly [`Spec::env`]); every
//! failure before `exec` prints one `airlock sandbox: …` line and exits 126 (127 when the
//! program does not exist). A kernel without Landlock still runs the program, and
//! [`support`] says so; a machine without the namespaces runs it without the view, and
//! [`view_support`] says why, so the caller can warn — never a silent downgrade.
//!
//! This crate uses `airlock-files` alone; `airlock-process` starts the helper, and the
//! binary's `main` calls [`run_helper_if_asked`].

#![deny(clippy::print_stdout, clippy::print_stderr)]

mod filesystem;
mod helper;
mod init;
mod loopback;
mod mountinfo;
mod syscalls;
mod view;

pub mod explain;
pub mod folders;

use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

/// The system's program folders: the end of every child's `PATH`, and where the helper
/// looks for a program when the spec sets no `PATH`.
pub const SYSTEM_PATH: &str = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

/// The first argument that makes `airlock` the sandbox helper.
pub const HELPER_ARG: &str = "__sandbox";
/// The first argument that makes `airlock` the init process of a view (started by the helper).
pub const INIT_ARG: &str = "__sandbox-init";
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
    /// Folders (or files) it may read (besides the system's program folders).
    pub read_only: Vec<PathBuf>,
    /// Canonical paths it may neither read nor write, whatever the two lists above say: the
    /// user's secrets. Paths that do not exist are left out by whoever builds the spec.
    #[serde(default)]
    pub hidden: Vec<PathBuf>,
    /// Whether it may use the network.
    pub network: bool,
    /// Whether to build the namespace view (see the module's documentation). Without it the
    /// program gets the confinement alone.
    #[serde(default)]
    pub view: bool,
}

/// What the program's sockets may reach.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Network {
    /// No socket but connected Unix socket pairs (no view: no network namespace to hide in).
    None,
    /// A network namespace of its own, with only its own loopback: TCP and UDP sockets work,
    /// reach nothing outside, and local test servers it starts itself work.
    Loopback,
    /// The machine's network (never Unix sockets on a path).
    Full,
}

impl Spec {
    /// What this spec's sockets may reach.
    pub fn network_mode(&self) -> Network {
        match (self.network, self.view) {
            (true, _) => Network::Full,
            (false, true) => Network::Loopback,
            (false, false) => Network::None,
        }
    }
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

/// Whether programs started through `helper` get the namespace view on this machine: `Ok`,
/// or why not. Probed once per process by running `true` through `helper` in a view (a few
/// milliseconds); later calls return the first answer. The probe checks what the program
/// printed, so a `helper` that is not airlock (a test binary) reads as "no view".
pub fn view_support(helper: &Path) -> Result<(), String> {
    static VIEW: OnceLock<Result<(), String>> = OnceLock::new();
    VIEW.get_or_init(|| view::probe(helper)).clone()
}

/// Runs the helper when `airlock` was started as one (`argv[1]` is [`HELPER_ARG`] or
/// [`INIT_ARG`]); `None` otherwise. Call it first in `main`, before any thread exists:
/// namespaces, Landlock and seccomp apply to the calling thread only, and the helper must be
/// that process's only thread.
pub fn run_helper_if_asked() -> Option<std::process::ExitCode> {
    let mut args = std::env::args_os().skip(1);
    let first = args.next()?;
    if first == HELPER_ARG {
        Some(helper::run(args.collect()))
    } else if first == INIT_ARG {
        Some(init::run(args.collect()))
    } else {
        None
    }
}

#[cfg(test)]
#[path = "lib_tests.rs"]
mod tests;
