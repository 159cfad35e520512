//! What a rewind recovers: a run killed (SIGKILL) while a command runs — its calls line was
//! never written, yet the checkpoint taken before the command is in the store, labelled with
//! the session, and `airlock rewind --to N` finds it and undoes what the command wrote; and
//! the prompts of a conversation rewind undone after a new prompt was typed.

use std::time::{Duration, Instant};

use airlock_tests::{MockModel, Turn, Wire, call};
use serde_json::json;

use super::{prompt, records, rewind, two_prompts};
use crate::session;

#[test]
fn a_run_killed_during_a_command_is_undone_by_a_rewind_to_its_prompt() {
    let s = session();
    s.write("a.txt", "original\n");
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![
        call("run_shell_command", json!({"command": "echo changed > a.txt && sleep 20"})).with_id("c_killed"),
    ]));
    let mut command = s.command(&mock);
    command.args(["--approval-mode", "yolo", "-p", "change a and wait"]);
    let mut child = command.spawn().unwrap();
    let started = Instant::now();
    while s.read("a.txt").as_deref() != Some("changed\n") {
        assert!(started.elapsed() < Duration::from_secs(60), "the command never wrote a.txt");
        std::thread::sleep(Duration::from_millis(50));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    assert!(!records(&s).iter().any(|r| r["type"] == "calls"), "the batch never ended");

    let listed = rewind(&s, &["--list", "-o", "json"]);
    assert_eq!(listed.code, Some(0), "{}", listed.stderr);
    let turns: serde_json::Value = serde_json::from_str(&listed.stdout).unwrap();
    assert_eq!(turns[0]["calls"], 1, "{turns}");

    let done = rewind(&s, &["--to", "1", "--yes"]);
    assert_eq!(done.code, Some(0), "{}{}", done.stdout, done.stderr);
    assert_eq!(s.read("a.txt").as_deref(), Some("original\n"), "{}", done.stdout);
}

#[test]
fn undoing_a_conversation_rewind_after_a_new_prompt_gives_back_the_original_prompts() {
    let s = session();
    let mock = two_prompts(&s);
    let done = rewind(&s, &["--to", "2"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    mock.push_turn(Turn::text("again"));
    prompt(&s, &mock, "a new second prompt", true);
    let undone = rewind(&s, &["--undo"]);
    assert_eq!(undone.code, Some(0), "{}", undone.stderr);
    assert_eq!(s.read("b.txt").as_deref(), Some("one\nTWO\n"));

    let listed = rewind(&s, &["--list", "-o", "json"]);
    let turns: serde_json::Value = serde_json::from_str(&listed.stdout).unwrap();
    let texts: Vec<&str> = turns.as_array().unwrap().iter().map(|t| t["text"].as_str().unwrap()).collect();
    assert_eq!(texts, ["edit a and write new", "shell edits"]);
    // Prompt 2 is the original one again: its text goes back to the composer, its files back.
    let again = rewind(&s, &["--to", "2", "-o", "json"]);
    assert_eq!(again.code, Some(0), "{}{}", again.stdout, again.stderr);
    let rewound: serde_json::Value = serde_json::from_str(&again.stdout).unwrap();
    assert_eq!(rewound["prompt"], "shell edits", "{rewound}");
    assert_eq!(s.read("b.txt").as_deref(), Some("one\ntwo\n"));
    assert_eq!(s.read("gone.txt").as_deref(), Some("doomed\n"));
}
