//! `airlock mcp serve` over stdio against a server written with the official MCP Python SDK
//! (`tests/mcp/bench/read_server.py`) doing the same read, measured in the same run by the same
//! client:
//!
//! - **start to the first `tools/list` answer**: the server spawned, `initialize`, the
//!   `initialized` notification and `tools/list` written at once, the clock stopped at the
//!   `tools/list` answer (a fresh process each time; airlock's compile cache warm, as on any
//!   start after the first);
//! - **`tools/call` round trip** of `read_file` on a 1 KiB file of the workspace, one call at a
//!   time on one session, in the default approval mode (a read needs no approval).
//!
//! The client is this program: newline-delimited JSON-RPC on the child's pipes, one
//! `serde_json` encode and decode per message, so it adds microseconds, not the tens to hundreds
//! a client SDK would. `cargo bench -p airlock --bench mcp_serve`; `AIRLOCK_BENCH_RUNS` sets the
//! calls (1,000), `AIRLOCK_BENCH_STARTS` the starts (20).

#![allow(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark is a test program: it prints its report and stops loudly on a broken setup"
)]

mod support;

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::time::Instant;

use airlock_tests::Session;
use serde_json::{Value, json};
use support::{Summary, count_from_env, header, report};

const BINARY: &str = env!("CARGO_BIN_EXE_airlock");

/// One MCP server on the other end of a child's stdin and stdout.
struct Peer {
    child: Child,
    input: ChildStdin,
    output: BufReader<ChildStdout>,
    next_id: u64,
}

impl Peer {
    fn spawn(mut command: Command) -> Self {
        command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null());
        let mut child = command.spawn().expect("start the server");
        let input = child.stdin.take().expect("stdin");
        let output = BufReader::new(child.stdout.take().expect("stdout"));
        Self { child, input, output, next_id: 0 }
    }

    /// Writes a request and returns its id (the answer is read by [`Peer::answer`]).
    fn send(&mut self, method: &str, params: Value) -> u64 {
        self.next_id += 1;
        let message = json!({ "jsonrpc": "2.0", "id": self.next_id, "method": method, "params": params });
        writeln!(self.input, "{message}").expect("write a request");
        self.next_id
    }

    fn notify(&mut self, method: &str) {
        writeln!(self.input, "{}", json!({ "jsonrpc": "2.0", "method": method })).expect("write a notification");
    }

    /// Reads until the answer to `id` (notifications in between are skipped).
    fn answer(&mut self, id: u64) -> Value {
        let mut line = String::new();
        loop {
            line.clear();
            let read = self.output.read_line(&mut line).expect("read an answer");
            assert!(read > 0, "the server closed its stdout before answering {id}");
            let message: Value = serde_json::from_str(&line).expect("a JSON-RPC message");
            if message["id"] == id {
                assert!(message.get("error").is_none(), "error answer: {message}");
                return message["result"].clone();
            }
        }
    }

    /// The handshake and a `tools/list`, written back to back; returns the listing.
    fn start(&mut self) -> Value {
        let initialize = self.send(
            "initialize",
            json!({ "protocolVersion": "2025-11-25", "capabilities": {},
                    "clientInfo": { "name": "airlock-bench", "version": "0" } }),
        );
        self.notify("notifications/initialized");
        let list = self.send("tools/list", json!({}));
        self.answer(initialize);
        self.answer(list)
    }

    fn read_file(&mut self) -> Value {
        let id = self.send("tools/call", json!({ "name": "read_file", "arguments": { "file_path": "data.txt" } }));
        self.answer(id)
    }
}

impl Drop for Peer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The two figures for one server.
fn measure(label: &str, command: &dyn Fn() -> Command, starts: usize, calls: usize, expect: &str) {
    // A first start outside the samples: airlock's compile cache, Python's bytecode cache.
    Peer::spawn(command()).start();
    let mut started = Vec::with_capacity(starts);
    for _ in 0..starts {
        let clock = Instant::now();
        let mut peer = Peer::spawn(command());
        let listed = peer.start();
        started.push(clock.elapsed());
        assert!(listed["tools"].as_array().is_some_and(|t| t.iter().any(|t| t["name"] == "read_file")));
    }
    report(&format!("{label}: start to the first tools/list answer"), &Summary::of(&started));

    let mut peer = Peer::spawn(command());
    peer.start();
    let samples = support::sample(calls / 10, calls, || {
        let result = peer.read_file();
        assert_ne!(result["isError"], true, "{result}");
        let text = result["content"][0]["text"].as_str().unwrap_or_default();
        assert!(text.contains(expect), "{result}");
    });
    report(&format!("{label}: tools/call read_file round trip"), &Summary::of(&samples));
}

fn main() {
    let calls = count_from_env("AIRLOCK_BENCH_RUNS", 1000);
    let starts = count_from_env("AIRLOCK_BENCH_STARTS", 20);
    header("airlock mcp serve over stdio, and the Python SDK", &format!("{starts} starts, {calls} calls each"));
    let scratch = tempfile::tempdir().expect("temp dir");
    let session = Session::new(BINARY, &scratch.path().join("cache"));
    let line = "a line of the benchmark's file, forty-ish characters\n";
    session.write("data.txt", &line.repeat(1024 / line.len() + 1));
    let toolchain = airlock_tests::mcp::toolchain();

    let airlock = || {
        let mut command = session.bare_command();
        // The log level a user gets (`warn,airlock=info`: one line per served call).
        command.current_dir(&session.workspace).env_remove("AIRLOCK_LOG").args(["mcp", "serve"]);
        command
    };
    let python = || {
        let mut command = Command::new(&toolchain.python);
        command.arg(toolchain.dir.join("bench/read_server.py")).current_dir(&session.workspace).env_clear();
        command
    };
    measure("airlock mcp serve", &airlock, starts, calls, "forty-ish");
    measure("Python SDK server", &python, starts, calls, "forty-ish");
}
