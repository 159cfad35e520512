//! The end-to-end tests: the real `airlock` binary against the scripted mock model on
//! 127.0.0.1, one module per area. They are one test binary, so the suite links once, and
//! the helpers every area needs live here once: [`session`] (a temporary `$AIRLOCK_HOME` and
//! workspace, and the compile cache every test shares), [`write_policy`], [`run_args`].
//!
//! The tests run on threads of one process. Nothing here may change the process's own state:
//! no `std::env::set_var`, no current directory; each run of the binary gets its environment
//! from its [`Session`] command.

mod bound_edits;
mod command_line;
#[path = "commands/main.rs"]
mod commands;
mod escapes;
mod finish_reasons;
mod folders;
mod grants;
mod guests;
mod headless;
mod hostile;
mod kits;
#[path = "paths/main.rs"]
mod paths;
mod plugin_faults;
mod plugin_lifecycle;
mod plugin_sdk;
mod policy;
mod providers;
mod runtime_limits;
mod scheduling;
mod search;
mod seed_tools;
mod sessions;
mod startup_budget;
mod terminal;
mod trust;
mod tui;

use std::path::{Path, PathBuf};

use airlock_tests::{Finished, Session};

/// The compile cache the tests share: each component is compiled once per run.
fn shared_cache() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("airlock-cache")
}

/// A hermetic session of the real binary: a temporary home and workspace, the shared
/// compile cache.
fn session() -> Session {
    session_with_cache(&shared_cache())
}

/// [`session`] with a compile cache of the test's own (a test that must start with nothing
/// cached).
fn session_with_cache(cache: &Path) -> Session {
    Session::new(env!("CARGO_BIN_EXE_airlock"), cache)
}

/// Writes the user's `policy.toml`.
fn write_policy(s: &Session, text: &str) {
    std::fs::create_dir_all(s.airlock_home()).unwrap_or_else(|e| panic!("mkdir $AIRLOCK_HOME: {e}"));
    std::fs::write(s.airlock_home().join("policy.toml"), text).unwrap_or_else(|e| panic!("write policy.toml: {e}"));
}

/// `airlock ARGS --workspace WORKSPACE` with no model, to the end.
fn run_args(s: &Session, args: &[&str]) -> Finished {
    let mut command = s.bare_command();
    command.args(args).arg("--workspace").arg(&s.workspace);
    Session::run(command)
}
