//! (d) Start-up of the release binary with a cold and a warm compile cache:
//!
//! - `airlock tools list` with an empty `AIRLOCK_CACHE_DIR` (every built-in is compiled and
//!   described) and with a warm one (cached descriptions, nothing compiled or loaded);
//! - a whole plain-text run against the mock model, cold and warm;
//! - in process, the set-up phases of a warm start: `Runtime::new` (engine, linker, epoch
//!   ticker), `Registry::load` (cached descriptions) and the first load of a component from
//!   the compile cache (deserialize + link), which the first call of a tool pays.
//!
//! `cargo bench -p airlock --bench startup`; `AIRLOCK_BENCH_RUNS` sets the warm runs (50),
//! `AIRLOCK_BENCH_COLD_RUNS` the cold ones (10).

#![allow(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark is a test program: it prints its report and stops loudly on a broken setup"
)]

mod support;

use std::path::Path;
use std::process::{Command, Stdio};

use airlock::registry::{PluginDirs, Registry};
use airlock::runtime::Runtime;
use airlock_tests::{MockModel, Session, Turn, Wire};
use support::{Summary, count_from_env, header, report};

const BINARY: &str = env!("CARGO_BIN_EXE_airlock");
const BUILTINS: usize = 6;

fn main() {
    let runs = count_from_env("AIRLOCK_BENCH_RUNS", 50);
    let cold_runs = count_from_env("AIRLOCK_BENCH_COLD_RUNS", 10);
    header("start-up: cold vs warm compile cache", &format!("{cold_runs} cold runs, 5 warm-up + {runs} warm runs"));
    let scratch = tempfile::tempdir().expect("temp dir");
    let warm_cache = scratch.path().join("warm");
    let session = Session::new(BINARY, &warm_cache);
    let mock = MockModel::start(Wire::OpenAi);

    let mut round = 0;
    let mut fresh_cache = || {
        round += 1;
        scratch.path().join(format!("cold-{round}"))
    };

    let samples = support::sample(1, cold_runs, || {
        let cache = fresh_cache();
        tools_list(&session, &cache);
        let compiled = std::fs::read_dir(cache.join("components")).map(|d| d.count()).unwrap_or_default();
        assert_eq!(compiled, BUILTINS, "a cold start compiles every built-in");
        let _ = std::fs::remove_dir_all(&cache);
    });
    report("(d) tools list, cold cache (compiles 6 built-ins)", &Summary::of(&samples));
    let samples = support::sample(5, runs, || tools_list(&session, &warm_cache));
    report("(d) tools list, warm cache", &Summary::of(&samples));

    let samples = support::sample(1, cold_runs, || {
        let cache = fresh_cache();
        plain_run(&session, &mock, &cache);
        let _ = std::fs::remove_dir_all(&cache);
    });
    report("(d) plain-text run, cold cache", &Summary::of(&samples));
    let samples = support::sample(5, runs, || plain_run(&session, &mock, &warm_cache));
    report("(d) plain-text run, warm cache", &Summary::of(&samples));

    in_process_phases(&warm_cache, runs * 2);
}

/// The engine's share of a warm start, measured in this process.
fn in_process_phases(warm_cache: &Path, runs: usize) {
    let tokio = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("tokio");
    let samples = support::sample(3, runs, || drop(Runtime::new(warm_cache.to_path_buf()).expect("runtime")));
    report("    Runtime::new (engine, linker, epoch ticker)", &Summary::of(&samples));
    let runtime = Runtime::new(warm_cache.to_path_buf()).expect("runtime");
    let none = scratch_path("airlock-bench-no-plugins");
    let dirs = PluginDirs { user: none.clone(), workspace: none };
    let samples = support::sample(3, runs, || {
        let registry = tokio.block_on(Registry::load(&runtime, &dirs));
        assert!(registry.problems.is_empty(), "{:?}", registry.problems);
    });
    report("    Registry::load, warm (6 cached descriptions)", &Summary::of(&samples));
    let registry = tokio.block_on(Registry::load(&runtime, &dirs));
    let source = &registry.get("read_file").expect("built-in read_file").plugin.source;
    let samples = support::sample(3, runs, || {
        runtime.load(&source.content_hash, || source.bytes()).expect("load read_file");
    });
    report("    Runtime::load of read_file, cached (deserialize + link)", &Summary::of(&samples));
}

/// A path that does not exist (no plugin folders).
fn scratch_path(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(name).join("missing")
}

fn tools_list(session: &Session, cache: &Path) {
    let mut command = session.bare_command();
    command.args(["tools", "list"]);
    run(command, cache);
}

fn plain_run(session: &Session, mock: &MockModel, cache: &Path) {
    mock.push_turn(Turn::text("Hello from the mock model."));
    let mut command = session.command(mock);
    command.args(["-p", "Say hello"]);
    run(command, cache);
    assert_eq!(mock.pending_turns(), 0);
}

fn run(mut command: Command, cache: &Path) {
    command.env("AIRLOCK_CACHE_DIR", cache).env_remove("AIRLOCK_LOG").stdout(Stdio::piped()).stderr(Stdio::piped());
    let output = command.output().expect("run airlock");
    assert!(output.status.success(), "{:?}\n{}", output.status, String::from_utf8_lossy(&output.stderr));
}
