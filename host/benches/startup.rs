//! (d) Start-up of the release binary with a cold and a warm compile cache:
//!
//! - `airlock tools list` with an empty `AIRLOCK_CACHE_DIR` (every built-in is loaded from
//!   the native code the build precompiled, and described; nothing is compiled) and with a
//!   warm one (cached descriptions, nothing compiled or loaded);
//! - a whole plain-text run against the mock model, cold and warm;
//! - in process, the set-up phases of a warm start: `Runtime::new` (engine, linker, epoch
//!   ticker), `Registry::load` (cached descriptions) and the first load of a component from
//!   the compile cache (deserialize + link), which the first call of a tool pays;
//! - in process, the two ways a first run could treat the built-ins, per built-in: loading
//!   the precompiled code (what airlock does) against compiling it (what a lazy compile
//!   would make the first call of that tool pay), and `Registry::load` with an empty cache.
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

use airlock_engine::registry::{PluginDirs, Registry};
use airlock_engine::runtime::Runtime;
use airlock_tests::{MockModel, Session, Turn, Wire};
use support::{Summary, count_from_env, header, report};

const BINARY: &str = env!("CARGO_BIN_EXE_airlock");
const BUILTINS: usize = 13;

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
        let stderr = tools_list(&session, &cache);
        let compiled = std::fs::read_dir(cache.join("components")).map(|d| d.count()).unwrap_or_default();
        assert_eq!(compiled, 0, "a cold start compiles no built-in: {stderr}");
        let described = std::fs::read_dir(cache.join("descriptions")).map(|d| d.count()).unwrap_or_default();
        assert_eq!(described, BUILTINS, "a cold start describes every built-in");
        let _ = std::fs::remove_dir_all(&cache);
    });
    report("(d) tools list, cold cache (13 built-ins precompiled)", &Summary::of(&samples));
    let samples = support::sample(5, runs, || drop(tools_list(&session, &warm_cache)));
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
    first_run_both_ways(scratch.path(), cold_runs);
}

/// Each built-in loaded from its precompiled code, against compiled (a lazy compile's first
/// call), and a whole cold `Registry::load`.
fn first_run_both_ways(scratch: &Path, runs: usize) {
    let tokio = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("tokio");
    let none = scratch_path("airlock-bench-no-plugins");
    let dirs = PluginDirs { user: none.clone(), workspace: none, ..PluginDirs::default() };
    let mut round = 0;
    let samples = support::sample(1, runs, || {
        round += 1;
        let runtime = Runtime::new(scratch.join(format!("registry-{round}"))).expect("runtime");
        let registry = tokio.block_on(Registry::load(&runtime, &dirs));
        assert_eq!(registry.plugins().len(), BUILTINS);
    });
    report("    Registry::load, empty cache (12 precompiled, described)", &Summary::of(&samples));
    let runtime = Runtime::new(scratch.join("both-ways")).expect("runtime");
    let registry = tokio.block_on(Registry::load(&runtime, &dirs));
    let (mut precompiled_total, mut compiled_total) = (std::time::Duration::ZERO, std::time::Duration::ZERO);
    for plugin in registry.plugins() {
        let source = &plugin.source;
        let native = source.precompiled.expect("a precompiled built-in");
        let loaded = Summary::of(&support::sample(1, runs, || {
            let (_, outcome) =
                runtime.load_native(&source.content_hash, Some(native), || source.bytes()).expect("load");
            assert_eq!(outcome, airlock_engine::runtime::CacheOutcome::Precompiled);
        }));
        let compiled = Summary::of(&support::sample(0, runs.min(3), || {
            let _ = std::fs::remove_dir_all(runtime.cache().dir().join("components"));
            let (_, outcome) = runtime.load(&source.content_hash, || source.bytes()).expect("compile");
            assert_eq!(outcome, airlock_engine::runtime::CacheOutcome::Compiled);
        }));
        precompiled_total += loaded.median;
        compiled_total += compiled.median;
        println!(
            "    {:<22} {:>7} KiB wasm: precompiled load {:>9}, compile {:>9}",
            source.path.display(),
            source.bytes().expect("bytes").len() / 1024,
            support::human(loaded.median),
            support::human(compiled.median)
        );
    }
    println!(
        "    all 13 built-ins: precompiled load {}, compile {} (medians summed)",
        support::human(precompiled_total),
        support::human(compiled_total)
    );
}

/// The engine's share of a warm start, measured in this process.
fn in_process_phases(warm_cache: &Path, runs: usize) {
    let tokio = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("tokio");
    let samples = support::sample(3, runs, || drop(Runtime::new(warm_cache.to_path_buf()).expect("runtime")));
    report("    Runtime::new (engine, linker, epoch ticker)", &Summary::of(&samples));
    let runtime = Runtime::new(warm_cache.to_path_buf()).expect("runtime");
    let none = scratch_path("airlock-bench-no-plugins");
    let dirs = PluginDirs { user: none.clone(), workspace: none, ..PluginDirs::default() };
    let samples = support::sample(3, runs, || {
        let registry = tokio.block_on(Registry::load(&runtime, &dirs));
        assert!(registry.problems.is_empty(), "{:?}", registry.problems);
    });
    report("    Registry::load, warm (12 cached descriptions)", &Summary::of(&samples));
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

fn tools_list(session: &Session, cache: &Path) -> String {
    let mut command = session.bare_command();
    command.args(["tools", "list"]);
    run(command, cache)
}

fn plain_run(session: &Session, mock: &MockModel, cache: &Path) {
    mock.push_turn(Turn::text("Hello from the mock model."));
    let mut command = session.command(mock);
    command.args(["-p", "Say hello"]);
    run(command, cache);
    assert_eq!(mock.pending_turns(), 0);
}

/// Runs `command` with `cache` as its compile cache; returns its stderr.
fn run(mut command: Command, cache: &Path) -> String {
    command.env("AIRLOCK_CACHE_DIR", cache).env_remove("AIRLOCK_LOG").stdout(Stdio::piped()).stderr(Stdio::piped());
    let output = command.output().expect("run airlock");
    let stderr = String::from_utf8_lossy(&output.stderr).into_owned();
    assert!(output.status.success(), "{:?}\n{stderr}", output.status);
    assert!(!stderr.contains("compiling"), "nothing is compiled: {stderr}");
    stderr
}
