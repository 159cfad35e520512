//! `session/load`: a session recorded by airlock (its id is airlock's session id) resumed
//! over ACP, its conversation replayed to the client before the response.

use agent_client_protocol::v1::schema::{LoadSessionRequest, SessionUpdate, StopReason, ToolCallStatus, ToolKind};
use airlock_tests::{MockModel, Turn, Wire, call};
use serde_json::json;

use super::{acp, chunks, new_session, prompt, send, session};

#[test]
fn a_recorded_session_loads_with_its_conversation_replayed() {
    let s = session();
    s.write("notes.txt", "apples\n");
    let mock = MockModel::start(Wire::Gemini);
    mock.push_turn(Turn::calls(vec![call("read_file", json!({ "file_path": "notes.txt" }))]));
    mock.push_turn(Turn::text("The notes say apples."));
    let (id, _, _) = acp(&s, &mock, &[], async |cx, _| {
        let opened = new_session(&cx, &s).await?;
        send(&cx, prompt(&opened, "what do the notes say?")).await?;
        Ok(opened.session_id)
    });
    mock.push_turn(Turn::text("Still apples."));
    let ((replayed, response), _, seen) = acp(&s, &mock, &[], async |cx, seen| {
        // The start of an id is not enough: an editor loads the sessions it was given.
        let start = LoadSessionRequest::new(id.0[..4].to_owned(), s.workspace.clone());
        let refused = cx.send_request(start).block_task().await;
        assert!(refused.is_err_and(|e| e.message.contains("no session")), "a prefix loaded a session");
        cx.send_request(LoadSessionRequest::new(id.clone(), s.workspace.clone())).block_task().await?;
        // Everything the client was told before the response is the replay.
        let replayed = seen.updates();
        let response = send(&cx, prompt_in(&id, "and now?")).await?;
        Ok((replayed, response))
    });
    let user = chunks(&replayed, |u| match u {
        SessionUpdate::UserMessageChunk(chunk) => Some(&chunk.content),
        _ => None,
    });
    assert!(user.contains("what do the notes say?"), "{user}");
    let agent = chunks(&replayed, |u| match u {
        SessionUpdate::AgentMessageChunk(chunk) => Some(&chunk.content),
        _ => None,
    });
    assert_eq!(agent, "The notes say apples.");
    let calls: Vec<_> = replayed
        .iter()
        .filter_map(|u| match u {
            SessionUpdate::ToolCall(call) => Some((call.kind, call.status, call.locations.len())),
            _ => None,
        })
        .collect();
    assert_eq!(calls, [(ToolKind::Read, ToolCallStatus::Completed, 1)]);
    assert_eq!(response.stop_reason, StopReason::EndTurn);
    assert!(seen.said().ends_with("Still apples."));
    // The model got the earlier conversation with the new prompt.
    let last = mock.last_request().unwrap_or_default().to_string();
    assert!(last.contains("what do the notes say?") && last.contains("and now?"), "{last}");
}

#[test]
fn loading_a_session_that_does_not_exist_is_an_error_and_the_connection_goes_on() {
    let s = session();
    let mock = MockModel::start(Wire::Gemini);
    mock.push_turn(Turn::text("fresh"));
    let ((refused, response), _, _) = acp(&s, &mock, &[], async |cx, _| {
        let load = LoadSessionRequest::new("0000000000000000", s.workspace.clone());
        let refused = cx.send_request(load).block_task().await.err();
        let opened = new_session(&cx, &s).await?;
        Ok((refused, send(&cx, prompt(&opened, "hello")).await?))
    });
    let refused = refused.unwrap_or_else(|| panic!("a missing session loaded"));
    assert!(refused.message.contains("cannot load the session"), "{refused:?}");
    assert_eq!(response.stop_reason, StopReason::EndTurn);
}

fn prompt_in(
    id: &agent_client_protocol::v1::schema::SessionId,
    text: &str,
) -> agent_client_protocol::v1::schema::PromptRequest {
    use agent_client_protocol::v1::schema::{ContentBlock, PromptRequest, TextContent};
    PromptRequest::new(id.clone(), vec![ContentBlock::Text(TextContent::new(text))])
}
