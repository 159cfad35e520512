//! An MCP server's tools called by the scripted model through the real binary: listed with
//! the server and its grant, each call exec-class for approvals (headless `default` refuses,
//! `yolo` or a rule allows) and marked `MCP server NAME (sandboxed: …)`; every kind of
//! result reaches the model; and what a server may touch is the OS sandbox's decision — the
//! Python fixture and the published `@modelcontextprotocol/server-filesystem` both get an
//! OS refusal, not the file, outside their grant.
// Set-up helpers unwrap: a failed set-up step should fail the test loudly.
#![allow(clippy::unwrap_used)]

use serde_json::{Value, json};

use super::{WARM_RULE, configure, python_grant, python_server, toml_list, toml_string, warm_up};
use crate::{session, write_policy};
use airlock_tests::{Finished, MockModel, Session, Turn, Wire, call, declared_tools, function_responses};

/// A session with the normal fixture as server `notes`, granted the toolchain and `extra`.
fn notes_session(extra_grant: &str) -> Session {
    let s = session();
    configure(&s, &python_server("notes", "normal.py", &[], ""));
    write_policy(&s, &python_grant("notes", extra_grant));
    s
}

/// One prompt in which the model, once the servers are up ([`warm_up`]), calls `tool` with
/// `args`, then answers; the run, what the tool told the model, and the requests.
fn call_once(s: &Session, tool: &str, args: Value, flags: &[&str]) -> (Finished, String, Vec<Value>) {
    let mock = MockModel::start(Wire::OpenAi);
    warm_up(&mock);
    mock.push_turn(Turn::calls(vec![call(tool, args)]));
    mock.push_turn(Turn::text("done"));
    let mut all = vec!["-p", "go"];
    all.extend_from_slice(flags);
    let done = s.airlock(&mock, &all);
    let requests = mock.requests();
    let sent = requests.get(2).map(function_responses).unwrap_or_default();
    let answer = sent.first().map(|(_, content)| content.clone()).unwrap_or_default();
    (done, answer, requests)
}

/// The stream-json events of a run, parsed.
fn events(done: &Finished) -> Vec<Value> {
    done.stdout.lines().filter_map(|l| serde_json::from_str(l).ok()).collect()
}

#[test]
fn tools_list_shows_each_tool_with_its_server_and_grant() {
    let s = notes_session("");
    let listed = crate::run_args(&s, &["tools", "list"]);
    assert_eq!(listed.code, Some(0), "{}", listed.stderr);
    let lines: Vec<&str> = listed.stdout.lines().collect();
    let at = lines
        .iter()
        .position(|l| l.starts_with("notes__echo (execute)"))
        .unwrap_or_else(|| panic!("{}", listed.stdout));
    assert!(lines[at + 1].contains("MCP server notes (sandboxed: reads the workspace"), "{}", lines[at + 1]);
    assert_eq!(lines[at + 2], "  Echo `text` back.");
    let json: Value = serde_json::from_str(&crate::run_args(&s, &["tools", "list", "--json"]).stdout).unwrap();
    let mcp: Vec<&str> = json["mcp_tools"].as_array().unwrap().iter().filter_map(|t| t["name"].as_str()).collect();
    assert!(mcp.contains(&"notes__read_note"), "{mcp:?}");
    let echo = json["mcp_tools"].as_array().unwrap().iter().find(|t| t["name"] == "notes__echo").unwrap();
    assert_eq!(echo["server"], "notes");
    assert_eq!(echo["tool"], "echo");
    assert!(echo["marker"].as_str().unwrap().starts_with("MCP server notes (sandboxed: "), "{echo}");
}

