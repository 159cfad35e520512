//! The lines of a session file. Every line is one JSON object tagged by `type`:
//!
//! ```json
//! {"type":"session","version":1,"id":"…","started":"2025-…Z","workspace":"/p","provider":"gemini","model":"m"}
//! {"type":"message","turn":0,"role":"user","parts":[{"type":"text","text":"…"}]}
//! {"type":"usage","turn":1,"kind":"answer","input_tokens":120,"output_tokens":9}
//! {"type":"compressed","turn":7,"replaced":12,"history":[{"role":"user","parts":[…]}, …]}
//! {"type":"resumed","turn":9,"at":"2025-…Z","provider":"…","model":"…","workspace":"…"}
//! {"type":"todos","turn":4,"todos":[{"description":"…","status":"in_progress"}]}
//! ```
//!
//! `turn` counts the model responses of the session so far, so the last line of a file
//! says how many there were. Written from borrowed data ([`RecordRef`]), read back owned
//! ([`Record::parse`]).

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use crate::model::{Message, UsageKind};

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
}

/// A line read back. Kinds this version does not know are [`Record::Other`], so a file
/// written by a later version still resumes.
#[derive(Debug)]
pub(super) enum Record {
    Session(Header),
    Message { turn: u64, message: Message },
    Usage { turn: u64 },
    Compressed { turn: u64, history: Vec<Message> },
    Resumed { turn: u64 },
    Todos { turn: u64, todos: serde_json::Value },
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
            "usage" => Self::Usage { turn },
            "compressed" => Self::Compressed { turn, history: serde_json::from_slice::<CompressedLine>(line)?.history },
            "resumed" => Self::Resumed { turn },
            "todos" => Self::Todos { turn, todos: serde_json::from_slice::<TodosLine>(line)?.todos },
            _ => Self::Other,
        })
    }

    /// The session's response count when the line was written, if it says.
    pub(super) fn turn(&self) -> Option<u64> {
        match self {
            Self::Message { turn, .. }
            | Self::Usage { turn }
            | Self::Compressed { turn, .. }
            | Self::Resumed { turn }
            | Self::Todos { turn, .. } => Some(*turn),
            Self::Session(_) | Self::Other => None,
        }
    }
}
