//! A run killed (SIGKILL) while a command runs: its calls line was never written, yet the
//! checkpoint taken before the command is in the store, labelled with the session, and
//! `airlock rewind --to N` finds it and undoes what the command wrote.

use std::time::{Duration, Instant};

use airlock_tests::{MockModel, Turn, Wire, call};
use serde_json::json;

use super::{records, rewind};
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
