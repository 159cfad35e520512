//! Prompt turns over ACP: streamed answers and thoughts, tool calls with their kind,
//! locations, status and diff, permission requests answered both ways, cancellation,
//! modes set by the client, the plan, the commands offered.

use std::time::Duration;

use agent_client_protocol::schema::ProtocolVersion;
use agent_client_protocol::v1::schema::{
    CancelNotification, ClientCapabilities, ClientSessionCapabilities, InitializeRequest, NoticeCapabilities,
    NoticeSeverity, PermissionOptionKind, PlanEntryStatus, SessionUpdate, SetSessionModeRequest, StopReason,
    ToolCallContent, ToolCallStatus, ToolKind,
};
use airlock_tests::{MockModel, Turn, Wire, call, function_responses};
use serde_json::json;

use super::{Seen, acp, acp_initialized, chunks, content_text, new_session, prompt, send, session};

/// A Gemini answer that thinks, then says `text`.
fn thinking_answer(thought: &str, text: &str) -> String {
    let thought =
        json!({ "candidates": [{ "content": { "role": "model", "parts": [{ "text": thought, "thought": true }] } }] });
    let answer = json!({ "candidates": [{ "content": { "role": "model", "parts": [{ "text": text }] }, "finishReason": "STOP" }] });
    format!("data: {thought}\r\n\r\ndata: {answer}\r\n\r\n")
}

#[test]
fn a_prompt_streams_thoughts_and_the_answer_and_ends_the_turn() {
    let s = session();
    let mock = MockModel::start(Wire::Gemini);
    mock.push_turn(Turn::raw_sse(thinking_answer("pondering the question", "Hello from airlock")));
    let ((response, modes), init, seen) = acp(&s, &mock, &[], async |cx, _seen| {
        let opened = new_session(&cx, &s).await?;
        let response = send(&cx, prompt(&opened, "say hello")).await?;
        Ok((response, opened.modes))
    });
    assert_eq!(response.stop_reason, StopReason::EndTurn);
    assert_eq!(init.protocol_version, agent_client_protocol::schema::ProtocolVersion::V1);
    assert!(init.agent_capabilities.load_session);
    assert_eq!(init.agent_info.as_ref().map(|i| i.name.as_str()), Some("airlock"));
    assert_eq!(seen.said(), "Hello from airlock");
    let thought = chunks(&seen.updates(), |u| match u {
        SessionUpdate::AgentThoughtChunk(chunk) => Some(&chunk.content),
        _ => None,
    });
    assert_eq!(thought, "pondering the question");
    let modes = modes.unwrap_or_else(|| panic!("no modes"));
    assert_eq!(&*modes.current_mode_id.0, "default");
    let ids: Vec<&str> = modes.available_modes.iter().map(|m| &*m.id.0).collect();
    assert_eq!(ids, ["default", "auto-edit", "yolo", "plan"]);
    let commands: Vec<String> = seen
        .updates()
        .iter()
        .filter_map(|u| match u {
            SessionUpdate::AvailableCommandsUpdate(update) => Some(update.available_commands.clone()),
            _ => None,
        })
        .flatten()
        .map(|c| c.name)
        .collect();
    assert_eq!(commands, ["compress"]);
    let sent = mock.requests();
    assert_eq!(sent.len(), 1);
    assert!(sent[0].to_string().contains("say hello"));
}

/// The model reads `notes.txt`, then edits it, then answers.
fn read_then_edit(mock: &MockModel) {
    mock.push_turn(Turn::calls(vec![call("read_file", json!({ "file_path": "notes.txt" }))]));
    mock.push_turn(Turn::calls(vec![call(
        "replace",
        json!({ "file_path": "notes.txt", "old_string": "old", "new_string": "new" }),
    )]));
    mock.push_turn(Turn::text("done"));
}

