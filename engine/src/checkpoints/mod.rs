//! Checkpoints of what a call may write, taken by the host before the call runs
//! ([`airlock_checkpoint`] holds the store): the session's [`Checkpointer`] (the store, the
//! session and prompt its labels name), and what the session file records of one call's
//! checkpoints ([`CallCheckpoint`]). Which roots a call's access lets it write is the
//! scheduler's (`scheduler/checkpointed.rs`): the host's own resolution of its grant, never
//! anything the model or the plugin says.
//!
//! Invariants:
//! - The store is opened at most once per session, off the async workers, and only when a
//!   call that holds write access (or a rewind) first needs it: a session without write
//!   calls opens and builds nothing.
//! - Every checkpoint runs on `spawn_blocking`. A failed one is one warning and the call
//!   still runs (it cannot be undone, and the warning says so); a store that cannot be
//!   opened is one warning for the session, and calls run without checkpoints.
//! - `[checkpoints] enabled = false` (the user's or the system's file only) leaves the
//!   store closed: no call is refused for it.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use airlock_checkpoint::{CheckpointId, Label, Store};
use serde::{Deserialize, Serialize};
use tokio::sync::OnceCell;

use crate::config::CheckpointSettings;
use crate::events::{Event, EventSink};

/// The checkpoints of one call that held write access: rewind restores from `before`, and
/// `after` says what airlock left (a file that differs from it now was changed outside).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CallCheckpoint {
    /// The user prompt the call ran in (from 1).
    pub prompt: u32,
    /// The store's checkpoints taken before the call wrote anything: one, or more when a
    /// grant given during the call widened what it may write (the new folders, before the
    /// run that held them).
    pub before: Vec<String>,
    /// Taken when it ended, over the same roots; absent when that failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub after: Option<String>,
}

/// Why a checkpoint is taken, as its label says.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Why {
    Before,
    After,
}

impl Why {
    fn as_str(self) -> &'static str {
        match self {
            Self::Before => "before",
            Self::After => "after",
        }
    }
}

/// The session's checkpoints: shared (`Arc`) by the scheduler, the agent and the engine.
pub struct Checkpointer {
    /// What opening the store needs; `None` when checkpoints are off.
    open: Option<Opening>,
    /// The store once opened (`None` inside: it could not be).
    store: OnceCell<Option<Arc<Store>>>,
    /// The session whose calls the labels name (changes on `/clear` and a resume).
    session: Mutex<String>,
    /// The current user prompt (from 1; 0 before the first).
    prompt: AtomicU32,
    one_at_a_time: tokio::sync::Mutex<()>,
}

/// Where the store lives and what it may hold.
struct Opening {
    home: PathBuf,
    workspace: PathBuf,
    settings: airlock_checkpoint::Settings,
}

impl std::fmt::Debug for Checkpointer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Checkpointer")
            .field("enabled", &self.open.is_some())
            .field("prompt", &self.prompt())
            .finish_non_exhaustive()
    }
}

impl Checkpointer {
    /// The checkpoints of a session in `workspace` whose `$AIRLOCK_HOME` is `home`, under
    /// `settings`; the store opens when first needed.
    pub fn new(home: &Path, workspace: &Path, settings: &CheckpointSettings) -> Self {
        let open = settings.enabled().then(|| Opening {
            home: home.to_path_buf(),
            workspace: workspace.to_path_buf(),
            settings: settings.store_settings(home),
        });
        Self { open, ..Self::off() }
    }

    /// No checkpoints at all (a session without a model, checkpoints switched off).
    pub fn off() -> Self {
        Self {
            open: None,
            store: OnceCell::new(),
            session: Mutex::default(),
            prompt: AtomicU32::new(0),
            one_at_a_time: tokio::sync::Mutex::new(()),
        }
    }

    /// Whether calls are checkpointed (the store may still fail to open).
    pub fn enabled(&self) -> bool {
        self.open.is_some()
    }

    /// The session the next labels name.
    pub fn set_session(&self, id: &str) {
        *self.session.lock().unwrap_or_else(PoisonError::into_inner) = id.to_owned();
    }

