//! Sessions, resume, history compression, loop detection, AIRLOCK.md context files and
//! per-turn usage: the real `airlock` binary against the scripted mock model, asserting on
//! what it printed, what it recorded, and what the model was sent.

use std::path::{Path, PathBuf};
use std::process::Command;

use std::time::Duration;

use airlock_tests::pty::Pty;
use airlock_tests::{
    FAST_RETRIES, MockModel, Session, Turn, Wire, call, declared_tools, function_responses, run_bounded,
};
use serde_json::{Value, json};

use crate::session;

const WIRES: [Wire; 3] = [Wire::Gemini, Wire::OpenAi, Wire::Anthropic];

/// The binary pointed at `mock` with `workspace` instead of the session's own.
fn command_in(s: &Session, mock: &MockModel, workspace: &Path) -> Command {
    let mut command = s.bare_command();
    let provider = match mock.wire() {
        Wire::Gemini => "gemini",
        Wire::OpenAi => "openai",
        Wire::Anthropic => "anthropic",
    };
    command
        .args(["--provider", provider, "--base-url", &mock.base_url(), "-m", "test-model", "--workspace"])
        .arg(workspace);
    command
}

fn session_files(s: &Session) -> Vec<PathBuf> {
    let dir = s.airlock_home().join("sessions");
    // The session files, not the audit trails beside them.
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|entries| entries.filter_map(Result::ok).map(|e| e.path()).collect())
        .unwrap_or_default();
    files.retain(|p| !p.to_string_lossy().ends_with(".audit.jsonl"));
    files.sort();
    files
}

fn records(path: &Path) -> Vec<Value> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    text.lines().map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}"))).collect()
}

fn json_output(stdout: &str) -> Value {
    serde_json::from_str(stdout).unwrap_or_else(|e| panic!("not JSON ({e}): {stdout}"))
}

/// The system prompt a request body carries, on any wire.
fn system_of(body: &Value) -> String {
    let text = if body.get("systemInstruction").is_some() {
        &body["systemInstruction"]["parts"][0]["text"]
    } else if body["messages"][0]["role"] == "system" {
        &body["messages"][0]["content"]
    } else {
        &body["system"]
    };
    text.as_str().unwrap_or_default().to_owned()
}

/// The texts of the conversation's messages in order (not the system prompt), on any wire:
/// text parts, call names and response contents, one string per message.
fn conversation(body: &Value) -> Vec<String> {
    let messages = body["contents"].as_array().or_else(|| body["messages"].as_array()).cloned().unwrap_or_default();
    messages
        .iter()
        .filter(|m| m["role"] != "system")
        .map(|m| {
            let parts = m["parts"].as_array().or_else(|| m["content"].as_array()).cloned();
            match parts {
                Some(parts) => parts.iter().map(part_text).collect::<Vec<_>>().join(" | "),
                None => {
                    let mut text = m["content"].as_str().unwrap_or_default().to_owned();
                    for call in m["tool_calls"].as_array().into_iter().flatten() {
                        text.push_str(&format!("call {}", call["function"]["name"].as_str().unwrap_or_default()));
                    }
                    text
                }
            }
        })
        .collect()
}

fn part_text(part: &Value) -> String {
    if let Some(text) = part["text"].as_str() {
        return text.to_owned();
    }
    if let Some(call) = part.get("functionCall") {
        return format!("call {}", call["name"].as_str().unwrap_or_default());
    }
    if part["type"] == "tool_use" {
        return format!("call {}", part["name"].as_str().unwrap_or_default());
    }
    if let Some(response) = part.get("functionResponse") {
        return response["response"].to_string();
    }
    part["content"].to_string()
}

fn position(conversation: &[String], needle: &str) -> usize {
    conversation
        .iter()
        .position(|m| m.contains(needle))
        .unwrap_or_else(|| panic!("`{needle}` not in the conversation: {conversation:#?}"))
}