/// The last state of call `id` that the client learned, and its content then.
fn last_status(seen: &Seen, id: &str) -> (Option<ToolCallStatus>, Vec<ToolCallContent>) {
    let (mut status, mut content) = (None, Vec::new());
    for update in seen.updates() {
        match update {
            SessionUpdate::ToolCall(call) if &*call.tool_call_id.0 == id => {
                status = Some(call.status);
                content = call.content;
            }
            SessionUpdate::ToolCallUpdate(update) if &*update.tool_call_id.0 == id => {
                status = update.fields.status.or(status);
                if let Some(new) = update.fields.content {
                    content = new;
                }
            }
            _ => {}
        }
    }
    (status, content)
}

/// The tool calls the client was told of, as `(id, title, kind, locations)`.
fn tool_calls(seen: &Seen) -> Vec<(String, String, ToolKind, Vec<String>)> {
    seen.updates()
        .into_iter()
        .filter_map(|u| match u {
            SessionUpdate::ToolCall(call) => Some((
                call.tool_call_id.0.to_string(),
                call.title,
                call.kind,
                call.locations.iter().map(|l| l.path.display().to_string()).collect(),
            )),
            _ => None,
        })
        .collect()
}

#[test]
fn an_edit_allowed_through_the_permission_request_changes_the_file() {
    let s = session();
    s.write("notes.txt", "old notes\n");
    let mock = MockModel::start(Wire::OpenAi);
    read_then_edit(&mock);
    let (response, _, seen) = acp(&s, &mock, &["allow_once"], async |cx, _| {
        let opened = new_session(&cx, &s).await?;
        send(&cx, prompt(&opened, "fix the notes")).await
    });
    assert_eq!(response.stop_reason, StopReason::EndTurn);
    assert_eq!(s.read("notes.txt").as_deref(), Some("new notes\n"));
    let calls = tool_calls(&seen);
    assert_eq!(calls.len(), 2, "{calls:?}");
    assert_eq!((calls[0].2, calls[1].2), (ToolKind::Read, ToolKind::Edit));
    assert_eq!(calls[0].3, ["notes.txt"]);
    assert_eq!(calls[1].3, ["notes.txt"]);
    let (read_status, read_content) = last_status(&seen, &calls[0].0);
    assert_eq!(read_status, Some(ToolCallStatus::Completed));
    assert!(content_text(&read_content).contains("old notes"), "{read_content:?}");
    let (edit_status, edit_content) = last_status(&seen, &calls[1].0);
    assert_eq!(edit_status, Some(ToolCallStatus::Completed));
    let diff = edit_content.iter().find_map(|c| match c {
        ToolCallContent::Diff(diff) => Some(diff.clone()),
        _ => None,
    });
    let diff = diff.unwrap_or_else(|| panic!("no diff in {edit_content:?}"));
    assert_eq!((diff.old_text.as_deref(), diff.new_text.as_str()), (Some("old notes\n"), "new notes\n"));
    // The question showed what airlock's own dialog shows, with the options it offers.
    let asked = seen.permissions();
    assert_eq!(asked.len(), 1);
    assert_eq!(&*asked[0].tool_call.tool_call_id.0, calls[1].0);
    let kinds: Vec<PermissionOptionKind> = asked[0].options.iter().map(|o| o.kind).collect();
    assert_eq!(
        kinds,
        [PermissionOptionKind::AllowOnce, PermissionOptionKind::AllowAlways, PermissionOptionKind::RejectOnce]
    );
    let always = &asked[0].options[1].name;
    assert!(always.contains("replace") && always.contains("notes.txt"), "{always}");
    let shown = asked[0].tool_call.fields.content.clone().unwrap_or_default();
    assert!(shown.iter().any(|c| matches!(c, ToolCallContent::Diff(d) if d.new_text == "new notes\n")), "{shown:?}");
    let text = content_text(&shown);
    assert!(text.contains("-old notes") && text.contains("+new notes"), "{text}");
    assert!(text.contains("Its sandbox if allowed") && text.contains("read-write"), "{text}");
}

