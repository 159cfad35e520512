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
//! - A call whose run was killed has checkpoints in the store but no `calls` line (that line
//!   is written when its batch ends): [`Timeline::of`] adds the store's `before`/`after`
//!   checkpoints labelled with this session and a call no line names, as writes at the end
//!   of their prompt (the last prompt record of that number before they were taken),
//!   oldest first.

use std::collections::HashSet;
use std::ops::ControlFlow;
use std::path::Path;

use super::{Context, RewindError};
use crate::session::{self, Line, PromptLine, RewoundLine, SessionError, Stamp};
use airlock_checkpoint::{CheckpointId, Store};
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
    /// Every prompt record in file order (line, number, when), dropped ones too.
    recorded: Vec<(usize, u32, String)>,
    /// The lines of every prompt and rewound record: where a prompt's calls end.
    breaks: Vec<usize>,
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

    /// The timeline of `context`'s session, with the calls of a killed run recovered from
    /// its store (when checkpoints are on).
    pub fn of(context: &Context<'_>) -> Result<Self, RewindError> {
        let mut timeline = Self::read(context.session)?;
        if let Some(store) = context.store {
            timeline.recover(store, context.session_id)?;
        }
        Ok(timeline)
    }

    /// Adds the calls whose checkpoints `store` holds, labelled with session `id`, that no
    /// `calls` line names.
    fn recover(&mut self, store: &Store, id: &str) -> Result<(), RewindError> {
        let named: HashSet<CheckpointId> =
            self.writes.iter().flat_map(|write| write.before.iter().chain(write.after.as_ref())).cloned().collect();
        let mut found: Vec<Write> = Vec::new();
        // Oldest first, so a call's `before` checkpoints keep their order.
        for checkpoint in store.list()? {
            let label = &checkpoint.label;
            let Some(call) = &label.call else { continue };
            let before = label.why == "before";
            if label.session != id || !(before || label.why == "after") || named.contains(&checkpoint.id) {
                continue;
            }
            let index = match found.iter().position(|write| write.call.as_ref() == Some(call)) {
                Some(index) => index,
                None => {
                    let Some(line) = self.end_of(label.prompt, &Stamp::from(checkpoint.created).iso()) else {
                        continue;
                    };
                    let write =
                        Write { line, call: Some(call.clone()), prompt: label.prompt, before: Vec::new(), after: None };
                    found.push(write);
                    found.len() - 1
                }
            };
            if before {
                found[index].before.push(checkpoint.id);
            } else {
                found[index].after = Some(checkpoint.id);
            }
        }
        for write in found.into_iter().filter(|write| !write.before.is_empty()) {
            let at = self.writes.partition_point(|other| other.line <= write.line);
            self.writes.insert(at, write);
        }
        Ok(())
    }

    /// The last line of prompt `prompt`'s calls: just before the next prompt or rewound
    /// record after the last record of prompt `prompt` made at or before `at` (ISO times
    /// compare as text).
    fn end_of(&self, prompt: u32, at: &str) -> Option<usize> {
        let numbered = || self.recorded.iter().filter(|(_, number, _)| *number == prompt);
        let (start, _, _) = numbered().rfind(|(_, _, when)| when.as_str() <= at).or_else(|| numbered().next_back())?;
        let end = self.breaks.iter().find(|line| **line > *start).copied().unwrap_or(usize::MAX);
        Some(end - 1)
    }

    fn push(&mut self, number: usize, line: Line) {
        match line {
            Line::Prompt(prompt) => {
                self.recorded.push((number, prompt.prompt, prompt.at.clone()));
                self.breaks.push(number);
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
            Line::Rewound(record) => {
                self.breaks.push(number);
                self.rewound(number, *record);
            }
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
    /// The messages the conversation gained after the line (a conversation rewind's new
    /// base after it counts as its messages past `kept`): what a compression since cannot
    /// hide.
    pub since: usize,
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
                if number > line {
                    at.since += 1;
                    if at.next.is_none() {
                        at.next = Some(message.clone());
                    }
                }
                history.push(message);
            }
            Line::Compressed(base) => history = base,
            Line::Rewound(rewound) => {
                if let Some(base) = rewound.history {
                    if number > line {
                        at.since = base.len().saturating_sub(kept.as_ref().map_or(0, Vec::len));
                    }
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
