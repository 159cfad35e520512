//! The list a rewind picks from: the conversation's prompts, each with the calls that took
//! checkpoints in it and the files they changed (first `before` against last `after`, per
//! path, with lines added and removed).

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::timeline::{PromptMark, Timeline};
use super::{Context, RewindError};
use airlock_checkpoint::{Change, Entry, Store};
use airlock_protocol::{FileChangeKind, RewindFile, RewindTurn};

/// The conversation's prompts, oldest first. Without a store (checkpoints off) the files
/// are not listed; a prompt whose checkpoints retention removed lists none either — the
/// list still offers it (its conversation can be rewound), and a plan of its code says why
/// it cannot be restored.
pub fn turns(context: &Context<'_>) -> Result<Vec<RewindTurn>, RewindError> {
    let timeline = Timeline::read(context.session)?;
    timeline
        .prompts
        .iter()
        .map(|mark| {
            let calls: Vec<_> = timeline.calls_of(mark).collect();
            let files = match context.store {
                Some(store) => files_of(context, store, &calls).unwrap_or_default(),
                None => Vec::new(),
            };
            Ok(turn(mark, u32::try_from(calls.len()).unwrap_or(u32::MAX), files))
        })
        .collect()
}

fn turn(mark: &PromptMark, calls: u32, files: Vec<RewindFile>) -> RewindTurn {
    RewindTurn {
        prompt: mark.prompt.prompt,
        text: airlock_protocol::shown::line_bounded(&mark.prompt.text, 200),
        at: airlock_protocol::shown::line(&mark.prompt.at),
        calls,
        files,
    }
}

/// What `writes` changed, per path: the first `before` each path had against the last
/// `after`, paths changed and changed back left out.
fn files_of(
    context: &Context<'_>,
    store: &Store,
    writes: &[&super::timeline::Write],
) -> Result<Vec<RewindFile>, RewindError> {
    let mut first: BTreeMap<PathBuf, Option<Entry>> = BTreeMap::new();
    let mut last: BTreeMap<PathBuf, Option<Entry>> = BTreeMap::new();
    for write in writes {
        let Some(after) = &write.after else { continue };
        for before in &write.before {
            for change in store.changes(before, after)? {
                first.entry(change.path.clone()).or_insert(change.before);
                last.insert(change.path, change.after);
            }
        }
    }
    let mut files = Vec::new();
    for (path, before) in first {
        let after = last.remove(&path).flatten();
        if before == after {
            continue;
        }
        files.push(file_row(context, store, Change { path, before, after })?);
    }
    Ok(files)
}

/// One row: the change's kind and its line counts.
pub(super) fn file_row(context: &Context<'_>, store: &Store, change: Change) -> Result<RewindFile, RewindError> {
    let counts = store.line_counts(&change)?;
    let kind = match (&change.before, &change.after) {
        (None, _) => FileChangeKind::Created,
        (_, None) => FileChangeKind::Deleted,
        _ => FileChangeKind::Modified,
    };
    Ok(RewindFile {
        path: context.shown(&change.path),
        change: kind,
        added: if counts.binary { 0 } else { counts.added },
        removed: if counts.binary { 0 } else { counts.removed },
        binary: counts.binary,
    })
}
