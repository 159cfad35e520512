//! `--output-schema FILE` with the real binary against the scripted model on all three
//! wires: each request carries the wire's structured-output field with the schema; a
//! conforming final answer prints exactly its JSON and exits 0; an answer that is not JSON,
//! or not valid, exits 55 and says why; a schema file that is missing, invalid, too large
//! or refers outside itself exits 2 before any request, and nothing is fetched.

use std::time::Duration;

use airlock_tests::http_server::CountingListener;
use airlock_tests::pty::Pty;
use airlock_tests::{Finished, MockModel, Session, Turn, Wire, call, function_responses, run_bounded};
use serde_json::{Value, json};

use crate::session;

const WIRES: [Wire; 3] = [Wire::Gemini, Wire::OpenAi, Wire::Anthropic];

/// A schema in the subset every wire's constrained decoding takes.
fn person() -> Value {
    json!({
        "type": "object",
        "properties": { "name": { "type": "string" }, "age": { "type": "integer" } },
        "required": ["name", "age"],
        "additionalProperties": false
    })
}

/// Writes `schema` as `schema.json` in the workspace and returns its path.
fn schema_file(s: &Session, schema: &Value) -> String {
    s.write("schema.json", &schema.to_string());
    s.workspace.join("schema.json").display().to_string()
}

/// `airlock -p PROMPT --output-schema FILE ARGS` against `mock`. Gemini takes the schema
/// beside function declarations from Gemini 3 on, so its runs name such a model.
fn run(s: &Session, mock: &MockModel, file: &str, args: &[&str]) -> Finished {
    let mut command = match mock.wire() {
        Wire::Gemini => {
            let mut command = s.bare_command();
            command
                .args(["--provider", "gemini", "--base-url", &mock.base_url(), "-m", "gemini-3-flash-preview"])
                .arg("--workspace")
                .arg(&s.workspace);
            command
        }
        _ => s.command(mock),
    };
    command.args(["-p", "who is it?", "--output-schema", file]).args(args);
    Session::run(command)
}

/// The schema a request body carries in the wire's structured-output field.
fn sent_schema(wire: Wire, body: &Value) -> Value {
    match wire {
        Wire::Gemini => {
            assert_eq!(body["generationConfig"]["responseMimeType"], "application/json", "{body}");
            body["generationConfig"]["responseJsonSchema"].clone()
        }
        Wire::OpenAi => {
            let format = &body["response_format"];
            assert_eq!(format["type"], "json_schema", "{body}");
            assert_eq!(format["json_schema"]["strict"], true, "{body}");
            format["json_schema"]["schema"].clone()
        }
        Wire::Anthropic => {
            assert_eq!(body["output_config"]["format"]["type"], "json_schema", "{body}");
            body["output_config"]["format"]["schema"].clone()
        }
    }
}

/// The system prompt of a request body, as text.
fn system_prompt(wire: Wire, body: &Value) -> String {
    match wire {
        Wire::Gemini => body["systemInstruction"]["parts"][0]["text"].as_str(),
        Wire::OpenAi => body["messages"][0]["content"].as_str(),
        Wire::Anthropic => body["system"].as_str(),
    }
    .unwrap_or_default()
    .to_owned()
}