#[test]
fn a_call_is_refused_headless_by_default_and_runs_under_yolo_or_a_rule() {
    let s = notes_session("");
    let (done, refused, requests) = call_once(&s, "notes__echo", json!({"text": "hello"}), &["-o", "stream-json"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert!(declared_tools(&requests[1]).contains(&"notes__echo".to_string()), "not offered once started");
    assert!(refused.starts_with("Error"), "a default headless run ran it: {refused}");
    assert!(!refused.contains("hello\n") && refused != "hello", "{refused}");
    let marked = events(&done).into_iter().any(|e| e.to_string().contains("MCP server notes (sandboxed: "));
    assert!(marked, "no stream-json event marks the server: {}", done.stdout);

    let (done, ran, _) = call_once(&s, "notes__echo", json!({"text": "hello"}), &["--approval-mode", "yolo"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert_eq!(ran, "hello");

    write_policy(
        &s,
        &python_grant("notes", "").replace(
            "[mcp_servers.notes]",
            "[[rule]]\ntool = \"notes__echo\"\ndecision = \"allow\"\n\n[mcp_servers.notes]",
        ),
    );
    let (done, ruled, _) = call_once(&s, "notes__echo", json!({"text": "by rule"}), &[]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert_eq!(ruled, "by rule");

    // One rule for every tool of the server.
    let rule = "[[rule]]\ntool = \"notes__*\"\ndecision = \"allow\"\n";
    write_policy(&s, &format!("{}\n{rule}", python_grant("notes", "")));
    let (done, globbed, _) = call_once(&s, "notes__echo", json!({"text": "by the server's rule"}), &[]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert_eq!(globbed, "by the server's rule");
}

#[test]
fn the_confirmation_names_the_server_and_its_grant() {
    let s = notes_session("");
    let mock = MockModel::start(Wire::OpenAi);
    warm_up(&mock);
    mock.push_turn(Turn::calls(vec![call("notes__echo", json!({"text": "asked"}))]));
    mock.push_turn(Turn::text("done"));
    let mut command = s.command(&mock);
    command.args(["-p", "go", "--ask"]);
    let done = airlock_tests::run_bounded(command, Some("y\n"), std::time::Duration::from_secs(60));
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert!(done.stderr.contains("MCP server notes (sandboxed: reads the workspace"), "{}", done.stderr);
    assert_eq!(function_responses(&mock.requests()[2])[0].1, "asked");
}

#[test]
fn every_kind_of_result_reaches_the_model() {
    let s = notes_session("");
    s.write("note.txt", "the note's text");
    let yolo = ["--approval-mode", "yolo"];
    let (_, read, _) = call_once(&s, "notes__read_note", json!({"name": "note.txt"}), &yolo);
    assert_eq!(read, "the note's text");
    let (_, resource, _) = call_once(&s, "notes__resource", json!({}), &yolo);
    assert!(resource.contains("the resource's text"), "{resource}");
    let (_, failed, _) = call_once(&s, "notes__fail", json!({"reason": "on purpose"}), &yolo);
    assert!(failed.starts_with("Error") && failed.contains("failed: on purpose"), "{failed}");
    let (done, image, requests) = call_once(&s, "notes__image", json!({}), &yolo);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert!(image.contains("image/png"), "the result names its image: {image}");
    // The image itself reaches the model: on this wire, an image part after the tool result.
    let sent = airlock_tests::images::sent_media(&requests[2]);
    assert_eq!(sent.len(), 1, "the image was lost: {sent:?}");
    assert_eq!((sent[0].mime_type.as_str(), sent[0].kind.as_str()), ("image/png", "image_url"));
    assert_eq!(airlock_tests::images::dimensions(&sent[0].data), (1, 1));
    let (done, slow, _) = call_once(&s, "notes__slow_count", json!({"steps": 3, "delay_ms": 50}), &yolo);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert_eq!(slow, "counted to 3");
}

#[test]
fn a_server_writes_nothing_until_granted_and_then_only_there() {
    let s = notes_session("");
    std::fs::create_dir_all(s.workspace.join("out")).unwrap();
    let yolo = ["--approval-mode", "yolo"];
    let args = json!({"folder": s.workspace.join("out"), "name": "a.txt", "text": "written"});
    let (_, refused, _) = call_once(&s, "notes__write_note", args.clone(), &yolo);
    assert!(refused.contains("cannot write"), "{refused}");
    assert!(s.read("out/a.txt").is_none(), "the server wrote without a grant");

    write_policy(&s, &python_grant("notes", "write = [\"out\"]"));
    let (_, wrote, _) = call_once(&s, "notes__write_note", args, &yolo);
    assert!(wrote.starts_with("wrote 7 bytes"), "{wrote}");
    assert_eq!(s.read("out/a.txt").as_deref(), Some("written"));
    let beside = json!({"folder": s.workspace, "name": "b.txt", "text": "x"});
    let (_, outside, _) = call_once(&s, "notes__write_note", beside, &yolo);
    assert!(outside.contains("cannot write"), "{outside}");
    assert!(s.read("b.txt").is_none());
}

#[test]
fn a_server_gets_an_os_refusal_outside_what_it_may_read() {
    let s = notes_session("");
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("secret.txt");
    std::fs::write(&secret, "TOP SECRET").unwrap();
    let home_secret = s.airlock_home().parent().unwrap().join("home-secret.txt");
    std::fs::write(&home_secret, "HOME SECRET").unwrap();
    for path in [&secret, &home_secret] {
        let (done, peeked, _) = call_once(&s, "notes__peek", json!({"path": path}), &["--approval-mode", "yolo"]);
        assert_eq!(done.code, Some(0), "{}", done.stderr);
        assert!(peeked.starts_with("refused: "), "{}: {peeked}", path.display());
        assert!(!peeked.contains("SECRET"), "{peeked}");
    }
    // Granted, the same read goes through: the refusal was the grant's.
    let folder = outside.path().canonicalize().unwrap().display().to_string();
    write_policy(&s, &python_grant("notes", "").replace("read = [", &format!("read = [{}, ", toml_string(&folder))));
    let (_, granted, _) = call_once(&s, "notes__peek", json!({"path": secret}), &["--approval-mode", "yolo"]);
    assert_eq!(granted, "read: TOP SECRET");
}

#[test]
fn server_filesystem_granted_one_folder_gets_an_os_refusal_for_a_file_outside_it() {
    let s = session();
    let toolchain = airlock_tests::mcp::toolchain();
    let program = toolchain.server_filesystem.display().to_string();
    let node_modules = toolchain.server_filesystem.parent().and_then(|p| p.parent()).unwrap();
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().canonicalize().unwrap().join("secret.txt");
    std::fs::write(&secret, "TOP SECRET").unwrap();
    s.write("inside.txt", "inside text");
    // The server's own argument allows the whole file system: its own path checks pass, and
    // what stops it is airlock's grant (the workspace only) enforced by the OS.
    configure(
        &s,
        &format!("[mcp_servers.fs]\ncommand = {}\nargs = {}\n", toml_string(&program), toml_list(&["/".into()])),
    );
    let folders = vec![node_modules.canonicalize().unwrap().display().to_string()];
    // Approved the way a user approves a server's tool for good: a rule naming it (the
    // default approval mode refuses any other call headless).
    let rule = "[[rule]]\ntool = \"fs__read_text_file\"\ndecision = \"allow\"\n";
    write_policy(&s, &format!("[mcp_servers.fs]\nread = {}\n\n{WARM_RULE}\n{rule}", toml_list(&folders)));

    let (done, inside, _) = call_once(&s, "fs__read_text_file", json!({"path": s.workspace.join("inside.txt")}), &[]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert_eq!(inside, "inside text", "{}", done.stderr);
    let (_, refused, _) = call_once(&s, "fs__read_text_file", json!({"path": secret}), &[]);
    assert!(refused.starts_with("Error"), "{refused}");
    assert!(!refused.contains("TOP SECRET"), "{refused}");
    assert!(
        refused.contains("EACCES") || refused.contains("ENOENT") || refused.contains("permission denied"),
        "not the OS's refusal: {refused}"
    );
    assert!(!refused.contains("outside allowed directories"), "the server's own check refused it: {refused}");
}

#[test]
fn a_server_reaches_the_network_only_when_granted() {
    let s = notes_session("");
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let yolo = ["--approval-mode", "yolo"];
    let (done, refused, _) = call_once(&s, "notes__connect", json!({"port": port}), &yolo);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert!(refused.starts_with("refused: "), "it reached a local server without the network: {refused}");

    write_policy(&s, &python_grant("notes", "network = true"));
    let (_, connected, _) = call_once(&s, "notes__connect", json!({"port": port}), &yolo);
    assert_eq!(connected, "connected");
}

#[test]
fn a_server_sees_a_variable_only_when_it_asks_for_it_and_it_is_granted() {
    let s = session();
    configure(&s, &python_server("notes", "normal.py", &[], "env = [\"NOTES_TOKEN\"]"));
    write_policy(&s, &python_grant("notes", ""));
    let see = |s: &Session, name: &str| {
        let mock = MockModel::start(Wire::OpenAi);
        warm_up(&mock);
        mock.push_turn(Turn::calls(vec![call("notes__env_var", json!({"name": name}))]));
        mock.push_turn(Turn::text("done"));
        let mut command = s.command(&mock);
        command.args(["-p", "go", "--approval-mode", "yolo"]);
        command.env("NOTES_TOKEN", "notes-secret").env("OPENAI_API_KEY", "sk-airlocks-own").env("OTHER", "x");
        let done = Session::run(command);
        assert_eq!(done.code, Some(0), "{}", done.stderr);
        function_responses(&mock.requests()[2])[0].1.clone()
    };
    assert_eq!(see(&s, "NOTES_TOKEN"), "unset", "requested but not granted");
    write_policy(&s, &python_grant("notes", "env = [\"NOTES_TOKEN\", \"OTHER\"]"));
    assert_eq!(see(&s, "NOTES_TOKEN"), "set: notes-secret");
    assert_eq!(see(&s, "OTHER"), "unset", "granted but not requested");
    assert_eq!(see(&s, "OPENAI_API_KEY"), "unset", "airlock's own key reached a server");
}
