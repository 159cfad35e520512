//! A session's events as ACP `session/update`s: the model's text and thoughts as message
//! and thought chunks, each call's card as a `tool_call` then `tool_call_update`s (title,
//! kind, locations, status, live output, result), the plan (`write_todos`) as `plan`.
//!
//! Invariants: every text that reaches the client passed the sanitiser ([`shown`]) — the
//! model's prose and a call's output keep their newlines, nothing else that can steer a
//! terminal; a call's live output kept here is bounded ([`MAX_LIVE`]).

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use agent_client_protocol::v1::schema::{
    Content, ContentBlock, ContentChunk, Diff, Notice, NoticeSeverity, Plan, PlanEntry, PlanEntryPriority,
    PlanEntryStatus, SessionUpdate, TextContent, ToolCall, ToolCallContent, ToolCallLocation, ToolCallStatus,
    ToolCallUpdate, ToolCallUpdateFields, ToolKind,
};

use airlock_door::events::{CallUpdate, Event, Todo, TodoStatus};
use airlock_protocol::shown;
use airlock_protocol::{CallStatus, Display};

/// Most bytes of a call's live output kept and sent (its last part).
const MAX_LIVE: usize = 64 << 10;

/// Most bytes of a call's result or of one side of a diff sent.
const MAX_RESULT: usize = 256 << 10;

/// The calls of a session the client has been told of: their live output so far.
#[derive(Debug, Default)]
pub(super) struct Calls {
    live: HashMap<String, String>,
    /// The calls announced with a `tool_call`; a later state of one is a `tool_call_update`.
    known: std::collections::HashSet<String>,
}

/// A text block.
pub(super) fn text(text: impl Into<String>) -> ContentBlock {
    ContentBlock::Text(TextContent::new(text))
}

/// `text` sanitised as streamed prose and cut to its first `max` bytes.
pub(super) fn bounded(text: &str, max: usize) -> String {
    let clean = shown::stream(text);
    match clean.char_indices().take_while(|(at, _)| *at < max).last() {
        Some((at, c)) if at + c.len_utf8() < clean.len() => format!("{}\n… (cut)", &clean[..at + c.len_utf8()]),
        _ => clean,
    }
}

/// airlock's warning or notice as an ACP notice (for clients that take them): its text on
/// one line, bounded.
pub(super) fn notice(event: &Event, message: &str) -> Notice {
    let severity = match event {
        Event::Warning { .. } => NoticeSeverity::Warning,
        _ => NoticeSeverity::Info,
    };
    Notice::new(severity, shown::line_bounded(message, 500))
}

/// Whether a notice or warning ends a `/compress` (the engine says how it went).
pub(super) fn ends_compress(message: &str) -> bool {
    ["compressed ", "nothing older to compress", "could not compress", "compressing was cancelled"]
        .iter()
        .any(|start| message.starts_with(start))
}

impl Calls {
    /// The updates `event` makes; `tools` names each tool's kind.
    pub(super) fn event(&mut self, event: &Event, tools: &airlock_door::Tools) -> Vec<SessionUpdate> {
        match event {
            Event::Text { delta } => {
                vec![SessionUpdate::AgentMessageChunk(ContentChunk::new(text(shown::stream(delta))))]
            }
            Event::Thought { delta } => {
                vec![SessionUpdate::AgentThoughtChunk(ContentChunk::new(text(shown::stream(delta))))]
            }
            Event::ToolCall(call) => vec![self.call(call, tools)],
            Event::ToolOutput { call_id, chunk } => {
                let live = self.live.entry(call_id.clone()).or_default();
                live.push_str(chunk);
                if live.len() > MAX_LIVE {
                    let mut cut = live.len() - MAX_LIVE;
                    while !live.is_char_boundary(cut) {
                        cut += 1;
                    }
                    live.drain(..cut);
                }
                let content = vec![ToolCallContent::Content(Content::new(text(shown::stream(live))))];
                let fields = ToolCallUpdateFields::new().status(ToolCallStatus::InProgress).content(content);
                vec![SessionUpdate::ToolCallUpdate(ToolCallUpdate::new(call_id.clone(), fields))]
            }
            Event::Todos { todos } => vec![SessionUpdate::Plan(plan(todos))],
            // What a hook did to a call the client knows is a line of that call's content.
            Event::Hook(note) => match &note.call_id {
                Some(id) if self.known.contains(id) => {
                    let content = vec![ToolCallContent::Content(Content::new(text(crate::hook_note::line(note))))];
                    let fields = ToolCallUpdateFields::new().content(content);
                    vec![SessionUpdate::ToolCallUpdate(ToolCallUpdate::new(id.clone(), fields))]
                }
                _ => Vec::new(),
            },
            _ => Vec::new(),
        }
    }

