//! `airlock acp` against the mock model on 127.0.0.1, next to the same answer headless:
//!
//! - **ACP prompt round trip**: `session/prompt` of a plain question written on the agent's
//!   stdin, the clock stopped when its response line is read; each prompt in a fresh ACP
//!   session (opened untimed), so the model gets the same one-message conversation as a
//!   headless run;
//! - **headless turn**: `airlock -p … -o json`, the engine's own time for the turn
//!   (`stats.duration_ms`: from the user turn to its report), which is what the ACP round trip
//!   adds its JSON-RPC hops to; the whole process (start included) beside it.
//!
//! The client is this program: newline-delimited JSON-RPC on the child's pipes. `cargo bench -p
//! airlock --bench acp`; `AIRLOCK_BENCH_RUNS` sets the prompts (200), `AIRLOCK_BENCH_STARTS` the
//! headless runs (30).

#![allow(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark is a test program: it prints its report and stops loudly on a broken setup"
)]

mod support;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Stdio};
use std::time::{Duration, Instant};

use airlock_tests::{MockModel, Session, Turn, Wire};
use serde_json::{Value, json};
use support::{Summary, count_from_env, header, report};

const BINARY: &str = env!("CARGO_BIN_EXE_airlock");

/// `airlock acp` on the other end of a child's pipes.
struct Agent {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
    next_id: u64,
}

impl Agent {
    fn send(&mut self, method: &str, params: Value) -> u64 {
        self.next_id += 1;
        let message = json!({ "jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params });
        writeln!(self.input, "{message}").expect("write a request");
        self.next_id
    }

    /// Reads lines up to the response to `id` (notifications are skipped).
    fn answer(&mut self, id: u64) -> Value {
        let mut line = String::new();
        loop {
            line.clear();
            assert!(self.output.read_line(&mut line).expect("read") > 0, "the agent closed its stdout");
            let message: Value = serde_json::from_str(&line).expect("a JSON line");
            if message["id"] == id && message.get("method").is_none() {
                assert!(message.get("error").is_none(), "{message}");
                return message;
            }
        }
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn main() {
    let runs = count_from_env("AIRLOCK_BENCH_RUNS", 200);
    let starts = count_from_env("AIRLOCK_BENCH_STARTS", 30);
    header(
        "airlock acp prompt round trip vs a headless turn (release binary)",
        &format!("{runs} prompts, {starts} headless runs"),
    );
    let cache = tempfile::tempdir().expect("cache");
    let session = Session::new(BINARY, cache.path());
    let mock = MockModel::start(Wire::Gemini);
    mock.push_turn(Turn::text("Hello from the mock model.").forever());

    let mut command = session.command(&mock);
    command.arg("acp").stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null());
    let mut child = command.spawn().expect("start airlock acp");
    let input = child.stdin.take().expect("stdin");
    let output = BufReader::new(child.stdout.take().expect("stdout"));
    let mut agent = Agent { child, input, output, next_id: 0 };
    let id = agent.send("initialize", json!({ "protocolVersion": 1 }));
    agent.answer(id);
    let mut round_trips = Vec::with_capacity(runs);
    for run in 0..runs + 5 {
        let id = agent.send("session/new", json!({ "cwd": session.workspace, "mcpServers": [] }));
        let opened = agent.answer(id);
        let session_id = opened["result"]["sessionId"].clone();
        let prompt = json!({ "sessionId": session_id, "prompt": [{ "type": "text", "text": "Say hello." }] });
        let started = Instant::now();
        let id = agent.send("session/prompt", prompt);
        let response = agent.answer(id);
        let took = started.elapsed();
        assert_eq!(response["result"]["stopReason"], "end_turn", "{response}");
        // The first few warm the caches and the connection.
        if run >= 5 {
            round_trips.push(took);
        }
    }
    drop(agent);
    report("acp: session/prompt → response (plain answer)", &Summary::of(&round_trips));

    let mut turns = Vec::with_capacity(starts);
    let mut processes = Vec::with_capacity(starts);
    for run in 0..starts + 2 {
        let mut command = session.command(&mock);
        command.args(["-p", "Say hello.", "-o", "json"]);
        let started = Instant::now();
        let done = Session::run(command);
        let took = started.elapsed();
        assert_eq!(done.code, Some(0), "{}", done.stderr);
        let json: Value = serde_json::from_str(&done.stdout).expect("-o json");
        let turn = Duration::from_secs_f64(json["stats"]["duration_ms"].as_f64().expect("duration_ms") / 1000.0);
        if run >= 2 {
            turns.push(turn);
            processes.push(took);
        }
    }
    report("headless: the engine's turn (stats.duration_ms)", &Summary::of(&turns));
    report("headless: the whole process (start included)", &Summary::of(&processes));
    let difference = Summary::of(&round_trips).median.as_secs_f64() - Summary::of(&turns).median.as_secs_f64();
    println!("acp round trip − headless turn, medians: {:+.2} ms (goal: within 2 ms)", difference * 1000.0);
}
