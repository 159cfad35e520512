//! An MCP server as a tool source, through the real binary: configured in `config.toml`,
//! started in the background under its grant, its tool offered from the next request once
//! ready, called, answered — and a read outside its grant refused by the OS. The server is a
//! small MCP server in Python over stdio (no SDK needed); the fixture servers on the
//! official SDK and the published filesystem server are the client-e2e tests'.

use airlock_tests::{MockModel, Turn, Wire, call, declared_tools, function_responses};
use serde_json::json;

use crate::session;

const SERVER: &str = r#"
import json, sys
def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()
def result(id, text, error=False):
    send({"jsonrpc": "2.0", "id": id, "result": {"content": [{"type": "text", "text": text}], "isError": error}})
obj = {"type": "object", "properties": {"text": {"type": "string"}, "path": {"type": "string"}}}
for line in sys.stdin:
    message = json.loads(line)
    id, method = message.get("id"), message.get("method")
    if method == "initialize":
        send({"jsonrpc": "2.0", "id": id, "result": {"protocolVersion": message["params"]["protocolVersion"],
              "capabilities": {"tools": {}}, "serverInfo": {"name": "fixture", "version": "1"}}})
    elif method == "tools/list":
        send({"jsonrpc": "2.0", "id": id, "result": {"tools": [
            {"name": "shout", "description": "Shouts its text.", "inputSchema": obj},
            {"name": "read", "description": "Reads a file.", "inputSchema": obj}]}})
    elif method == "tools/call":
        name, args = message["params"]["name"], message["params"].get("arguments", {})
        if name == "shout":
            result(id, args.get("text", "").upper())
        else:
            try:
                result(id, open(args["path"]).read())
            except OSError as error:
                result(id, "cannot read: " + str(error), True)
    elif id is not None:
        send({"jsonrpc": "2.0", "id": id, "error": {"code": -32601, "message": "no such method"}})
"#;

#[test]
fn an_mcp_servers_tool_is_offered_called_and_answered_and_its_grant_holds() {
    let s = session();
    s.write("server.py", SERVER);
    std::fs::create_dir_all(s.airlock_home()).unwrap();
    std::fs::write(
        s.airlock_home().join("config.toml"),
        "[mcp_servers.fx]\ncommand = \"python3\"\nargs = [\"server.py\"]\n",
    )
    .unwrap();
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().canonicalize().unwrap().join("secret.txt");
    std::fs::write(&secret, "the secret").unwrap();
    let mock = MockModel::start(Wire::OpenAi);
    // The first turn gives the server time to start; its tools come with the next request.
    mock.push_turn(Turn::calls(vec![call("run_shell_command", json!({"command": "sleep 2"}))]));
    mock.push_turn(Turn::calls(vec![
        call("fx__shout", json!({"text": "hi"})),
        call("fx__read", json!({"path": secret.to_string_lossy()})),
    ]));
    mock.push_turn(Turn::text("Done."));
    let done = s.airlock(&mock, &["-p", "use the server", "--approval-mode", "yolo", "-o", "stream-json"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let requests = mock.requests();
    assert!(declared_tools(&requests[1]).contains(&"fx__shout".to_owned()), "{:?}", declared_tools(&requests[1]));
    let answers = function_responses(&requests[2]);
    assert_eq!(answers[0].1, "HI", "{answers:?}");
    assert!(answers[1].1.contains("Permission denied"), "not the OS refusal: {answers:?}");
    assert!(!answers[1].1.contains("the secret"), "{answers:?}");
    let marker = "MCP server fx (sandboxed: reads the workspace; writes nothing; no network; no variables)";
    assert!(done.stdout.contains(marker), "{}", done.stdout);
    // The audit trail records the server's calls: its name, its sandbox, who approved.
    let shown = crate::run_args(&s, &["audit", "show", "--json"]);
    let records: Vec<serde_json::Value> = serde_json::from_str(&shown.stdout).unwrap();
    let shout = records.iter().find(|r| r["tool"] == "fx__shout").unwrap_or_else(|| panic!("{}", shown.stdout));
    assert_eq!(
        (&shout["plugin"], &shout["approval"]["by"], &shout["approval"]["mode"]),
        (&json!("mcp:fx"), &json!("mode"), &json!("yolo"))
    );
    let workspace = format!("ro {}", s.workspace.display());
    assert_eq!(shout["grant"]["files"], json!([workspace]), "{shout}");
}