#[test]
fn resume_continues_the_conversation_with_its_tool_pairs() {
    for wire in WIRES {
        let s = session();
        s.write("a.txt", "ALPHA CONTENT\n");
        let mock = MockModel::start(wire);
        mock.push_turn(Turn::calls(vec![call("read_file", json!({"file_path": "a.txt"})).with_id("call_a1")]));
        mock.push_turn(Turn::text("It says ALPHA."));
        let first = s.airlock(&mock, &["-p", "read a.txt", "-o", "json"]);
        assert_eq!(first.code, Some(0), "{wire:?}: {}", first.stderr);
        let first_id = json_output(&first.stdout)["session_id"].as_str().unwrap().to_owned();

        mock.push_turn(Turn::text("You asked me to read a.txt."));
        let second = s.airlock(&mock, &["--resume", "-p", "what did I ask?", "-o", "json"]);
        assert_eq!(second.code, Some(0), "{wire:?}: {}", second.stderr);
        let output = json_output(&second.stdout);
        assert_eq!(output["session_id"], first_id.as_str(), "{wire:?}");
        assert!(output["warnings"].as_array().unwrap().is_empty(), "{wire:?}: {output}");

        let request = &mock.requests()[2];
        let said = conversation(request);
        let order = [
            position(&said, "read a.txt"),
            position(&said, "call read_file"),
            position(&said, "ALPHA CONTENT"),
            position(&said, "It says ALPHA."),
            position(&said, "what did I ask?"),
        ];
        assert!(order.windows(2).all(|w| w[0] < w[1]), "{wire:?}: {order:?} in {said:#?}");
        let sent = function_responses(request);
        assert_eq!(
            (sent.len(), sent[0].0.as_str(), sent[0].1.trim_end()),
            (1, "read_file", "ALPHA CONTENT"),
            "{wire:?}"
        );
        assert!(!declared_tools(request).is_empty());

        let files = session_files(&s);
        assert_eq!(files.len(), 1, "{wire:?}: one file, appended to");
        let lines = records(&files[0]);
        assert_eq!(lines[0]["type"], "session");
        assert_eq!(lines[0]["id"], first_id.as_str());
        assert_eq!(lines[0]["workspace"], s.workspace.to_str().unwrap());
        assert!(lines.iter().any(|l| l["type"] == "resumed"), "{wire:?}");
        let messages = lines.iter().filter(|l| l["type"] == "message").count();
        assert_eq!(messages, 6, "{wire:?}: prompt, call, result, answer, prompt, answer");
    }
}

#[test]
fn sessions_list_shows_recorded_sessions_newest_first() {
    let s = session();
    let mock = MockModel::start(Wire::OpenAi);
    let empty = Session::run({
        let mut c = s.bare_command();
        c.args(["sessions", "list"]);
        c
    });
    assert_eq!((empty.code, empty.stdout.as_str()), (Some(0), "no recorded sessions\n"), "{}", empty.stderr);
    mock.push_turn(Turn::text("one"));
    assert_eq!(s.airlock(&mock, &["-p", "the first\nprompt"]).code, Some(0));
    mock.push_turn(Turn::text("two"));
    assert_eq!(s.airlock(&mock, &["-p", "the second prompt"]).code, Some(0));

    let listed = Session::run({
        let mut c = s.bare_command();
        c.args(["sessions", "list", "--json"]);
        c
    });
    assert_eq!(listed.code, Some(0), "{}", listed.stderr);
    let sessions = json_output(&listed.stdout);
    let sessions = sessions.as_array().unwrap();
    assert_eq!(sessions.len(), 2);
    assert_eq!(sessions[0]["first_prompt"], "the second prompt");
    assert_eq!(sessions[1]["first_prompt"], "the first prompt");
    for entry in sessions {
        assert_eq!(entry["workspace"], s.workspace.to_str().unwrap());
        assert_eq!(entry["turns"], 1);
        assert_eq!(entry["provider"], "openai");
        assert_eq!(entry["model"], "test-model");
        assert_eq!(entry["id"].as_str().unwrap().len(), 16);
        assert!(entry["started"].as_str().unwrap().ends_with('Z'));
    }

    let text = Session::run({
        let mut c = s.bare_command();
        c.args(["sessions", "list"]);
        c
    });
    let newest = sessions[0]["id"].as_str().unwrap();
    assert!(text.stdout.starts_with(newest), "{}", text.stdout);
    assert!(text.stdout.contains("1 turn") && text.stdout.contains("\"the first prompt\""), "{}", text.stdout);
}

