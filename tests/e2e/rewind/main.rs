//! Rewind (issue 29), end to end: a real session's writes — a `replace`, a `write_file`, a
//! shell `sed -i` and `rm` — each undone exactly by `airlock rewind --to N` and by `--call
//! ID`, unrelated files untouched; the conversation only (the next `--resume` sends the
//! model the history before prompt N), the code only, both; `--undo`; a file edited by the
//! user after the checkpoint kept without `--yes` (exit 2) and overwritten with it; `--gc`
//! with a tiny cap; `sessions list`'s space; `-o json`; bad input; what was left out; a file
//! name that steers the terminal, shown sanitised.
// Set-up helpers unwrap: a failed set-up step should fail the test loudly.
#![allow(clippy::unwrap_used)]

mod retention;
mod writers;

use std::path::PathBuf;

use airlock_tests::{Finished, MockModel, Session, Turn, Wire, call};
use serde_json::{Value, json};

use crate::{run_args, session};

/// Runs prompt `text` in yolo mode (writes allowed), resuming the session after the first.
fn prompt(s: &Session, mock: &MockModel, text: &str, resume: bool) -> Finished {
    let mut args = vec!["--approval-mode", "yolo", "-p", text];
    if resume {
        args.push("--resume");
    }
    let done = s.airlock(mock, &args);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    done
}

/// `airlock rewind ARGS`.
fn rewind(s: &Session, args: &[&str]) -> Finished {
    let mut all = vec!["rewind"];
    all.extend_from_slice(args);
    run_args(s, &all)
}

/// The session file (the only one, not the audit trail beside it).
fn session_file(s: &Session) -> PathBuf {
    let dir = s.airlock_home().join("sessions");
    let files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl") && !p.to_string_lossy().ends_with(".audit.jsonl"))
        .collect();
    assert_eq!(files.len(), 1, "{files:?}");
    files[0].clone()
}

/// The session file of session `id`.
fn session_file_of(s: &Session, id: &str) -> PathBuf {
    let dir = s.airlock_home().join("sessions");
    std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().ends_with(&format!("-{id}.jsonl")))
        .unwrap()
}

fn records(s: &Session) -> Vec<Value> {
    let text = std::fs::read_to_string(session_file(s)).unwrap();
    text.lines().filter_map(|l| serde_json::from_str(l).ok()).collect()
}

/// Two prompts: the first replaces a word in `a.txt` and writes `new.txt`; the second runs
/// `sed -i` on `b.txt` and removes `gone.txt` through the shell. `keep.txt` is never touched.
fn two_prompts(s: &Session) -> MockModel {
    s.write("a.txt", "alpha\nbeta\n");
    s.write("b.txt", "one\ntwo\n");
    s.write("gone.txt", "doomed\n");
    s.write("keep.txt", "untouched\n");
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![
        call("replace", json!({"file_path": "a.txt", "old_string": "beta", "new_string": "BETA"})).with_id("c_replace"),
    ]));
    mock.push_turn(Turn::calls(vec![
        call("write_file", json!({"file_path": "new.txt", "content": "fresh\n"})).with_id("c_write"),
    ]));
    mock.push_turn(Turn::text("first done"));
    prompt(s, &mock, "edit a and write new", false);
    mock.push_turn(Turn::calls(vec![
        call("run_shell_command", json!({"command": "sed -i 's/two/TWO/' b.txt && rm gone.txt"})).with_id("c_shell"),
    ]));
    mock.push_turn(Turn::text("second done"));
    prompt(s, &mock, "shell edits", true);
    assert_eq!(s.read("a.txt").as_deref(), Some("alpha\nBETA\n"));
    assert_eq!(s.read("new.txt").as_deref(), Some("fresh\n"));
    assert_eq!(s.read("b.txt").as_deref(), Some("one\nTWO\n"));
    assert_eq!(s.read("gone.txt"), None);
    mock
}

/// Every file as the set-up wrote it, before any prompt.
fn assert_original(s: &Session) {
    assert_eq!(s.read("a.txt").as_deref(), Some("alpha\nbeta\n"));
    assert_eq!(s.read("new.txt"), None);
    assert_eq!(s.read("b.txt").as_deref(), Some("one\ntwo\n"));
    assert_eq!(s.read("gone.txt").as_deref(), Some("doomed\n"));
    assert_eq!(s.read("keep.txt").as_deref(), Some("untouched\n"));
}

