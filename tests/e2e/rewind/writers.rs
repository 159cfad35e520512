//! Writes of tools airlock does not ship, undone: a third-party plugin's in its granted
//! folder, and a configured MCP server's in its `write` folder. What lies outside their
//! grants is never touched, by the call or by the rewind.

use airlock_tests::{MockModel, Turn, Wire, call, fixtures};
use serde_json::{Value, json};

use super::{prompt, rewind};
use crate::mcp_client::{configure, python_grant, python_server, warm_up};
use crate::{session, write_policy};

#[test]
fn a_plugins_write_in_its_granted_folder_is_undone() {
    let s = session();
    s.install_plugin(fixtures::SCHED_PROBE);
    write_policy(&s, "[grants.sched_probe]\nfiles = [\".:read-write\"]\n");
    s.write("notes/log.txt", "first\n");
    s.write("other.txt", "other\n");
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![
        call("append", json!({"path": "notes/log.txt", "text": "second\n"})).with_id("c_plugin"),
    ]));
    mock.push_turn(Turn::text("appended"));
    prompt(&s, &mock, "append a line", false);
    assert_eq!(s.read("notes/log.txt").as_deref(), Some("first\nsecond\n"));
    // The user changes an unrelated file afterwards: no rewind touches it.
    s.write("other.txt", "the user's\n");

    let by_call = rewind(&s, &["--call", "c_plugin", "-o", "json"]);
    assert_eq!(by_call.code, Some(0), "{}", by_call.stderr);
    let done: Value = serde_json::from_str(&by_call.stdout).unwrap();
    assert_eq!(done["files"], json!([{"path": "notes/log.txt", "change": "modified", "added": 0, "removed": 1}]));
    assert_eq!(s.read("notes/log.txt").as_deref(), Some("first\n"));
    assert_eq!(rewind(&s, &["--undo"]).code, Some(0));
    assert_eq!(s.read("notes/log.txt").as_deref(), Some("first\nsecond\n"));

    let by_prompt = rewind(&s, &["--to", "1", "--code"]);
    assert_eq!(by_prompt.code, Some(0), "{}{}", by_prompt.stdout, by_prompt.stderr);
    assert_eq!(s.read("notes/log.txt").as_deref(), Some("first\n"));
    assert_eq!(s.read("other.txt").as_deref(), Some("the user's\n"));
}

#[test]
fn an_mcp_servers_write_in_its_write_folder_is_undone() {
    let s = session();
    configure(&s, &python_server("notes", "normal.py", &[], ""));
    write_policy(&s, &python_grant("notes", "write = [\"out\"]"));
    std::fs::create_dir_all(s.workspace.join("out")).unwrap();
    s.write("out/kept.txt", "kept\n");
    s.write("beside.txt", "beside\n");
    let mock = MockModel::start(Wire::OpenAi);
    warm_up(&mock);
    let args = json!({"folder": s.workspace.join("out"), "name": "a.txt", "text": "written"});
    mock.push_turn(Turn::calls(vec![call("notes__write_note", args).with_id("c_mcp")]));
    mock.push_turn(Turn::text("done"));
    prompt(&s, &mock, "write a note", false);
    assert_eq!(s.read("out/a.txt").as_deref(), Some("written"));

    let by_call = rewind(&s, &["--call", "c_mcp"]);
    assert_eq!(by_call.code, Some(0), "{}{}", by_call.stdout, by_call.stderr);
    assert!(by_call.stdout.contains("restored 1 file"), "{}", by_call.stdout);
    assert_eq!(s.read("out/a.txt"), None);
    assert_eq!(s.read("out/kept.txt").as_deref(), Some("kept\n"));
    assert_eq!(s.read("beside.txt").as_deref(), Some("beside\n"));
    assert_eq!(rewind(&s, &["--undo"]).code, Some(0));
    assert_eq!(s.read("out/a.txt").as_deref(), Some("written"));

    let by_prompt = rewind(&s, &["--to", "1", "--both"]);
    assert_eq!(by_prompt.code, Some(0), "{}{}", by_prompt.stdout, by_prompt.stderr);
    assert_eq!(s.read("out/a.txt"), None);
    assert_eq!(s.read("out/kept.txt").as_deref(), Some("kept\n"));
    assert_eq!(s.read("beside.txt").as_deref(), Some("beside\n"));
}
