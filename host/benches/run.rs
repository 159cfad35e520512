//! Whole headless runs of the release binary against the mock model on 127.0.0.1, with a
//! warm compile cache:
//!
//! - (a) the model answers in plain text;
//! - (b) the model makes 8 parallel `read_file` calls (`AIRLOCK_BENCH_PARALLEL_READS`: 64 for
//!   issue 14's batch), then answers in plain text;
//! - (e) the peak RSS of both (`/usr/bin/time -f %M`);
//! - a breakdown of where a run's time goes (`-o json`: the agent loop's own duration and
//!   each call's, against the process's wall time);
//! - a cross-check of (a) with `hyperfine`, when it is installed.
//!
//! `cargo bench -p airlock --bench run`; `AIRLOCK_BENCH_RUNS` sets the timed runs (50).

#![allow(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark is a test program: it prints its report and stops loudly on a broken setup"
)]

mod support;

use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use airlock_tests::{MockModel, Session, Turn, Wire, call, function_responses};
use serde_json::{Value, json};
use support::{Summary, count_from_env, header, report};

const BINARY: &str = env!("CARGO_BIN_EXE_airlock");
const ANSWER: &str = "Hello from the mock model.";
/// How many `read_file` calls (b) makes in one response: `AIRLOCK_BENCH_PARALLEL_READS` (8).
fn parallel_reads() -> usize {
    count_from_env("AIRLOCK_BENCH_PARALLEL_READS", 8)
}
const WARMUP: usize = 5;

fn main() {
    let runs = count_from_env("AIRLOCK_BENCH_RUNS", 50);
    let rss_runs = count_from_env("AIRLOCK_BENCH_RSS_RUNS", 10);
    header("headless runs (release binary, warm compile cache)", &format!("{WARMUP} warm-up + {runs} timed runs"));
    let cache = tempfile::tempdir().expect("temp cache");
    let session = Session::new(BINARY, cache.path());
    write_workspace(&session);

    for wire in [Wire::OpenAi, Wire::Gemini] {
        let mock = MockModel::start(wire);
        let plain = Scenario::Plain;
        let reads = Scenario::ParallelReads;
        // The first run fills the compile cache and checks the scenario end to end.
        plain.run(&session, &mock, |c| c);
        reads.check(&session, &mock);
        for scenario in [plain, reads] {
            let samples = support::sample(WARMUP, runs, || {
                scenario.run(&session, &mock, |c| c);
            });
            report(&format!("{} [{wire:?}] wall", scenario.label()), &Summary::of(&samples));
        }
        for scenario in [plain, reads] {
            let peaks: Vec<u64> = (0..rss_runs).map(|_| scenario.peak_rss_kib(&session, &mock)).collect();
            println!("{:<58} {}", format!("{} [{wire:?}] peak RSS", scenario.label()), rss_summary(&peaks));
        }
        for scenario in [plain, reads] {
            breakdown(scenario, &session, &mock, runs.min(20));
        }
        if wire == Wire::OpenAi {
            hyperfine_cross_check(&session, &mock, runs);
        }
    }
}

/// What the mock model is scripted to do in one run.
#[derive(Debug, Clone, Copy)]
enum Scenario {
    /// (a): one turn, plain text.
    Plain,
    /// (b): 8 `read_file` calls in one response, then plain text.
    ParallelReads,
}

impl Scenario {
    fn label(self) -> &'static str {
        match self {
            Self::Plain => "(a) plain-text run",
            Self::ParallelReads => "(b) parallel read_file calls + text",
        }
    }

    fn script(self, mock: &MockModel) {
        if let Self::ParallelReads = self {
            let calls =
                (0..parallel_reads()).map(|i| call("read_file", json!({ "file_path": format!("src/file_{i}.rs") })));
            mock.push_turn(Turn::calls(calls.collect()));
        }
        mock.push_turn(Turn::text(ANSWER));
    }

    /// Scripts the mock, runs the binary (with `wrap` applied to its command) to the end
    /// and checks it answered.
    fn run(self, session: &Session, mock: &MockModel, wrap: impl FnOnce(Command) -> Command) -> String {
        self.script(mock);
        let mut command = session.command(mock);
        command.args(["-p", "Say hello"]).env_remove("AIRLOCK_LOG").stdout(Stdio::piped()).stderr(Stdio::piped());
        let output = wrap(command).output().expect("run airlock");
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        assert!(
            output.status.success(),
            "{}: {:?}\n{}",
            self.label(),
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
        assert_eq!(mock.pending_turns(), 0, "{}: the binary did not take every scripted turn", self.label());
        stdout
    }

    /// One run, checked in depth: the answer and every tool result the model was sent.
    fn check(self, session: &Session, mock: &MockModel) {
        let before = mock.requests().len();
        let stdout = self.run(session, mock, |c| c);
        assert_eq!(stdout.trim_end(), ANSWER);
        if let Self::ParallelReads = self {
            let requests = mock.requests();
            let responses = function_responses(&requests[before + 1]);
            assert_eq!(responses.len(), parallel_reads(), "{responses:?}");
            for (i, (name, content)) in responses.iter().enumerate() {
                assert_eq!(name, "read_file");
                assert!(content.contains(&format!("fn function_{i}_0()")), "read_file result {i}: {content}");
            }
        }
    }

    /// The peak resident set of one run in KiB, as `/usr/bin/time` reports it.
    fn peak_rss_kib(self, session: &Session, mock: &MockModel) -> u64 {
        let out = tempfile::NamedTempFile::new().expect("temp file");
        let path = out.path().to_path_buf();
        self.run(session, mock, |inner| {
            let mut command = Command::new("/usr/bin/time");
            command.args(["-f", "%M", "-o"]).arg(&path).arg(inner.get_program()).args(inner.get_args());
            command.env_clear().envs(inner.get_envs().filter_map(|(k, v)| v.map(|v| (k, v))));
            if let Some(dir) = inner.get_current_dir() {
                command.current_dir(dir);
            }
            command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
            command
        });
        let text = std::fs::read_to_string(&path).expect("time output");
        text.trim().parse().unwrap_or_else(|_| panic!("unexpected /usr/bin/time output: {text:?}"))
    }
}

