//! Carrying a rewind out: plan it against the files as they are (the plan's checkpoint of
//! them, labelled `rewind`, is what undoing it restores), restore every planned file in one
//! [`Store::restore`] call — files changed outside airlock only when told to overwrite —
//! then checkpoint what it left (`after`, so a later rewind does not take these restores
//! for changes made outside airlock). The caller records the [`RewoundLine`] this returns,
//! then the audit record, then gives the conversation its new history.

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
    if let Some(safety) = &planned.safety {
        let store = context.store()?;
        store.restore(&files).map_err(|error| restore_failed(context, error, &safety.0))?;
        after = Some(left(context, store, &planned.roots, planned.prompts)?);
    }
    let record = RewoundLine {
        target: target.clone(),
        what: planned.plan.what,
        undo: planned.safety.as_ref().map(|id| id.0.clone()),
        after,
        prompts: planned.prompts,
        history: planned.history,
    };
    let rewound = Rewound {
        plan: planned.plan,
        restored: u32::try_from(files.len()).unwrap_or(u32::MAX),
        kept,
        undo: record.undo.clone(),
    };
    Ok(Applied { rewound, record, restored })
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

fn restore_failed(context: &Context<'_>, error: CheckpointError, undo: &str) -> RewindError {
    match error {
        CheckpointError::Restore { path, reason } => {
            RewindError::Restore { path: context.shown(&path), reason, undo: undo.to_owned() }
        }
        other => other.into(),
    }
}
