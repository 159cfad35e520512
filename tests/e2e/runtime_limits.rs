//! The runtime's limits through the real binary: what a plugin returns reaches the model and
//! the terminal capped, and a plugin that calls `exit()` is named as such, while the session
//! goes on.

use airlock_tests::{MockModel, Session, Turn, Wire, call, fixtures, function_responses};
use serde_json::json;

use crate::session;

#[test]
fn huge_errors_and_exits_reach_the_model_and_the_terminal_capped() {
    let s = session();
    s.install_plugin(fixtures::RUNTIME_HOSTILE);
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![
        call("huge", json!({"field": "execute_error", "bytes": 50 << 20})),
        call("huge", json!({"field": "validate_error", "bytes": 50 << 20})),
        call("exit_now", json!({"code": 3})),
    ]));
    mock.push_turn(Turn::text("done"));
    let mut command = s.command(&mock);
    command.args(["-p", "attack", "--approval-mode", "yolo", "-o", "stream-json"]).env("OPENAI_API_KEY", "sk-fake");
    let done = Session::run(command);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert_eq!(mock.pending_turns(), 0);

    let sent = function_responses(&mock.requests()[1]);
    for (name, content) in &sent[..2] {
        assert!(content.contains("[cut at 16384 of 52428800 bytes]"), "{name}: {}", &content[content.len() - 80..]);
        assert!(content.len() < 20_000, "{name}: {} bytes reached the model", content.len());
    }
    let (_, exited) = &sent[2];
    assert!(exited.starts_with("Error: plugin_fault:") && exited.contains("called exit("), "{exited}");
    assert!(!exited.contains("crashed") && !exited.contains("backtrace"), "{exited}");
    assert!(done.stdout.len() < 200_000, "{} bytes of stream-json", done.stdout.len());
    assert!(done.stderr.len() < 64 * 1024, "{} bytes on stderr", done.stderr.len());
}

#[test]
fn a_proposal_cut_for_display_cannot_be_edited_and_applied() {
    let s = session();
    s.install_plugin(fixtures::RUNTIME_HOSTILE);
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![call("huge", json!({"field": "edit_proposed", "bytes": 5 << 20}))]));
    mock.push_turn(Turn::text("done"));
    let mut command = s.command(&mock);
    command.args(["-p", "edit", "--ask"]).env("EDITOR", "true").env("OPENAI_API_KEY", "sk-fake");
    command.stdin(std::process::Stdio::piped()).stdout(std::process::Stdio::piped());
    command.stderr(std::process::Stdio::piped());
    let mut child = command.spawn().unwrap_or_else(|e| panic!("spawn: {e}"));
    if let Some(mut stdin) = child.stdin.take() {
        std::io::Write::write_all(&mut stdin, b"e\nn\n").unwrap_or_else(|e| panic!("stdin: {e}"));
    }
    let output = child.wait_with_output().unwrap_or_else(|e| panic!("wait: {e}"));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert!(stderr.contains("cannot be edited here") && stderr.contains("unknown answer \"e\""), "{stderr}");
    let sent = function_responses(&mock.requests()[1]);
    assert!(sent[0].1.contains("the user refused"), "{sent:?}");
}