    fn call(&mut self, update: &CallUpdate, tools: &airlock_door::Tools) -> SessionUpdate {
        let card = airlock_door::edge::tool_call(update);
        let id = card.call_id.clone();
        // A call is announced once, by its first state (validating, or whatever the engine
        // reports first), so the client never gets an update for a call it does not know.
        if self.known.insert(card.call_id.clone()) {
            let mut call = ToolCall::new(id, title(&card)).kind(kind_of(&card.name, tools)).status(status(card.status));
            if let Some(args) = &card.args {
                call = call.locations(locations(args)).raw_input(args.clone());
            }
            if card.status.is_terminal() {
                self.known.remove(&card.call_id);
                call = call.content(result(&card, self.live.remove(&card.call_id)));
            }
            return SessionUpdate::ToolCall(call);
        }
        let mut fields = ToolCallUpdateFields::new().status(status(card.status));
        if card.description.is_some() {
            fields = fields.title(title(&card));
        }
        if card.status.is_terminal() {
            self.known.remove(&card.call_id);
            let live = self.live.remove(&card.call_id);
            fields = fields.content(result(&card, live));
        }
        SessionUpdate::ToolCallUpdate(ToolCallUpdate::new(id, fields))
    }
}

/// What the client shows as the call's title: the plugin's line for it, else the tool.
pub(super) fn title(card: &airlock_protocol::ToolCall) -> String {
    shown::line(card.description.as_deref().unwrap_or(&card.name))
}

/// The ACP status of an airlock call state.
pub(super) fn status(status: CallStatus) -> ToolCallStatus {
    match status {
        CallStatus::Validating | CallStatus::AwaitingApproval | CallStatus::Scheduled => ToolCallStatus::Pending,
        CallStatus::Executing => ToolCallStatus::InProgress,
        CallStatus::Success => ToolCallStatus::Completed,
        CallStatus::Error | CallStatus::Cancelled => ToolCallStatus::Failed,
    }
}

/// The ACP kind of the tool `name`, from the kind its plugin declares.
pub(super) fn kind_of(name: &str, tools: &airlock_door::Tools) -> ToolKind {
    let declared = tools.tools().into_iter().find(|row| row.name.as_str() == name).map(|row| row.kind);
    match declared.as_deref() {
        Some("read") => ToolKind::Read,
        Some("edit") => ToolKind::Edit,
        Some("delete") => ToolKind::Delete,
        Some("move") => ToolKind::Move,
        Some("search") => ToolKind::Search,
        Some("execute") => ToolKind::Execute,
        Some("think") => ToolKind::Think,
        Some("fetch") => ToolKind::Fetch,
        _ => ToolKind::Other,
    }
}

/// The paths a call's arguments name (the built-in tools' `file_path`, `dir_path`,
/// `paths`, and the common `path`), as the model wrote them.
pub(super) fn locations(args: &serde_json::Value) -> Vec<ToolCallLocation> {
    let mut paths: Vec<PathBuf> = Vec::new();
    for key in ["file_path", "absolute_path", "path", "dir_path", "directory", "source", "destination"] {
        if let Some(path) = args.get(key).and_then(serde_json::Value::as_str) {
            paths.push(PathBuf::from(shown::line(path)));
        }
    }
    if let Some(list) = args.get("paths").and_then(serde_json::Value::as_array) {
        paths.extend(list.iter().filter_map(serde_json::Value::as_str).map(|p| PathBuf::from(shown::line(p))));
    }
    paths.into_iter().take(20).map(ToolCallLocation::new).collect()
}

/// An ended call's content: its edit as a diff, else what the model is told (or why it
/// failed), after what it streamed live.
fn result(card: &airlock_protocol::ToolCall, live: Option<String>) -> Vec<ToolCallContent> {
    let mut content = Vec::new();
    if let Some(Display::Diff { path, original, proposed }) = &card.display {
        content.push(diff(path, Some(original), proposed));
    }
    if let Some(live) = live.filter(|l| !l.is_empty()) {
        content.push(ToolCallContent::Content(Content::new(text(shown::stream(&live)))));
    }
    let told = match (&card.output, &card.error) {
        (_, Some(error)) => Some(format!("{}: {}", error.kind.as_str(), error.message)),
        (Some(output), None) => Some(output.clone()),
        (None, None) => None,
    };
    if let Some(told) = told {
        content.push(ToolCallContent::Content(Content::new(text(bounded(&told, MAX_RESULT)))));
    }
    content
}

/// A diff of the file at `path`: its text before (none for a new file) and after.
pub(super) fn diff(path: &str, original: Option<&str>, proposed: &str) -> ToolCallContent {
    let diff = Diff::new(Path::new(&shown::line(path)), bounded(proposed, MAX_RESULT))
        .old_text(original.map(|o| bounded(o, MAX_RESULT)));
    ToolCallContent::Diff(diff)
}

/// The model's plan as an ACP plan: every entry, in order (a cancelled one as completed,
/// the nearest ACP has).
pub(super) fn plan(todos: &[Todo]) -> Plan {
    let entries = todos
        .iter()
        .map(|todo| {
            let status = match todo.status {
                TodoStatus::Pending => PlanEntryStatus::Pending,
                TodoStatus::InProgress => PlanEntryStatus::InProgress,
                TodoStatus::Completed | TodoStatus::Cancelled => PlanEntryStatus::Completed,
            };
            PlanEntry::new(shown::line(&todo.description), PlanEntryPriority::Medium, status)
        })
        .collect();
    Plan::new(entries)
}

#[cfg(test)]
#[path = "update_tests.rs"]
mod tests;
