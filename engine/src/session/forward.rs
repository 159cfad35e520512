//! Reading a session file forward, from its header to its end, for rewind: the prompts, the
//! checkpoints of the calls, the rewinds, and (when asked) what rebuilds the conversation at
//! any point of the file. Replay ([`super::replay`]) reads backwards because a resume needs
//! only the tail; a rewind needs the whole order of things.
//!
//! Lines that cannot be read (a partial last line after a crash) are skipped, as replay
//! skips them. Message and compression lines are parsed only when `history` is asked for:
//! they are most of a file's bytes and the list of prompts needs none of them.

use std::io::{BufRead, BufReader};
use std::ops::ControlFlow;
use std::path::Path;

use serde::Deserialize;

use super::SessionError;
use super::record::{PromptLine, Record, RecordedCall, RewoundLine};
use airlock_model::Message;

/// One line that matters to a rewind, in file order.
#[derive(Debug)]
pub enum Line {
    /// A message appended to the history.
    Message(Message),
    /// The history was compressed: this is the whole history from here on.
    Compressed(Vec<Message>),
    /// A user prompt starts.
    Prompt(PromptLine),
    /// What the cards of one batch showed, each call's checkpoints with them.
    Calls(Vec<RecordedCall>),
    /// A rewind.
    Rewound(Box<RewoundLine>),
}

/// Just the kind, to skip what is not wanted unparsed.
#[derive(Deserialize)]
struct Kind<'a> {
    #[serde(rename = "type", borrow)]
    kind: std::borrow::Cow<'a, str>,
}

/// Calls `each` with every wanted line of the session file at `path` and its number (from
/// 1, the header being line 1), until it says to stop. With `history` false, message and
/// compression lines are skipped.
pub fn read_forward(
    path: &Path,
    history: bool,
    mut each: impl FnMut(usize, Line) -> ControlFlow<()>,
) -> Result<(), SessionError> {
    let read_error = |e: std::io::Error| SessionError::Read { path: path.to_path_buf(), reason: e.to_string() };
    let file = std::fs::File::open(path).map_err(read_error)?;
    let mut reader = BufReader::new(file);
    let mut buffer = Vec::new();
    let mut number = 0;
    loop {
        buffer.clear();
        if reader.read_until(b'\n', &mut buffer).map_err(read_error)? == 0 {
            return Ok(());
        }
        number += 1;
        let Ok(kind) = serde_json::from_slice::<Kind<'_>>(&buffer) else { continue };
        let wanted = match kind.kind.as_ref() {
            "message" | "compressed" => history,
            "prompt" | "calls" | "rewound" => true,
            _ => false,
        };
        if !wanted {
            continue;
        }
        let line = match Record::parse(&buffer) {
            Ok(Record::Message { message, .. }) => Line::Message(message),
            Ok(Record::Compressed { history, .. }) => Line::Compressed(history),
            Ok(Record::Prompt { prompt, .. }) => Line::Prompt(prompt),
            Ok(Record::Calls { calls, .. }) => Line::Calls(calls),
            Ok(Record::Rewound { rewound, .. }) => Line::Rewound(rewound),
            _ => continue,
        };
        if each(number, line).is_break() {
            return Ok(());
        }
    }
}