/// Median and range of peak RSS samples.
fn rss_summary(kib: &[u64]) -> String {
    let mut sorted = kib.to_vec();
    sorted.sort_unstable();
    let mib = |k: u64| k as f64 / 1024.0;
    format!(
        "median {:.1} MiB  min {:.1} MiB  max {:.1} MiB  n={}",
        mib(sorted[(sorted.len() - 1) / 2]),
        mib(sorted[0]),
        mib(sorted[sorted.len() - 1]),
        sorted.len()
    )
}

/// Where a run's wall time goes: the agent loop (model turns and tool batches) as the binary
/// measures it in `-o json`, the tool calls within it, and the rest (process start, runtime
/// and registry set-up, printing, exit).
fn breakdown(scenario: Scenario, session: &Session, mock: &MockModel, runs: usize) {
    let mut wall = Vec::new();
    let mut agent = Vec::new();
    let mut calls = Vec::new();
    let mut outside = Vec::new();
    for _ in 0..runs {
        let started = Instant::now();
        let stdout = scenario.run(session, mock, |mut c| {
            c.args(["-o", "json"]);
            c
        });
        let elapsed = started.elapsed();
        let summary: Value = serde_json::from_str(&stdout).expect("json output");
        let millis = |v: &Value| Duration::from_secs_f64(v.as_f64().unwrap_or_default() / 1000.0);
        let loop_time = millis(&summary["stats"]["duration_ms"]);
        let longest_call =
            summary["tool_calls"].as_array().into_iter().flatten().map(|c| millis(&c["duration_ms"])).max();
        wall.push(elapsed);
        agent.push(loop_time);
        calls.push(longest_call.unwrap_or_default());
        outside.push(elapsed.saturating_sub(loop_time));
    }
    let label = scenario.label();
    report(&format!("{label}: wall (-o json)"), &Summary::of(&wall));
    report("    agent loop (stats.duration_ms)", &Summary::of(&agent));
    if matches!(scenario, Scenario::ParallelReads) {
        report("    longest call of the batch, ≈ the batch (duration_ms)", &Summary::of(&calls));
    }
    report("    outside the loop (start, set-up, exit)", &Summary::of(&outside));
}

/// Runs (a) under hyperfine against the same mock, which answers every unscripted request
/// in plain text.
fn hyperfine_cross_check(session: &Session, mock: &MockModel, runs: usize) {
    let Some(hyperfine) = find_on_path("hyperfine") else {
        println!("(a) hyperfine cross-check: skipped (hyperfine is not installed)");
        return;
    };
    let export = tempfile::NamedTempFile::new().expect("temp file");
    let template = session.command(mock);
    let mut line = vec![BINARY.to_string()];
    line.extend(template.get_args().map(|a| a.to_string_lossy().into_owned()));
    line.extend(["-p".into(), "hello".into()]);
    let mut command = Command::new(hyperfine);
    command
        .args(["-N", "--style", "none", "--warmup", "5", "--runs", &runs.to_string(), "--export-json"])
        .arg(export.path())
        .arg(line.join(" "))
        .env_clear()
        .envs(template.get_envs().filter_map(|(k, v)| v.map(|v| (k, v))))
        .env_remove("AIRLOCK_LOG")
        .current_dir(&session.workspace)
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    let output = command.output().expect("run hyperfine");
    assert!(output.status.success(), "hyperfine: {}", String::from_utf8_lossy(&output.stderr));
    let result: Value = serde_json::from_str(&std::fs::read_to_string(export.path()).expect("hyperfine export"))
        .expect("hyperfine json");
    let result = &result["results"][0];
    let seconds = |key: &str| Duration::from_secs_f64(result[key].as_f64().unwrap_or_default());
    println!(
        "{:<58} median {:>9}  mean {:>9}  σ {:>9}  min {:>9}  n={}",
        "(a) plain-text run [OpenAi] hyperfine -N",
        support::human(seconds("median")),
        support::human(seconds("mean")),
        support::human(seconds("stddev")),
        support::human(seconds("min")),
        runs
    );
}

fn find_on_path(program: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?).map(|dir| dir.join(program)).find(|p| p.is_file())
}

/// Eight small source files for `read_file`.
fn write_workspace(session: &Session) {
    for i in 0..parallel_reads() {
        let body: String = (0..40).map(|n| format!("fn function_{i}_{n}() -> u32 {{\n    {n}\n}}\n\n")).collect();
        session.write(&format!("src/file_{i}.rs"), &body);
    }
    session.write("README.md", "# bench workspace\n");
}