#[test]
fn each_wire_sends_the_schema_and_a_conforming_answer_prints_exactly_its_json() {
    for wire in WIRES {
        let s = session();
        let file = schema_file(&s, &person());
        let mock = MockModel::start(wire);
        mock.push_turn(Turn::text(r#"{"name": "Ada", "age": 36}"#));
        let done = run(&s, &mock, &file, &[]);
        assert_eq!(done.code, Some(0), "{wire:?}: {}", done.stderr);
        assert_eq!(done.stdout, "{\"age\":36,\"name\":\"Ada\"}\n", "{wire:?}");
        let requests = mock.requests();
        assert_eq!(requests.len(), 1, "{wire:?}");
        assert_eq!(sent_schema(wire, &requests[0]), person(), "{wire:?}");
        let system = system_prompt(wire, &requests[0]);
        assert!(system.contains("must be exactly one JSON value valid against this JSON Schema"), "{wire:?}: {system}");
        assert!(system.contains(r#""required":["name","age"]"#), "{wire:?}: {system}");
    }
}

#[test]
fn an_answer_in_one_json_fence_is_read_inside_it() {
    let s = session();
    let file = schema_file(&s, &person());
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::text("```json\n{\"name\": \"Ada\", \"age\": 36}\n```"));
    let done = run(&s, &mock, &file, &[]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert_eq!(done.stdout, "{\"age\":36,\"name\":\"Ada\"}\n");
}

#[test]
fn a_non_conforming_answer_exits_55_and_names_why() {
    for wire in WIRES {
        let s = session();
        let file = schema_file(&s, &person());
        let mock = MockModel::start(wire);
        mock.push_turn(Turn::text(r#"{"name": 7}"#));
        let done = run(&s, &mock, &file, &[]);
        assert_eq!(done.code, Some(55), "{wire:?}: {}", done.stderr);
        assert_eq!(done.stdout, "", "{wire:?}: a script reads nothing from a failed run");
        assert!(done.stderr.contains("the final answer does not match the schema"), "{wire:?}: {}", done.stderr);
        assert!(done.stderr.contains("at /name: 7 is not of type \"string\""), "{wire:?}: {}", done.stderr);
        assert!(done.stderr.contains("\"age\" is a required property"), "{wire:?}: {}", done.stderr);
    }
}

#[test]
fn a_non_json_answer_exits_55() {
    for wire in WIRES {
        let s = session();
        let file = schema_file(&s, &person());
        let mock = MockModel::start(wire);
        mock.push_turn(Turn::text("Ada, who is 36."));
        let done = run(&s, &mock, &file, &[]);
        assert_eq!(done.code, Some(55), "{wire:?}: {}", done.stderr);
        assert_eq!(done.stdout, "", "{wire:?}");
        assert!(done.stderr.contains("airlock: the final answer is not JSON"), "{wire:?}: {}", done.stderr);
    }
}

#[test]
fn tool_calls_before_the_final_answer_still_work() {
    for wire in WIRES {
        let s = session();
        s.write("people.txt", "Ada Lovelace, 36\n");
        let file = schema_file(&s, &person());
        let mock = MockModel::start(wire);
        mock.push_turn(Turn::text_and_calls(
            "Let me look.",
            vec![call("read_file", json!({"file_path": "people.txt"}))],
        ));
        mock.push_turn(Turn::text(r#"{"name": "Ada Lovelace", "age": 36}"#));
        let done = run(&s, &mock, &file, &[]);
        assert_eq!(done.code, Some(0), "{wire:?}: {}", done.stderr);
        // The text before the call is not part of the final answer, and is not printed.
        assert_eq!(done.stdout, "{\"age\":36,\"name\":\"Ada Lovelace\"}\n", "{wire:?}");
        assert!(done.stderr.contains("✓ read_file"), "{wire:?}: {}", done.stderr);
        let requests = mock.requests();
        assert_eq!(requests.len(), 2, "{wire:?}");
        for body in &requests {
            assert_eq!(sent_schema(wire, body), person(), "{wire:?}: every request of the turn carries it");
        }
        let responses = function_responses(&requests[1]);
        assert!(responses[0].1.contains("Ada Lovelace, 36"), "{wire:?}: {responses:?}");
    }
}

#[test]
fn the_json_modes_carry_the_parsed_value_or_the_reason() {
    let s = session();
    let file = schema_file(&s, &person());
    let mock = MockModel::start(Wire::Anthropic);
    mock.push_turn(Turn::text(r#"{"name": "Ada", "age": 36}"#));
    let done = run(&s, &mock, &file, &["-o", "json"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let output: Value = serde_json::from_str(&done.stdout).unwrap_or_else(|e| panic!("{e}: {}", done.stdout));
    assert_eq!(output["structured_output"], json!({ "name": "Ada", "age": 36 }));
    assert_eq!(output["status"], "success");

    mock.push_turn(Turn::text(r#"{"name": "Ada", "age": 36}"#));
    let done = run(&s, &mock, &file, &["-o", "stream-json"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let last = done.stdout.lines().last().unwrap_or_default();
    let result: Value = serde_json::from_str(last).unwrap_or_else(|e| panic!("{e}: {last}"));
    assert_eq!(result["type"], "result");
    assert_eq!(result["structured_output"], json!({ "name": "Ada", "age": 36 }));

    mock.push_turn(Turn::text(r#"{"name": "Ada", "age": "36"}"#));
    let done = run(&s, &mock, &file, &["-o", "json"]);
    assert_eq!(done.code, Some(55), "{}", done.stderr);
    let output: Value = serde_json::from_str(&done.stdout).unwrap_or_else(|e| panic!("{e}: {}", done.stdout));
    assert_eq!(output["status"], "error");
    assert_eq!(output["error"]["type"], "output_schema");
    assert!(output["error"]["message"].as_str().unwrap_or_default().contains("at /age"), "{output}");
    assert!(output.get("structured_output").is_none(), "{output}");
    assert_eq!(output["response"], r#"{"name": "Ada", "age": "36"}"#, "the raw answer stays in the JSON");
}

#[test]
fn unusable_schema_files_exit_2_before_any_request() {
    let s = session();
    s.write("prose.json", "a schema, please");
    s.write("bad-type.json", r#"{"type": "strng"}"#);
    s.write("huge.json", &format!("{{\"description\": \"{}\"}}", "x".repeat(10 << 20)));
    let cases = [
        ("missing.json", "cannot read it"),
        ("prose.json", "not JSON"),
        ("bad-type.json", "not a usable JSON Schema"),
        ("huge.json", "the file is over 1024 KiB"),
    ];
    for wire in WIRES {
        let mock = MockModel::start(wire);
        for (name, problem) in cases {
            let file = s.workspace.join(name).display().to_string();
            let done = run(&s, &mock, &file, &[]);
            assert_eq!(done.code, Some(2), "{wire:?} {name}: {}", done.stderr);
            assert!(done.stderr.contains(&format!("--output-schema {file}: {problem}")), "{name}: {}", done.stderr);
            assert_eq!(done.stdout, "", "{name}");
        }
        assert!(mock.requests().is_empty(), "{wire:?}: the model was asked");
    }
}

#[test]
fn a_remote_ref_is_refused_and_never_fetched() {
    let s = session();
    let server = CountingListener::start();
    let remote = format!("http://{}/person.json", server.addr());
    let mock = MockModel::start(Wire::OpenAi);
    for schema in [
        json!({ "$ref": remote }),
        json!({ "type": "object", "properties": { "p": { "$ref": remote } } }),
        json!({ "$schema": remote, "type": "object" }),
    ] {
        let file = schema_file(&s, &schema);
        let done = run(&s, &mock, &file, &[]);
        assert_eq!(done.code, Some(2), "{schema}: {}", done.stderr);
        assert!(done.stderr.contains(&remote), "{schema}: {}", done.stderr);
    }
    assert_eq!(server.accepted(), 0, "a schema was fetched");
    assert!(mock.requests().is_empty(), "the model was asked");
}

#[test]
fn the_flag_is_for_headless_runs_only() {
    let s = session();
    let file = schema_file(&s, &person());
    let mock = MockModel::start(Wire::OpenAi);
    let done = s.airlock(&mock, &["-i", "hi", "--output-schema", &file]);
    assert_eq!(done.code, Some(2), "{}", done.stderr);
    assert!(done.stderr.contains("--output-schema"), "{}", done.stderr);
    // No prompt on a terminal would open the UI: a usage error too, not a UI.
    let mut command = s.command(&mock);
    command.args(["--output-schema", &file]);
    let mut pty = Pty::spawn(&command, 120, 30);
    assert_eq!(pty.wait_exit(Duration::from_secs(60)), 2, "{}", pty.transcript());
    assert!(pty.transcript().contains("--output-schema is for headless runs"), "{}", pty.transcript());
    assert!(mock.requests().is_empty());
}

#[test]
fn a_50_mb_answer_exits_55_without_being_parsed() {
    let s = session();
    // One long string of one letter: the loop detector would stop it as chanting first.
    s.write_config("loop_detection = false\n");
    let file = schema_file(&s, &json!({ "type": "string" }));
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::text(format!("\"{}\"", "a".repeat(50 << 20))));
    let done = run(&s, &mock, &file, &[]);
    assert_eq!(done.code, Some(55), "{}", done.stderr);
    assert_eq!(done.stdout, "");
    assert!(done.stderr.contains("the final answer is 50 MiB, over the 16 MiB"), "{}", done.stderr);
}

#[test]
fn a_recursive_schema_is_sent_loose_and_checked_by_the_host() {
    let tree = json!({
        "type": "object",
        "properties": { "name": { "type": "string" }, "children": { "type": "array", "items": { "$ref": "#" } } },
        "required": ["name", "children"],
        "additionalProperties": false
    });
    for wire in [Wire::OpenAi, Wire::Anthropic] {
        let s = session();
        let file = schema_file(&s, &tree);
        let mock = MockModel::start(wire);
        mock.push_turn(Turn::text(r#"{"name": "a", "children": [{"name": "b", "children": []}]}"#));
        mock.push_turn(Turn::text(r#"{"name": "a", "children": [{"name": "b"}]}"#));
        let done = run(&s, &mock, &file, &[]);
        assert_eq!(done.code, Some(0), "{wire:?}: {}", done.stderr);
        assert_eq!(done.stdout, "{\"children\":[{\"children\":[],\"name\":\"b\"}],\"name\":\"a\"}\n", "{wire:?}");
        let done = run(&s, &mock, &file, &[]);
        assert_eq!(done.code, Some(55), "{wire:?}: {}", done.stderr);
        assert!(done.stderr.contains("at /children/0: \"children\" is a required property"), "{}", done.stderr);
        let requests = mock.requests();
        match wire {
            // Strict decoding takes no recursion: OpenAI gets the schema loose, Anthropic none.
            Wire::OpenAi => assert_eq!(requests[0]["response_format"]["json_schema"]["strict"], false),
            _ => assert!(requests[0].get("output_config").is_none(), "{}", requests[0]),
        }
    }
}

#[test]
fn a_schema_can_come_from_a_pipe() {
    let s = session();
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::text(r#"{"name": "Ada", "age": 36}"#));
    // As `--output-schema <(make-schema)` gives it: a pipe, read to its end.
    let mut command = s.command(&mock);
    command.args(["-p", "who is it?", "--output-schema", "/dev/stdin"]);
    let done = run_bounded(command, Some(&person().to_string()), Duration::from_secs(120));
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert_eq!(done.stdout, "{\"age\":36,\"name\":\"Ada\"}\n");
    assert_eq!(sent_schema(Wire::OpenAi, &mock.requests()[0]), person());
}
