//! Observing a session from beside its front end: an [`Observer`] is told every order the
//! front end sends and every output the engine gives, each with the time it crossed the
//! door, without the front end knowing. OpenTelemetry export (`airlock-telemetry`) is built
//! on this, so the headless run, the TUI, ACP and `mcp serve` are observed alike.
//!
//! Invariants:
//! - The front end gets every output, unchanged and in order; the observer sees each one
//!   before the front end does, and each order before the engine does.
//! - An observer runs on the forwarding task: it must not block (it only records; sending
//!   anything anywhere happens elsewhere).
//! - A session that nobody observes pays nothing: no task, no channel, no copy.

use std::time::SystemTime;

use airlock_protocol::Order;
use tokio::sync::mpsc::{self, UnboundedReceiver};

use crate::{Output, Session};

/// What watches a session: told of orders and outputs as they cross the door, then once
/// that the session's stream ended.
pub trait Observer: Send + 'static {
    /// The front end sent `order` at `at`.
    fn order(&mut self, at: SystemTime, order: &Order);
    /// The engine gave `output`, which crossed the door at `at`.
    fn output(&mut self, at: SystemTime, output: &Output);
    /// The session's output stream ended (the engine stopped) at `at`.
    fn ended(&mut self, at: SystemTime);
}

/// An observed session: hand `session` and `outputs` to the front end as usual; `done`
/// ends once the observer was told that the session ended.
#[derive(Debug)]
pub struct Observed {
    /// The session, whose orders the observer also sees.
    pub session: Session,
    /// The outputs, each seen by the observer first.
    pub outputs: UnboundedReceiver<Output>,
    /// The forwarding task.
    pub done: tokio::task::JoinHandle<()>,
}

/// Puts `observer` between the engine's `outputs` and the front end, and on the orders sent
/// through `session` (and its [`crate::Orders`]). Call within a tokio runtime.
pub fn observe(session: Session, mut outputs: UnboundedReceiver<Output>, mut observer: Box<dyn Observer>) -> Observed {
    let (tap, mut orders) = mpsc::unbounded_channel();
    let (front, front_outputs) = mpsc::unbounded_channel();
    let done = tokio::spawn(async move {
        loop {
            tokio::select! {
                // Orders first: a prompt is seen before the outputs of its turn.
                biased;
                Some((at, order)) = orders.recv() => observer.order(at, &order),
                output = outputs.recv() => match output {
                    Some(output) => {
                        observer.output(SystemTime::now(), &output);
                        // A front end that stopped reading just misses outputs; the
                        // observer still sees the session to its end.
                        let _ = front.send(output);
                    }
                    None => break,
                },
            }
        }
        while let Ok((at, order)) = orders.try_recv() {
            observer.order(at, &order);
        }
        observer.ended(SystemTime::now());
    });
    Observed { session: session.tapped(tap), outputs: front_outputs, done }
}
