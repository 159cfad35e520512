//! The audit trail: a real session's calls — approved by a rule, by the kind's default, by a
//! person (answers piped), by yolo mode in a resumed run, and one refused — recorded on one
//! chain that `airlock audit verify` passes and `airlock audit show` names each decider of;
//! copies of the trail tampered with one byte changed, a record removed, two swapped and
//! the last removed, each named by `verify`; and a trail left by a `kill -9` mid-session.
// Set-up helpers unwrap: a failed set-up step should fail the test loudly.
#![allow(clippy::unwrap_used)]

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use airlock_tests::{Finished, MockModel, Session, Turn, Wire, call};
use serde_json::{Value, json};

use crate::{run_args, session, write_policy};

/// The session file of `s` (there is one) and its trail.
fn files(s: &Session) -> (PathBuf, PathBuf) {
    let dir = s.airlock_home().join("sessions");
    let mut sessions: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl") && !p.to_string_lossy().ends_with(".audit.jsonl"))
        .collect();
    assert_eq!(sessions.len(), 1, "{sessions:?}");
    let session = sessions.remove(0);
    let trail = session.with_extension("audit.jsonl");
    (session, trail)
}

/// A run with `--ask`, answering the questions with `answers` on stdin.
fn ask(s: &Session, mock: &MockModel, answers: &str) -> Finished {
    let mut command = s.command(mock);
    command.args(["-p", "work", "--ask"]).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = command.spawn().unwrap();
    child.stdin.take().unwrap().write_all(answers.as_bytes()).unwrap();
    let output = child.wait_with_output().unwrap();
    Finished {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

fn lines(path: &Path) -> Vec<String> {
    std::fs::read_to_string(path).unwrap().lines().map(str::to_owned).collect()
}

/// `airlock audit verify` on the trail as it is now.
fn verify(s: &Session) -> Finished {
    run_args(s, &["audit", "verify"])
}

/// `verify` on `trail` written as `changed`; the trail is put back after.
fn verify_changed(s: &Session, trail: &Path, changed: &[String]) -> Finished {
    let original = std::fs::read(trail).unwrap();
    std::fs::write(trail, changed.iter().map(|l| format!("{l}\n")).collect::<String>()).unwrap();
    let done = verify(s);
    std::fs::write(trail, original).unwrap();
    done
}

#[test]
fn a_real_session_verifies_names_each_decider_and_every_tampering_is_caught() {
    let s = session();
    s.write("a.txt", "alpha\n");
    write_policy(&s, "[[rule]]\ntool = \"write_file\"\npath = \"ruled.txt\"\ndecision = \"allow\"\n");
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![call("write_file", json!({"file_path": "ruled.txt", "content": "r"}))]));
    mock.push_turn(Turn::calls(vec![call("read_file", json!({"file_path": "a.txt"}))]));
    mock.push_turn(Turn::calls(vec![call("write_file", json!({"file_path": "asked.txt", "content": "a"}))]));
    mock.push_turn(Turn::calls(vec![call("write_file", json!({"file_path": "refused.txt", "content": "n"}))]));
    mock.push_turn(Turn::text("done"));
    let done = ask(&s, &mock, "y\nn\n");
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert_eq!((s.read("ruled.txt").as_deref(), s.read("refused.txt")), (Some("r"), None));

    // A resumed run continues the same chain.
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![call("write_file", json!({"file_path": "yolo.txt", "content": "y"}))]));
    mock.push_turn(Turn::text("done"));
    let done = s.airlock(&mock, &["--resume", "latest", "-p", "more", "--approval-mode", "yolo"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);

    let verified = verify(&s);
    assert_eq!(verified.code, Some(0), "{}{}", verified.stdout, verified.stderr);
    // start, 4 calls, end; start, 1 call, end.
    assert!(verified.stdout.contains("9 records, chain whole, head matches the session file"), "{}", verified.stdout);

    let shown = run_args(&s, &["audit", "show"]);
    assert_eq!(shown.code, Some(0), "{}", shown.stderr);
    let call_lines: Vec<&str> = shown.stdout.lines().filter(|l| l.contains(" call ")).collect();
    assert_eq!(call_lines.len(), 5, "{}", shown.stdout);
    let expected = [
        ("write_file", "by user rule", "success"),
        ("read_file", "by default (read needs no approval)", "success"),
        ("write_file", "by user (once)", "success"),
        ("write_file", "by user (refused)", "error (policy_denied)"),
        ("write_file", "by mode yolo", "success"),
    ];
    for (line, (tool, by, outcome)) in call_lines.iter().zip(expected) {
        assert!(line.contains(tool) && line.contains(by) && line.contains(outcome), "{line}");
    }
    assert!(call_lines[0].contains("policy.toml:1 (allow)"), "{}", call_lines[0]);

    let json = run_args(&s, &["audit", "show", "--json"]);
    let records: Vec<Value> = serde_json::from_str(&json.stdout).unwrap_or_else(|e| panic!("{e}: {}", json.stdout));
    let kinds: Vec<&str> = records.iter().map(|r| r["type"].as_str().unwrap()).collect();
    assert_eq!(kinds, ["start", "call", "call", "call", "call", "end", "start", "call", "end"]);
    assert_eq!(records[6]["resumed"], true);
    let read = &records[2];
    let expected_args = airlock_engine::audit::record::digest(json!({"file_path": "a.txt"}).to_string().as_bytes());
    assert_eq!(read["args_sha256"], expected_args.as_str());
    assert_eq!((read["plugin"].as_str().unwrap(), read["digest"].as_str().unwrap().len()), ("read-file", 64));
    assert!(read["grant"]["files"][0].as_str().unwrap().ends_with(s.workspace.to_str().unwrap()), "{read}");
    assert!(records[0]["plugins"].as_array().unwrap().iter().any(|p| p["name"] == "read-file"));
    let rule = &records[1]["approval"];
    let policy = s.airlock_home().join("policy.toml");
    assert_eq!((&rule["by"], &rule["source"], &rule["line"]), (&json!("rule"), &json!("user"), &json!(1)), "{rule}");
    assert_eq!(rule["file"], policy.to_str().unwrap(), "{rule}");
    assert_eq!(rule["scope"], "tool write_file, path ruled.txt", "{rule}");

    let (_, trail) = files(&s);
    let original = lines(&trail);
    let broken = |changed: Vec<String>, named: &str, what: &str| {
        let done = verify_changed(&s, &trail, &changed);
        assert_eq!(done.code, Some(1), "{what}: {}{}", done.stdout, done.stderr);
        assert!(done.stdout.contains(named) && done.stdout.contains(what), "{what}: {}", done.stdout);
    };
    // One byte of the third record (seq 2, the read) changed.
    let mut changed = original.clone();
    changed[2] = original[2].replacen("\"tool\":\"read_file\"", "\"tool\":\"read_fild\"", 1);
    assert_ne!(changed[2], original[2]);
    broken(changed, "record seq 2 (line 3)", "bytes were changed");
    let mut removed = original.clone();
    removed.remove(2);
    broken(removed, "record seq 3 (line 3)", "gap: seq 2 is missing");
    let mut swapped = original.clone();
    swapped.swap(2, 3);
    broken(swapped, "record seq 3 (line 3)", "out of order");
    let mut cut = original.clone();
    cut.pop();
    broken(cut, "record seq 7 (line 8)", "the tail was removed");
    // Put back whole, it verifies again.
    assert_eq!(verify(&s).code, Some(0));
}