#[test]
fn the_list_shows_each_prompt_with_the_files_it_changed() {
    let s = session();
    let _mock = two_prompts(&s);
    let listed = rewind(&s, &["--list"]);
    assert_eq!(listed.code, Some(0), "{}", listed.stderr);
    let lines: Vec<&str> = listed.stdout.lines().collect();
    assert!(lines[0].starts_with("  1  ") && lines[0].contains("edit a and write new"), "{}", listed.stdout);
    assert!(lines[0].ends_with("· 2 files +2 −1"), "{}", listed.stdout);
    assert!(listed.stdout.contains("M a.txt  +1 −1"), "{}", listed.stdout);
    assert!(listed.stdout.contains("A new.txt  +1 −0"), "{}", listed.stdout);
    assert!(listed.stdout.contains("shell edits  · 2 files +1 −2"), "{}", listed.stdout);
    assert!(listed.stdout.contains("D gone.txt  +0 −1"), "{}", listed.stdout);
    assert!(!listed.stdout.contains("keep.txt"), "{}", listed.stdout);

    let json = rewind(&s, &["--list", "-o", "json"]);
    let turns: Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(turns[0]["prompt"], 1);
    assert_eq!(turns[0]["text"], "edit a and write new");
    assert_eq!(turns[0]["calls"], 2);
    assert_eq!(turns[1]["files"][0], json!({"path": "b.txt", "change": "modified", "added": 1, "removed": 1}));
    assert_eq!(turns[1]["files"][1], json!({"path": "gone.txt", "change": "deleted", "added": 0, "removed": 1}));
}

#[test]
fn rewinding_the_code_to_before_each_prompt_undoes_exactly_its_writes_and_undo_puts_them_back() {
    let s = session();
    let _mock = two_prompts(&s);
    let second = rewind(&s, &["--to", "2", "--code"]);
    assert_eq!(second.code, Some(0), "{}", second.stderr);
    assert!(second.stdout.contains("restored 2 files"), "{}", second.stdout);
    assert_eq!(s.read("b.txt").as_deref(), Some("one\ntwo\n"));
    assert_eq!(s.read("gone.txt").as_deref(), Some("doomed\n"));
    // Prompt 1's writes stay.
    assert_eq!(s.read("a.txt").as_deref(), Some("alpha\nBETA\n"));
    assert_eq!(s.read("new.txt").as_deref(), Some("fresh\n"));

    let first = rewind(&s, &["--to", "1", "--code", "-o", "json"]);
    assert_eq!(first.code, Some(0), "{}", first.stderr);
    assert_original(&s);
    let done: Value = serde_json::from_str(&first.stdout).unwrap();
    assert_eq!(done["target"], json!({"kind": "prompt", "prompt": 1}));
    assert_eq!(done["what"], "code");
    assert_eq!(done["restored"], 2, "{done}");
    assert_eq!(done["kept"], json!([]));
    assert!(done["undo"].as_str().is_some_and(|id| id.len() >= 16), "{done}");
    let paths: Vec<&str> = done["files"].as_array().unwrap().iter().map(|f| f["path"].as_str().unwrap()).collect();
    assert_eq!(paths, ["a.txt", "new.txt"]);

    // The last rewind undone: prompt 1's writes are back; the one before it stays done.
    let undone = rewind(&s, &["--undo"]);
    assert_eq!(undone.code, Some(0), "{}", undone.stderr);
    assert_eq!(s.read("a.txt").as_deref(), Some("alpha\nBETA\n"));
    assert_eq!(s.read("new.txt").as_deref(), Some("fresh\n"));
    assert_eq!(s.read("b.txt").as_deref(), Some("one\ntwo\n"));
    let undone = rewind(&s, &["--undo"]);
    assert_eq!(undone.code, Some(0), "{}", undone.stderr);
    assert_eq!(s.read("b.txt").as_deref(), Some("one\nTWO\n"));
    assert_eq!(s.read("gone.txt"), None);
    assert_eq!(s.read("keep.txt").as_deref(), Some("untouched\n"));
    let nothing = rewind(&s, &["--undo"]);
    assert_eq!(nothing.code, Some(2), "{}", nothing.stdout);
    assert!(nothing.stderr.contains("no rewind to undo"), "{}", nothing.stderr);

    // Each rewind is on the audit trail, which still verifies.
    let verified = run_args(&s, &["audit", "verify"]);
    assert_eq!(verified.code, Some(0), "{}{}", verified.stdout, verified.stderr);
    let shown = run_args(&s, &["audit", "show"]);
    assert!(shown.stdout.contains("rewind to before prompt 1 (code) by user: 2 files restored"), "{}", shown.stdout);
    assert_eq!(records(&s).iter().filter(|r| r["type"] == "rewound").count(), 4);
}

