//! The engine's rewind orders: the session's turns with what each changed, and a rewind's
//! preview and application ([`crate::rewind`] does the work; this file wires it to the
//! running session: its recorder, its agent's history, its events).
//!
//! Skeleton: the rewind stream of issue 29 replaces these bodies.

use super::Engine;
use crate::events::Event;
use airlock_protocol::{RestoreWhat, RewindTarget};

impl Engine {
    /// Answers [`super::Op::RewindTurns`].
    pub(super) async fn rewind_turns(&mut self) {
        self.shared.events.send(Event::RewindTurns(Vec::new()));
    }

    /// Answers [`super::Op::Rewind`].
    pub(super) async fn rewind(&mut self, target: RewindTarget, what: RestoreWhat, apply: bool, overwrite: bool) {
        let _ = (target, what, apply, overwrite);
        self.shared.events.send(Event::Warning { message: "rewind is not built yet".into() });
    }
}