#[test]
fn resume_latest_picks_the_newest_session_of_the_workspace() {
    let s = session();
    let other_dir = tempfile::tempdir().unwrap();
    let other = other_dir.path().canonicalize().unwrap();
    let mock = MockModel::start(Wire::Gemini);
    for prompt in ["alpha prompt", "beta prompt"] {
        mock.push_turn(Turn::text("noted"));
        let done = s.airlock(&mock, &["-p", prompt, "-o", "json"]);
        assert_eq!(done.code, Some(0), "{}", done.stderr);
    }
    let alpha_id = {
        let listed = Session::run({
            let mut c = s.bare_command();
            c.args(["sessions", "list", "--json"]);
            c
        });
        json_output(&listed.stdout)[1]["id"].as_str().unwrap().to_owned()
    };
    mock.push_turn(Turn::text("elsewhere"));
    let elsewhere = Session::run({
        let mut c = command_in(&s, &mock, &other);
        c.args(["-p", "gamma prompt in another workspace"]);
        c
    });
    assert_eq!(elsewhere.code, Some(0), "{}", elsewhere.stderr);

    mock.push_turn(Turn::text("continued"));
    let latest = s.airlock(&mock, &["--resume", "latest", "-p", "go on"]);
    assert_eq!(latest.code, Some(0), "{}", latest.stderr);
    let said = conversation(&mock.last_request().unwrap());
    assert!(said[0].contains("beta prompt"), "{said:#?}");
    assert!(!said.iter().any(|m| m.contains("alpha prompt") || m.contains("gamma")), "{said:#?}");

    mock.push_turn(Turn::text("back to alpha"));
    let by_id = s.airlock(&mock, &["--resume", &alpha_id[..6], "-p", "and alpha?"]);
    assert_eq!(by_id.code, Some(0), "{}", by_id.stderr);
    let said = conversation(&mock.last_request().unwrap());
    assert!(said[0].contains("alpha prompt") && !said.iter().any(|m| m.contains("beta")), "{said:#?}");
}

#[test]
fn an_unknown_session_exits_with_a_clear_error() {
    let s = session();
    let mock = MockModel::start(Wire::OpenAi);
    let done = s.airlock(&mock, &["--resume", "nosuchid", "-p", "hello"]);
    assert_eq!(done.code, Some(52), "{}", done.stderr);
    assert!(done.stderr.contains("no session `nosuchid`"), "{}", done.stderr);
    assert!(done.stderr.contains("airlock sessions list"), "{}", done.stderr);
    let done = s.airlock(&mock, &["--resume", "-p", "hello"]);
    assert_eq!(done.code, Some(52), "{}", done.stderr);
    assert!(done.stderr.contains("no recorded session for the workspace"), "{}", done.stderr);
    assert!(mock.requests().is_empty());
}