    /// The user prompt the next labels name: set by the agent at each prompt, and by a
    /// rewind of the conversation.
    pub fn set_prompt(&self, prompt: u32) {
        self.prompt.store(prompt, Ordering::Relaxed);
    }

    /// The current user prompt (0 before the first).
    pub fn prompt(&self) -> u32 {
        self.prompt.load(Ordering::Relaxed)
    }

    /// The store, when it was opened already ([`Checkpointer::ready`] opens it).
    pub fn store(&self) -> Option<&Store> {
        self.store.get().and_then(Option::as_deref)
    }

    /// The store, opened (off the async workers) on first use, to hand to blocking work
    /// (a rewind); `None` as for [`Checkpointer::ready`].
    pub async fn shared(&self, events: &EventSink) -> Option<Arc<Store>> {
        self.ready(events).await?;
        self.store.get().cloned().flatten()
    }

    /// The store, opened (off the async workers) on first use; `None` when checkpoints are
    /// off or it cannot be opened (said once, to `events`).
    pub async fn ready(&self, events: &EventSink) -> Option<&Store> {
        let open = self.open.as_ref()?;
        let store = self
            .store
            .get_or_init(|| async {
                let (home, workspace, settings) = (open.home.clone(), open.workspace.clone(), open.settings.clone());
                let opened = tokio::task::spawn_blocking(move || Store::open(&home, &workspace, settings)).await;
                let reason = match opened {
                    Ok(Ok(store)) => return Some(Arc::new(store)),
                    Ok(Err(error)) => error.to_string(),
                    Err(error) => error.to_string(),
                };
                events.send(Event::Warning {
                    message: crate::sanitize::line(&format!(
                        "checkpoints are off for this session: {reason}; what tools change cannot be undone"
                    )),
                });
                None
            })
            .await;
        store.as_deref()
    }

    /// Takes a checkpoint of `roots` for `call_id` (`why`: before or after it), off the
    /// async workers. `None` when there is nothing to take (no roots, checkpoints off) or it
    /// failed — then one warning says the call cannot be undone.
    pub async fn take(&self, call_id: &str, why: Why, roots: &[PathBuf], events: &EventSink) -> Option<CheckpointId> {
        let open = self.open.as_ref()?;
        // What lies inside airlock's own home (the memory folder) is never snapshotted.
        let roots: Vec<PathBuf> = roots
            .iter()
            .filter(|root| !open.settings.never.iter().any(|home| root.starts_with(home)))
            .cloned()
            .collect();
        if roots.is_empty() {
            return None;
        }
        self.ready(events).await?;
        let store = self.store.get().cloned().flatten()?;
        let label = Label {
            session: self.session.lock().unwrap_or_else(PoisonError::into_inner).clone(),
            prompt: self.prompt(),
            call: Some(call_id.to_owned()),
            why: why.as_str().to_owned(),
        };
        // One checkpoint at a time: calls of one batch that run together never share a root
        // (`scheduler/checkpointed.rs`), but they share the store's stat index.
        let _one = self.one_at_a_time.lock().await;
        let taken = tokio::task::spawn_blocking(move || store.checkpoint(&roots, label)).await;
        let reason = match taken {
            Ok(Ok(checkpoint)) => return Some(checkpoint.id),
            Ok(Err(error)) => error.to_string(),
            Err(error) => error.to_string(),
        };
        events.send(Event::Warning {
            message: crate::sanitize::line(&format!(
                "checkpoint failed for {call_id}: {reason}; this call cannot be undone"
            )),
        });
        None
    }

    /// [`Checkpointer::take`] before a call's first run.
    pub async fn before(&self, call_id: &str, roots: &[PathBuf], events: &EventSink) -> Option<CheckpointId> {
        self.take(call_id, Why::Before, roots, events).await
    }

    /// [`Checkpointer::take`] when a call ended.
    pub async fn after(&self, call_id: &str, roots: &[PathBuf], events: &EventSink) -> Option<CheckpointId> {
        self.take(call_id, Why::After, roots, events).await
    }
}

#[cfg(test)]
#[path = "mod_tests.rs"]
mod tests;
