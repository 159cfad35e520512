//! The end-to-end tests: the real `airlock` binary against the scripted mock model on
//! 127.0.0.1, one module per area. They are one test binary, so the suite links once, and
//! the helpers every area needs live here once: [`session`] (a temporary `$AIRLOCK_HOME` and
//! workspace, and the compile cache every test shares), [`write_policy`], [`run_args`].
//!
//! The tests run on threads of one process. Nothing here may change the process's own state:
//! no `std::env::set_var`, no current directory; each run of the binary gets its environment
//! from its [`Session`] command. A test that must have the machine to itself takes
//! [`alone`]; every session, and each toolchain build outside one, holds a [`shared`] slot.

#[path = "acp/main.rs"]
mod acp;
mod audit;
mod bindings;
mod bound_edits;
mod capability_diff;
mod checkpoints;
mod command_line;
#[path = "commands/main.rs"]
mod commands;
mod completions;
mod escapes;
mod finish_reasons;
mod folders;
mod grants;
mod guests;
mod headless;
#[path = "hooks/main.rs"]
mod hooks;
mod hostile;
mod ignored_gigabyte;
mod impossible_requests;
mod kits;
mod kits_outside;
#[path = "mcp_client/main.rs"]
mod mcp_client;
mod mcp_http;
#[path = "mcp_serve/main.rs"]
mod mcp_serve;
#[path = "mcp_serve_rust/main.rs"]
mod mcp_serve_rust;
mod mcp_source;
#[path = "media/main.rs"]
mod media;
mod oci;
mod output_schema;
#[path = "paths/main.rs"]
mod paths;
mod plugin_faults;
mod plugin_lifecycle;
mod plugin_sdk;
mod policy;
#[path = "prompts/main.rs"]
mod prompts;
mod providers;
mod release;
#[path = "rewind/main.rs"]
mod rewind;
mod rewind_crash;
mod rewind_crash_store;
mod runtime_limits;
mod scheduling;
mod search;
mod search_index;
mod seed_tools;
mod sessions;
#[path = "settings/main.rs"]
mod settings;
mod signing;
mod signing_oci;
mod startup_budget;
mod telemetry;
mod terminal;
mod trust;
mod tui;

use std::path::{Path, PathBuf};
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

use airlock_tests::{Finished, Session};

/// The compile cache the tests share: each component is compiled once per run.
fn shared_cache() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).join("airlock-cache")
}

/// A hermetic session of the real binary: a temporary home and workspace, the shared
/// compile cache. It holds a [`shared`] slot while it lives.
fn session() -> Session {
    session_with_cache(&shared_cache()).holding(shared())
}

/// A session with a compile cache of the test's own (a test that must start with nothing
/// cached), holding no slot: its test takes [`alone`] first.
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

/// Who runs: any number of tests side by side, or one test alone.
struct Running {
    shared: usize,
    alone: bool,
}

static RUNNING: Mutex<Running> = Mutex::new(Running { shared: 0, alone: false });
static CHANGED: Condvar = Condvar::new();

fn running() -> MutexGuard<'static, Running> {
    // A test that panicked while holding the lock left the counts as they were.
    RUNNING.lock().unwrap_or_else(PoisonError::into_inner)
}

/// A test's slot: shared with other tests, or alone. Given back when dropped.
struct Slot {
    alone: bool,
}

impl Drop for Slot {
    fn drop(&mut self) {
        let mut running = running();
        if self.alone {
            running.alone = false;
        } else {
            running.shared -= 1;
        }
        CHANGED.notify_all();
    }
}

/// A slot beside other tests; waits while a test runs [`alone`].
fn shared() -> Slot {
    let mut running = running();
    while running.alone {
        running = CHANGED.wait(running).unwrap_or_else(PoisonError::into_inner);
    }
    running.shared += 1;
    Slot { alone: false }
}

/// The machine to this test alone: waits until no other test holds a slot, and keeps the
/// others waiting until dropped. For a test that measures its runs against airlock's own
/// deadlines (the start-up budget): on two cores a neighbour's runs or builds can starve
/// it past them, which it would report as airlock's fault.
fn alone() -> Slot {
    let mut running = running();
    while running.alone || running.shared > 0 {
        running = CHANGED.wait(running).unwrap_or_else(PoisonError::into_inner);
    }
    running.alone = true;
    Slot { alone: true }
}
