//! A loaded session's conversation replayed to the client (`session/load`): the user's
//! prompts as `user_message_chunk`s, the model's answers as `agent_message_chunk`s, and
//! each call as one `tool_call` in its final state, with what its card showed.
//!
//! Invariant: every recorded text is sanitised as it is when it first streamed.

use agent_client_protocol::v1::schema::{
    Content, ContentChunk, SessionUpdate, ToolCall, ToolCallContent, ToolCallStatus,
};

use super::update::{self, text};
use airlock_door::Replay;
use airlock_door::session::{Part, RecordedCall, Role};
use airlock_protocol::shown;

/// The updates that replay `recorded`.
pub(super) fn updates(recorded: &Replay, tools: &airlock_door::Tools) -> Vec<SessionUpdate> {
    let mut updates = Vec::new();
    for message in &recorded.messages {
        for part in &message.parts {
            match (message.role, part) {
                (Role::User, Part::Text { text: said }) => {
                    updates.push(SessionUpdate::UserMessageChunk(ContentChunk::new(text(shown::stream(said)))));
                }
                (Role::Model, Part::Text { text: said }) => {
                    updates.push(SessionUpdate::AgentMessageChunk(ContentChunk::new(text(shown::stream(said)))));
                }
                (_, Part::FunctionCall(call)) => {
                    let card = recorded.calls.iter().find(|c| c.id == call.id);
                    updates.push(SessionUpdate::ToolCall(tool_call(call, card, tools)));
                }
                _ => {}
            }
        }
    }
    updates
}

fn tool_call(
    call: &airlock_door::session::FunctionCall,
    card: Option<&RecordedCall>,
    tools: &airlock_door::Tools,
) -> ToolCall {
    let title = card.and_then(|c| c.description.as_deref()).unwrap_or(&call.name);
    let status = match card.map(|c| c.status) {
        Some(airlock_door::events::CallStatus::Success) => ToolCallStatus::Completed,
        _ => ToolCallStatus::Failed,
    };
    let mut tool_call =
        ToolCall::new(call.id.clone(), shown::line(title)).kind(update::kind_of(&call.name, tools)).status(status);
    if let Ok(args) = serde_json::from_str::<serde_json::Value>(&call.arguments) {
        tool_call = tool_call.locations(update::locations(&args)).raw_input(args);
    }
    if let Some(card) = card {
        let mut shown_text = String::new();
        if let Some(summary) = &card.shown.summary {
            shown_text.push_str(summary);
            shown_text.push('\n');
        }
        shown_text.push_str(&card.shown.tail.join("\n"));
        if !shown_text.trim().is_empty() {
            let content = ToolCallContent::Content(Content::new(text(shown::block(&shown_text))));
            tool_call = tool_call.content(vec![content]);
        }
    }
    tool_call
}
