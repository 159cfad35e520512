//! Retention of the workspace's checkpoints (`[checkpoints] max_size_mib`, `max_age_days`):
//! what a session keeps (the checkpoints its session file names), and the collection a
//! session start runs in the background when the store is over its caps — on a blocking
//! thread, never before the first prompt, and only for a store that exists already (a
//! workspace never checkpointed gets no store from it).

use std::path::{Path, PathBuf};
use std::time::SystemTime;

use super::{RewindError, Timeline};
use crate::config::CheckpointSettings;
use airlock_checkpoint::{CheckpointId, GcReport, Retention, Store};

/// Every checkpoint the session file at `path` names: its calls' and its rewinds'.
pub fn named_by(path: &Path) -> Result<Vec<CheckpointId>, RewindError> {
    let timeline = Timeline::read(path)?;
    Ok(timeline.writes.iter().flat_map(|write| write.before.iter().chain(write.after.as_ref())).cloned().collect())
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
/// its caps, keeping the checkpoints the session file at `session` names (a resumed
/// session's). What came of it goes to the log.
pub fn at_start(home: &Path, workspace: &Path, settings: &CheckpointSettings, session: Option<PathBuf>) {
    if !settings.enabled() || !airlock_checkpoint::store_dir(home, workspace).is_dir() {
        return;
    }
    let (home, workspace) = (home.to_path_buf(), workspace.to_path_buf());
    let (store_settings, retention) = (settings.store_settings(&home), settings.retention());
    let collect = move || -> Result<Option<GcReport>, RewindError> {
        let store = Store::open(&home, &workspace, store_settings)?;
        let keep = match &session {
            Some(path) => named_by(path)?,
            None => Vec::new(),
        };
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
