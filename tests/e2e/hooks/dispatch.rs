//! How a hook's reply combines with the policy: a hook narrows, never widens.

use airlock_tests::{MockModel, Turn, Wire, call, function_responses};
use serde_json::json;

use super::{command_hook, replying};
use crate::{session, write_policy};

fn allow() -> serde_json::Value {
    json!({"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}})
}

#[test]
fn a_hooks_allow_does_not_make_a_call_the_policy_denies_run() {
    let s = session();
    write_policy(&s, "[[rule]]\ntool = \"write_file\"\ndecision = \"deny\"\n");
    command_hook(&s, "allow-all", "\"PreToolUse\"", &replying(&allow()));
    let mock = MockModel::start(Wire::Gemini);
    mock.push_turn(Turn::calls(vec![call("write_file", json!({"file_path": "new.txt", "content": "x"}))]));
    mock.push_turn(Turn::text("done"));
    let done = s.airlock(&mock, &["--approval-mode", "yolo", "-p", "write it"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert!(s.read("new.txt").is_none(), "a denied call ran");
    let sent = function_responses(&mock.requests()[1]);
    assert!(sent[0].1.contains("policy_denied") || sent[0].1.contains("denied"), "{sent:?}");
    assert!(!sent[0].1.contains("allow-all"), "the policy refused, not the hook: {sent:?}");
}

#[test]
fn a_hooks_deny_reaches_the_model_with_the_hooks_name_and_reason() {
    let s = session();
    command_hook(
        &s,
        "no-force-push",
        "\"before_tool\"",
        "cat >/dev/null\necho 'force pushes are not allowed' >&2\nexit 2\n",
    );
    let mock = MockModel::start(Wire::Gemini);
    mock.push_turn(Turn::calls(vec![call("write_file", json!({"file_path": "new.txt", "content": "x"}))]));
    mock.push_turn(Turn::text("done"));
    let done = s.airlock(&mock, &["--approval-mode", "yolo", "-p", "write it"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert!(s.read("new.txt").is_none());
    let sent = function_responses(&mock.requests()[1]);
    assert!(sent[0].1.contains("hook `no-force-push` denied this call: force pushes are not allowed"), "{sent:?}");
}

#[test]
fn a_hooks_ask_questions_a_call_yolo_allows_and_a_headless_run_refuses_it() {
    let s = session();
    let ask = json!({"hookSpecificOutput": {"permissionDecision": "ask", "permissionDecisionReason": "look first"}});
    command_hook(&s, "asks", "\"before_tool\"", &replying(&ask));
    let mock = MockModel::start(Wire::Gemini);
    mock.push_turn(Turn::calls(vec![call("write_file", json!({"file_path": "new.txt", "content": "x"}))]));
    mock.push_turn(Turn::text("done"));
    let done = s.airlock(&mock, &["--approval-mode", "yolo", "-o", "stream-json", "-p", "write it"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert!(s.read("new.txt").is_none(), "a questioned call ran without a person");
    let events: Vec<serde_json::Value> = done.stdout.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
    let states: Vec<&str> =
        events.iter().filter(|e| e["type"] == "tool_call").filter_map(|e| e["status"].as_str()).collect();
    assert!(states.contains(&"awaiting_approval"), "{states:?}");
    assert_eq!(states.last(), Some(&"error"), "{states:?}");
}

#[test]
fn a_failing_hook_refuses_the_call_by_default_and_is_passed_over_with_on_error_allow() {
    let s = session();
    command_hook(&s, "broken", "\"before_tool\"", "cat >/dev/null\necho 'not json' \nexit 1\n");
    let mock = MockModel::start(Wire::Gemini);
    mock.push_turn(Turn::calls(vec![call("write_file", json!({"file_path": "new.txt", "content": "x"}))]));
    mock.push_turn(Turn::text("done"));
    let done = s.airlock(&mock, &["--approval-mode", "yolo", "-p", "write it"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert!(s.read("new.txt").is_none());
    let sent = function_responses(&mock.requests()[1]);
    assert!(sent[0].1.contains("hook `broken` failed"), "{sent:?}");
    assert!(done.stderr.contains("hook `broken` failed"), "{}", done.stderr);

    s.write_config(
        "[[hooks.command]]\nname = \"broken\"\nevents = [\"before_tool\"]\ncommand = \"sh broken.sh\"\non_error = \"allow\"\n",
    );
    let mock = MockModel::start(Wire::Gemini);
    mock.push_turn(Turn::calls(vec![call("write_file", json!({"file_path": "new.txt", "content": "x"}))]));
    mock.push_turn(Turn::text("done"));
    let done = s.airlock(&mock, &["--approval-mode", "yolo", "-p", "write it"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert_eq!(s.read("new.txt").as_deref(), Some("x"));
}

#[test]
fn a_prompt_hooks_context_and_refusal_reach_the_model_or_keep_the_prompt_from_it() {
    let s = session();
    command_hook(&s, "context", "\"UserPromptSubmit\"", "cat >/dev/null\necho 'the build is red'\n");
    let mock = MockModel::start(Wire::Gemini);
    mock.push_turn(Turn::text("ok"));
    let done = s.airlock(&mock, &["-p", "hello"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let request = mock.requests()[0].to_string();
    assert!(request.contains("[from hook `context`] the build is red"), "{request}");

    command_hook(&s, "gate", "\"prompt_submitted\"", "cat >/dev/null\necho 'no secrets in prompts' >&2\nexit 2\n");
    let mock = MockModel::start(Wire::Gemini);
    mock.push_turn(Turn::text("ok"));
    let done = s.airlock(&mock, &["-p", "my password is hunter2"]);
    assert!(mock.requests().is_empty(), "the model saw a refused prompt");
    assert!(done.stderr.contains("no secrets in prompts"), "{}", done.stderr);
}

#[test]
fn a_stop_hook_keeps_the_agent_going_at_most_three_times_in_a_row() {
    let s = session();
    let go_on = json!({"decision": "block", "reason": "run the tests too"});
    command_hook(&s, "go-on", "\"Stop\"", &replying(&go_on));
    let mock = MockModel::start(Wire::Gemini);
    for _ in 0..5 {
        mock.push_turn(Turn::text("finished"));
    }
    let done = s.airlock(&mock, &["-p", "fix it"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let requests = mock.requests();
    assert_eq!(requests.len(), 4, "one answer, then three continuations");
    assert!(requests[1].to_string().contains("run the tests too"));
    assert!(done.stderr.contains("stopped after 3 times in a row"), "{}", done.stderr);
}

#[test]
fn a_session_start_hooks_context_joins_the_first_prompt() {
    let s = session();
    command_hook(&s, "start", "\"SessionStart\"", "cat >/dev/null\necho 'the repo uses tabs'\n");
    let mock = MockModel::start(Wire::Gemini);
    mock.push_turn(Turn::text("ok"));
    let done = s.airlock(&mock, &["-p", "hello"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let request = mock.requests()[0].to_string();
    assert!(request.contains("[from hook `start`] the repo uses tabs"), "{request}");
}
