//! The lines of a session file. Every line is one JSON object tagged by `type`:
//!
//! ```json
//! {"type":"session","version":1,"id":"…","started":"2025-…Z","workspace":"/p","provider":"gemini","model":"m"}
//! {"type":"message","turn":0,"role":"user","parts":[{"type":"text","text":"…"}]}
//! {"type":"usage","turn":1,"kind":"answer","input_tokens":120,"output_tokens":9,"session_input_tokens":120,"session_output_tokens":9}
//! {"type":"calls","turn":1,"calls":[{"id":"c1","name":"run_shell_command","status":"success","run_ms":12,"command":{…},"shown":{…}}]}
//! {"type":"compressed","turn":7,"replaced":12,"history":[{"role":"user","parts":[…]}, …]}
//! {"type":"resumed","turn":9,"at":"2025-…Z","provider":"…","model":"…","workspace":"…"}
//! {"type":"todos","turn":4,"todos":[{"description":"…","status":"in_progress"}]}
//! {"type":"audit","seq":12,"head":"<sha-256 of the audit trail's record seq 12>"}
//! {"type":"prompt","turn":4,"prompt":2,"at":"2025-…Z","text":"fix the test","history":9}
//! {"type":"rewound","turn":6,"target":{"kind":"prompt","prompt":2},"what":"both","undo":"…","after":"…","prompts":1,"history":[…]}
//! ```
//!
//! A `rewound` line ([`RewoundLine`]) is a rewind the session did: with `history` (the
//! conversation was rewound) it is a new base for replay, exactly as `compressed` is.
//!
//! An `audit` line is the audit trail's chain head after a batch of its records
//! ([`crate::audit`]); replay and listing pass over it.
//!
//! `turn` counts the model responses of the session so far, so the last line of a file
//! says how many there were; likewise a `usage` line's `session_*` counts are the session's
//! tokens so far (lines written before they existed have none). A `calls` line holds what
//! the cards of one batch showed, written before the batch's answers to the model. Written from borrowed data ([`RecordRef`]), read back owned
//! ([`Record::parse`]).

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use crate::checkpoints::CallCheckpoint;
use crate::events::{CallCost, CallStatus, CommandRun, Shown};
use airlock_model::{Message, UsageKind};

/// The format version written in headers.
pub const VERSION: u32 = 1;

/// The first line of a session file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Header {
    #[serde(default)]
    pub version: u32,
    pub id: String,
    /// When the session started, UTC (`2025-03-09T14:05:07.042Z`).
    pub started: String,
    pub workspace: String,
    pub provider: String,
    pub model: String,
}

impl Header {
    pub fn new(id: String, started: String, workspace: String, provider: String, model: String) -> Self {
        Self { version: VERSION, id, started, workspace, provider, model }
    }
}

#[derive(Debug, Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub(super) enum RecordRef<'a> {
    Session(&'a Header),
    Message {
        turn: u64,
        #[serde(flatten)]
        message: &'a Message,
    },
    Usage {
        turn: u64,
        kind: UsageKind,
        input_tokens: u64,
        output_tokens: u64,
        session_input_tokens: u64,
        session_output_tokens: u64,
    },
    Calls {
        turn: u64,
        calls: &'a [RecordedCall],
    },
    Compressed {
        turn: u64,
        replaced: usize,
        history: &'a [Message],
    },
    Resumed {
        turn: u64,
        at: String,
        provider: &'a str,
        model: &'a str,
        workspace: &'a str,
    },
    /// The model's plan (a `write_todos` call), whole; kept as the engine wrote it.
    Todos {
        turn: u64,
        todos: &'a serde_json::Value,
    },
    /// The audit trail's head: its last record's `seq` and the sha-256 of its line.
    Audit {
        seq: u64,
        head: &'a str,
    },
    /// A user prompt starts: rewind's turns ([`PromptLine`]).
    Prompt {
        turn: u64,
        #[serde(flatten)]
        prompt: &'a PromptLine,
    },
    /// A rewind ([`RewoundLine`]).
    Rewound {
        turn: u64,
        #[serde(flatten)]
        rewound: &'a RewoundLine,
    },
}

/// A line read back. Kinds this version does not know are [`Record::Other`], so a file
/// written by a later version still resumes.
#[derive(Debug)]
pub(super) enum Record {
    Session(Header),
    Message { turn: u64, message: Message },
    Usage { turn: u64, usage: UsageLine },
    Calls { turn: u64, calls: Vec<RecordedCall> },
    Compressed { turn: u64, history: Vec<Message> },
    Resumed { turn: u64 },
    Todos { turn: u64, todos: serde_json::Value },
    Prompt { turn: u64, prompt: PromptLine },
    Rewound { turn: u64, rewound: Box<RewoundLine> },
    Other,
}

/// What every line starts with; the rest is skipped unread.
#[derive(Deserialize)]
struct Head<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(default)]
    turn: u64,
}

