//! Retention of the workspace's checkpoints (`[checkpoints] max_size_mib`, `max_age_days`):
//! what a collection must keep ([`protected`]), and the collection a session start runs in
//! the background when the store is over its caps — on a blocking thread, never before the
//! first prompt, and only for a store that exists already (a workspace never checkpointed
//! gets no store from it).
//!
//! Invariant: whatever the caps, a collection keeps the checkpoints the chosen session file
//! names, every checkpoint of a session still running (its session file is locked: a live
//! recorder's shared lock, or `airlock rewind`'s exclusive one), and every checkpoint younger
//! than [`GRACE`] (a call in flight, a rewind between its plan and its record, a session
//! that records nothing yet). A new session protects as much as a resumed one.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use super::{RewindError, Timeline};
use crate::config::CheckpointSettings;
use crate::session::{self, SessionError};
use airlock_checkpoint::{CheckpointId, GcReport, Retention, Store};

/// A checkpoint younger than this is never collected, whatever the caps.
pub const GRACE: Duration = Duration::from_secs(60 * 60);

/// Every checkpoint the session file at `path` names: its calls' and its rewinds'.
pub fn named_by(path: &Path) -> Result<Vec<CheckpointId>, RewindError> {
    let timeline = Timeline::read(path)?;
    Ok(timeline.writes.iter().flat_map(|write| write.before.iter().chain(write.after.as_ref())).cloned().collect())
}

/// The checkpoints of `store` a collection must keep: those the session file `session`
/// names, those labelled with the id of a session whose file in `$AIRLOCK_HOME` (`home`) is
/// locked (running), and those younger than `grace`.
pub fn protected(
    home: &Path,
    store: &Store,
    session: Option<&Path>,
    grace: Duration,
) -> Result<Vec<CheckpointId>, RewindError> {
    let mut keep = match session {
        Some(path) => named_by(path)?,
        None => Vec::new(),
    };
    let running = running(home)?;
    let now = SystemTime::now();
    for checkpoint in store.list()? {
        let young = now.duration_since(checkpoint.created).map_or(true, |age| age < grace);
        if young || running.contains(&checkpoint.label.session) {
            keep.push(checkpoint.id);
        }
    }
    keep.sort();
    keep.dedup();
    Ok(keep)
}

/// The ids of the sessions whose file is locked now. Trying the lock takes it for an
/// instant when it is free; a recorder starting in that instant records unlocked, as it
/// does whenever a lock cannot be taken.
fn running(home: &Path) -> Result<HashSet<String>, RewindError> {
    let mut ids = HashSet::new();
    for summary in session::list(&session::dir(home))? {
        if let Err(SessionError::Busy { .. }) = session::exclusive(&summary.path, &summary.id) {
            ids.insert(summary.id);
        }
    }
    Ok(ids)
}

/// Whether `store` holds more than `retention` lets it: too many bytes, or a checkpoint
/// older than the age cap.
pub fn over(store: &Store, retention: &Retention) -> Result<bool, RewindError> {
    if store.usage()? > retention.max_bytes {
        return Ok(true);
    }
    let oldest = store.list()?.into_iter().map(|checkpoint| checkpoint.created).min();
    Ok(oldest.is_some_and(|created| SystemTime::now().duration_since(created).is_ok_and(|age| age > retention.max_age)))
}

/// Collects `store` when it is over `retention`, keeping `keep`; `None` when it was not.
pub fn collect_if_over(
    store: &Store,
    retention: &Retention,
    keep: &[CheckpointId],
) -> Result<Option<GcReport>, RewindError> {
    if !over(store, retention)? {
        return Ok(None);
    }
    Ok(Some(store.gc(retention, keep)?))
}

/// At a session's start: collects the workspace's store in the background when it is over
/// its caps, keeping what [`protected`] keeps (with `session`, the file this session records
/// to). What came of it goes to the log.
pub fn at_start(home: &Path, workspace: &Path, settings: &CheckpointSettings, session: Option<PathBuf>) {
    if !settings.enabled() || !airlock_checkpoint::store_dir(home, workspace).is_dir() {
        return;
    }
    let (home, workspace) = (home.to_path_buf(), workspace.to_path_buf());
    let (store_settings, retention) = (settings.store_settings(&home), settings.retention());
    let collect = move || -> Result<Option<GcReport>, RewindError> {
        let store = Store::open(&home, &workspace, store_settings)?;
        let keep = protected(&home, &store, session.as_deref(), GRACE)?;
        collect_if_over(&store, &retention, &keep)
    };
    let Ok(runtime) = tokio::runtime::Handle::try_current() else { return };
    runtime.spawn_blocking(move || match collect() {
        Ok(Some(report)) => tracing::info!(
            removed = report.checkpoints_removed,
            freed = report.bytes_freed,
            kept = report.bytes_kept,
            "checkpoint retention at start"
        ),
        Ok(None) => {}
        Err(error) => tracing::warn!("checkpoint retention at start: {error}"),
    });
}

#[cfg(test)]
#[path = "retention_tests.rs"]
mod tests;