#[test]
fn compression_summarises_older_turns_and_keeps_recent_pairs_intact() {
    for wire in WIRES {
        let s = session();
        s.write_config(&format!("context_window_tokens = 10000\n{FAST_RETRIES}"));
        s.write("a.txt", &"old content line\n".repeat(500));
        s.write("b.txt", "RECENT CONTENT\n");
        let mock = MockModel::start(wire);
        mock.push_turn(Turn::calls(vec![call("read_file", json!({"file_path": "a.txt"}))]));
        mock.push_turn(Turn::text("done with a"));
        let first = s.airlock(&mock, &["-p", "first task"]);
        assert_eq!(first.code, Some(0), "{wire:?}: {}", first.stderr);
        assert!(!first.stderr.contains("compressed"), "{wire:?}: {}", first.stderr);

        // The model reports a request near the window: before the next one, the older
        // prompt is summarised and the current one kept with its call and result.
        mock.push_turn(Turn::calls(vec![call("read_file", json!({"file_path": "b.txt"}))]).with_usage(7_100, 10));
        mock.push_turn(Turn::text("SUMMARY-TEXT: the user had a.txt read."));
        mock.push_turn(Turn::text("finished"));
        let second = s.airlock(&mock, &["--resume", "-p", "second task", "-o", "json"]);
        assert_eq!(second.code, Some(0), "{wire:?}: {}", second.stderr);
        let output = json_output(&second.stdout);
        assert_eq!(output["response"], "finished", "{wire:?}");
        assert_eq!(output["stats"]["compressions"], 1, "{wire:?}");
        let warnings = output["warnings"].as_array().unwrap();
        assert!(warnings.is_empty(), "{wire:?}: {warnings:?}");
        let kinds: Vec<&str> =
            output["stats"]["turns_detail"].as_array().unwrap().iter().map(|t| t["kind"].as_str().unwrap()).collect();
        assert_eq!(kinds, ["answer", "summary", "answer"], "{wire:?}");

        let requests = mock.requests();
        assert_eq!(requests.len(), 5, "{wire:?}");
        let summarising = &requests[3];
        assert!(declared_tools(summarising).is_empty(), "{wire:?}: no tools in the summary request");
        let asked = conversation(summarising);
        assert_eq!(asked.len(), 1, "{wire:?}: {asked:#?}");
        assert!(asked[0].contains("<conversation>") && asked[0].contains("first task"), "{wire:?}");
        assert!(asked[0].contains("old content line") && asked[0].contains("done with a"), "{wire:?}");
        assert!(!asked[0].contains("second task"), "{wire:?}: the kept part is not summarised");

        let next = &requests[4];
        let said = conversation(next);
        assert!(said[0].starts_with("Summary of the earlier conversation:"), "{wire:?}: {said:#?}");
        assert!(said[0].contains("SUMMARY-TEXT"), "{wire:?}");
        let text = said.join("\n");
        assert!(!text.contains("old content line") && !text.contains("done with a"), "{wire:?}: {text}");
        assert!(position(&said, "second task") < position(&said, "call read_file"), "{wire:?}");
        let sent = function_responses(next);
        assert_eq!(
            (sent.len(), sent[0].0.as_str(), sent[0].1.trim_end()),
            (1, "read_file", "RECENT CONTENT"),
            "{wire:?}"
        );
        assert_eq!(system_of(next), system_of(&requests[0]), "{wire:?}");

        let lines = records(&session_files(&s)[0]);
        let compressed: Vec<&Value> = lines.iter().filter(|l| l["type"] == "compressed").collect();
        assert_eq!(compressed.len(), 1, "{wire:?}");
        assert_eq!(compressed[0]["replaced"], 4, "{wire:?}: prompt, call, result, answer");

        // A later resume starts from the compression, not from the first line.
        mock.push_turn(Turn::text("third answer"));
        let third = s.airlock(&mock, &["--resume", "-p", "third task"]);
        assert_eq!(third.code, Some(0), "{wire:?}: {}", third.stderr);
        let said = conversation(&mock.last_request().unwrap());
        assert!(said[0].starts_with("Summary of the earlier conversation:"), "{wire:?}: {said:#?}");
        assert!(position(&said, "finished") < position(&said, "third task"), "{wire:?}");
        assert!(!said.join("\n").contains("old content line"), "{wire:?}");
    }
}

