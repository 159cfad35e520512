//! The checkpoints around a call that holds write access ([`crate::checkpoints`]): its
//! roots, computed by the host from what it resolved before the call runs, a checkpoint of
//! them right before the first run, one of what a grant given during the call adds before
//! the run that holds it, and one of all of them when the call ends (success, error or
//! cancel). A call refused or cancelled before it ran takes none.
//!
//! The roots ([`roots`]) are what the call's instance — and the OS sandbox of the programs
//! it starts, built from the same preopens ([`Scheduler::process_access`]) — can write: a
//! built-in edit's file; a bound edit's target file; a grant's writable folders; an MCP
//! server's resolved `write` folders. Never a path from the model's arguments or the
//! plugin's answers beyond what the host already resolved and the person approved. What a
//! command may write besides — its private temp folder and the package caches of
//! `[commands]` — is not the user's work and is not checkpointed.
//!
//! Calls of one batch may run at the same time ([`super::groups`]); a checkpoint must never
//! see another running call's half-done write. The grouping guarantees it: a call's roots
//! lie inside its [`super::groups::Reach`] (an edit's file inside its folder, a bound
//! edit's file is its reach, a grant's folders make it `Unknown`, as does an MCP call), and
//! calls of one group have pairwise disjoint reaches — a call whose reach is `Unknown` runs
//! alone. So while a checkpoint of one call is taken, no other running call can write under
//! its roots.

use std::path::PathBuf;

use super::sandboxing::{Access, Writes};
use super::{CompletedCall, Scheduler};
use crate::checkpoints::CallCheckpoint;
use crate::contract::ToolInfo;
use crate::events::EventSink;

/// What a component call may write, as roots for its checkpoints: nothing for a read-only
/// kind or a call with no writable folder.
pub(super) fn roots(tool: &ToolInfo, access: &Access, writes: &Writes) -> Vec<PathBuf> {
    if tool.kind.is_read_only() {
        return Vec::new();
    }
    let writable = access.writable(tool, writes);
    let roots = match writes {
        // An edit writes its file alone — unless it may start programs, which may write
        // anywhere in the folder its sandbox makes writable.
        Writes::Edit(target) if access.effective.processes.is_empty() && !writable.is_empty() => {
            vec![target.file.clone()]
        }
        _ => writable,
    };
    outermost(roots)
}

/// `roots` without those that lie inside another (a checkpoint of the outer one holds them).
fn outermost(mut roots: Vec<PathBuf>) -> Vec<PathBuf> {
    roots.sort();
    roots.dedup();
    let mut kept: Vec<PathBuf> = Vec::new();
    for root in roots {
        if !kept.iter().any(|outer| root.starts_with(outer)) {
            kept.push(root);
        }
    }
    kept
}

/// What of `roots` lies outside every root in `had` (what a widened grant adds).
fn new_roots(had: &[PathBuf], roots: Vec<PathBuf>) -> Vec<PathBuf> {
    outermost(roots).into_iter().filter(|root| !had.iter().any(|had| root.starts_with(had))).collect()
}

/// A running call's checkpoints so far.
#[derive(Debug, Default)]
pub(super) struct Taken {
    /// Every root checkpointed before a run (the `after` covers them all).
    roots: Vec<PathBuf>,
    /// The prompt it ran in.
    prompt: u32,
    before: Vec<String>,
}

impl Taken {
    /// Whether a checkpoint was taken before the call ran, so it can be undone.
    pub(super) fn undoable(&self) -> bool {
        !self.before.is_empty()
    }
}

impl Scheduler {
    /// The checkpoint before a call's first run, of what `roots` computes; nothing when it
    /// holds no write access, and nothing is computed when checkpoints are off.
    pub(super) async fn checkpoint_before(
        &self,
        call_id: &str,
        roots: impl FnOnce() -> Vec<PathBuf>,
        events: &EventSink,
    ) -> Taken {
        let Some(checkpoints) = self.checkpoints.as_ref().filter(|c| c.enabled()) else { return Taken::default() };
        let roots = roots();
        if roots.is_empty() {
            return Taken::default();
        }
        let mut taken = Taken { roots: Vec::new(), prompt: checkpoints.prompt(), before: Vec::new() };
        self.checkpoint_more(&mut taken, call_id, || roots, events).await;
        taken
    }

    /// Before a rerun with a widened grant: a checkpoint of the roots that what `roots`
    /// computes adds to those already taken (none when it adds none).
    pub(super) async fn checkpoint_more(
        &self,
        taken: &mut Taken,
        call_id: &str,
        roots: impl FnOnce() -> Vec<PathBuf>,
        events: &EventSink,
    ) {
        let Some(checkpoints) = self.checkpoints.as_ref().filter(|c| c.enabled()) else { return };
        let roots = roots();
        let added = new_roots(&taken.roots, roots);
        if added.is_empty() {
            return;
        }
        if taken.roots.is_empty() {
            taken.prompt = checkpoints.prompt();
        }
        if let Some(id) = checkpoints.before(call_id, &added, events).await {
            taken.before.push(id.0);
        }
        taken.roots = outermost(taken.roots.drain(..).chain(added).collect());
    }

    /// When the call ended: the checkpoint of every root taken before, and the record for
    /// its `calls` line (`None` when nothing was taken before, so nothing can be undone).
    pub(super) async fn checkpoint_after(
        &self,
        taken: Taken,
        mut done: CompletedCall,
        events: &EventSink,
    ) -> CompletedCall {
        if taken.before.is_empty() {
            return done;
        }
        let Some(checkpoints) = self.checkpoints.as_ref() else { return done };
        let after = checkpoints.after(&done.call.id, &taken.roots, events).await;
        done.checkpoint =
            Some(CallCheckpoint { prompt: taken.prompt, before: taken.before, after: after.map(|id| id.0) });
        done
    }
}

#[cfg(test)]
#[path = "checkpointed_tests.rs"]
mod tests;
