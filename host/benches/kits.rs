//! (h) The language kits' examples as airlock runs them: for each of Rust `word_count`,
//! Python `csv_query`, JavaScript `markdown_toc` and C `checksum` — built from source by the
//! kit's `build.sh` (`airlock_tests::kits`) — its size, the cold compile (an empty compile
//! cache: compile, serialize, link), the cached load (a new runtime on the same cache: the
//! entry checked into a sealed memory file, mapped and linked), and one call on a fresh
//! instance (instantiate + execute + drop, the workspace preopened read-only, as the
//! scheduler runs a granted read call), split into what the guest's own work costs (the same
//! call on a live instance), a trivial call (`describe`) on a fresh instance, and
//! instantiate + drop alone.
//!
//! `cargo bench -p airlock --bench kits`; `AIRLOCK_BENCH_RUNS` sets the compile and load
//! runs (3), `AIRLOCK_BENCH_ITERS` the timed calls (200).

#![allow(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark is a test program: it prints its report and stops loudly on a broken setup"
)]

mod support;

use std::sync::Arc;
use std::time::{Duration, Instant};

use airlock_engine::capability::Preopen;
use airlock_engine::runtime::{Runtime, Sandbox};
use airlock_files::content_hash;
use airlock_tests::kits::{self, root};
use support::{Summary, count_from_env, header, report};

/// (kit, example, tool, arguments); the workspace holds the files they read.
const EXAMPLES: &[(&str, &str, &str, &str)] = &[
    ("rust", "word_count", "word_count", r#"{"paths":["notes.md"]}"#),
    ("c", "checksum", "checksum", r#"{"paths":["notes.md"],"algorithm":"sha256"}"#),
    (
        "python",
        "csv_query",
        "csv_query",
        r#"{"file_path":"people.csv","where":[{"column":"age","op":">","value":"30"}]}"#,
    ),
    ("js", "markdown_toc", "markdown_toc", r#"{"file_path":"notes.md"}"#),
];

fn main() {
    let runs = count_from_env("AIRLOCK_BENCH_RUNS", 3);
    let iterations = count_from_env("AIRLOCK_BENCH_ITERS", 200);
    header("the language kits' examples", &format!("{runs} compile and load runs, {iterations} timed calls"));
    let workspace_dir = tempfile::tempdir().expect("workspace");
    let workspace = workspace_dir.path().canonicalize().expect("canonical workspace");
    let notes: String = (1..=40).map(|n| format!("## Section {n}\n\nSome words about section {n}.\n\n")).collect();
    std::fs::write(workspace.join("notes.md"), format!("# Notes\n\n{notes}")).expect("notes");
    let people: String = (0..200).map(|n| format!("person{n},{},city{}\n", 20 + n % 50, n % 7)).collect();
    std::fs::write(workspace.join("people.csv"), format!("name,age,city\n{people}")).expect("people");
    let tokio = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("tokio");

    for (kit, example, tool, args) in EXAMPLES {
        let dir = root().join("plugin-sdk").join(kit);
        let component = kits::build(
            &format!("{kit}-{example}"),
            &dir.join("build.sh"),
            &dir.join("examples").join(example),
            &[dir.clone(), root().join("plugin-sdk/wit")],
        );
        let bytes = std::fs::read(&component).expect("component");
        let hash = content_hash(&bytes);
        println!("-- {kit} {example}: {} bytes --", bytes.len());

        let mut cold = Vec::new();
        let mut cached = Vec::new();
        for _ in 0..runs {
            let cache = tempfile::tempdir().expect("cache");
            let runtime = Runtime::new(cache.path().to_path_buf()).expect("runtime");
            let started = Instant::now();
            runtime.load(&hash, || Ok(bytes.clone())).expect("compile");
            cold.push(started.elapsed());
            let again = Runtime::new(cache.path().to_path_buf()).expect("runtime");
            let started = Instant::now();
            again.load(&hash, || Ok(bytes.clone())).expect("cached load");
            cached.push(started.elapsed());
        }
        report(&format!("{kit} {example}: cold compile (empty cache)"), &Summary::of(&cold));
        report(&format!("{kit} {example}: cached load (new runtime, same cache)"), &Summary::of(&cached));

        let cache = tempfile::tempdir().expect("cache");
        let runtime = Runtime::new(cache.path().to_path_buf()).expect("runtime");
        let (loaded, _) = runtime.load(&hash, || Ok(bytes.clone())).expect("load");
        let root = workspace.to_string_lossy().into_owned();
        let mut sandbox = Sandbox::empty(256 << 20, Duration::from_secs(60));
        sandbox.workspace_root = root.clone();
        sandbox.call_id = "call_0".into();
        sandbox.preopens = vec![Preopen { host: workspace.clone(), guest: root, writable: false }];
        let call = || async {
            let mut instance = runtime.instantiate(&loaded, Arc::from("bench"), &sandbox).await.expect("instantiate");
            instance.execute(tool, args).await.expect("execute").expect("tool ok")
        };
        let first = Instant::now();
        let output = tokio.block_on(call());
        let first = first.elapsed();
        assert!(!output.llm_text().is_empty(), "{kit}: an empty answer");
        report(&format!("{kit} {example}: first call in the process"), &Summary::of(&[first]));
        let samples: Vec<Duration> = (0..iterations.div_ceil(10) + iterations)
            .map(|_| {
                let started = Instant::now();
                tokio.block_on(call());
                started.elapsed()
            })
            .skip(iterations.div_ceil(10))
            .collect();
        report(&format!("{kit} {example}: fresh instance + call + drop"), &Summary::of(&samples));
        let timed = |run: &dyn Fn()| -> Vec<Duration> {
            (0..iterations)
                .map(|_| {
                    let started = Instant::now();
                    run();
                    started.elapsed()
                })
                .collect()
        };
        let instantiate =
            || async { runtime.instantiate(&loaded, Arc::from("bench"), &sandbox).await.expect("instantiate") };
        let fresh = timed(&|| drop(tokio.block_on(instantiate())));
        report(&format!("{kit} {example}: instantiate + drop"), &Summary::of(&fresh));
        let trivial = timed(&|| {
            tokio.block_on(async { instantiate().await.describe().await.expect("describe") });
        });
        report(&format!("{kit} {example}: fresh instance + describe + drop"), &Summary::of(&trivial));
        let mut live = tokio.block_on(instantiate());
        tokio.block_on(live.execute(tool, args)).expect("execute").expect("tool ok");
        let own: Vec<Duration> = (0..iterations)
            .map(|_| {
                let started = Instant::now();
                tokio.block_on(live.execute(tool, args)).expect("execute").expect("tool ok");
                started.elapsed()
            })
            .collect();
        report(&format!("{kit} {example}: the call on a live instance (the guest's own work)"), &Summary::of(&own));
    }
}
