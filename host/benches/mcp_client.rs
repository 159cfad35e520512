//! The time airlock adds to a call of an MCP server's tool, over calling that server
//! directly (issue 26's goal: ≤ 1 ms). One server, the fixture `tests/mcp/servers/normal.py`
//! (the official Python SDK), and one tool, `echo`, called many times each way in the same
//! run by the same kind of client (rmcp, which airlock's own client is built on):
//!
//! - **direct**: an rmcp client starts the server as a plain child (no sandbox) and times
//!   each `tools/call` round trip;
//! - **through airlock**: the release binary, headless against the mock model, runs a
//!   session in which the model calls `bench__echo` once per turn (allowed by a rule); each
//!   call gives two samples from stream-json: `run_ms` (from the start of its execution to
//!   its result: airlock's client, the sandboxed server, the round trip, the result's
//!   conversion and caps) and `duration` (from the call's arrival: its validation and the
//!   policy decision too).
//!
//! The overhead is the difference of the medians, for each. `cargo bench -p airlock --bench
//! mcp_client`; `AIRLOCK_BENCH_RUNS` sets the calls each way (200).

#![allow(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark is a test program: it prints its report and stops loudly on a broken setup"
)]

mod support;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use airlock_tests::{MockModel, Session, Turn, Wire, call};
use rmcp::ServiceExt;
use rmcp::model::CallToolRequestParams;
use rmcp::transport::TokioChildProcess;
use serde_json::{Value, json};
use support::{Summary, count_from_env, header, report};

const BINARY: &str = env!("CARGO_BIN_EXE_airlock");
/// Calls left out of each side's samples: the first ones warm the interpreter and caches.
const WARMUP: usize = 10;

fn main() {
    let runs = count_from_env("AIRLOCK_BENCH_RUNS", 200);
    header(
        "a call of an MCP server's tool: direct vs through airlock",
        &format!("{WARMUP} warm-up + {runs} calls each"),
    );
    let toolchain = airlock_tests::mcp::toolchain();
    let script = toolchain.dir.join("servers").join("normal.py");

    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
    let direct = runtime.block_on(direct_calls(&toolchain.python, &script, WARMUP + runs));
    let through = through_airlock(&toolchain.python, &script, WARMUP + runs);
    let (run, whole): (Vec<Duration>, Vec<Duration>) = through.into_iter().unzip();
    let direct = Summary::of(&direct[WARMUP..]);
    let run = Summary::of(&run[WARMUP..]);
    let whole = Summary::of(&whole[WARMUP..]);
    report("echo, direct (rmcp client, plain child)", &direct);
    report("echo, through airlock: run_ms", &run);
    report("echo, through airlock: duration (validation to result)", &whole);
    for (label, summary) in [("run_ms", &run), ("duration", &whole)] {
        let overhead = summary.median.as_secs_f64() - direct.median.as_secs_f64();
        println!("overhead of airlock by {label} (difference of the medians): {:.3} ms (goal ≤ 1 ms)", overhead * 1e3);
    }
}

/// `count` round trips of `echo` from an rmcp client to the server run as a plain child.
async fn direct_calls(python: &Path, script: &Path, count: usize) -> Vec<Duration> {
    let mut command = tokio::process::Command::new(python);
    command.arg(script).stderr(std::process::Stdio::null());
    let client = ().serve(TokioChildProcess::new(command).unwrap()).await.unwrap();
    let mut samples = Vec::with_capacity(count);
    for index in 0..count {
        let args = json!({"text": format!("call {index}")}).as_object().cloned().unwrap();
        let started = Instant::now();
        let result = client.call_tool(CallToolRequestParams::new("echo").with_arguments(args)).await.unwrap();
        samples.push(started.elapsed());
        assert_ne!(result.is_error, Some(true), "{result:?}");
    }
    client.cancel().await.unwrap();
    samples
}

/// `count` calls of `bench__echo` in one headless session, one per model turn; each call's
/// `run_ms` and `duration` as airlock measured them.
fn through_airlock(python: &Path, script: &Path, count: usize) -> Vec<(Duration, Duration)> {
    let cache = tempfile::tempdir().unwrap();
    let session = Session::new(BINARY, cache.path());
    let reads: Vec<String> = folders_of(python, script).iter().map(|p| toml(&p.display().to_string())).collect();
    session.write_config(&format!(
        "{}\n[mcp_servers.bench]\ncommand = {}\nargs = [{}]\n",
        airlock_tests::FAST_RETRIES,
        toml(&python.display().to_string()),
        toml(&script.display().to_string())
    ));
    std::fs::write(
        session.airlock_home().join("policy.toml"),
        format!(
            "[mcp_servers.bench]\nread = [{}]\n\n[[rule]]\ntool = \"bench__echo\"\ndecision = \"allow\"\n\n\
             [[rule]]\ntool = \"run_shell_command\"\ncommand = \"sleep\"\ndecision = \"allow\"\n",
            reads.join(", ")
        ),
    )
    .unwrap();
    let mock = MockModel::start(Wire::OpenAi);
    // The server starts in the background: the first turn gives it time (its tools are
    // offered from the next request on).
    mock.push_turn(Turn::calls(vec![call("run_shell_command", json!({"command": "sleep 3"}))]));
    for index in 0..count {
        mock.push_turn(Turn::calls(vec![call("bench__echo", json!({"text": format!("call {index}")}))]));
    }
    mock.push_turn(Turn::text("done"));
    let turns = (count + 2).to_string();
    let done = session.airlock(&mock, &["-p", "go", "-o", "stream-json", "--max-turns", &turns]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let ms = |value: &Value| value.as_f64().map(|ms| Duration::from_secs_f64(ms / 1e3));
    let samples: Vec<(Duration, Duration)> = done
        .stdout
        .lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter(|event| event["type"] == "tool_call" && event["status"] == "success" && event["name"] == "bench__echo")
        .filter_map(|event| Some((ms(&event["run_ms"])?, ms(&event["duration"])?)))
        .collect();
    assert_eq!(samples.len(), count, "not every call succeeded:\n{}", done.stderr);
    samples
}

/// What the sandboxed server must read: the venv, the interpreter's install, the script.
fn folders_of(python: &Path, script: &Path) -> Vec<PathBuf> {
    let venv = python.parent().and_then(Path::parent).unwrap().to_path_buf();
    let real = std::fs::canonicalize(python).unwrap();
    let prefix = real.parent().and_then(Path::parent).unwrap().to_path_buf();
    vec![venv, prefix, script.parent().unwrap().to_path_buf()]
}

/// `text` as a TOML string.
fn toml(text: &str) -> String {
    toml::Value::String(text.to_owned()).to_string()
}