#[test]
fn one_call_is_undone_alone() {
    let s = session();
    let _mock = two_prompts(&s);
    let done = rewind(&s, &["--call", "c_replace"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert_eq!(s.read("a.txt").as_deref(), Some("alpha\nbeta\n"));
    // Everything else as the session left it.
    assert_eq!(s.read("new.txt").as_deref(), Some("fresh\n"));
    assert_eq!(s.read("b.txt").as_deref(), Some("one\nTWO\n"));
    assert_eq!(s.read("gone.txt"), None);
    let shell = rewind(&s, &["--call", "c_shell"]);
    assert_eq!(shell.code, Some(0), "{}", shell.stderr);
    assert_eq!(s.read("b.txt").as_deref(), Some("one\ntwo\n"));
    assert_eq!(s.read("gone.txt").as_deref(), Some("doomed\n"));
    assert_eq!(s.read("new.txt").as_deref(), Some("fresh\n"));
}

#[test]
fn a_file_changed_outside_airlock_is_kept_without_yes_and_overwritten_with_it() {
    let s = session();
    let _mock = two_prompts(&s);
    // The user edits a file the agent changed.
    s.write("a.txt", "alpha\nBETA\nmine\n");
    let kept = rewind(&s, &["--to", "1", "--code"]);
    assert_eq!(kept.code, Some(2), "{}{}", kept.stdout, kept.stderr);
    assert!(kept.stdout.contains("kept 1 file changed outside airlock"), "{}", kept.stdout);
    assert_eq!(s.read("a.txt").as_deref(), Some("alpha\nBETA\nmine\n"));
    // The rest was restored.
    assert_eq!(s.read("new.txt"), None);
    assert_eq!(s.read("gone.txt").as_deref(), Some("doomed\n"));

    let overwritten = rewind(&s, &["--to", "1", "--code", "--yes"]);
    assert_eq!(overwritten.code, Some(0), "{}{}", overwritten.stdout, overwritten.stderr);
    assert_original(&s);
}

#[test]
fn the_conversation_rewound_is_what_the_next_resume_sends() {
    let s = session();
    let mock = two_prompts(&s);
    let done = rewind(&s, &["--to", "2", "--conversation"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert!(done.stdout.contains("the conversation dropped"), "{}", done.stdout);
    // The files stay.
    assert_eq!(s.read("b.txt").as_deref(), Some("one\nTWO\n"));
    mock.push_turn(Turn::text("again"));
    prompt(&s, &mock, "a new second prompt", true);
    let sent = serde_json::to_string(&mock.last_request().unwrap()).unwrap();
    assert!(sent.contains("edit a and write new") && sent.contains("first done"), "{sent}");
    assert!(!sent.contains("shell edits") && !sent.contains("second done"), "{sent}");
    // The new prompt takes number 2 again.
    let listed = rewind(&s, &["--list", "-o", "json"]);
    let turns: Value = serde_json::from_str(&listed.stdout).unwrap();
    let texts: Vec<&str> = turns.as_array().unwrap().iter().map(|t| t["text"].as_str().unwrap()).collect();
    assert_eq!(texts, ["edit a and write new", "a new second prompt"]);
}

#[test]
fn both_rewinds_files_and_conversation_and_undo_brings_both_back() {
    let s = session();
    let mock = two_prompts(&s);
    let done = rewind(&s, &["--to", "1"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert_original(&s);
    let undone = rewind(&s, &["--undo"]);
    assert_eq!(undone.code, Some(0), "{}", undone.stderr);
    assert_eq!(s.read("b.txt").as_deref(), Some("one\nTWO\n"));
    assert_eq!(s.read("new.txt").as_deref(), Some("fresh\n"));
    mock.push_turn(Turn::text("third"));
    prompt(&s, &mock, "third prompt", true);
    let sent = serde_json::to_string(&mock.last_request().unwrap()).unwrap();
    assert!(sent.contains("edit a and write new") && sent.contains("shell edits"), "{sent}");
}

#[test]
fn bad_input_gets_clear_errors() {
    let s = session();
    let _mock = two_prompts(&s);
    let far = rewind(&s, &["--to", "99"]);
    assert_eq!(far.code, Some(2), "{}", far.stderr);
    assert!(far.stderr.contains("no prompt 99") && far.stderr.contains("holds 2"), "{}", far.stderr);
    let unknown = rewind(&s, &["--session", "ffffffffffff", "--list"]);
    assert_eq!(unknown.code, Some(2), "{}", unknown.stderr);
    assert!(unknown.stderr.contains("no session `ffffffffffff`"), "{}", unknown.stderr);
    let both = rewind(&s, &["--to", "1", "--undo"]);
    assert_eq!(both.code, Some(2), "{}", both.stderr);
    assert!(both.stderr.contains("cannot be used with"), "{}", both.stderr);
    let call = rewind(&s, &["--call", "nope"]);
    assert_eq!(call.code, Some(2), "{}", call.stderr);
    assert!(call.stderr.contains("no call `nope`"), "{}", call.stderr);
    // Nothing was touched by any of them.
    assert_eq!(s.read("b.txt").as_deref(), Some("one\nTWO\n"));
}

#[test]
fn what_the_checkpoints_left_out_is_listed_and_never_restored_or_deleted() {
    let s = session();
    s.write(".gitignore", "build/\n");
    s.write("src.txt", "source\n");
    s.write("build/old.o", "old object\n");
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![call(
        "run_shell_command",
        json!({"command": "echo changed > src.txt && echo new > build/new.o && echo rebuilt > build/old.o"}),
    )]));
    mock.push_turn(Turn::text("built"));
    prompt(&s, &mock, "build it", false);
    let done = rewind(&s, &["--to", "1", "--code", "-o", "json"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let rewound: Value = serde_json::from_str(&done.stdout).unwrap();
    assert_eq!(s.read("src.txt").as_deref(), Some("source\n"));
    // The ignored folder is as the build left it, and said.
    assert_eq!(s.read("build/new.o").as_deref(), Some("new\n"));
    assert_eq!(s.read("build/old.o").as_deref(), Some("rebuilt\n"));
    let left_out = rewound["left_out"].as_array().unwrap();
    assert!(left_out.iter().any(|l| l["path"].as_str().unwrap().starts_with("build")), "{rewound}");
    let text = rewind(&s, &["--undo"]);
    assert_eq!(text.code, Some(0), "{}", text.stderr);
    assert_eq!(s.read("src.txt").as_deref(), Some("changed\n"));
    let again = rewind(&s, &["--to", "1", "--code"]);
    assert!(again.stdout.contains("left out (never snapshotted, left as it is): build"), "{}", again.stdout);
}

#[test]
fn a_file_name_that_steers_the_terminal_is_shown_sanitised() {
    let s = session();
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![call(
        "run_shell_command",
        json!({"command": "printf 'x\\n' > $'evil\\e[2J\\e[31mred.txt'"}),
    )]));
    mock.push_turn(Turn::text("made it"));
    prompt(&s, &mock, "make a file", false);
    let made: Vec<_> = std::fs::read_dir(&s.workspace).unwrap().flatten().map(|e| e.file_name()).collect();
    assert!(made.iter().any(|name| name.to_string_lossy().contains('\u{1b}')), "{made:?}");
    let listed = rewind(&s, &["--list"]);
    assert_eq!(listed.code, Some(0), "{}", listed.stderr);
    assert!(listed.stdout.contains("A evil"), "{}", listed.stdout);
    assert!(!listed.stdout.contains('\u{1b}'), "{:?}", listed.stdout);
    let done = rewind(&s, &["--to", "1"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert!(!done.stdout.contains('\u{1b}'), "{:?}", done.stdout);
    let left: Vec<_> = std::fs::read_dir(&s.workspace).unwrap().flatten().map(|e| e.file_name()).collect();
    assert!(left.iter().all(|name| !name.to_string_lossy().starts_with("evil")), "{left:?}");
}
