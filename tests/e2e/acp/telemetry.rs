//! Telemetry under `airlock acp`: the session an editor opens is observed at the door like
//! a headless run's, so its turn, model requests and calls reach an OTLP receiver, and a call
//! the client's user approved is recorded as `approved`, with its `awaiting_approval` phase.

use std::time::Duration;

use airlock_tests::otel::{Mode, Receiver, attribute};
use airlock_tests::{MockModel, Turn, Wire, call};
use serde_json::json;

use super::{acp, new_session, prompt, send, session};

#[test]
fn an_acp_sessions_turn_and_its_approved_edit_are_traced() {
    let s = session();
    let receiver = Receiver::start(Mode::Answer);
    s.write_config(&format!("[telemetry]\nenabled = true\nendpoint = \"{}\"\n", receiver.endpoint));
    s.write("notes.txt", "old notes\n");
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![call(
        "replace",
        json!({ "file_path": "notes.txt", "old_string": "old", "new_string": "new" }),
    )]));
    mock.push_turn(Turn::text("done"));
    let (_, _, _) = acp(&s, &mock, &["allow_once"], async |cx, _| {
        let opened = new_session(&cx, &s).await?;
        let response = send(&cx, prompt(&opened, "fix the notes")).await?;
        // The client closes the agent when the script ends: spans ended so far are sent
        // within the batch delay (2 s), so wait them out.
        tokio::time::sleep(Duration::from_secs(3)).await;
        Ok(response)
    });
    assert_eq!(s.read("notes.txt").as_deref(), Some("new notes\n"));
    let spans = receiver.spans();
    let find = |name: &str| {
        spans.iter().find(|span| span["name"] == name).unwrap_or_else(|| panic!("no {name}: {spans:#?}")).clone()
    };
    let turn = find("invoke_agent airlock");
    let tool = find("execute_tool replace");
    let asked = find("awaiting_approval");
    assert_eq!(asked["parent_span_id"], tool["span_id"]);
    assert_eq!(tool["trace_id"], turn["trace_id"]);
    assert_eq!(attribute(&tool, "airlock.approval.decision"), Some(json!("approved")));
    assert_eq!(attribute(&turn, "airlock.turn.outcome"), Some(json!("completed")));
}
