//! Servers that go wrong, through the real binary: one that crashes at start, one that never
//! answers, ones that flood (a giant tool list, huge descriptions, endless output), and one
//! whose self-description is hostile. Each is reported once, the session goes on, the other
//! tools still work, and nothing the servers wrote reaches the terminal raw. Their process
//! groups end with airlock; `include_tools`/`exclude_tools` choose the tools offered; a name
//! two servers would both offer is skipped.
// Set-up helpers unwrap: a failed set-up step should fail the test loudly.
#![allow(clippy::unwrap_used)]

use std::time::{Duration, Instant};

use serde_json::json;

use super::{configure, list_json, processes_with, python_grant, python_server, unique_tag, warm_up, warm_up_for};
use crate::{session, write_policy};
use airlock_tests::{MockModel, Session, Turn, Wire, call, declared_tools, function_responses};

/// Servers `names` (each a fixture `script` with `args`), all granted the toolchain.
fn configure_servers(s: &Session, servers: &[(&str, &str, &[&str], &str)]) {
    let mut config = String::new();
    let mut policy = String::new();
    for (name, script, args, extra) in servers {
        config.push_str(&python_server(name, script, args, extra));
        policy.push_str(&python_grant(name, ""));
    }
    configure(s, &config);
    write_policy(s, &policy);
}