#[test]
fn an_edit_rejected_leaves_the_file_and_the_model_is_told() {
    let s = session();
    s.write("notes.txt", "old notes\n");
    let mock = MockModel::start(Wire::Anthropic);
    read_then_edit(&mock);
    let (response, _, seen) = acp(&s, &mock, &["reject"], async |cx, _| {
        let opened = new_session(&cx, &s).await?;
        send(&cx, prompt(&opened, "fix the notes")).await
    });
    assert_eq!(response.stop_reason, StopReason::EndTurn);
    assert_eq!(s.read("notes.txt").as_deref(), Some("old notes\n"));
    assert_eq!(seen.permissions().len(), 1);
    let calls = tool_calls(&seen);
    assert_eq!(last_status(&seen, &calls[1].0).0, Some(ToolCallStatus::Failed));
    let told = function_responses(&mock.last_request().unwrap_or_default());
    assert_eq!(told.len(), 1, "{told:?}");
    assert!(told[0].1.contains("the user rejected it") && told[0].1.contains("nothing was changed"), "{told:?}");
}

#[test]
fn a_cancel_mid_turn_answers_cancelled_and_the_session_goes_on() {
    let s = session();
    let mock = MockModel::start(Wire::Gemini);
    mock.push_turn(Turn::stall_after_text("Let me think"));
    mock.push_turn(Turn::text("still here"));
    let ((first, second), _, seen) = acp(&s, &mock, &[], async |cx, seen| {
        let opened = new_session(&cx, &s).await?;
        let running = cx.send_request(prompt(&opened, "think hard"));
        // Cancelled once the answer has started to stream.
        let deadline = tokio::time::Instant::now() + Duration::from_secs(30);
        while !seen.said().contains("Let me think") && tokio::time::Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        cx.send_notification(CancelNotification::new(opened.session_id.clone()))?;
        let first = running.block_task().await?;
        let second = send(&cx, prompt(&opened, "are you there?")).await?;
        Ok((first, second))
    });
    assert_eq!(first.stop_reason, StopReason::Cancelled);
    assert_eq!(second.stop_reason, StopReason::EndTurn);
    assert!(seen.said().ends_with("still here"), "{}", seen.said());
}

#[test]
fn a_mode_set_by_the_client_is_the_approval_mode() {
    let s = session();
    s.write("notes.txt", "old notes\n");
    let mock = MockModel::start(Wire::Gemini);
    read_then_edit(&mock);
    let (refused, _, seen) = acp(&s, &mock, &[], async |cx, _| {
        let opened = new_session(&cx, &s).await?;
        let set = SetSessionModeRequest::new(opened.session_id.clone(), "auto-edit");
        cx.send_request(set).block_task().await?;
        let bogus = cx.send_request(SetSessionModeRequest::new(opened.session_id.clone(), "anything-goes"));
        let refused = bogus.block_task().await.err();
        send(&cx, prompt(&opened, "fix the notes")).await?;
        Ok(refused)
    });
    // Edits run without asking in auto-edit.
    assert_eq!(s.read("notes.txt").as_deref(), Some("new notes\n"));
    assert!(seen.permissions().is_empty());
    let changed: Vec<String> = seen
        .updates()
        .iter()
        .filter_map(|u| match u {
            SessionUpdate::CurrentModeUpdate(update) => Some(update.current_mode_id.0.to_string()),
            _ => None,
        })
        .collect();
    assert_eq!(changed, ["auto-edit"]);
    let refused = refused.unwrap_or_else(|| panic!("an unknown mode was accepted"));
    assert!(
        refused.message.contains("anything-goes") || format!("{refused:?}").contains("anything-goes"),
        "{refused:?}"
    );
}

