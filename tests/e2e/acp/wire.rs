//! `airlock acp` spoken to as raw JSON-RPC lines: bad input gets an error and the
//! connection goes on; a client that leaves while a permission request waits has the call
//! refused, and airlock ends cleanly. stdout carries nothing but protocol lines.

use std::io::{BufRead, BufReader, Write};
use std::process::{ChildStdout, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use airlock_tests::{MockModel, Turn, Wire, call};
use serde_json::{Value, json};

use super::session;

/// A running `airlock acp` and the lines it writes.
struct Raw {
    child: std::process::Child,
    lines: mpsc::Receiver<String>,
}

impl Raw {
    fn start(s: &airlock_tests::Session, mock: &MockModel) -> Raw {
        let mut command = s.command(mock);
        command.arg("acp").stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::null());
        let mut child = command.spawn().unwrap_or_else(|e| panic!("spawn: {e}"));
        let stdout: ChildStdout = child.stdout.take().unwrap_or_else(|| panic!("no stdout"));
        let (send, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                if send.send(line).is_err() {
                    break;
                }
            }
        });
        Raw { child, lines }
    }

    fn send(&mut self, line: &str) {
        let stdin = self.child.stdin.as_mut().unwrap_or_else(|| panic!("stdin closed"));
        writeln!(stdin, "{line}").unwrap_or_else(|e| panic!("write: {e}"));
    }

    /// The next line the agent writes, as JSON (every line must be JSON).
    fn next(&self) -> Value {
        let line = self.lines.recv_timeout(Duration::from_secs(60)).unwrap_or_else(|e| panic!("no line: {e}"));
        serde_json::from_str(&line).unwrap_or_else(|e| panic!("stdout line is not JSON ({e}): {line}"))
    }

    /// The next line that answers request `id` (notifications before it skipped).
    fn answer(&self, id: u64) -> Value {
        loop {
            let line = self.next();
            if line["id"] == id && line.get("method").is_none() {
                return line;
            }
        }
    }
}

impl Drop for Raw {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn initialized(s: &airlock_tests::Session, mock: &MockModel) -> Raw {
    let mut raw = Raw::start(s, mock);
    raw.send(r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}"#);
    assert_eq!(raw.answer(1)["result"]["protocolVersion"], 1);
    raw
}

#[test]
fn bad_input_gets_an_error_and_the_connection_goes_on() {
    let s = session();
    let mock = MockModel::start(Wire::Gemini);
    let mut raw = initialized(&s, &mock);
    raw.send("{this is not json");
    let parse = raw.next();
    assert_eq!(parse["error"]["code"], -32700, "{parse}");
    raw.send(r#"{"jsonrpc":"2.0","id":2,"method":"session/teleport","params":{}}"#);
    assert_eq!(raw.answer(2)["error"]["code"], -32601);
    let outside =
        json!({ "jsonrpc": "2.0", "id": 3, "method": "session/new", "params": { "cwd": "/", "mcpServers": [] } });
    raw.send(&outside.to_string());
    let refused = raw.answer(3);
    assert_eq!(refused["error"]["code"], -32602, "{refused}");
    assert!(refused["error"]["message"].as_str().unwrap_or_default().contains("outside the workspace"), "{refused}");
    raw.send(r#"{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{"sessionId":"nope","prompt":[]}}"#);
    assert_eq!(raw.answer(4)["error"]["code"], -32602);
    let inside = json!({ "jsonrpc": "2.0", "id": 5, "method": "session/new",
        "params": { "cwd": s.workspace, "mcpServers": [] } });
    raw.send(&inside.to_string());
    let opened = raw.answer(5);
    assert!(opened["result"]["sessionId"].is_string(), "{opened}");
}

#[test]
fn a_client_that_leaves_while_asked_has_the_call_refused_and_airlock_ends_cleanly() {
    let s = session();
    s.write("notes.txt", "old notes\n");
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![call(
        "write_file",
        json!({ "file_path": "notes.txt", "content": "overwritten\n" }),
    )]));
    mock.push_turn(Turn::text("done"));
    let mut raw = initialized(&s, &mock);
    let new = json!({ "jsonrpc": "2.0", "id": 2, "method": "session/new",
        "params": { "cwd": s.workspace, "mcpServers": [] } });
    raw.send(&new.to_string());
    let id = raw.answer(2)["result"]["sessionId"].clone();
    let prompt = json!({ "jsonrpc": "2.0", "id": 3, "method": "session/prompt",
        "params": { "sessionId": id, "prompt": [{ "type": "text", "text": "overwrite the notes" }] } });
    raw.send(&prompt.to_string());
    loop {
        let line = raw.next();
        if line["method"] == "session/request_permission" {
            break;
        }
    }
    // The editor goes away without answering.
    drop(raw.child.stdin.take());
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    let status = loop {
        if let Some(status) = raw.child.try_wait().unwrap_or_else(|e| panic!("wait: {e}")) {
            break status;
        }
        assert!(std::time::Instant::now() < deadline, "airlock acp did not end after its client left");
        std::thread::sleep(Duration::from_millis(20));
    };
    assert_eq!(status.code(), Some(0));
    assert_eq!(s.read("notes.txt").as_deref(), Some("old notes\n"));
}
