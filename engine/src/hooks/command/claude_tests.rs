//! Unit tests of `claude.rs`: the stdin a hook reads and the replies its endings make.

use super::*;
use crate::hooks::HookTool;

fn event(name: HookEventName) -> HookEvent {
    HookEvent {
        event: name,
        session_id: "2026-11-28T08-00-00.000Z-ab12".into(),
        transcript_path: Some("/home/u/.airlock/sessions/2026-11-28T08-00-00.000Z-ab12.jsonl".into()),
        workspace: "/work/project".into(),
        approval_mode: "auto-edit".into(),
        tool: None,
        prompt: None,
        message: None,
        reason: None,
    }
}

fn shell_call(name: HookEventName) -> HookEvent {
    HookEvent {
        tool: Some(HookTool {
            call_id: "call-1".into(),
            name: "run_shell_command".into(),
            plugin: "run-shell-command".into(),
            kind: "execute".into(),
            arguments: json!({"command": "git push --force", "description": "push"}),
            status: None,
            output: None,
        }),
        ..event(name)
    }
}

fn ended(code: i32, stdout: &str, stderr: &str) -> Ended {
    Ended { code: Some(code), signal: None, stdout: stdout.into(), stderr: stderr.into() }
}

#[test]
fn a_before_tool_event_reads_as_claude_codes_pre_tool_use() {
    let input = stdin(&shell_call(HookEventName::BeforeTool));
    assert_eq!(input["hook_event_name"], "PreToolUse");
    assert_eq!(input["session_id"], "2026-11-28T08-00-00.000Z-ab12");
    assert_eq!(input["transcript_path"], "/home/u/.airlock/sessions/2026-11-28T08-00-00.000Z-ab12.jsonl");
    assert_eq!(input["cwd"], "/work/project");
    assert_eq!(input["permission_mode"], "acceptEdits");
    assert_eq!(input["tool_name"], "Bash", "Claude Code's name of the tool");
    assert_eq!(input["tool_input"]["command"], "git push --force");
    assert_eq!(input["tool_use_id"], "call-1");
    assert!(input.get("tool_response").is_none());
    assert_eq!(input["airlock"]["tool"]["name"], "run_shell_command", "airlock's own event rides along");
    assert_eq!(input["airlock"]["event"], "before_tool");
}

#[test]
fn each_event_has_claudes_own_fields() {
    let mut after = shell_call(HookEventName::AfterTool);
    if let Some(tool) = after.tool.as_mut() {
        tool.status = Some(airlock_protocol::event::CallStatus::Success);
        tool.output = Some("pushed".into());
    }
    let input = stdin(&after);
    assert_eq!(input["hook_event_name"], "PostToolUse");
    assert_eq!(input["tool_response"]["output"], "pushed");
    assert_eq!(input["tool_response"]["status"], "success");

    let prompt = stdin(&HookEvent { prompt: Some("fix it".into()), ..event(HookEventName::PromptSubmitted) });
    assert_eq!(
        (prompt["hook_event_name"].as_str(), prompt["prompt"].as_str()),
        (Some("UserPromptSubmit"), Some("fix it"))
    );
    let start = stdin(&event(HookEventName::SessionStart));
    assert_eq!(start["source"], "startup");
    let compact = stdin(&HookEvent { reason: Some("manual".into()), ..event(HookEventName::BeforeCompress) });
    assert_eq!(
        (compact["hook_event_name"].as_str(), compact["trigger"].as_str()),
        (Some("PreCompact"), Some("manual"))
    );
    let end = stdin(&HookEvent { reason: Some("exit".into()), ..event(HookEventName::SessionEnd) });
    assert_eq!(end["reason"], "exit");
    assert_eq!(stdin(&event(HookEventName::Stop))["stop_hook_active"], false);
    let note = stdin(&HookEvent { message: Some("waiting".into()), ..event(HookEventName::Notification) });
    assert_eq!((note["hook_event_name"].as_str(), note["message"].as_str()), (Some("Notification"), Some("waiting")));
    assert_eq!(
        stdin(&HookEvent { approval_mode: "yolo".into(), ..event(HookEventName::Stop) })["permission_mode"],
        "bypassPermissions"
    );
}

#[test]
fn claude_tool_names_are_aliases_in_tools_patterns() {
    let pattern = tools_regex(Some("Bash|Write")).unwrap().unwrap();
    for tool in ["run_shell_command", "write_file", "Bash"] {
        assert!(pattern.is_match(tool), "{tool}");
    }
    assert!(!pattern.is_match("read_file"));
    let own = tools_regex(Some("read_.*")).unwrap().unwrap();
    assert!(own.is_match("read_file") && own.is_match("read_many_files") && !own.is_match("write_file"));
    let edits = tools_regex(Some("Edit|MultiEdit")).unwrap().unwrap();
    assert!(edits.is_match("replace"));
    assert!(tools_regex(Some("*")).unwrap().is_none());
    assert!(tools_regex(None).unwrap().is_none());
    assert_eq!(claude_tool_name("replace"), "Edit");
    assert_eq!(claude_tool_name("save_memory"), "save_memory", "a tool with no alias keeps its name");
}

#[test]
fn exit_2_refuses_with_stderr_as_the_reason() {
    let reply = reply(HookEventName::BeforeTool, &ended(2, "{\"ignored\": true}", "no force pushes\n")).unwrap();
    assert_eq!(reply.verdict, Some(HookVerdict::Deny));
    assert_eq!(reply.reason.as_deref(), Some("no force pushes"));
    let stop = reply_of(HookEventName::Stop, 2, "", "run the tests first");
    assert_eq!((stop.verdict, stop.reason.as_deref()), (Some(HookVerdict::Deny), Some("run the tests first")));
    let after = reply_of(HookEventName::AfterTool, 2, "", "lint failed");
    assert_eq!(
        (after.verdict, after.context.as_deref()),
        (None, Some("lint failed")),
        "the call ran: the model reads it"
    );
    let silent = reply_of(HookEventName::BeforeTool, 2, "", "");
    assert!(silent.reason.is_some_and(|r| r.contains("exit status 2")));
}