#[test]
fn the_plan_arrives_as_plan_updates() {
    let s = session();
    let mock = MockModel::start(Wire::OpenAi);
    let todos = json!({ "todos": [
        { "description": "read the code", "status": "completed" },
        { "description": "fix the bug", "status": "in_progress" },
        { "description": "run the tests", "status": "pending" },
    ] });
    mock.push_turn(Turn::calls(vec![call("write_todos", todos)]));
    mock.push_turn(Turn::text("planned"));
    let (response, _, seen) = acp(&s, &mock, &[], async |cx, _| {
        let opened = new_session(&cx, &s).await?;
        send(&cx, prompt(&opened, "plan it")).await
    });
    assert_eq!(response.stop_reason, StopReason::EndTurn);
    let plans: Vec<Vec<(String, PlanEntryStatus)>> = seen
        .updates()
        .into_iter()
        .filter_map(|u| match u {
            SessionUpdate::Plan(plan) => Some(plan.entries.into_iter().map(|e| (e.content, e.status)).collect()),
            _ => None,
        })
        .collect();
    let last = plans.last().unwrap_or_else(|| panic!("no plan update"));
    assert_eq!(
        last,
        &[
            ("read the code".to_owned(), PlanEntryStatus::Completed),
            ("fix the bug".to_owned(), PlanEntryStatus::InProgress),
            ("run the tests".to_owned(), PlanEntryStatus::Pending),
        ]
    );
    assert!(tool_calls(&seen).iter().any(|c| c.2 == ToolKind::Think || c.2 == ToolKind::Other));
}

#[test]
fn custom_commands_are_offered_and_a_slash_prompt_runs_one() {
    let s = session();
    let home_commands = s.airlock_home().join("commands");
    std::fs::create_dir_all(&home_commands).unwrap_or_else(|e| panic!("mkdir: {e}"));
    std::fs::write(
        home_commands.join("review.md"),
        "---\ndescription: Review a file\nargument-hint: [path]\n---\nReview $ARGUMENTS with care.\n",
    )
    .unwrap_or_else(|e| panic!("write: {e}"));
    s.write(".airlock/commands/fix-issue.md", "---\ndescription: Fix an issue\n---\nFix issue #$1 with priority $2.\n");
    let mock = MockModel::start(Wire::Gemini);
    mock.push_turn(Turn::text("fixing"));
    mock.push_turn(Turn::text("a summary"));
    mock.push_turn(Turn::text("sent as typed"));
    let (stops, _, seen) = acp(&s, &mock, &[], async |cx, _| {
        let opened = new_session(&cx, &s).await?;
        let fix = send(&cx, prompt(&opened, "/fix-issue 123 high")).await?;
        let compress = send(&cx, prompt(&opened, "/compress")).await?;
        let literal = send(&cx, prompt(&opened, "//fix-issue is a command")).await?;
        Ok([fix.stop_reason, compress.stop_reason, literal.stop_reason])
    });
    assert_eq!(stops, [StopReason::EndTurn; 3]);
    let offered: Vec<_> = seen
        .updates()
        .into_iter()
        .filter_map(|u| match u {
            SessionUpdate::AvailableCommandsUpdate(update) => Some(update.available_commands),
            _ => None,
        })
        .flatten()
        .map(|c| (c.name, c.description, c.input.is_some()))
        .collect();
    let names: Vec<&str> = offered.iter().map(|c| c.0.as_str()).collect();
    assert_eq!(names, ["review", "fix-issue", "compress"], "{offered:?}");
    assert_eq!(offered[0].1, "Review a file");
    assert!(offered[0].2, "the argument hint is offered as input");
    assert!(offered[1].1.contains("from this repository"), "{offered:?}");
    let sent = mock.requests();
    // The command's prompt went to the model, not its name; /compress asked for a summary
    // (its own request, without tools); `//` sent the text as typed.
    assert_eq!(sent.len(), 3);
    let first = sent[0].to_string();
    assert!(first.contains("Fix issue #123 with priority high.") && !first.contains("/fix-issue"));
    assert!(sent[1].get("tools").is_none(), "the summary request declares no tools");
    assert!(sent[2].to_string().contains("/fix-issue is a command"));
}

