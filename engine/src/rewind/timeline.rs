//! A session's timeline, read forward from its file: the conversation's prompts, every
//! checkpointed write in file order (each call's `before`/`after` checkpoints, and each
//! rewind's own), and the rewinds not yet undone.
//!
//! Rules (the shared contract's "Rewind semantics", and the choices it leaves):
//! - The prompts listed are the conversation's: a prompt record numbered `p` drops every
//!   earlier-listed prompt numbered `p` or more (after a conversation rewind to before `k`,
//!   the next prompt is `k` again), and a `rewound` record that rewound the conversation
//!   keeps only its first `prompts`; undoing that rewind puts the dropped ones back.
//! - Every write counts, in file order, whatever prompt list it belongs to now: a code
//!   rewind to before prompt `k` uses every recorded checkpoint after prompt `k`'s record.
//!   The files on disk went through all of them, conversation rewinds or not.
//! - A rewind is a write too: its safety checkpoint is a `before`, its checkpoint of what it
//!   left an `after` (so a later rewind does not take its own restores for changes made
//!   outside airlock).
//! - Rewinds form a stack: `undo` undoes the last rewind not yet undone.

use std::ops::ControlFlow;
use std::path::Path;

use crate::session::{self, Line, PromptLine, RewoundLine, SessionError};
use airlock_checkpoint::CheckpointId;
use airlock_model::Message;
use airlock_protocol::RewindTarget;

/// A prompt of the conversation and where its record is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PromptMark {
    /// The record's line number in the session file.
    pub line: usize,
    pub prompt: PromptLine,
}

/// One write airlock checkpointed: a call's, or a rewind's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Write {
    /// The record's line number.
    pub line: usize,
    /// The call's id (`None`: a rewind).
    pub call: Option<String>,
    /// The prompt it ran in, as recorded.
    pub prompt: u32,
    /// Taken before it wrote anything (more than one when a grant widened during the call).
    pub before: Vec<CheckpointId>,
    /// Taken when it ended, over the same roots.
    pub after: Option<CheckpointId>,
}

/// A rewind not undone yet.
#[derive(Debug, Clone, PartialEq)]
pub struct RewindMark {
    pub line: usize,
    pub record: RewoundLine,
    /// The prompts the conversation had before it.
    pub prompts_before: u32,
    /// The prompts it dropped from the list, to put back when it is undone.
    dropped: Vec<PromptMark>,
}

/// A session file's timeline.
#[derive(Debug, Clone, Default)]
pub struct Timeline {
    /// The conversation's prompts, in order.
    pub prompts: Vec<PromptMark>,
    /// Every checkpointed write, in file order.
    pub writes: Vec<Write>,
    /// The rewinds not undone, the last one last.
    pub rewinds: Vec<RewindMark>,
    /// The prompts the conversation holds now.
    pub count: u32,
}

impl Timeline {
    /// Reads the timeline of the session file at `path`.
    pub fn read(path: &Path) -> Result<Self, SessionError> {
        let mut timeline = Self::default();
        session::read_forward(path, false, |number, line| {
            timeline.push(number, line);
            ControlFlow::Continue(())
        })?;
        Ok(timeline)
    }

    fn push(&mut self, number: usize, line: Line) {
        match line {
            Line::Prompt(prompt) => {
                self.prompts.retain(|mark| mark.prompt.prompt < prompt.prompt);
                self.count = prompt.prompt;
                self.prompts.push(PromptMark { line: number, prompt });
            }
            Line::Calls(calls) => self.writes.extend(calls.into_iter().filter_map(|call| {
                let checkpoint = call.checkpoint?;
                Some(Write {
                    line: number,
                    call: Some(call.id),
                    prompt: checkpoint.prompt,
                    before: checkpoint.before.into_iter().map(CheckpointId).collect(),
                    after: checkpoint.after.map(CheckpointId),
                })
            })),
            Line::Rewound(record) => self.rewound(number, *record),
            Line::Message(_) | Line::Compressed(_) => {}
        }
    }

    fn rewound(&mut self, number: usize, record: RewoundLine) {
        if let Some(undo) = &record.undo {
            self.writes.push(Write {
                line: number,
                call: None,
                prompt: self.count,
                before: vec![CheckpointId(undo.clone())],
                after: record.after.clone().map(CheckpointId),
            });
        }
        let prompts_before = self.count;
        if record.target == RewindTarget::Undo {
            if let Some(undone) = self.rewinds.pop()
                && undone.record.what.conversation()
            {
                // The prompts typed after the undone rewind leave with it.
                self.prompts.retain(|mark| mark.prompt.prompt <= undone.record.prompts);
                self.prompts.extend(undone.dropped);
            }
        } else {
            let dropped = if record.what.conversation() {
                let keep = self.prompts.iter().take_while(|mark| mark.prompt.prompt <= record.prompts).count();
                self.prompts.split_off(keep)
            } else {
                Vec::new()
            };
            self.rewinds.push(RewindMark { line: number, record: record.clone(), prompts_before, dropped });
        }
        if record.what.conversation() {
            self.count = record.prompts;
        }
    }

    /// The conversation's prompt `prompt`.
    pub fn prompt(&self, prompt: u32) -> Option<&PromptMark> {
        self.prompts.iter().find(|mark| mark.prompt.prompt == prompt)
    }

    /// The writes recorded after line `line`, in file order.
    pub fn writes_after(&self, line: usize) -> impl Iterator<Item = &Write> {
        self.writes.iter().filter(move |write| write.line > line)
    }

    /// The calls of prompt `mark`: the writes of calls between its record and the next
    /// prompt's of the conversation.
    pub fn calls_of(&self, mark: &PromptMark) -> impl Iterator<Item = &Write> {
        let end = self.prompts.iter().map(|other| other.line).filter(|line| *line > mark.line).min();
        self.writes.iter().filter(move |write| {
            write.call.is_some() && write.line > mark.line && end.is_none_or(|end| write.line < end)
        })
    }

    /// The write of call `call_id`.
    pub fn call(&self, call_id: &str) -> Option<&Write> {
        self.writes.iter().rev().find(|write| write.call.as_deref() == Some(call_id))
    }
}

/// The conversation at a point of the session file.
#[derive(Debug, Clone, Default)]
pub struct HistoryAt {
    /// The history just before the line (replayed forward, so a compression after that
    /// line does not lose it).
    pub kept: Vec<Message>,
    /// The first message recorded after the line (a prompt's own message).
    pub next: Option<Message>,
    /// The history's length at the end of the file.
    pub now: usize,
}

/// The conversation as it stood just before line `line` of the session file at `path`.
pub fn history_before(path: &Path, line: usize) -> Result<HistoryAt, SessionError> {
    let mut history = Vec::new();
    let mut at = HistoryAt::default();
    let mut kept = None;
    session::read_forward(path, true, |number, record| {
        if number >= line && kept.is_none() {
            kept = Some(history.clone());
        }
        match record {
            Line::Message(message) => {
                if number > line && at.next.is_none() {
                    at.next = Some(message.clone());
                }
                history.push(message);
            }
            Line::Compressed(base) => history = base,
            Line::Rewound(rewound) => {
                if let Some(base) = rewound.history {
                    history = base;
                }
            }
            Line::Prompt(_) | Line::Calls(_) => {}
        }
        ControlFlow::Continue(())
    })?;
    at.now = history.len();
    at.kept = kept.unwrap_or(history);
    Ok(at)
}

#[cfg(test)]
#[path = "timeline_tests.rs"]
mod tests;
