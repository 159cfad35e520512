//! What a client sees of the tools: every built-in with its schema, description and the
//! annotations its kind gives, over stdio and HTTP; a `read_file` call; and the three protocol
//! versions the server speaks, each negotiated by the SDK.

use serde_json::{Value, json};

use super::{Http, Server, client, run_steps, text};
use crate::session;

/// The built-in tools a served session offers: all of them but `web_search`, which is not
/// offered until a search API is configured (as in the agent).
const BUILT_INS: &[&str] = &[
    "glob",
    "grep_search",
    "list_directory",
    "read_file",
    "read_many_files",
    "replace",
    "run_shell_command",
    "save_memory",
    "web_fetch",
    "write_file",
    "write_todos",
];

/// Checks a `list` answer: the built-ins, `read_file`'s schema and description, and the
/// annotations of a read, an edit, an execute and a fetch tool.
fn check_listing(listed: &Value) {
    assert!(listed.get("error").is_none(), "{listed}");
    let tools = listed["tools"].as_array().cloned().unwrap_or_default();
    let tool = |name: &str| {
        tools.iter().find(|t| t["name"] == name).cloned().unwrap_or_else(|| panic!("no tool {name} in {listed}"))
    };
    for name in BUILT_INS {
        tool(name);
    }
    assert!(tools.iter().all(|t| t["name"] != "web_search"), "web_search offered unconfigured: {listed}");
    let read = tool("read_file");
    assert_eq!(read["input_schema"]["type"], "object", "{read}");
    assert!(read["input_schema"]["properties"]["file_path"].is_object(), "{read}");
    assert!(read["input_schema"]["required"].as_array().is_some_and(|r| r.contains(&json!("file_path"))), "{read}");
    assert!(read["description"].as_str().is_some_and(|d| d.contains("Reads a file")), "{read}");
    assert_eq!(read["annotations"]["readOnlyHint"], true, "{read}");
    for edit in ["write_file", "replace"] {
        let edit = tool(edit);
        assert_eq!(edit["annotations"]["destructiveHint"], true, "{edit}");
        assert_ne!(edit["annotations"]["readOnlyHint"], true, "{edit}");
    }
    let shell = tool("run_shell_command");
    assert_eq!(
        (&shell["annotations"]["destructiveHint"], &shell["annotations"]["openWorldHint"]),
        (&json!(true), &json!(true)),
        "{shell}"
    );
    assert_eq!(tool("web_fetch")["annotations"]["openWorldHint"], true);
}

#[test]
fn a_stdio_client_lists_every_tool_with_its_schema_and_annotations() {
    let s = session();
    check_listing(&client(&s, &Server::Stdio(&[]), "legacy", &["list"]));
}

#[test]
fn an_http_client_lists_every_tool_with_its_schema_and_annotations() {
    let s = session();
    let http = Http::start(&s, &[]);
    check_listing(&client(&s, &Server::Http(&http, &http.token), "legacy", &["list"]));
}

#[test]
fn read_file_is_called_over_stdio_and_http() {
    let s = session();
    s.write("notes/plan.md", "step one\nstep two\n");
    let read = || vec![("a", "read_file", json!({ "file_path": "notes/plan.md" }))];
    let stdio = run_steps(&s, &Server::Stdio(&[]), &[("a", "none")], &read());
    let http = Http::start(&s, &[]);
    let over_http = run_steps(&s, &Server::Http(&http, &http.token), &[("a", "none")], &read());
    for result in [&stdio[0], &over_http[0]] {
        assert_eq!(result["is_error"], false, "{result}");
        assert!(text(result).contains("step one\nstep two"), "{result}");
        assert_eq!(result["elicitations"], json!([]), "a read asks nobody: {result}");
    }
}

#[test]
fn a_file_outside_the_workspace_is_refused_as_in_the_agent() {
    let s = session();
    let outside = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let secret = outside.path().join("secret.txt");
    std::fs::write(&secret, "do not show").unwrap_or_else(|e| panic!("{e}"));
    let results = run_steps(
        &s,
        &Server::Stdio(&["--approval-mode", "yolo"]),
        &[("a", "none")],
        &[("a", "read_file", json!({ "file_path": secret.display().to_string() }))],
    );
    assert_eq!(results[0]["is_error"], true, "{}", results[0]);
    assert!(!results[0].to_string().contains("do not show"), "{}", results[0]);
}

#[test]
fn the_three_protocol_versions_are_negotiated_over_stdio() {
    let s = session();
    s.write("a.txt", "versioned\n");
    let stdio = Server::Stdio(&[]);
    // The SDK's handshake offers 2025-11-25; an older client is that offer made 2025-06-18.
    let old = client(&s, &stdio, "legacy", &["--handshake-version", "2025-06-18", "list"]);
    assert_eq!(old["protocol"], "2025-06-18", "{old}");
    let current = client(&s, &stdio, "legacy", &["list"]);
    assert_eq!(current["protocol"], "2025-11-25", "{current}");
    // `auto` probes `server/discover` first and takes 2026-07-28 when the server answers it.
    let auto = client(&s, &stdio, "auto", &["list"]);
    assert_eq!(auto["protocol"], "2026-07-28", "{auto}");
    let pinned = client(&s, &stdio, "2026-07-28", &["list"]);
    assert_eq!(pinned["protocol"], "2026-07-28", "{pinned}");
    check_listing(&pinned);
    let call = json!({ "clients": { "a": { "elicit": "none" } },
        "steps": [{ "client": "a", "tool": "read_file", "args": { "file_path": "a.txt" } }] });
    let read = client(&s, &stdio, "2026-07-28", &["run", &call.to_string()]);
    assert_eq!(read["protocols"]["a"], "2026-07-28", "{read}");
    assert!(text(&read["results"][0]).contains("versioned"), "{read}");
}

#[test]
fn the_three_protocol_versions_are_negotiated_over_http() {
    let s = session();
    let http = Http::start(&s, &[]);
    let server = Server::Http(&http, &http.token);
    let old = client(&s, &server, "legacy", &["--handshake-version", "2025-06-18", "list"]);
    assert_eq!(old["protocol"], "2025-06-18", "{old}");
    let current = client(&s, &server, "legacy", &["list"]);
    assert_eq!(current["protocol"], "2025-11-25", "{current}");
    let pinned = client(&s, &server, "2026-07-28", &["list"]);
    assert_eq!(pinned["protocol"], "2026-07-28", "{pinned}");
    check_listing(&pinned);
}

#[test]
fn plan_mode_offers_a_client_the_read_only_tools_only() {
    let s = session();
    let listed = client(&s, &Server::Stdio(&["--approval-mode", "plan"]), "legacy", &["list"]);
    let names: Vec<&str> =
        listed["tools"].as_array().into_iter().flatten().filter_map(|t| t["name"].as_str()).collect();
    assert!(names.contains(&"read_file") && names.contains(&"grep_search"), "{listed}");
    for hidden in ["write_file", "replace", "run_shell_command", "save_memory"] {
        assert!(!names.contains(&hidden), "plan mode offered {hidden}: {listed}");
    }
}
