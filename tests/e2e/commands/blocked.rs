//! What the sandbox blocked a command from is told in one line, and the person is one answer
//! away from running that command again with exactly the access it lacked — for this call,
//! the session, or always (issue 24, item 3). Headless runs without `--ask` only tell.

use std::time::Duration;

use airlock_tests::http_server::WebServer;
use airlock_tests::{MockModel, Turn, Wire, call, function_responses, run_bounded};
use serde_json::json;

use super::session;

/// The texts the model got back, one per call, in order.
fn responses(mock: &MockModel) -> Vec<String> {
    mock.requests()
        .iter()
        .skip(1)
        .filter_map(|request| function_responses(request).into_iter().next().map(|(_, text)| text))
        .collect()
}

#[test]
fn a_command_blocked_from_the_network_runs_again_with_it_once_when_the_person_says_so() {
    let s = session();
    let server = WebServer::start();
    let mock = MockModel::start(Wire::OpenAi);
    let command = format!("curl -sS --max-time 5 {}", server.url("/hello"));
    for _ in 0..2 {
        mock.push_turn(Turn::calls(vec![call("run_shell_command", json!({ "command": command }))]));
    }
    mock.push_turn(Turn::text("done"));
    let mut run = s.command(&mock);
    run.args(["-p", "fetch it", "--approval-mode", "yolo", "--ask"]);
    // "this call only" for the first, then "no" for the second: the grant did not stay.
    let done = run_bounded(run, Some("o\nn\n"), Duration::from_secs(120));
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert!(done.stderr.contains("blocked by the sandbox: commands have no network"), "{}", done.stderr);
    assert!(done.stderr.contains("net https://*:*") && done.stderr.contains("[o] this call only"), "{}", done.stderr);
    let sent = responses(&mock);
    assert!(sent[0].contains("Output: hello") && !sent[0].contains("blocked by the sandbox"), "{}", sent[0]);
    assert!(sent[1].contains("blocked by the sandbox: commands have no network"), "{}", sent[1]);
    assert_eq!(server.requests().iter().filter(|r| r.starts_with("/hello")).count(), 1, "once, and only once");
}

#[test]
fn a_folder_of_the_home_is_granted_for_the_session_and_the_next_command_reads_it_unasked() {
    let s = session();
    let home = s.airlock_home().parent().unwrap_or_else(|| panic!("no home")).to_path_buf();
    std::fs::create_dir_all(home.join("data")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(home.join("data/notes.txt"), "shared notes").unwrap_or_else(|e| panic!("{e}"));
    let mock = MockModel::start(Wire::OpenAi);
    for _ in 0..2 {
        mock.push_turn(Turn::calls(vec![call("run_shell_command", json!({ "command": "cat ~/data/notes.txt" }))]));
    }
    mock.push_turn(Turn::text("done"));
    let mut run = s.command(&mock);
    run.args(["-p", "read it", "--approval-mode", "yolo", "--ask"]);
    let done = run_bounded(run, Some("s\n"), Duration::from_secs(120));
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert!(done.stderr.contains(&format!("read {}", home.join("data").display())), "{}", done.stderr);
    assert_eq!(done.stderr.matches("Grant it?").count(), 1, "asked once: {}", done.stderr);
    let sent = responses(&mock);
    for text in &sent {
        assert!(text.contains("shared notes") && text.contains("Exit Code: 0"), "{text}");
    }
}

#[test]
fn headless_without_ask_tells_what_was_blocked_and_how_to_allow_it_and_grants_nothing() {
    let s = session();
    let outside = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let folder = outside.path().canonicalize().unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(folder.join("data.csv"), "a,b").unwrap_or_else(|e| panic!("{e}"));
    let mock = MockModel::start(Wire::OpenAi);
    let command = format!("cat {}/data.csv", folder.display());
    mock.push_turn(Turn::calls(vec![call("run_shell_command", json!({ "command": command }))]));
    mock.push_turn(Turn::text("done"));
    let done = s.airlock(&mock, &["-p", "read it", "--approval-mode", "yolo"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let sent = responses(&mock);
    let expected = format!("blocked by the sandbox: commands may not read {}", folder.display());
    assert!(sent[0].contains(&expected) && sent[0].contains("--add-dir"), "{}", sent[0]);
    assert!(!sent[0].contains("a,b"), "{}", sent[0]);
    assert!(!s.airlock_home().join("policy.toml").exists(), "nothing was granted");
}
