//! A streamable-HTTP MCP server as a tool source, through the real binary: a small MCP
//! server in Python's standard library on 127.0.0.1 that answers only its bearer token and
//! only with the configured header. Its tool is offered, called and marked remote; a server
//! whose token is refused and one whose token variable is not set are each reported once,
//! and the session goes on.

use std::io::{BufRead, BufReader};
use std::process::{Child, Command, Stdio};

use airlock_tests::{MockModel, Turn, Wire, call, declared_tools, function_responses};
use serde_json::json;

use crate::session;

const SERVER: &str = r#"
import json, sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
TOKEN = sys.argv[1]
obj = {"type": "object", "properties": {"text": {"type": "string"}}}
class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass
    def reply(self, status, body=None):
        data = json.dumps(body).encode() if body is not None else b""
        self.send_response(status)
        if body is not None:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
    def do_GET(self):
        self.reply(405)
    def do_DELETE(self):
        self.reply(405)
    def do_POST(self):
        message = json.loads(self.rfile.read(int(self.headers.get("Content-Length", "0"))))
        if self.headers.get("Authorization") != "Bearer " + TOKEN:
            return self.reply(401)
        if self.headers.get("X-Team") != "infra":
            return self.reply(400)
        id, method = message.get("id"), message.get("method")
        if id is None:
            return self.reply(202)
        if method == "initialize":
            result = {"protocolVersion": message["params"]["protocolVersion"], "capabilities": {"tools": {}},
                      "serverInfo": {"name": "remote", "version": "1"}}
        elif method == "tools/list":
            result = {"tools": [{"name": "shout", "description": "Shouts its text.", "inputSchema": obj}]}
        elif method == "tools/call":
            text = message["params"].get("arguments", {}).get("text", "")
            result = {"content": [{"type": "text", "text": text.upper()}], "isError": False}
        else:
            return self.reply(200, {"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "no"}})
        self.reply(200, {"jsonrpc": "2.0", "id": id, "result": result})
server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
"#;

/// The server's process, killed when the test ends.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn an_http_servers_tool_is_called_and_bad_tokens_are_each_reported_once() {
    let s = session();
    s.write("server.py", SERVER);
    let mut child = Command::new("python3")
        .arg(s.workspace.join("server.py"))
        .arg("the-token")
        .stdout(Stdio::piped())
        .stdin(Stdio::null())
        .spawn()
        .expect("python3");
    let mut port = String::new();
    BufReader::new(child.stdout.take().unwrap()).read_line(&mut port).unwrap();
    let _server = Server(child);
    let url = format!("http://127.0.0.1:{}/mcp", port.trim());
    std::fs::create_dir_all(s.airlock_home()).unwrap();
    let table = |name: &str, var: &str| {
        format!(
            "[mcp_servers.{name}]\nurl = \"{url}\"\nheaders = {{ \"X-Team\" = \"infra\" }}\nbearer_token_env = \"{var}\"\n"
        )
    };
    let config = [table("rx", "RX_TOKEN"), table("wrong", "WRONG_TOKEN"), table("unset", "UNSET_TOKEN")].join("\n");
    std::fs::write(s.airlock_home().join("config.toml"), config).unwrap();
    let mock = MockModel::start(Wire::OpenAi);
    // The first turn gives the servers time to start; their tools come with the next request.
    mock.push_turn(Turn::calls(vec![call("run_shell_command", json!({"command": "sleep 2"}))]));
    mock.push_turn(Turn::calls(vec![call("rx__shout", json!({"text": "hi"}))]));
    mock.push_turn(Turn::text("Done."));
    let mut command = s.command(&mock);
    command.env("RX_TOKEN", "the-token").env("WRONG_TOKEN", "not-the-token");
    command.args(["-p", "use the server", "--approval-mode", "yolo", "-o", "stream-json"]);
    let done = airlock_tests::Session::run(command);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let requests = mock.requests();
    let declared = declared_tools(&requests[1]);
    assert!(declared.contains(&"rx__shout".to_owned()), "{declared:?}");
    assert!(!declared.iter().any(|t| t.starts_with("wrong__") || t.starts_with("unset__")), "{declared:?}");
    assert_eq!(function_responses(&requests[2])[0].1, "HI");
    let marker = format!("MCP server rx (remote: http://127.0.0.1:{})", port.trim());
    assert!(done.stdout.contains(&marker), "{}", done.stdout);
    let all = format!("{}{}", done.stdout, done.stderr);
    assert_eq!(all.matches("MCP server wrong did not start").count(), 1, "{all}");
    assert!(all.contains("HTTP 401"), "{all}");
    assert_eq!(all.matches("its token variable UNSET_TOKEN").count(), 1, "{all}");
    assert!(!all.contains("the-token"), "a token was printed: {all}");
}
