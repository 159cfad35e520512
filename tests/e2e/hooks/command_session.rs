//! Command hooks in a real session: the binary against the scripted mock model, hooks set in
//! `config.toml` (the user's, or a workspace's under trust), `run_shell_command` calls they
//! judge. What a hook did is read from what the model was sent and from the files the calls
//! made or did not make.

#![allow(clippy::unwrap_used, reason = "a failed set-up step should fail the test loudly")]

use std::time::Duration;

use airlock_tests::{Finished, MockModel, Session, Turn, Wire, call, function_responses, run_bounded};
use serde_json::json;

/// A PreToolUse hook written to Claude Code's hooks reference, unchanged: it reads
/// `hook_event_name`, `tool_name`, `tool_input.command` and `cwd`, refuses with
/// `permissionDecision: deny` and rewrites with `updatedInput`.
const CLAUDE_HOOK: &str = r#"import json, sys

data = json.load(sys.stdin)
if data["hook_event_name"] != "PreToolUse" or data["tool_name"] != "Bash":
    sys.exit(0)
command = data["tool_input"]["command"]
if "rm -rf" in command:
    print(json.dumps({"hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": "rm -rf is not allowed in " + data["cwd"],
    }}))
elif command.startswith("touch draft"):
    updated = dict(data["tool_input"], command=command.replace("touch draft", "touch final", 1))
    print(json.dumps({"hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "permissionDecision": "allow",
        "updatedInput": updated,
    }}))
sys.exit(0)
"#;

/// `config.toml`'s start: the fast retries every session's file holds.
fn user_config(s: &Session, hooks: &str) {
    s.write_config(&format!("{}{hooks}", airlock_tests::FAST_RETRIES));
}

/// One headless yolo run in which the model calls `run_shell_command` once per command, one
/// after another; what each call sent back.
fn run_commands(s: &Session, commands: &[&str]) -> (Finished, Vec<String>) {
    let mock = MockModel::start(Wire::OpenAi);
    for command in commands {
        mock.push_turn(Turn::calls(vec![call("run_shell_command", json!({ "command": command }))]));
    }
    mock.push_turn(Turn::text("done"));
    let mut command = s.command(&mock);
    command.args(["-p", "run them", "--approval-mode", "yolo"]);
    let done = run_bounded(command, Some(""), Duration::from_secs(120));
    let sent = mock.requests().iter().skip(1).flat_map(function_responses).map(|(_, text)| text).collect();
    (done, sent)
}

#[test]
fn a_claude_code_hook_denies_and_rewrites_calls_unchanged() {
    let s = crate::session();
    s.write("claude_hook.py", CLAUDE_HOOK);
    s.write("build/keep", "kept");
    user_config(
        &s,
        "[[hooks.command]]\nname = \"guard\"\nevents = [\"PreToolUse\"]\ntools = \"Bash\"\n\
         command = 'python3 \"$CLAUDE_PROJECT_DIR/claude_hook.py\"'\n",
    );
    let (done, sent) = run_commands(&s, &["rm -rf build", "touch draft.txt", "echo untouched"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert_eq!(s.read("build/keep").as_deref(), Some("kept"), "the denied call did not run");
    assert!(sent[0].contains("rm -rf is not allowed in") && sent[0].contains("guard"), "{sent:?}");
    assert!(s.read("final.txt").is_some() && s.read("draft.txt").is_none(), "the rewritten call ran: {sent:?}");
    assert!(sent[2].contains("untouched"), "{sent:?}");
}

#[test]
fn on_error_decides_what_a_failing_hook_does_to_the_call() {
    let s = crate::session();
    let hook = |on_error: &str| {
        format!(
            "[[hooks.command]]\nname = \"broken\"\nevents = [\"before_tool\"]\n\
             command = \"echo 'cannot reach the policy server' >&2; exit 1\"\non_error = \"{on_error}\"\n"
        )
    };
    user_config(&s, &hook("deny"));
    let (done, sent) = run_commands(&s, &["touch strict"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert!(s.read("strict").is_none(), "a failed hook with on_error = deny refuses the call");
    assert!(sent[0].contains("broken"), "the model is told which hook: {sent:?}");

    user_config(&s, &hook("allow"));
    let (done, _) = run_commands(&s, &["touch lenient"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert!(s.read("lenient").is_some(), "a failed hook with on_error = allow is passed over");
    assert!(done.stderr.contains("broken"), "the failure is still said: {}", done.stderr);
}

#[test]
fn a_workspace_hook_runs_only_while_trusted_and_pinned() {
    let s = crate::session();
    s.write(".airlock/hooks/guard.sh", "echo 'the repository says no' >&2\nexit 2\n");
    s.write(
        ".airlock/config.toml",
        "[[hooks.command]]\nname = \"repo-guard\"\nevents = [\"before_tool\"]\ncommand = \"sh .airlock/hooks/guard.sh\"\n",
    );
    let (done, _) = run_commands(&s, &["touch untrusted"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert!(s.read("untrusted").is_some(), "an untrusted workspace's hook does not run");

    let mut trust = s.bare_command();
    trust.args(["trust", "--workspace"]).arg(&s.workspace);
    let trusted = run_bounded(trust, None, Duration::from_secs(60));
    assert_eq!(trusted.code, Some(0), "{}", trusted.stderr);
    assert!(trusted.stdout.contains("pins hook script") && trusted.stdout.contains("guard.sh"), "{}", trusted.stdout);
    let (done, sent) = run_commands(&s, &["touch trusted"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert!(s.read("trusted").is_none(), "the trusted workspace's hook refused the call");
    assert!(sent[0].contains("the repository says no"), "{sent:?}");

    s.write(".airlock/hooks/guard.sh", "# edited after trust\nexit 0\n");
    let (done, _) = run_commands(&s, &["touch edited"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert!(done.stderr.contains("repo-guard") && done.stderr.contains("changed since trust"), "{}", done.stderr);
    assert!(s.read("edited").is_some(), "the changed hook no longer runs");
}
