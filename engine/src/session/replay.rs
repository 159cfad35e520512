//! Rebuilding a session's history from its file, reading backwards from the end to the
//! last `compressed` record or `rewound` record with a history (whose history replaces
//! everything before it) or to the header. Lines that cannot be read (a partial last line after a crash) are skipped and
//! counted.
//!
//! Besides the history, a resume gives back what a front end needs to look as the live
//! session did: the cards of the calls since that base (`calls` lines; a session written
//! before they existed has none, and its calls are drawn from the history alone) and the
//! session's token counts (the latest `usage` line's running totals, or in an older file the
//! sum of the `usage` lines read).

use std::path::{Path, PathBuf};

use super::record::{Header, Record, RecordedCall};
use super::reverse::ReverseLines;
use super::{SessionError, store};
use airlock_model::{Message, UsageKind};

/// A session read back for resuming.
#[derive(Debug)]
pub struct Resumed {
    pub header: Header,
    pub path: PathBuf,
    /// The history to continue from.
    pub history: Vec<Message>,
    /// Model responses in the session so far.
    pub turn: u64,
    /// Lines that were read to rebuild the history (the header excluded).
    pub lines_read: usize,
    /// Lines that could not be read and were skipped.
    pub skipped: usize,
    /// The latest plan recorded since the history's base, as written.
    pub todos: Option<serde_json::Value>,
    /// The cards of the calls recorded since the history's base, in order.
    pub calls: Vec<RecordedCall>,
    pub tokens: Tokens,
    /// The user prompts the conversation holds (the latest `prompt` record's number): a
    /// resumed session numbers its next prompt after them.
    pub prompts: u32,
}

/// A session's token counts.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Tokens {
    /// Tokens sent to the model over the session.
    pub input: u64,
    /// Tokens the model wrote over the session.
    pub output: u64,
    /// The last answer's counts (input, output): how full its context was.
    pub last_answer: Option<(u64, u64)>,
}

/// Reads the session at `path` back.
pub fn replay(path: &Path) -> Result<Resumed, SessionError> {
    let header = store::read_header(path)?;
    let read_error = |e: std::io::Error| SessionError::Read { path: path.to_path_buf(), reason: e.to_string() };
    let file = std::fs::File::open(path).map_err(read_error)?;
    let mut lines = ReverseLines::new(file).map_err(read_error)?;
    // Messages since the base, last first.
    let mut messages = Vec::new();
    let mut base = Vec::new();
    let (mut turn, mut lines_read, mut skipped) = (0, 0, 0);
    let mut todos = None;
    // Batches of cards, last first.
    let mut batches = Vec::new();
    let mut tokens = Tokens::default();
    // Whether the session totals were read (the latest line that has them): then the
    // older lines add nothing.
    let mut totals_read = false;
    // Read backwards: the first `prompt` record met is the latest.
    let mut prompts = None;
    while let Some(line) = lines.next_line().map_err(read_error)? {
        let Ok(record) = Record::parse(&line) else {
            skipped += 1;
            continue;
        };
        if let Record::Session(_) = record {
            break;
        }
        lines_read += 1;
        turn = turn.max(record.turn().unwrap_or(0));
        match record {
            Record::Message { message, .. } => messages.push(message),
            // Read backwards: the first one met is the latest.
            Record::Todos { todos: plan, .. } => {
                todos.get_or_insert(plan);
            }
            Record::Calls { calls, .. } => batches.push(calls),
            Record::Prompt { prompt, .. } => {
                prompts.get_or_insert(prompt.prompt);
            }
            Record::Usage { usage, .. } => {
                if usage.kind == UsageKind::Answer && tokens.last_answer.is_none() {
                    tokens.last_answer = Some((usage.input_tokens, usage.output_tokens));
                }
                match (totals_read, usage.session_input_tokens, usage.session_output_tokens) {
                    (true, _, _) => {}
                    (false, Some(input), Some(output)) => {
                        tokens.input += input;
                        tokens.output += output;
                        totals_read = true;
                    }
                    (false, _, _) => {
                        tokens.input += usage.input_tokens;
                        tokens.output += usage.output_tokens;
                    }
                }
            }
            Record::Compressed { history, .. } => {
                base = history;
                if prompts.is_none() {
                    prompts = latest_prompt_before(&mut lines).map_err(read_error)?;
                }
                break;
            }
            // A rewind says how many prompts the conversation holds after it; one of the
            // conversation left this history: a base, as a compression's.
            Record::Rewound { rewound, .. } => {
                prompts.get_or_insert(rewound.prompts);
                if let Some(history) = rewound.history {
                    base = history;
                    break;
                }
            }
            _ => {}
        }
    }
    messages.reverse();
    base.extend(messages);
    let calls = batches.into_iter().rev().flatten().collect();
    let prompts = prompts.unwrap_or(0);
    Ok(Resumed {
        header,
        path: path.to_path_buf(),
        history: base,
        turn,
        lines_read,
        skipped,
        todos,
        calls,
        tokens,
        prompts,
    })
}

/// The number of the latest `prompt` record in what `lines` has left (read backwards), when
/// a compression came after it: only those lines are parsed, so a long session's older
/// messages are skipped unread.
fn latest_prompt_before(lines: &mut ReverseLines) -> std::io::Result<Option<u32>> {
    while let Some(line) = lines.next_line()? {
        if !line.starts_with(br#"{"type":"prompt""#) && !line.starts_with(br#"{"type":"rewound""#) {
            continue;
        }
        match Record::parse(&line) {
            Ok(Record::Prompt { prompt, .. }) => return Ok(Some(prompt.prompt)),
            Ok(Record::Rewound { rewound, .. }) => return Ok(Some(rewound.prompts)),
            _ => {}
        }
    }
    Ok(None)
}