#[test]
fn a_trail_left_by_kill_9_verifies_up_to_its_last_whole_record_and_a_resume_continues_it() {
    let s = session();
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![call("read_file", json!({"file_path": "none.txt"}))]));
    mock.push_turn(Turn::calls(vec![call("write_file", json!({"file_path": "w.txt", "content": "w"}))]));
    mock.push_turn(Turn::text("never reached"));
    let mut command = s.command(&mock);
    // `--ask` with stdin held open: the write waits for an answer that never comes.
    command.args(["-p", "work", "--ask"]).stdin(Stdio::piped()).stdout(Stdio::null()).stderr(Stdio::null());
    let mut child = command.spawn().unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    let sessions = s.airlock_home().join("sessions");
    // Waits for the read's batch: its record, and the head after it, in the session file.
    loop {
        let heads = std::fs::read_dir(&sessions)
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| !p.to_string_lossy().ends_with(".audit.jsonl"))
            .filter_map(|p| std::fs::read_to_string(p).ok())
            .map(|text| text.lines().filter(|l| l.starts_with("{\"type\":\"audit\"")).count())
            .sum::<usize>();
        if heads >= 2 {
            break;
        }
        assert!(Instant::now() < deadline, "the session never recorded its first call");
        std::thread::sleep(Duration::from_millis(50));
    }
    std::thread::sleep(Duration::from_millis(300));
    child.kill().unwrap();
    child.wait().unwrap();
    let (_, trail) = files(&s);
    let kinds: Vec<String> = lines(&trail)
        .iter()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["type"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(kinds, ["start", "call"], "the killed run wrote no end");
    let verified = verify(&s);
    assert_eq!(verified.code, Some(0), "{}{}", verified.stdout, verified.stderr);
    assert!(verified.stdout.contains("2 records, chain whole"), "{}", verified.stdout);

    // A crash mid-write leaves a partial line: left out, said, and cut by the next run.
    std::fs::OpenOptions::new().append(true).open(&trail).unwrap().write_all(b"{\"type\":\"call\",\"se").unwrap();
    let verified = verify(&s);
    assert_eq!(verified.code, Some(0), "{}", verified.stdout);
    assert!(verified.stdout.contains("cut short"), "{}", verified.stdout);
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::text("back"));
    let done = s.airlock(&mock, &["--resume", "latest", "-p", "again"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let verified = verify(&s);
    assert!(verified.stdout.contains("4 records, chain whole, head matches"), "{}", verified.stdout);
}

#[test]
fn the_user_may_turn_the_trail_off_and_a_workspace_may_not() {
    let s = session();
    s.write(".airlock/config.toml", "[audit]\nenabled = false\n");
    assert_eq!(run_args(&s, &["trust"]).code, Some(0));
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::text("hi"));
    let done = s.airlock(&mock, &["-p", "hi"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert!(
        done.stderr.contains("audit at ") && done.stderr.contains("is not used"),
        "refused with a warning: {}",
        done.stderr
    );
    let (_, trail) = files(&s);
    assert!(trail.exists(), "a workspace cannot turn the trail off");

    let s = session();
    s.write_config("[audit]\nenabled = false\n");
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::text("hi"));
    let done = s.airlock(&mock, &["-p", "hi"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let (_, trail) = files(&s);
    assert!(!trail.exists());
    let verified = verify(&s);
    assert_eq!(verified.code, Some(2), "{}", verified.stdout);
    assert!(verified.stderr.contains("audit"), "{}", verified.stderr);
}

#[test]
fn show_prints_what_the_model_named_sanitised_and_an_unknown_tools_call_is_recorded() {
    let s = session();
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![call("evil\u{1b}[2Jtool", json!({}))]));
    mock.push_turn(Turn::text("done"));
    let done = s.airlock(&mock, &["-p", "hi"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let shown = run_args(&s, &["audit", "show"]);
    assert_eq!(shown.code, Some(0), "{}", shown.stderr);
    assert!(!shown.stdout.contains('\u{1b}'), "{:?}", shown.stdout);
    let line = shown.stdout.lines().find(|l| l.contains(" call ")).unwrap_or_else(|| panic!("{}", shown.stdout));
    assert!(line.contains("by nobody") && line.contains("error (tool_not_found)"), "{line}");
    assert_eq!(verify(&s).code, Some(0));
}