/// A `usage` line's counts.
#[derive(Debug, Clone, Copy, Deserialize)]
pub(super) struct UsageLine {
    pub kind: UsageKind,
    #[serde(default)]
    pub input_tokens: u64,
    #[serde(default)]
    pub output_tokens: u64,
    /// The session's tokens so far; absent in lines of earlier versions.
    #[serde(default)]
    pub session_input_tokens: Option<u64>,
    #[serde(default)]
    pub session_output_tokens: Option<u64>,
}

#[derive(Deserialize)]
struct CallsLine {
    calls: Vec<RecordedCall>,
}

/// What one call's card showed, for a resumed session to draw it again. Every field but
/// the id may be missing (a later version may drop one): the card then shows less.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RecordedCall {
    pub id: String,
    #[serde(default)]
    pub name: String,
    pub status: CallStatus,
    /// The plugin's one-line description.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its execution's time, in milliseconds.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub run_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<CommandRun>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cost: Option<CallCost>,
    #[serde(default)]
    pub shown: Shown,
    /// The checkpoints taken around it, when it held write access.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub checkpoint: Option<CallCheckpoint>,
}

/// A user prompt starts (`{"type":"prompt","turn":4,"prompt":2,"at":"…","text":"…","history":9}`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PromptLine {
    /// Its number in the session's conversation, from 1.
    pub prompt: u32,
    /// When it was sent, UTC.
    pub at: String,
    /// Its first line, cut to 200 characters.
    pub text: String,
    /// The history's length before its message: a rewind of the conversation to before it
    /// keeps this many messages.
    pub history: usize,
}

/// A rewind the session did (`{"type":"rewound","turn":6,"target":{…},"what":"both",…}`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RewoundLine {
    /// What it went back to (`{"kind":"undo"}`: it undid the last rewind not undone).
    pub target: airlock_protocol::RewindTarget,
    pub what: airlock_protocol::RestoreWhat,
    /// The checkpoint of what it overwrote (taken first): undoing it restores from here.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undo: Option<String>,
    /// The checkpoint of what it left, over the same roots: a later rewind's check of what
    /// changed outside airlock compares against it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
    /// The prompts the conversation holds after it.
    pub prompts: u32,
    /// The whole kept conversation, when the conversation was rewound: a new base for replay.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub history: Option<Vec<Message>>,
    /// Set when the restore stopped partway: the file it stopped at and why (the files
    /// before it were written; `undo` puts them back).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failed_at: Option<String>,
}

impl RecordedCall {
    /// What `call`'s card showed.
    pub fn of(call: &crate::scheduler::CompletedCall) -> Self {
        Self {
            id: call.call.id.clone(),
            name: call.call.name.clone(),
            status: call.status,
            description: call.description.clone(),
            run_ms: call.run.map(|run| run.as_millis().try_into().unwrap_or(u64::MAX)),
            command: call.command,
            cost: Some(call.cost),
            shown: call.shown.clone(),
            checkpoint: call.checkpoint.clone(),
        }
    }
}

#[derive(Deserialize)]
struct TodosLine {
    todos: serde_json::Value,
}

#[derive(Deserialize)]
struct CompressedLine {
    history: Vec<Message>,
}

impl Record {
    /// Reads one line. The kind is read first and only the lines that carry history are
    /// read whole, each straight into its own type (serde's tagged-enum buffering made a
    /// resume several times slower).
    pub(super) fn parse(line: &[u8]) -> serde_json::Result<Self> {
        let head: Head<'_> = serde_json::from_slice(line)?;
        let turn = head.turn;
        Ok(match head.kind.as_ref() {
            "session" => Self::Session(serde_json::from_slice(line)?),
            "message" => Self::Message { turn, message: serde_json::from_slice(line)? },
            "usage" => Self::Usage { turn, usage: serde_json::from_slice(line)? },
            "calls" => Self::Calls { turn, calls: serde_json::from_slice::<CallsLine>(line)?.calls },
            "compressed" => Self::Compressed { turn, history: serde_json::from_slice::<CompressedLine>(line)?.history },
            "resumed" => Self::Resumed { turn },
            "todos" => Self::Todos { turn, todos: serde_json::from_slice::<TodosLine>(line)?.todos },
            "prompt" => Self::Prompt { turn, prompt: serde_json::from_slice(line)? },
            "rewound" => Self::Rewound { turn, rewound: serde_json::from_slice(line)? },
            // The audit trail's head (`audit`) says nothing of the conversation.
            _ => Self::Other,
        })
    }

    /// The session's response count when the line was written, if it says.
    pub(super) fn turn(&self) -> Option<u64> {
        match self {
            Self::Message { turn, .. }
            | Self::Usage { turn, .. }
            | Self::Calls { turn, .. }
            | Self::Compressed { turn, .. }
            | Self::Resumed { turn }
            | Self::Todos { turn, .. }
            | Self::Prompt { turn, .. }
            | Self::Rewound { turn, .. } => Some(*turn),
            Self::Session(_) | Self::Other => None,
        }
    }
}
