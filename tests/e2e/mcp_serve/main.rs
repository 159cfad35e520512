//! `airlock mcp serve` driven by a real MCP client (issue 26): the official Python SDK, installed
//! by the project's own files (`airlock_tests::mcp::toolchain()`), through the client script
//! `tests/mcp/clients/serve_client.py`, over stdio (the SDK starts the server) and over
//! streamable HTTP on 127.0.0.1 (the test starts it and reads its address and token). Each test
//! has its own `$AIRLOCK_HOME` and workspace ([`session`]). The areas: the tools and protocol
//! versions a client sees ([`tools`]), approvals put to the client's user or refused
//! ([`approvals`]), cancellation and `tools/list_changed` ([`lifecycle`]), and the HTTP door's
//! token, `Origin` and `Host` checks ([`http`]).

mod approvals;
mod http;
mod lifecycle;
mod tools;

use std::io::{BufRead, BufReader};
use std::process::{Child, ChildStdout, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use airlock_tests::{Session, run_bounded};
use serde_json::Value;

use crate::shared_cache;

/// How long one client script may run: it starts the SDK, the server and a few calls.
const CLIENT_LIMIT: Duration = Duration::from_secs(180);

/// Where the client finds the server.
enum Server<'a> {
    /// The SDK starts `airlock mcp serve ARGS` in the workspace and speaks over its stdio.
    Stdio(&'a [&'a str]),
    /// A server the test started ([`Http`]), at its URL with this token (`""`: none sent).
    Http(&'a Http, &'a str),
}

/// The client script as a command: the session's environment (its home, the shared compile
/// cache, nothing of the machine's), the workspace as its folder.
fn client_command(s: &Session, server: &Server, mode: &str, args: &[&str]) -> Command {
    let toolchain = airlock_tests::mcp::toolchain();
    let mut command = Command::new(&toolchain.python);
    command
        .arg(toolchain.dir.join("clients/serve_client.py"))
        .env_clear()
        .env("HOME", s.airlock_home().parent().unwrap_or(&s.workspace))
        .env("AIRLOCK_HOME", s.airlock_home())
        .env("AIRLOCK_CACHE_DIR", shared_cache())
        .env("AIRLOCK_LOG", "info")
        .current_dir(&s.workspace)
        .args(["--mode", mode]);
    match server {
        Server::Stdio(_) => {}
        Server::Http(http, token) => {
            // `=`: a token may start with `-`, which argparse would take for an option.
            command.arg(format!("--url={}", http.url)).arg(format!("--token={token}"));
        }
    }
    command.args(args);
    if let Server::Stdio(serve_args) = server {
        command.args(["--", env!("CARGO_BIN_EXE_airlock"), "mcp", "serve"]).args(*serve_args);
    }
    command
}

/// Runs the client script to the end and returns the JSON it printed last.
fn client(s: &Session, server: &Server, mode: &str, args: &[&str]) -> Value {
    let done = run_bounded(client_command(s, server, mode, args), Some(""), CLIENT_LIMIT);
    let last = done.stdout.lines().last().unwrap_or_default();
    serde_json::from_str(last).unwrap_or_else(|e| {
        panic!(
            "the client printed no JSON ({e}); exit {:?}\nstdout:\n{}\nstderr:\n{}",
            done.code, done.stdout, done.stderr
        )
    })
}

/// The client's `run` command on the legacy handshake: `steps` of `(client label, tool,
/// args)`, with each client's elicitation answer in `clients` (`"none"`, `"accept:once"`,
/// `"decline"`…). Returns the results, one per step, after checking the script did not fail.
fn run_steps(s: &Session, server: &Server, clients: &[(&str, &str)], steps: &[(&str, &str, Value)]) -> Vec<Value> {
    run_steps_in(s, server, "legacy", clients, steps)
}

/// [`run_steps`] with the SDK's connection `mode`.
fn run_steps_in(
    s: &Session,
    server: &Server,
    mode: &str,
    clients: &[(&str, &str)],
    steps: &[(&str, &str, Value)],
) -> Vec<Value> {
    let clients: serde_json::Map<String, Value> =
        clients.iter().map(|(label, elicit)| ((*label).to_owned(), serde_json::json!({ "elicit": elicit }))).collect();
    let steps: Vec<Value> = steps
        .iter()
        .map(|(client, tool, args)| serde_json::json!({ "client": client, "tool": tool, "args": args }))
        .collect();
    let script = serde_json::json!({ "clients": clients, "steps": steps }).to_string();
    let printed = client(s, server, mode, &["run", &script]);
    assert!(printed.get("error").is_none(), "the client failed: {printed}");
    printed["results"].as_array().cloned().unwrap_or_default()
}