fn reply_of(event: HookEventName, code: i32, stdout: &str, stderr: &str) -> HookReply {
    reply(event, &ended(code, stdout, stderr)).unwrap()
}

#[test]
fn json_decisions_map_onto_the_reply() {
    let deny = r#"{"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "deny",
        "permissionDecisionReason": "force pushes rewrite history"}}"#;
    let reply = reply_of(HookEventName::BeforeTool, 0, deny, "");
    assert_eq!(reply.verdict, Some(HookVerdict::Deny));
    assert_eq!(reply.reason.as_deref(), Some("force pushes rewrite history"));

    let rewrite = r#"{"hookSpecificOutput": {"permissionDecision": "allow",
        "updatedInput": {"command": "git push --force-with-lease"}, "additionalContext": "rewrote it"}}"#;
    let reply = reply_of(HookEventName::BeforeTool, 0, rewrite, "");
    assert_eq!(reply.verdict, Some(HookVerdict::Allow));
    assert_eq!(reply.arguments, Some(json!({"command": "git push --force-with-lease"})));
    assert_eq!(reply.context.as_deref(), Some("rewrote it"));

    let ask = reply_of(HookEventName::BeforeTool, 0, r#"{"hookSpecificOutput": {"permissionDecision": "ask"}}"#, "");
    assert_eq!(ask.verdict, Some(HookVerdict::Ask));

    let old_block = reply_of(HookEventName::BeforeTool, 0, r#"{"decision": "block", "reason": "no"}"#, "");
    assert_eq!((old_block.verdict, old_block.reason.as_deref()), (Some(HookVerdict::Deny), Some("no")));
    let old_approve = reply_of(HookEventName::BeforeTool, 0, r#"{"decision": "approve"}"#, "");
    assert_eq!(old_approve.verdict, Some(HookVerdict::Allow));

    let stop_more = reply_of(HookEventName::Stop, 0, r#"{"decision": "block", "reason": "tests fail"}"#, "");
    assert_eq!((stop_more.verdict, stop_more.reason.as_deref()), (Some(HookVerdict::Deny), Some("tests fail")));
    let after = reply_of(HookEventName::AfterTool, 0, r#"{"decision": "block", "reason": "fix the lint"}"#, "");
    assert_eq!((after.verdict, after.context.as_deref()), (None, Some("fix the lint")));
}

#[test]
fn continue_false_stops_what_the_event_is_about_and_deny_wins() {
    let halt = reply_of(HookEventName::BeforeTool, 0, r#"{"continue": false, "stopReason": "frozen"}"#, "");
    assert_eq!((halt.verdict, halt.reason.as_deref()), (Some(HookVerdict::Deny), Some("frozen")));
    let prompt = reply_of(HookEventName::PromptSubmitted, 0, r#"{"continue": false, "stopReason": "off hours"}"#, "");
    assert_eq!(prompt.verdict, Some(HookVerdict::Deny));
    let stop = reply_of(HookEventName::Stop, 0, r#"{"continue": false}"#, "");
    assert_eq!(stop.verdict, None, "a stopping agent stops anyway: no instruction to go on");
    let mixed = r#"{"decision": "approve", "hookSpecificOutput": {"permissionDecision": "deny", "permissionDecisionReason": "no"}}"#;
    assert_eq!(reply_of(HookEventName::BeforeTool, 0, mixed, "").verdict, Some(HookVerdict::Deny));
}

#[test]
fn plain_text_is_context_where_claude_code_takes_it() {
    let prompt = reply_of(HookEventName::PromptSubmitted, 0, "the branch is main\n", "");
    assert_eq!(prompt.context.as_deref(), Some("the branch is main"));
    assert_eq!(reply_of(HookEventName::SessionStart, 0, "hello", "").context.as_deref(), Some("hello"));
    assert_eq!(reply_of(HookEventName::BeforeTool, 0, "logged", ""), HookReply::default());
    assert_eq!(reply_of(HookEventName::BeforeTool, 0, "", "warning only"), HookReply::default());
}

#[test]
fn other_exits_and_bad_replies_are_failures() {
    let failed = reply(HookEventName::BeforeTool, &ended(1, "", "Traceback\nKeyError: 'x'\n")).unwrap_err();
    assert_eq!(failed, HookFailure::Exited("status 1: Traceback".into()));
    let killed = Ended { code: None, signal: Some(9), stdout: Vec::new(), stderr: Vec::new() };
    assert_eq!(reply(HookEventName::BeforeTool, &killed).unwrap_err(), HookFailure::Exited("signal 9".into()));
    let bad_json = reply(HookEventName::BeforeTool, &ended(0, "{\"decision\": ", "")).unwrap_err();
    assert!(matches!(bad_json, HookFailure::Invalid(m) if m.contains("does not parse")));
    let bad_decision =
        reply(HookEventName::BeforeTool, &ended(0, r#"{"hookSpecificOutput": {"permissionDecision": "maybe"}}"#, ""));
    assert!(matches!(bad_decision, Err(HookFailure::Invalid(m)) if m.contains("\"maybe\"")));
    let bad_old = reply(HookEventName::BeforeTool, &ended(0, r#"{"decision": "sure"}"#, ""));
    assert!(matches!(bad_old, Err(HookFailure::Invalid(_))));
}
