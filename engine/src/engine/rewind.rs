//! The engine's rewind orders: the session's turns with what each changed, and a rewind's
//! preview and application ([`crate::rewind`] does the work, off the async workers; this
//! file wires it to the running session: its store, its session file, its agent's history,
//! its events). Both orders are put off while a turn runs, so nothing writes while a rewind
//! reads or restores.

use std::path::PathBuf;
use std::sync::Arc;

use super::Engine;
use crate::events::Event;
use crate::rewind::{self, Context, RewindError};
use airlock_checkpoint::Store;
use airlock_protocol::{RestoreWhat, RewindTarget};

/// What a rewind of the running session works on, owned for a blocking task.
struct Owned {
    store: Option<Arc<Store>>,
    session: PathBuf,
    id: String,
    workspace: PathBuf,
}

impl Owned {
    fn context(&self) -> Context<'_> {
        Context {
            store: self.store.as_deref(),
            session: &self.session,
            session_id: &self.id,
            workspace: &self.workspace,
        }
    }
}

impl Engine {
    /// What a rewind works on; `None` (and a warning) when the session is not recorded.
    async fn rewind_context(&self) -> Option<Owned> {
        let Some((session, id)) = self.agent.session_file() else {
            self.shared
                .events
                .send(Event::Warning { message: "this session is not recorded: there is nothing to rewind".into() });
            return None;
        };
        let (session, id) = (session.to_path_buf(), id.to_owned());
        let store = match self.agent.checkpoints() {
            Some(checkpoints) => checkpoints.shared(&self.shared.events).await,
            None => None,
        };
        Some(Owned { store, session, id, workspace: PathBuf::from(&self.shared.info.workspace) })
    }

    /// Answers [`super::Op::RewindTurns`].
    pub(super) async fn rewind_turns(&mut self) {
        let Some(owned) = self.rewind_context().await else { return };
        match tokio::task::spawn_blocking(move || rewind::turns(&owned.context())).await {
            Ok(Ok(turns)) => self.shared.events.send(Event::RewindTurns(turns)),
            Ok(Err(error)) => self.rewind_failed(&error),
            Err(error) => self.shared.events.send(Event::Warning { message: format!("rewind failed: {error}") }),
        }
    }

    /// Answers [`super::Op::Rewind`].
    pub(super) async fn rewind(&mut self, target: RewindTarget, what: RestoreWhat, apply: bool, overwrite: bool) {
        let Some(owned) = self.rewind_context().await else { return };
        if !apply {
            match tokio::task::spawn_blocking(move || rewind::plan(&owned.context(), &target, what)).await {
                Ok(Ok(planned)) => self.shared.events.send(Event::RewindPlan(Box::new(planned.plan))),
                Ok(Err(error)) => self.rewind_failed(&error),
                Err(error) => self.shared.events.send(Event::Warning { message: format!("rewind failed: {error}") }),
            }
            return;
        }
        let done = tokio::task::spawn_blocking(move || rewind::apply(&owned.context(), &target, what, overwrite)).await;
        match done {
            Ok(Ok(applied)) => {
                self.agent.rewound(&applied, &self.shared.events);
                self.shared.events.send(Event::Rewound(Box::new(applied.rewound)));
            }
            Ok(Err(error)) => {
                // Stopped partway: recorded all the same, so `/rewind undo` reaches it.
                if let Some(applied) = error.applied() {
                    self.agent.rewound(applied, &self.shared.events);
                }
                self.rewind_failed(&error);
            }
            Err(error) => self.shared.events.send(Event::Warning { message: format!("rewind failed: {error}") }),
        }
    }

    fn rewind_failed(&self, error: &RewindError) {
        self.shared.events.send(Event::Warning { message: crate::sanitize::line(&format!("cannot rewind: {error}")) });
    }
}

#[cfg(test)]
#[path = "rewind_tests.rs"]
mod tests;