#[test]
fn a_failed_summary_keeps_the_whole_history_and_goes_on() {
    let s = session();
    s.write_config("context_window_tokens = 10000\n[retry]\nmax_attempts = 1\n");
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::text("first answer"));
    assert_eq!(s.airlock(&mock, &["-p", "first task"]).code, Some(0));
    mock.push_turn(Turn::calls(vec![call("list_directory", json!({"dir_path": "."}))]).with_usage(7_500, 10));
    mock.push_turn(Turn::status(500, "summariser on fire"));
    mock.push_turn(Turn::text("finished anyway"));
    let done = s.airlock(&mock, &["--resume", "-p", "second task"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert!(done.stderr.contains("could not compress the conversation"), "{}", done.stderr);
    assert!(done.stdout.contains("finished anyway"));
    let said = conversation(&mock.last_request().unwrap());
    assert!(said[0].contains("first task") && said.iter().any(|m| m.contains("first answer")), "{said:#?}");
}

#[test]
fn repeated_calls_get_a_nudge_then_a_stop_with_the_loop_exit_code() {
    for wire in [Wire::Gemini, Wire::Anthropic] {
        let s = session();
        s.write("a.txt", "A\n");
        let mock = MockModel::start(wire);
        for _ in 0..10 {
            mock.push_turn(Turn::calls(vec![call("read_file", json!({"file_path": "a.txt"}))]));
        }
        let done = s.airlock(&mock, &["-p", "read it", "-o", "json"]);
        assert_eq!(done.code, Some(54), "{wire:?}: {}", done.stderr);
        let output = json_output(&done.stdout);
        assert_eq!(output["status"], "loop_detected", "{wire:?}");
        assert_eq!(output["error"]["type"], "loop_detected");
        let message = output["error"]["message"].as_str().unwrap();
        assert!(message.contains("`read_file`") && message.contains("loop_detection = false"), "{message}");
        let warnings = output["warnings"].as_array().unwrap();
        assert!(warnings.iter().any(|w| w.as_str().unwrap().starts_with("loop detected")), "{warnings:?}");
        assert_eq!(output["stats"]["tools"]["total"], 8, "{wire:?}: the 5th and 10th calls are not run");

        let requests = mock.requests();
        assert_eq!(requests.len(), 10, "{wire:?}");
        for (n, request) in requests.iter().enumerate() {
            let nudged = conversation(request).iter().any(|m| m.contains("[airlock] Loop detected"));
            assert_eq!(nudged, n >= 5, "{wire:?}: request {n}");
        }
        let answered = function_responses(&requests[5]);
        assert!(answered[0].1.starts_with("Error: not run: airlock detected a loop"), "{wire:?}: {answered:?}");
    }
}

#[test]
fn chanting_text_is_cut_off_and_the_model_is_nudged() {
    let s = session();
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::text("I am sure I should check the same thing again now. ".repeat(40)));
    mock.push_turn(Turn::text("Changing approach."));
    let done = s.airlock(&mock, &["-p", "think"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert!(done.stderr.contains("loop detected: the model wrote the same 51-byte passage"), "{}", done.stderr);
    let said = conversation(&mock.requests()[1]);
    let chant = &said[1];
    assert!(chant.starts_with("I am sure") && chant.len() < 40 * 51, "the chant is cut off: {}", chant.len());
    assert!(said[2].contains("[airlock] Loop detected") && said[2].contains("cut off"), "{said:#?}");
    assert!(done.stdout.ends_with("Changing approach.\n"), "{}", done.stdout);
}

/// The status list of issue 24, which the old detector stopped (exit 54, printed twice).
const STATUS_LIST: &str = "I went through every module:\n\n\
    - src/module_1.rs: no changes needed; its tests pass and its docs are current.\n\
    - src/module_2.rs: no changes needed; its tests pass and its docs are current.\n\
    - src/module_3.rs: no changes needed; its tests pass and its docs are current.\n\
    - src/module_4.rs: no changes needed; its tests pass and its docs are current.\n\
    - src/module_5.rs: no changes needed; its tests pass and its docs are current.\n\
    - src/module_6.rs: no changes needed; its tests pass and its docs are current.\n\
    - src/module_7.rs: no changes needed; its tests pass and its docs are current.\n\
    - src/module_8.rs: no changes needed; its tests pass and its docs are current.\n\
    - src/module_9.rs: no changes needed; its tests pass and its docs are current.\n\
    - src/module_10.rs: no changes needed; its tests pass and its docs are current.\n\
    - src/module_11.rs: no changes needed; its tests pass and its docs are current.\n\
    - src/module_12.rs: no changes needed; its tests pass and its docs are current.\n\n\
    Nothing else to do.";

#[test]
fn a_twelve_item_status_list_is_answered_once_with_exit_0() {
    for wire in WIRES {
        let s = session();
        let mock = MockModel::start(wire);
        mock.push_turn(Turn::text(STATUS_LIST));
        let done = s.airlock(&mock, &["-p", "check every module"]);
        assert_eq!(done.code, Some(0), "{wire:?}: {}", done.stderr);
        assert_eq!(done.stdout, format!("{STATUS_LIST}\n"), "{wire:?}: printed once, whole");
        assert!(!done.stderr.contains("loop"), "{wire:?}: {}", done.stderr);
        assert_eq!(mock.requests().len(), 1, "{wire:?}: one model request");
    }
}

/// A sentence the model chants; the mock streams 40 of them in three pieces of 680
/// characters, so the first piece (where the loop is found) ends mid-word.
const CHANT: &str = "I am sure I should check the same thing again now. ";

/// `line` is what was shown of a chant cut off while it streamed: a beginning of it, past
/// the point where the loop is found, ending mid-word.
fn assert_cut_chant(line: &str) {
    let chant = CHANT.repeat(40);
    assert!(chant.starts_with(line) && line.len() > 500 && line.len() < chant.len(), "not a cut chant: {line:?}");
    assert!(line.ends_with(|c: char| c.is_alphabetic()), "cut mid-word: {line:?}");
}

#[test]
fn a_cut_answer_stays_as_shown_and_the_retry_starts_on_a_new_line() {
    let s = session();
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::text(CHANT.repeat(40)));
    mock.push_turn(Turn::text("Changing approach."));
    let done = s.airlock(&mock, &["-p", "think"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let lines: Vec<&str> = done.stdout.split_inclusive('\n').collect();
    assert_eq!(lines.len(), 2, "{:?}", done.stdout);
    assert_cut_chant(lines[0].trim_end_matches('\n'));
    assert_eq!(lines[1], "Changing approach.\n");
    assert!(
        done.stderr.contains("warning: loop detected: the model wrote the same 51-byte passage"),
        "{}",
        done.stderr
    );
    // The history keeps the first copy only: the retry does not pay for the others.
    let said = conversation(&mock.requests()[1]);
    assert_eq!(said[1], CHANT, "{said:#?}");
    assert!(said[2].contains("[airlock] Loop detected") && said[2].contains("cut off"), "{said:#?}");
}

#[test]
fn a_second_loop_stops_the_run_with_each_answer_on_its_own_line() {
    let s = session();
    let mock = MockModel::start(Wire::Gemini);
    mock.push_turn(Turn::text(CHANT.repeat(40)));
    mock.push_turn(Turn::text(CHANT.repeat(40)));
    mock.push_turn(Turn::text("never asked for"));
    let done = s.airlock(&mock, &["-p", "think"]);
    assert_eq!(done.code, Some(54), "{}", done.stderr);
    let lines: Vec<&str> = done.stdout.split_inclusive('\n').collect();
    assert_eq!(lines.len(), 2, "{:?}", done.stdout);
    for line in lines {
        assert!(line.ends_with('\n'), "{line:?}");
        assert_cut_chant(line.trim_end_matches('\n'));
    }
    let last = done.stderr.lines().last().unwrap_or_default();
    assert!(last.starts_with("airlock: stopped: the model wrote the same"), "{}", done.stderr);
    assert_eq!(mock.requests().len(), 2, "no request after the stop");
}

#[test]
fn a_looping_stream_is_dropped_at_once_not_read_to_its_end() {
    // The chant's stream never ends: were it read to its end, the run would wait out the
    // idle timeout (10 minutes) and the bound below would kill it.
    let s = session();
    s.write_config(&format!("idle_timeout_secs = 600\n{FAST_RETRIES}"));
    let mock = MockModel::start(Wire::Anthropic);
    mock.push_turn(Turn::stall_after_text(CHANT.repeat(40)));
    mock.push_turn(Turn::text("Changing approach."));
    let mut command = s.command(&mock);
    command.args(["-p", "think"]);
    let done = run_bounded(command, Some(""), Duration::from_secs(60));
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert!(done.stdout.ends_with("\nChanging approach.\n"), "{}", done.stdout);
    assert_eq!(mock.requests().len(), 2);
}

#[test]
fn a_loop_cut_on_a_shared_terminal_leaves_the_warning_on_its_own_line() {
    // stdout and stderr on one terminal: the warning must not start where the cut text
    // stopped, and the retry must not start on the warning's line.
    let s = session();
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::text(CHANT.repeat(40)));
    mock.push_turn(Turn::text("Changing approach."));
    let mut command = s.command(&mock);
    command.args(["-p", "think"]);
    let mut pty = Pty::spawn(&command, 800, 40);
    assert_eq!(pty.wait_exit(Duration::from_secs(60)), 0, "{}", pty.screen());
    let screen = pty.screen();
    let rows: Vec<&str> = screen.lines().map(str::trim_end).filter(|row| !row.is_empty()).collect();
    let warning =
        rows.iter().position(|row| row.starts_with("warning: loop detected")).unwrap_or_else(|| panic!("{screen}"));
    assert!(warning > 0, "{screen}");
    assert_cut_chant(rows[warning - 1]);
    assert_eq!(rows.get(warning + 1), Some(&"Changing approach."), "{screen}");
}

#[test]
fn loop_detection_can_be_turned_off() {
    let s = session();
    s.write_config(&format!("loop_detection = false\n{FAST_RETRIES}"));
    s.write("a.txt", "A\n");
    let mock = MockModel::start(Wire::OpenAi);
    for _ in 0..6 {
        mock.push_turn(Turn::calls(vec![call("read_file", json!({"file_path": "a.txt"}))]));
    }
    mock.push_turn(Turn::text("done"));
    let done = s.airlock(&mock, &["-p", "read it again and again"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert_eq!(done.stderr.matches("✓ read_file").count(), 6, "{}", done.stderr);
    assert!(!done.stderr.contains("loop detected"), "{}", done.stderr);
}

#[test]
fn context_files_from_home_root_and_subfolder_reach_the_system_prompt_in_order() {
    for wire in WIRES {
        let s = session();
        std::fs::write(s.airlock_home().join("AIRLOCK.md"), "HOME-RULES: be brief\n").unwrap();
        s.write("AIRLOCK.md", "ROOT-RULES: use tabs\n");
        s.write("sub/AIRLOCK.md", "SUB-RULES: this folder is generated\n");
        s.write("sub/deeper/.keep", "");
        let mock = MockModel::start(wire);
        mock.push_turn(Turn::text("ok"));
        let done = Session::run({
            let mut c = s.command(&mock);
            c.args(["-p", "hello"]).current_dir(s.workspace.join("sub/deeper"));
            c
        });
        assert_eq!(done.code, Some(0), "{wire:?}: {}", done.stderr);
        let system = system_of(&mock.requests()[0]);
        let at = |needle: &str| system.find(needle).unwrap_or_else(|| panic!("{wire:?}: no {needle} in {system}"));
        assert!(at("You are airlock") < at("HOME-RULES") && at("HOME-RULES") < at("ROOT-RULES"), "{wire:?}");
        assert!(at("ROOT-RULES") < at("SUB-RULES"), "{wire:?}");
        assert!(system.contains(&format!("--- Context from: {}", s.workspace.join("sub/AIRLOCK.md").display())));
    }
}

#[test]
fn show_context_lists_the_sources_and_the_prompt_and_exits() {
    let s = session();
    std::fs::write(s.airlock_home().join("AIRLOCK.md"), "HOME-RULES\n").unwrap();
    s.write("AIRLOCK.md", &"x".repeat(40 * 1024));
    s.write("sub/AIRLOCK.md", "SUB-RULES\n");
    let done = Session::run({
        let mut c = s.bare_command();
        c.arg("--workspace").arg(&s.workspace).arg("--show-context").current_dir(s.workspace.join("sub"));
        c
    });
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let out = &done.stdout;
    let home = s.airlock_home().join("AIRLOCK.md").display().to_string();
    let root = s.workspace.join("AIRLOCK.md").display().to_string();
    let sub = s.workspace.join("sub/AIRLOCK.md").display().to_string();
    assert!(out.contains(&format!("{home}  11 bytes")), "{out}");
    assert!(out.contains(&format!("{root}  40960 bytes  (cut at 32768 of 40960 bytes")), "{out}");
    assert!(out.contains(&format!("{sub}  10 bytes")), "{out}");
    assert!(out.find(&home) < out.find(&root) && out.find(&root) < out.find(&sub), "{out}");
    assert!(out.contains("System prompt") && out.contains("You are airlock") && out.contains("SUB-RULES"), "{out}");
}

#[test]
fn usage_is_reported_per_turn_in_json_stream_json_and_the_session_file() {
    let s = session();
    s.write("a.txt", "A\n");
    let mock = MockModel::start(Wire::Anthropic);
    mock.push_turn(Turn::calls(vec![call("read_file", json!({"file_path": "a.txt"}))]).with_usage(50, 5));
    mock.push_turn(Turn::text("It says A.").with_usage(70, 4));
    let done = s.airlock(&mock, &["-p", "read a", "-o", "json"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let stats = &json_output(&done.stdout)["stats"];
    assert_eq!(stats["tokens"], json!({"input": 120, "output": 9, "total": 129}));
    assert_eq!(
        stats["turns_detail"],
        json!([
            {"turn": 1, "kind": "answer", "input": 50, "output": 5, "total": 55},
            {"turn": 2, "kind": "answer", "input": 70, "output": 4, "total": 74},
        ])
    );
    let usage: Vec<Value> = records(&session_files(&s)[0]).into_iter().filter(|l| l["type"] == "usage").collect();
    assert_eq!(usage.len(), 2);
    assert_eq!((usage[1]["turn"].as_u64(), usage[1]["input_tokens"].as_u64()), (Some(2), Some(70)));

    mock.push_turn(Turn::text("again").with_usage(30, 3));
    let done = s.airlock(&mock, &["-p", "once more", "-o", "stream-json"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let events: Vec<Value> = done.stdout.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    let usage: Vec<&Value> = events.iter().filter(|e| e["type"] == "usage").collect();
    assert_eq!(usage.len(), 1);
    assert_eq!((usage[0]["turn"].as_u64(), usage[0]["kind"].as_str()), (Some(1), Some("answer")));
    assert_eq!((usage[0]["input_tokens"].as_u64(), usage[0]["output_tokens"].as_u64()), (Some(30), Some(3)));
    let result = events.last().unwrap();
    assert_eq!(result["stats"]["turns_detail"][0]["total"], 33);
}