/// A result's text (a tool error's too).
fn text(result: &Value) -> &str {
    result["text"].as_str().unwrap_or_default()
}

/// `airlock mcp serve --http 127.0.0.1:0` running for a test; killed when dropped.
struct Http {
    child: Child,
    /// `http://127.0.0.1:PORT/mcp`.
    url: String,
    /// `127.0.0.1:PORT`.
    addr: String,
    /// The token it printed (or was given).
    token: String,
    /// Everything it writes to stderr after the two start lines.
    _stderr: std::thread::JoinHandle<String>,
}

impl Http {
    /// Starts the server in the session's workspace with `args` after `--http 127.0.0.1:0`,
    /// and reads the address and token from its first lines of stderr.
    fn start(s: &Session, args: &[&str]) -> Self {
        Self::start_with(s, args, None)
    }

    /// As [`Http::start`], with `AIRLOCK_MCP_TOKEN` set to `token` when given.
    fn start_with(s: &Session, args: &[&str], token: Option<&str>) -> Self {
        let mut command = s.bare_command();
        command.current_dir(&s.workspace).args(["mcp", "serve", "--http", "127.0.0.1:0"]).args(args);
        if let Some(token) = token {
            command.env("AIRLOCK_MCP_TOKEN", token);
        }
        command.stdout(Stdio::null()).stderr(Stdio::piped());
        let mut child = command.spawn().unwrap_or_else(|e| panic!("cannot start airlock mcp serve: {e}"));
        let stderr = child.stderr.take().unwrap_or_else(|| panic!("no stderr pipe"));
        let (lines, receive) = mpsc::channel();
        let reader = std::thread::spawn(move || {
            let mut rest = String::new();
            for line in BufReader::new(stderr).lines() {
                let Ok(line) = line else { break };
                rest.push_str(&line);
                rest.push('\n');
                let _ = lines.send(line);
            }
            rest
        });
        let (mut url, mut printed_token) = (None, None);
        let mut seen = String::new();
        while url.is_none() || (printed_token.is_none() && token.is_none()) {
            let Ok(line) = receive.recv_timeout(Duration::from_secs(60)) else {
                let _ = child.kill();
                panic!("airlock mcp serve printed no address and token; stderr so far:\n{seen}");
            };
            seen.push_str(&line);
            seen.push('\n');
            if let Some(rest) = line.strip_prefix("airlock mcp serve: token ") {
                printed_token = Some(rest.trim().to_owned());
            } else if let Some(rest) = line.strip_prefix("airlock mcp serve: ") {
                url = Some(rest.trim().to_owned());
            }
        }
        let url = url.unwrap_or_default();
        let addr = url.trim_start_matches("http://").trim_end_matches("/mcp").to_owned();
        let token = token.map(str::to_owned).or(printed_token).unwrap_or_default();
        Self { child, url, addr, token, _stderr: reader }
    }
}

impl Drop for Http {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// A client script started in the background, its stdout read line by line ([`Watching::next`]).
struct Watching {
    child: Child,
    lines: mpsc::Receiver<String>,
    _reader: std::thread::JoinHandle<()>,
}

impl Watching {
    fn start(mut command: Command) -> Self {
        command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::inherit());
        let mut child = command.spawn().unwrap_or_else(|e| panic!("cannot start the client: {e}"));
        let stdout: ChildStdout = child.stdout.take().unwrap_or_else(|| panic!("no stdout pipe"));
        let (send, lines) = mpsc::channel();
        let reader = std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let _ = send.send(line);
            }
        });
        Self { child, lines, _reader: reader }
    }

    /// The next JSON line the client prints, within `limit`.
    fn next(&mut self, limit: Duration) -> Value {
        let line = self.lines.recv_timeout(limit).unwrap_or_else(|_| {
            let _ = self.child.kill();
            panic!("the client printed nothing within {limit:?} (its stderr is above)")
        });
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("not JSON ({e}): {line}"))
    }
}

impl Drop for Watching {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
