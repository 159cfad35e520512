//! The real `airlock` binary in headless mode against the scripted mock model, on both wire
//! formats, streamed. Each test asserts on what the binary printed and on what the model
//! was sent (the tool results).

use airlock_tests::{MockModel, Session, Turn, Wire, call, declared_tools, fixtures, function_responses};
use serde_json::{Value, json};

use crate::session;

const WIRES: [Wire; 2] = [Wire::Gemini, Wire::OpenAi];

/// The function responses of the `n`th request (0-based).
fn responses(mock: &MockModel, n: usize) -> Vec<(String, String)> {
    function_responses(&mock.requests()[n])
}

#[test]
fn answers_in_plain_text_on_both_wires() {
    for wire in WIRES {
        let s = session();
        let mock = MockModel::start(wire);
        mock.push_turn(Turn::text("Hello from the mock model."));
        let done = Session::run({
            let mut c = s.command(&mock);
            c.args(["-p", "Say hello"]).env("GEMINI_API_KEY", "gk").env("OPENAI_API_KEY", "ok");
            c
        });
        assert_eq!(done.code, Some(0), "{wire:?}: {}", done.stderr);
        assert_eq!(done.stdout, "Hello from the mock model.\n", "{wire:?}");
        let request = &mock.recorded()[0];
        let tools = declared_tools(&request.body);
        for tool in [
            "list_directory",
            "read_file",
            "write_file",
            "replace",
            "glob",
            "grep_search",
            "web_fetch",
            "read_many_files",
            "write_todos",
            "save_memory",
        ] {
            assert!(tools.iter().any(|t| t == tool), "{wire:?}: {tool} not declared: {tools:?}");
        }
        match wire {
            Wire::Gemini => {
                assert_eq!(request.path, "/v1beta/models/test-model:streamGenerateContent?alt=sse");
                assert_eq!(request.header("x-goog-api-key"), Some("gk"));
                assert_eq!(request.body["contents"][0]["parts"][0]["text"], "Say hello");
            }
            Wire::OpenAi => {
                assert_eq!(request.path, "/v1/chat/completions");
                assert_eq!(request.header("authorization"), Some("Bearer ok"));
                assert_eq!(request.body["stream"], true);
            }
            Wire::Anthropic => assert_eq!(request.path, "/v1/messages"),
        }
    }
}

#[test]
fn the_prompt_can_come_on_stdin() {
    let s = session();
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::text("ok"));
    let mut command = s.command(&mock);
    command.stdin(std::process::Stdio::piped()).stdout(std::process::Stdio::piped());
    let mut child = command.spawn().unwrap();
    {
        use std::io::Write;
        child.stdin.take().unwrap().write_all(b"prompt from a pipe\n").unwrap();
    }
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(0));
    let body = &mock.requests()[0];
    let user = body["messages"].as_array().unwrap().iter().find(|m| m["role"] == "user").unwrap();
    assert_eq!(user["content"], "prompt from a pipe");
}

#[test]
fn runs_parallel_calls_and_sends_every_result_back() {
    for wire in WIRES {
        let s = session();
        s.write("src/a.rs", "fn alpha() {}\n");
        s.write("src/b.rs", "fn beta() {}\n");
        s.write(".gitignore", "ignored.txt\n");
        s.write("ignored.txt", "fn hidden() {}\n");
        let mock = MockModel::start(wire);
        mock.push_turn(Turn::calls(vec![
            call("read_file", json!({"file_path": "src/a.rs"})),
            call("read_file", json!({"file_path": s.workspace.join("src/b.rs").to_str().unwrap()})),
            call("list_directory", json!({"dir_path": "."})),
            call("grep_search", json!({"pattern": "fn \\w+"})),
            call("glob", json!({"pattern": "**/*.rs"})),
        ]));
        mock.push_turn(Turn::text("Read them."));
        let done = s.airlock(&mock, &["-p", "look around"]);
        assert_eq!(done.code, Some(0), "{wire:?}: {}", done.stderr);
        assert_eq!(done.stdout, "Read them.\n");
        let sent = responses(&mock, 1);
        assert_eq!(sent.len(), 5, "{wire:?}: {sent:?}");
        assert_eq!(sent[0].0, "read_file", "{wire:?}");
        assert_eq!(sent[0].1.trim_end(), "fn alpha() {}", "{wire:?}");
        assert_eq!(sent[1].1.trim_end(), "fn beta() {}");
        assert!(sent[2].1.contains("[DIR] src"), "{}", sent[2].1);
        assert!(!sent[2].1.contains("ignored.txt"), "list_directory must respect .gitignore: {}", sent[2].1);
        assert!(sent[3].1.contains("fn alpha") && sent[3].1.contains("fn beta"), "{}", sent[3].1);
        assert!(!sent[3].1.contains("hidden"), "grep_search must respect .gitignore: {}", sent[3].1);
        assert!(sent[4].1.contains("a.rs") && sent[4].1.contains("b.rs"), "{}", sent[4].1);
        assert_eq!(done.stderr.matches("✓ read_file").count(), 2, "{}", done.stderr);
    }
}

