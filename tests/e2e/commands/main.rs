//! Running commands (issues 11, 23 and 24), through the real binary: the shell tool end to
//! end ([`shell`]), the spawn gate against a hostile plugin ([`spawn_gate`]), the operating
//! system's sandbox of every child ([`os_sandbox`]), components of both contract versions in
//! one session ([`contract_versions`]), a project's builds and tests with the user's
//! toolchains ([`toolchains`]), what the sandbox blocked, told and offered ([`blocked`]), how
//! a command's end is reported ([`cards`]); and the gate's third round: deny rules that fail
//! closed ([`deny_rules`]), prefixes that cover only what they name ([`prefixes`]), the
//! question a person answers ([`questions`]), and the command-safety corpus ([`gate_corpus`]).

mod blocked;
mod cards;
mod contract_versions;
mod deny_rules;
mod gate_corpus;
mod os_sandbox;
mod prefixes;
mod questions;
mod shell;
mod spawn_gate;
mod toolchains;

use std::path::Path;
use std::time::{Duration, Instant};

use crate::{session, write_policy};

/// Whether a process runs (a zombie waiting for its parent does not count).
fn pid_alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => stat.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().next()) != Some("Z"),
        Err(_) => false,
    }
}

/// Waits for a file holding a pid, and returns the pid.
fn wait_for_file(path: &Path, limit: Duration) -> u32 {
    let started = Instant::now();
    loop {
        if let Some(pid) = std::fs::read_to_string(path).ok().and_then(|text| text.trim().parse().ok()) {
            return pid;
        }
        assert!(started.elapsed() < limit, "{} did not appear within {limit:?}", path.display());
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// A heartbeat a background descendant writes while it lives; whether it stopped.
pub(crate) fn heartbeat_stops(path: &Path) -> bool {
    let deadline = Instant::now() + Duration::from_secs(3);
    let mut last = std::fs::read_to_string(path).unwrap_or_default();
    loop {
        std::thread::sleep(Duration::from_millis(300));
        let now = std::fs::read_to_string(path).unwrap_or_default();
        if now == last {
            return true;
        }
        if Instant::now() > deadline {
            return false;
        }
        last = now;
    }
}