#[test]
fn crashing_hanging_and_flooding_servers_are_each_reported_once_and_the_session_goes_on() {
    let s = session();
    s.write("notes.txt", "the notes");
    let hang = ["--hang"];
    configure_servers(
        &s,
        &[
            ("crash", "crash.py", &[], ""),
            ("hang", "hang.py", &hang, "startup_timeout_sec = 2"),
            ("many", "flood.py", &["tools"], ""),
            ("wordy", "flood.py", &["descriptions"], ""),
            ("endless", "flood.py", &["output"], "startup_timeout_sec = 5"),
            ("notes", "normal.py", &[], ""),
        ],
    );
    let mock = MockModel::start(Wire::OpenAi);
    // Six Python servers starting at once on a small machine, two of them building lists of
    // megabytes: the others need longer than one server alone.
    warm_up_for(&mock, 12);
    // The slow call keeps the session open past the hung server's start-up timeout.
    mock.push_turn(Turn::calls(vec![
        call("read_file", json!({"file_path": "notes.txt"})),
        call("notes__slow_count", json!({"steps": 4, "delay_ms": 1000})),
    ]));
    mock.push_turn(Turn::calls(vec![call("notes__echo", json!({"text": "still here"}))]));
    mock.push_turn(Turn::text("done"));
    let started = Instant::now();
    let done = s.airlock(&mock, &["-p", "go", "--approval-mode", "yolo"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert!(started.elapsed() < Duration::from_secs(60), "the session waited on a broken server");

    let requests = mock.requests();
    assert_eq!(
        function_responses(&requests[2]),
        [
            ("read_file".to_string(), "the notes".to_string()),
            ("notes__slow_count".to_string(), "counted to 4".to_string())
        ],
        "{}",
        done.stderr
    );
    assert_eq!(function_responses(&requests[3])[0].1, "still here");
    // The ones that never started are warned about once each and offer nothing.
    let declared = declared_tools(&requests[3]);
    let warnings = |server: &str| {
        let prefix = format!("warning: MCP server {server}");
        done.stderr.lines().filter(|l| l.starts_with(&prefix)).count()
    };
    for server in ["crash", "hang", "endless"] {
        assert_eq!(warnings(server), 1, "{server} was not warned about once:\n{}", done.stderr);
        assert!(!declared.iter().any(|t| t.starts_with(&format!("{server}__"))), "{declared:?}");
    }
    // The floods of tools and descriptions are cut to what a request can carry, and said
    // at most once.
    for server in ["many", "wordy"] {
        let said = done
            .stderr
            .lines()
            .filter(|l| l.starts_with("warning:") && l.contains(&format!("MCP server {server}")))
            .count();
        assert!(said <= 1, "{server} was warned about {said} times");
    }
    let request_bytes = requests[3].to_string().len();
    assert!(request_bytes < 4 << 20, "the floods reached the model: a request of {request_bytes} bytes");
    assert!(done.stderr.contains("database is missing"), "the crash's reason is not said: {}", done.stderr);
    assert!(done.stderr.len() < 64 * 1024, "a flood reached the terminal: {} bytes", done.stderr.len());
}

#[test]
fn a_servers_process_group_is_gone_after_airlock_exits() {
    let s = session();
    let tag = unique_tag(&s);
    configure_servers(
        &s,
        &[
            ("hang", "hang.py", &[tag.as_str()], "startup_timeout_sec = 600"),
            ("notes", "normal.py", &[tag.as_str()], ""),
        ],
    );
    let mock = MockModel::start(Wire::OpenAi);
    warm_up(&mock);
    mock.push_turn(Turn::calls(vec![call("notes__slow_count", json!({"steps": 2, "delay_ms": 500}))]));
    mock.push_turn(Turn::text("done"));
    let mut command = s.command(&mock);
    command.args(["-p", "go", "--approval-mode", "yolo"]);
    let mut child = command.spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while processes_with(&tag).len() < 2 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(processes_with(&tag).len(), 2, "both servers should be running during the session");
    let status = child.wait().unwrap();
    assert!(status.success(), "{status}");
    let deadline = Instant::now() + Duration::from_secs(10);
    while !processes_with(&tag).is_empty() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(processes_with(&tag), Vec::<u32>::new(), "a server outlived airlock");
}

#[test]
fn a_hostile_self_description_is_checked_tool_by_tool_and_never_reaches_the_terminal_raw() {
    let s = session();
    configure_servers(&s, &[("hostile", "hostile.py", &[], ""), ("hostile_", "hostile.py", &[], "")]);
    let listed = list_json(&s);
    let hostile = listed["servers"].as_array().unwrap().iter().find(|v| v["name"] == "hostile").unwrap().clone();
    assert_eq!(hostile["state"], "started", "{hostile}");
    let offered: Vec<&str> = hostile["tools"].as_array().unwrap().iter().filter_map(|t| t["name"].as_str()).collect();
    assert!(offered.contains(&"hostile__ok"), "{offered:?}");
    assert!(offered.contains(&"hostile__read_file"), "{offered:?}");
    let skipped: Vec<&str> = hostile["skipped"].as_array().unwrap().iter().filter_map(|t| t["tool"].as_str()).collect();
    for bad in ["deep_schema", "schema_bomb", "wide_schema", "huge_description"] {
        assert!(skipped.iter().any(|t| t.contains(bad)), "{bad} was not skipped: {skipped:?} / {offered:?}");
        assert!(!offered.iter().any(|t| t.ends_with(bad)), "{bad} was offered");
    }
    assert!(!offered.iter().any(|t| t.contains(' ') || t.contains('!')), "{offered:?}");
    assert_eq!(offered.iter().filter(|t| **t == "hostile__ok").count(), 1, "a name declared twice was offered twice");

    let text = super::mcp(&s, &["list"]);
    assert_eq!(text.code, Some(0), "{}", text.stderr);
    for out in [&text.stdout, &text.stderr] {
        assert!(!out.contains('\u{1b}') && !out.contains('\u{7}') && !out.contains('\u{202e}'), "raw escapes: {out:?}");
    }
    let tools = crate::run_args(&s, &["tools", "list"]);
    assert!(!tools.stdout.contains('\u{1b}') && !tools.stderr.contains('\u{1b}'), "raw escapes in tools list");

    // The built-in `read_file` is still the built-in: the server's is only `hostile__read_file`.
    s.write("notes.txt", "the notes");
    let mock = MockModel::start(Wire::OpenAi);
    warm_up_for(&mock, 6);
    mock.push_turn(Turn::calls(vec![
        call("read_file", json!({"file_path": "notes.txt"})),
        call("hostile__read_file", json!({})),
        call("hostile___ok", json!({})),
    ]));
    mock.push_turn(Turn::text("done"));
    let done = s.airlock(&mock, &["-p", "go", "--approval-mode", "yolo"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let sent = function_responses(&mock.requests()[2]);
    assert_eq!(sent[0].1, "the notes");
    assert_eq!(sent[1].1, "hostile ran read_file");
    // `hostile___ok` is `_ok` of hostile and `ok` of hostile_: offered once at most, and the
    // clash is said.
    let declared = declared_tools(&mock.requests()[1]);
    assert!(declared.iter().filter(|t| *t == "hostile___ok").count() <= 1, "{declared:?}");
    assert!(done.stderr.contains("hostile___ok"), "the clash is not said: {}", done.stderr);
    assert!(!done.stderr.contains('\u{1b}'), "raw escapes on stderr");
}

#[test]
fn include_and_exclude_choose_the_tools_offered() {
    let s = session();
    configure_servers(
        &s,
        &[
            ("only", "normal.py", &[], "include_tools = [\"echo\", \"peek\"]"),
            ("but", "normal.py", &[], "exclude_tools = [\"write_note\"]"),
        ],
    );
    let listed = list_json(&s);
    let tools_of = |name: &str| -> Vec<String> {
        let server = listed["servers"].as_array().unwrap().iter().find(|v| v["name"] == name).unwrap();
        server["tools"].as_array().unwrap().iter().filter_map(|t| t["name"].as_str().map(str::to_owned)).collect()
    };
    let mut only = tools_of("only");
    only.sort();
    assert_eq!(only, ["only__echo", "only__peek"], "include_tools");
    let but = tools_of("but");
    assert!(!but.contains(&"but__write_note".to_string()) && but.contains(&"but__read_note".to_string()), "{but:?}");
    assert_eq!(but.len(), 9, "{but:?}");
}