#[test]
fn a_command_is_asked_with_its_line_and_runs_as_an_execute_call() {
    let s = session();
    let mock = MockModel::start(Wire::Gemini);
    mock.push_turn(Turn::calls(vec![call("run_shell_command", json!({ "command": "echo hello-from-the-shell" }))]));
    mock.push_turn(Turn::text("ran it"));
    let (response, _, seen) = acp(&s, &mock, &["allow_once"], async |cx, _| {
        let opened = new_session(&cx, &s).await?;
        send(&cx, prompt(&opened, "say hello in the shell")).await
    });
    assert_eq!(response.stop_reason, StopReason::EndTurn);
    let asked = seen.permissions();
    assert_eq!(asked.len(), 1);
    let shown = content_text(&asked[0].tool_call.fields.content.clone().unwrap_or_default());
    assert!(shown.contains("It would run") && shown.contains("echo hello-from-the-shell"), "{shown}");
    let calls = tool_calls(&seen);
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].2, ToolKind::Execute);
    let (status, content) = last_status(&seen, &calls[0].0);
    assert_eq!(status, Some(ToolCallStatus::Completed));
    assert!(content_text(&content).contains("hello-from-the-shell"), "{content:?}");
    let told = function_responses(&mock.last_request().unwrap_or_default());
    assert!(told[0].1.contains("hello-from-the-shell"), "{told:?}");
}

/// A Gemini answer of `text` that ends with `reason`.
fn gemini_ending(text: &str, reason: &str) -> String {
    let parts = if text.is_empty() { json!([]) } else { json!([{ "text": text }]) };
    let chunk = json!({ "candidates": [{ "content": { "role": "model", "parts": parts }, "finishReason": reason, "index": 0 }] });
    format!("data: {chunk}\r\n\r\n")
}

#[test]
fn a_blocked_answer_is_a_refusal_and_a_cut_one_hit_max_tokens() {
    let s = session();
    let mock = MockModel::start(Wire::Gemini);
    mock.push_turn(Turn::raw_sse(gemini_ending("Partial ans", "SAFETY")));
    mock.push_turn(Turn::raw_sse(gemini_ending("", "MAX_TOKENS")));
    let (stops, _, _) = acp(&s, &mock, &[], async |cx, _| {
        let opened = new_session(&cx, &s).await?;
        let blocked = send(&cx, prompt(&opened, "something blocked")).await?;
        let cut = send(&cx, prompt(&opened, "something long")).await?;
        Ok([blocked.stop_reason, cut.stop_reason])
    });
    assert_eq!(stops, [StopReason::Refusal, StopReason::MaxTokens]);
}

/// The notices (title, severity) the client was sent.
fn notices(seen: &Seen) -> Vec<(String, NoticeSeverity)> {
    seen.updates()
        .into_iter()
        .filter_map(|u| match u {
            SessionUpdate::Notice(notice) => Some((notice.title, notice.severity)),
            _ => None,
        })
        .collect()
}

#[test]
fn notices_go_to_a_client_that_takes_them_and_only_to_it() {
    let s = session();
    let mock = MockModel::start(Wire::Gemini);
    let capabilities =
        ClientCapabilities::new().session(ClientSessionCapabilities::new().notices(NoticeCapabilities::new()));
    let initialize = InitializeRequest::new(ProtocolVersion::V1).client_capabilities(capabilities);
    let script = async |cx: agent_client_protocol::v1::ConnectionTo<agent_client_protocol::Agent>, _| {
        let opened = new_session(&cx, &s).await?;
        cx.send_request(SetSessionModeRequest::new(opened.session_id.clone(), "yolo")).block_task().await?;
        // A prompt after it: its answer comes after the mode's notice, which is then in.
        mock.push_turn(Turn::text("ok"));
        send(&cx, prompt(&opened, "hello")).await
    };
    let (_, _, seen) = acp_initialized(&s, &mock, &[], initialize, script);
    assert!(notices(&seen).contains(&("approval mode: yolo".to_owned(), NoticeSeverity::Info)), "{:?}", notices(&seen));
    let (_, _, seen) = acp(&s, &mock, &[], script);
    assert!(notices(&seen).is_empty(), "{:?}", notices(&seen));
}