#[test]
fn default_mode_refuses_edits_at_once_and_writes_nothing() {
    let s = session();
    s.write("notes.txt", "old\n");
    let mock = MockModel::start(Wire::Gemini);
    mock.push_turn(Turn::calls(vec![
        call("write_file", json!({"file_path": "new.txt", "content": "x"})),
        call("replace", json!({"file_path": "notes.txt", "old_string": "old", "new_string": "new"})),
    ]));
    mock.push_turn(Turn::text("Understood."));
    let done = s.airlock(&mock, &["-p", "edit"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert_eq!(s.read("new.txt"), None);
    assert_eq!(s.read("notes.txt").as_deref(), Some("old\n"));
    let sent = responses(&mock, 1);
    assert!(sent.iter().all(|(_, c)| c.contains("needs the user's approval")), "{sent:?}");
    assert!(done.stderr.contains("✗ write_file"), "{}", done.stderr);
    assert!(done.stderr.contains("--approval-mode auto-edit"), "{}", done.stderr);
}

#[test]
fn auto_edit_mode_writes_files_and_replace_edits_them() {
    let s = session();
    s.write("notes.txt", "one two one\n");
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![
        call("write_file", json!({"file_path": "dir/new.txt", "content": "created\n"})),
        call("replace", json!({"file_path": "notes.txt", "old_string": "two", "new_string": "2"})),
        call("replace", json!({"file_path": "notes.txt", "old_string": "one", "new_string": "1"})),
        call("replace", json!({"file_path": "notes.txt", "old_string": "absent", "new_string": "x"})),
    ]));
    mock.push_turn(Turn::text("Done."));
    let done = s.airlock(&mock, &["-p", "edit", "--approval-mode", "auto-edit"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert_eq!(s.read("dir/new.txt").as_deref(), Some("created\n"));
    assert_eq!(s.read("notes.txt").as_deref(), Some("one 2 one\n"), "the ambiguous replace must not apply");
    let sent = responses(&mock, 1);
    assert!(!sent[0].1.starts_with("Error"), "{sent:?}");
    assert!(sent[2].1.contains('2') && sent[2].1.starts_with("Error"), "ambiguous: {}", sent[2].1);
    assert!(sent[3].1.contains("0 occurrences"), "{}", sent[3].1);
}

#[test]
fn paths_outside_the_workspace_are_refused() {
    let s = session();
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("secret.txt"), "secret").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(outside.path().join("secret.txt"), s.workspace.join("link.txt")).unwrap();
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![
        call("read_file", json!({"file_path": outside.path().join("secret.txt").to_str().unwrap()})),
        call("read_file", json!({"file_path": "../secret.txt"})),
        call("read_file", json!({"file_path": "link.txt"})),
        call("write_file", json!({"file_path": outside.path().join("x.txt").to_str().unwrap(), "content": "x"})),
    ]));
    mock.push_turn(Turn::text("ok"));
    let done = s.airlock(&mock, &["-p", "escape", "--approval-mode", "yolo"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let sent = responses(&mock, 1);
    for (name, content) in &sent {
        assert!(content.starts_with("Error"), "{name} escaped: {content}");
        assert!(!content.contains("secret") || content.contains("secret.txt"), "leaked: {content}");
    }
    assert!(!outside.path().join("x.txt").exists());
}

#[test]
fn malformed_model_output_becomes_errors_for_the_model() {
    for wire in WIRES {
        let s = session();
        let mock = MockModel::start(wire);
        mock.push_turn(Turn::call_with_raw_args("read_file", "{\"file_path\": "));
        mock.push_turn(Turn::calls(vec![
            call("no_such_tool", json!({})),
            call("read_file", json!({"file_path": 42})),
            call("read_file", json!({"start_line": 1})),
        ]));
        mock.push_turn(Turn::text("Recovered."));
        let done = s.airlock(&mock, &["-p", "go"]);
        assert_eq!(done.code, Some(0), "{wire:?}: {}", done.stderr);
        assert_eq!(done.stdout, "Recovered.\n");
        let first = responses(&mock, 1);
        assert!(first[0].1.contains("invalid_params"), "{wire:?}: {first:?}");
        let second = responses(&mock, 2);
        assert!(second[0].1.contains("tool_not_found") && second[0].1.contains("read_file"), "{second:?}");
        assert!(second[1].1.contains("/file_path"), "{second:?}");
        assert!(second[2].1.contains("file_path"), "{second:?}");
    }
}

#[test]
fn a_malformed_stream_exits_non_zero_with_a_clear_message() {
    for wire in WIRES {
        let s = session();
        let mock = MockModel::start(wire);
        mock.push_turn(Turn::raw_sse("data: {this is not json\n\n").forever());
        let done = s.airlock(&mock, &["-p", "go"]);
        assert_eq!(done.code, Some(1), "{wire:?}: {}", done.stderr);
        assert!(done.stderr.contains("malformed"), "{wire:?}: {}", done.stderr);
    }
}

#[test]
fn http_errors_name_the_problem_and_the_key_variable() {
    for (wire, key) in [(Wire::Gemini, "GEMINI_API_KEY"), (Wire::OpenAi, "OPENAI_API_KEY")] {
        let s = session();
        let mock = MockModel::start(wire);
        mock.push_turn(Turn::status(401, r#"{"error": {"message": "bad key"}}"#));
        let done = s.airlock(&mock, &["-p", "go"]);
        assert_eq!(done.code, Some(41), "{}", done.stderr);
        assert!(done.stderr.contains(key), "{}", done.stderr);

        let mock = MockModel::start(wire);
        mock.push_turn(Turn::status(500, r#"{"error": {"message": "the model is on fire"}}"#).forever());
        let done = s.airlock(&mock, &["-p", "go"]);
        assert_eq!(done.code, Some(1), "{}", done.stderr);
        assert!(done.stderr.contains("500") && done.stderr.contains("on fire"), "{}", done.stderr);
    }
}

#[test]
fn json_output_is_one_object_with_calls_and_stats() {
    let s = session();
    s.write("a.txt", "A\n");
    let mock = MockModel::start(Wire::Gemini);
    mock.push_turn(Turn::calls(vec![call("read_file", json!({"file_path": "a.txt"}))]).with_usage(50, 5));
    mock.push_turn(Turn::text("It says A.").with_usage(70, 4));
    let done = s.airlock(&mock, &["-p", "read a", "-o", "json"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let object: Value = serde_json::from_str(&done.stdout).unwrap();
    assert_eq!(object["response"], "It says A.");
    assert_eq!(object["status"], "success");
    assert_eq!(object["tool_calls"][0]["name"], "read_file");
    assert_eq!(object["tool_calls"][0]["args"], json!({"file_path": "a.txt"}));
    assert_eq!(object["tool_calls"][0]["status"], "success");
    assert!(object["tool_calls"][0]["duration_ms"].as_f64().unwrap() > 0.0);
    assert_eq!(object["stats"]["turns"], 2);
    assert_eq!(object["stats"]["tokens"]["input"], 120);
    assert_eq!(object["stats"]["tokens"]["output"], 9);
    assert_eq!(object["stats"]["tools"]["success"], 1);
    // What the call cost, measured by the runtime: its wall time, its guest's memory, and
    // the file bytes it read (the 2 bytes of a.txt) and wrote (none).
    let cost = &object["tool_calls"][0]["cost"];
    assert!(cost["peak_memory_bytes"].as_u64().unwrap() > 64 << 10, "{cost}");
    assert_eq!(cost["network_requests"], 0);
    assert_eq!(cost["bytes_read"], 2, "{cost}");
    assert_eq!(cost["bytes_written"], 0, "{cost}");
    let by_tool = &object["stats"]["by_tool"]["read_file"];
    assert_eq!(by_tool["calls"], 1);
    assert_eq!(by_tool["peak_memory_bytes"], cost["peak_memory_bytes"]);
    assert_eq!(by_tool["wall_ms"], cost["wall_ms"]);
}

#[test]
fn a_write_reports_the_bytes_it_wrote() {
    let s = session();
    let mock = MockModel::start(Wire::Gemini);
    let content = "twelve bytes".repeat(100);
    mock.push_turn(Turn::calls(vec![call("write_file", json!({"file_path": "out.txt", "content": content}))]));
    mock.push_turn(Turn::text("written"));
    let done = s.airlock(&mock, &["-p", "write", "-o", "json", "--approval-mode", "yolo"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert_eq!(s.read("out.txt").as_deref(), Some(content.as_str()));
    let object: Value = serde_json::from_str(&done.stdout).unwrap();
    let cost = &object["tool_calls"][0]["cost"];
    assert_eq!(cost["bytes_written"], 1_200, "{cost}");
    assert_eq!(object["stats"]["by_tool"]["write_file"]["bytes_written"], 1_200);
}

#[test]
fn stream_json_prints_one_event_per_line_as_they_happen() {
    let s = session();
    s.write("a.txt", "A\n");
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![call("read_file", json!({"file_path": "a.txt"}))]));
    mock.push_turn(Turn::text("Done."));
    let done = s.airlock(&mock, &["-p", "read a", "-o", "stream-json"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let events: Vec<Value> = done.stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(events[0]["type"], "init");
    assert!(events.iter().all(|e| e["timestamp"].is_number()));
    let states: Vec<&str> =
        events.iter().filter(|e| e["type"] == "tool_call").map(|e| e["status"].as_str().unwrap()).collect();
    assert_eq!(states, ["validating", "scheduled", "executing", "success"]);
    // The terminal update carries the call's cost; the others do not.
    let costs: Vec<bool> = events.iter().filter(|e| e["type"] == "tool_call").map(|e| e["cost"].is_object()).collect();
    assert_eq!(costs, [false, false, false, true]);
    let last = events.last().unwrap();
    assert_eq!(last["type"], "result");
    assert_eq!(last["status"], "success");
}

#[test]
fn the_turn_cap_stops_a_model_that_keeps_calling_tools() {
    let s = session();
    s.write("a.txt", "A\n");
    let mock = MockModel::start(Wire::OpenAi);
    for _ in 0..3 {
        mock.push_turn(Turn::calls(vec![call("read_file", json!({"file_path": "a.txt"}))]));
    }
    let done = s.airlock(&mock, &["-p", "loop", "--max-turns", "2"]);
    assert_eq!(done.code, Some(53), "{}", done.stderr);
    assert!(done.stderr.contains("--max-turns"), "{}", done.stderr);
    assert_eq!(mock.requests().len(), 2);
}

#[test]
fn no_prompt_is_an_input_error() {
    let s = session();
    let mock = MockModel::start(Wire::OpenAi);
    let done = Session::run(s.command(&mock));
    assert_eq!(done.code, Some(42));
    assert!(done.stderr.contains("no prompt"), "{}", done.stderr);
    assert!(mock.requests().is_empty());
}

#[test]
fn settings_come_from_config_toml_and_flags_win() {
    let s = session();
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::text("configured"));
    std::fs::create_dir_all(s.airlock_home()).unwrap();
    std::fs::write(
        s.airlock_home().join("config.toml"),
        format!("provider = \"openai\"\nbase_url = \"{}\"\nmodel = \"from-config\"\n", mock.base_url()),
    )
    .unwrap();
    let done = Session::run({
        let mut c = s.bare_command();
        c.args(["-p", "hi", "--workspace"]).arg(&s.workspace);
        c
    });
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert_eq!(mock.requests()[0]["model"], "from-config");

    mock.push_turn(Turn::text("flagged"));
    let done = Session::run({
        let mut c = s.bare_command();
        c.args(["-p", "hi", "-m", "from-flag", "--workspace"]).arg(&s.workspace);
        c
    });
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert_eq!(mock.requests()[1]["model"], "from-flag");
}

#[test]
fn a_bad_config_file_names_the_line_and_exits() {
    let s = session();
    std::fs::create_dir_all(s.airlock_home()).unwrap();
    std::fs::write(s.airlock_home().join("config.toml"), "model = \"m\"\napproval_mode = \"sometimes\"\n").unwrap();
    let mock = MockModel::start(Wire::OpenAi);
    let done = s.airlock(&mock, &["-p", "hi"]);
    assert_eq!(done.code, Some(52), "{}", done.stderr);
    assert!(done.stderr.contains("config.toml") && done.stderr.contains("line 2"), "{}", done.stderr);
    assert!(mock.requests().is_empty());
}

#[test]
fn tools_list_shows_every_tool_with_its_plugin_and_schema() {
    let s = session();
    s.install_plugin(fixtures::ECHO_TOOLS);
    s.install_plugin(fixtures::BAD_NAME);
    let done = Session::run({
        let mut c = s.bare_command();
        c.args(["tools", "list", "--json"]);
        c
    });
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let listing: Value = serde_json::from_str(&done.stdout).unwrap();
    let tools = listing["tools"].as_array().unwrap();
    let read = tools.iter().find(|t| t["name"] == "read_file").unwrap();
    assert_eq!(read["kind"], "read");
    assert_eq!(read["plugin"]["origin"], "builtin");
    assert_eq!(read["parameters"]["required"], json!(["file_path"]));
    let echo = tools.iter().find(|t| t["name"] == "echo").unwrap();
    assert!(echo["plugin"]["file"].as_str().unwrap().ends_with("plugins/echo_tools.wasm"));
    let problems = listing["problems"].as_array().unwrap();
    assert!(problems.iter().any(|p| p["path"].as_str().unwrap().ends_with("bad_name.wasm")));

    let done = Session::run({
        let mut c = s.bare_command();
        c.args(["tools", "list"]);
        c
    });
    assert!(done.stdout.contains("read_file (read)") && done.stdout.contains("echo_tools.wasm"), "{}", done.stdout);
}

#[test]
fn ctrl_c_cancels_running_calls_and_exits_cleanly() {
    let s = session();
    s.install_plugin(fixtures::SPIN_FOREVER);
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![call("spin", json!({}))]));
    let mut command = s.command(&mock);
    command.args(["-p", "spin", "-o", "json", "--approval-mode", "yolo"]);
    command.stdout(std::process::Stdio::piped()).stderr(std::process::Stdio::piped());
    let child = command.spawn().unwrap();
    // Wait until the call is executing: the model has been asked once.
    let started = std::time::Instant::now();
    while mock.requests().is_empty() && started.elapsed().as_secs() < 30 {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    std::thread::sleep(std::time::Duration::from_millis(300));
    let killed = std::process::Command::new("kill").args(["-INT", &child.id().to_string()]).status().unwrap();
    assert!(killed.success());
    let output = child.wait_with_output().unwrap();
    assert_eq!(output.status.code(), Some(130), "{}", String::from_utf8_lossy(&output.stderr));
    let object: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(object["status"], "cancelled");
    assert_eq!(object["tool_calls"][0]["status"], "cancelled");
    assert!(started.elapsed().as_secs() < 30, "cancellation must not wait for the 60 s deadline");
}

// json_shapes: the public JSON outputs (airlock_protocol's report types; frontends/src/json.rs prints them), pinned on real runs so a
// key cannot vanish, move or be renamed without a test saying so.

/// Every key path of `value` (`a.b`, `list[].c`; an array's elements merge). Under a key of
/// `free` (tool arguments, schemas, requested capabilities) the value is data, not shape.
fn key_paths(value: &Value, free: &[&str]) -> Vec<String> {
    fn walk(value: &Value, path: &str, free: &[&str], out: &mut std::collections::BTreeSet<String>) {
        match value {
            Value::Object(map) => {
                for (key, child) in map {
                    let path = if path.is_empty() { key.clone() } else { format!("{path}.{key}") };
                    out.insert(path.clone());
                    if !free.contains(&key.as_str()) {
                        walk(child, &path, free, out);
                    }
                }
            }
            Value::Array(items) => {
                for item in items {
                    let path = format!("{path}[]");
                    out.insert(path.clone());
                    walk(item, &path, free, out);
                }
            }
            _ => {}
        }
    }
    let mut out = std::collections::BTreeSet::new();
    walk(value, "", free, &mut out);
    out.into_iter().collect()
}

/// Parses `raw` and checks its keys are in alphabetical order at every depth, the order the
/// JSON outputs have always had: a parsed copy (whose maps sort their keys) prints back the
/// same text. Digits, signs, dots and `e` are left out of the comparison on both sides, as a
/// float's digits need not survive a parse.
fn parse_sorted(raw: &str, pretty: bool) -> Value {
    let value: Value = serde_json::from_str(raw).unwrap_or_else(|e| panic!("{e}: {raw}"));
    let again = if pretty { serde_json::to_string_pretty(&value) } else { serde_json::to_string(&value) };
    let again = again.unwrap_or_else(|e| panic!("{e}"));
    let skeleton =
        |s: &str| s.chars().filter(|c| !matches!(c, '0'..='9' | '-' | '+' | '.' | 'e' | 'E')).collect::<String>();
    assert_eq!(skeleton(raw.trim_end()), skeleton(&again), "keys not in alphabetical order");
    value
}

/// A run of `-o json` / `-o stream-json` with a call that succeeds and one that fails, and a
/// plugin that cannot load: `capped` stops it at the turn cap, so the summary has an error.
fn shaped_run(s: &Session, format: &str, capped: bool) -> airlock_tests::Finished {
    let mock = MockModel::start(Wire::OpenAi);
    let calls =
        vec![call("read_file", json!({"file_path": "a.txt"})), call("read_file", json!({"file_path": "nope.txt"}))];
    mock.push_turn(Turn::calls(calls).with_usage(50, 5));
    mock.push_turn(Turn::text("It says A.").with_usage(70, 4));
    let mut args = vec!["-p", "read a", "-o", format];
    if capped {
        args.extend(["--max-turns", "1"]);
    }
    let done = s.airlock(&mock, &args);
    assert_eq!(done.code, Some(if capped { 53 } else { 0 }), "{}", done.stderr);
    done
}

const SUMMARY_PATHS: [&str; 51] = [
    "error",
    "error.message",
    "error.type",
    "session_id",
    "stats",
    "stats.by_tool",
    "stats.by_tool.read_file",
    "stats.by_tool.read_file.bytes_read",
    "stats.by_tool.read_file.bytes_written",
    "stats.by_tool.read_file.calls",
    "stats.by_tool.read_file.network_requests",
    "stats.by_tool.read_file.peak_memory_bytes",
    "stats.by_tool.read_file.wall_ms",
    "stats.compressions",
    "stats.duration_ms",
    "stats.tokens",
    "stats.tokens.input",
    "stats.tokens.output",
    "stats.tokens.total",
    "stats.tools",
    "stats.tools.cancelled",
    "stats.tools.error",
    "stats.tools.success",
    "stats.tools.total",
    "stats.turns",
    "stats.turns_detail",
    "stats.turns_detail[]",
    "stats.turns_detail[].input",
    "stats.turns_detail[].kind",
    "stats.turns_detail[].output",
    "stats.turns_detail[].total",
    "stats.turns_detail[].turn",
    "status",
    "todos",
    "tool_calls",
    "tool_calls[]",
    "tool_calls[].args",
    "tool_calls[].cost",
    "tool_calls[].cost.bytes_read",
    "tool_calls[].cost.bytes_written",
    "tool_calls[].cost.network_requests",
    "tool_calls[].cost.peak_memory_bytes",
    "tool_calls[].cost.wall_ms",
    "tool_calls[].duration_ms",
    "tool_calls[].error",
    "tool_calls[].error.message",
    "tool_calls[].error.type",
    "tool_calls[].id",
    "tool_calls[].name",
    "tool_calls[].run_ms",
    "tool_calls[].status",
];

/// The events a run with a failing call and a plugin problem prints, by `type`: each the
/// event (`airlock_engine::events::Event`) with its `timestamp`.
const EVENT_PATHS: [(&str, &[&str]); 6] = [
    ("init", &["model", "provider", "session_id", "timestamp", "tools", "type", "workspace"]),
    ("plugin_problem", &["path", "reason", "timestamp", "type"]),
    ("text", &["delta", "timestamp", "type"]),
    (
        "tool_call",
        &[
            "args",
            "call_id",
            "cost",
            "cost.bytes_read",
            "cost.bytes_written",
            "cost.network_requests",
            "cost.peak_memory_bytes",
            "cost.wall_ms",
            "description",
            "display",
            "display.text",
            "display.type",
            "duration",
            "error",
            "error.kind",
            "error.message",
            "name",
            "output",
            "run_ms",
            "status",
            "timestamp",
            "type",
        ],
    ),
    ("turn_started", &["timestamp", "turn", "type"]),
    ("usage", &["input_tokens", "kind", "output_tokens", "timestamp", "turn", "type"]),
];

/// `paths` without the top-level `error` (a run that succeeded has none).
fn without_error(paths: &[&str]) -> Vec<String> {
    paths.iter().filter(|p| **p != "error" && !p.starts_with("error.")).map(|p| p.to_string()).collect()
}

fn with(base: &[&str], extra: &[&str]) -> Vec<String> {
    let mut all: Vec<String> = base.iter().chain(extra).map(|p| p.to_string()).collect();
    all.sort();
    all
}

#[test]
fn json_shapes_of_json_output_keep_their_keys_and_order() {
    let s = session();
    s.write("a.txt", "A\n");
    s.install_plugin(fixtures::BAD_NAME);
    let extra = ["model", "provider", "response", "warnings", "warnings[]"];
    for capped in [false, true] {
        let done = shaped_run(&s, "json", capped);
        assert_eq!(done.stdout.lines().count(), 1, "{}", done.stdout);
        let object = parse_sorted(&done.stdout, false);
        let mut expected = with(&SUMMARY_PATHS, &extra);
        if !capped {
            expected = without_error(&expected.iter().map(String::as_str).collect::<Vec<_>>());
        }
        assert_eq!(key_paths(&object, &["args"]), expected, "capped {capped}: {object:#}");
        assert_eq!(object["tool_calls"][1]["error"]["type"], "not_found", "{object:#}");
    }
}

#[test]
fn json_shapes_of_stream_json_keep_their_keys_and_order() {
    let s = session();
    s.write("a.txt", "A\n");
    s.install_plugin(fixtures::BAD_NAME);
    let mut by_type: std::collections::BTreeMap<String, std::collections::BTreeSet<String>> = Default::default();
    for capped in [false, true] {
        let done = shaped_run(&s, "stream-json", capped);
        let lines: Vec<Value> = done.stdout.lines().map(|l| parse_sorted(l, false)).collect();
        for event in &lines[..lines.len() - 1] {
            let kind = event["type"].as_str().unwrap().to_owned();
            by_type.entry(kind).or_default().extend(key_paths(event, &["args", "tools"]));
        }
        let result = lines.last().unwrap();
        let mut expected = with(&SUMMARY_PATHS, &["timestamp", "type"]);
        if !capped {
            expected = without_error(&expected.iter().map(String::as_str).collect::<Vec<_>>());
        }
        assert_eq!(result["type"], "result");
        assert_eq!(key_paths(result, &["args"]), expected, "capped {capped}: {result:#}");
    }
    let by_type: Vec<(&str, Vec<&str>)> =
        by_type.iter().map(|(kind, paths)| (kind.as_str(), paths.iter().map(String::as_str).collect())).collect();
    let expected: Vec<(&str, Vec<&str>)> = EVENT_PATHS.iter().map(|(kind, paths)| (*kind, paths.to_vec())).collect();
    assert_eq!(by_type, expected);
}

#[test]
fn json_shapes_of_the_listings_keep_their_keys_and_order() {
    let s = session();
    s.install_plugin(fixtures::BAD_NAME);
    s.install_plugin(fixtures::FS_PROBE);
    let listing = |args: &[&str]| {
        let done = Session::run({
            let mut c = s.bare_command();
            c.args(args);
            c
        });
        assert_eq!(done.code, Some(0), "{args:?}: {}", done.stderr);
        done.stdout
    };
    // Capabilities and grants are the plugin contract's and the policy's own types.
    let free = ["parameters", "capabilities", "requests", "granted"];
    let problems = ["problems", "problems[]", "problems[].path", "problems[].reason"];
    let tools = parse_sorted(&listing(&["tools", "list", "--json"]), true);
    let tool = ["capabilities", "description", "display_name", "kind", "name", "parallel_safe", "parameters"];
    let mut expected: Vec<String> =
        tool.iter().chain(&["streams_output", "plugin"]).map(|k| format!("tools[].{k}")).collect();
    expected.extend(["file", "name", "origin", "version"].map(|k| format!("tools[].plugin.{k}")));
    expected.extend(problems.iter().chain(&["tools", "tools[]"]).map(|p| p.to_string()));
    expected.sort();
    assert_eq!(key_paths(&tools, &free), expected);

    let plugin = [
        "defaults",
        "defaults[]",
        "file",
        "granted",
        "granted_by",
        "name",
        "origin",
        "tools",
        "tools[]",
        "tools[].gets",
        "tools[].gets.env",
        "tools[].gets.files",
        "tools[].gets.files[]",
        "tools[].gets.files[].access",
        "tools[].gets.files[].path",
        "tools[].gets.network",
        "tools[].gets.network[]",
        "tools[].gets.processes",
        "tools[].gets.processes[]",
        "tools[].kind",
        "tools[].missing",
        "tools[].missing[]",
        "tools[].name",
        "tools[].requests",
        "version",
    ];
    let plugins = parse_sorted(&listing(&["plugins", "list", "--json"]), true);
    let mut expected: Vec<String> = plugin.iter().map(|k| format!("plugins[].{k}")).collect();
    expected.extend(problems.iter().chain(&["plugins", "plugins[]"]).map(|p| p.to_string()));
    expected.sort();
    assert_eq!(key_paths(&plugins, &free), expected);
    // fs_probe is granted nothing: no file it gets, no default list.
    let shown = parse_sorted(&listing(&["plugins", "show", "fs_probe", "--json"]), true);
    let expected: Vec<&str> = plugin
        .into_iter()
        .filter(|k| {
            !k.starts_with("tools[].gets.files[]")
                && !matches!(*k, "defaults[]" | "tools[].gets.network[]" | "tools[].gets.processes[]")
        })
        .collect();
    assert_eq!(key_paths(&shown, &free), expected);

    let inspected = parse_sorted(&listing(&["plugins", "inspect", fixtures::FS_PROBE, "--json"]), true);
    let mut expected: Vec<String> =
        tool.iter().chain(&["streams_output"]).map(|k| format!("plugin.tools[].{k}")).collect();
    expected.extend(
        ["file", "plugin", "plugin.name", "plugin.tools", "plugin.tools[]", "plugin.version"].map(String::from),
    );
    expected.sort();
    assert_eq!(key_paths(&inspected, &free), expected);

    // A session's keys print in the order of its struct, not sorted.
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::text("one"));
    assert_eq!(s.airlock(&mock, &["-p", "first"]).code, Some(0));
    let raw = listing(&["sessions", "list", "--json"]);
    assert_eq!(serde_json::from_str::<Value>(&raw).unwrap().as_array().map(Vec::len), Some(1), "{raw}");
    let keys: Vec<&str> =
        raw.lines().filter_map(|l| l.trim().strip_prefix('"')?.split_once("\": ").map(|(k, _)| k)).collect();
    let order = ["id", "started", "updated", "workspace", "provider", "model", "first_prompt", "turns", "path"];
    assert_eq!(keys, order, "{raw}");
}
