//! Carrying a rewind out: plan it against the files as they are (the plan's checkpoint of
//! them, labelled `rewind`, is what undoing it restores), restore every planned file in one
//! [`Store::restore`] call — files changed outside airlock only when told to overwrite —
//! then checkpoint what it left (`after`, so a later rewind does not take these restores
//! for changes made outside airlock). The caller records the [`RewoundLine`] this returns,
//! then the audit record, then gives the conversation its new history.
//!
//! A restore that stops partway still yields its [`Applied`], inside
//! [`RewindError::Partial`]: the caller records it all the same (`failed_at` set, the
//! conversation left as it is), so `/rewind undo` or `airlock rewind --undo` puts back
//! what it wrote and retention keeps its checkpoint.

use super::plan::plan_as;
use super::{Context, RewindError};
use airlock_checkpoint::{CheckpointError, Label, Restore, Store};
use airlock_model::Message;
use airlock_protocol::{RestoreWhat, RewindTarget, Rewound};

use crate::session::RewoundLine;

/// A rewind done.
#[derive(Debug, Clone)]
pub struct Applied {
    /// What it did, for a person.
    pub rewound: Rewound,
    /// The session file's record of it.
    pub record: RewoundLine,
    /// The paths it wrote or deleted, as shown.
    pub restored: Vec<String>,
}

impl Applied {
    /// The conversation after it, when it rewound the conversation.
    pub fn history(&self) -> Option<&[Message]> {
        self.record.history.as_deref()
    }
}

/// Rewinds to `target`: restores `what`, overwriting files changed outside airlock only
/// with `overwrite`.
pub fn apply(
    context: &Context<'_>,
    target: &RewindTarget,
    what: RestoreWhat,
    overwrite: bool,
) -> Result<Applied, RewindError> {
    let planned = plan_as(context, target, what, "rewind")?;
    let mut files: Vec<Restore> = Vec::new();
    let mut restored = Vec::new();
    let mut kept = Vec::new();
    for file in &planned.restores {
        if file.outside && !overwrite {
            kept.push(file.shown.clone());
        } else {
            files.push(file.restore.clone());
            restored.push(file.shown.clone());
        }
    }
    let mut after = None;
    let mut failed = None;
    if planned.safety.is_some() {
        let store = context.store()?;
        if let Err(error) = store.restore(&files) {
            failed = Some(stopped_at(context, error));
        }
        // Taken even when the restore stopped partway: a later rewind compares against
        // what this one left, whatever it managed to write.
        after = match left(context, store, &planned.roots, planned.prompts) {
            Ok(id) => Some(id),
            Err(_) if failed.is_some() => None,
            Err(error) => return Err(error),
        };
    }
    // A restore that stopped partway rewound no conversation: the record says it restored
    // code (its undo puts back what it wrote), and the conversation stays as it is.
    let (what, prompts, history) = match (&failed, planned.plan.what) {
        (Some(_), what) if what.code() => (RestoreWhat::Code, planned.count, None),
        _ => (planned.plan.what, planned.prompts, planned.history),
    };
    let record = RewoundLine {
        target: target.clone(),
        what,
        undo: planned.safety.as_ref().map(|id| id.0.clone()),
        after,
        prompts,
        history,
        failed_at: failed.as_ref().map(|(path, reason)| format!("{path}: {reason}")),
    };
    let rewound = Rewound {
        plan: planned.plan,
        restored: u32::try_from(files.len()).unwrap_or(u32::MAX),
        kept,
        undo: record.undo.clone(),
    };
    let applied = Applied { rewound, record, restored };
    match failed {
        Some((path, reason)) => Err(RewindError::Partial { applied: Box::new(applied), path, reason }),
        None => Ok(applied),
    }
}

/// The checkpoint of what the rewind left over its roots.
fn left(
    context: &Context<'_>,
    store: &Store,
    roots: &[std::path::PathBuf],
    prompts: u32,
) -> Result<String, RewindError> {
    let label = Label { session: context.session_id.to_owned(), prompt: prompts, call: None, why: "after".into() };
    Ok(store.checkpoint(roots, label)?.id.0)
}

/// Where a restore stopped and why, as a person reads it.
fn stopped_at(context: &Context<'_>, error: CheckpointError) -> (String, String) {
    match error {
        CheckpointError::Restore { path, reason } => (context.shown(&path), airlock_protocol::shown::line(&reason)),
        other => (String::from("a file"), airlock_protocol::shown::line(&other.to_string())),
    }
}
