//! One tool call outside a model turn: what `airlock mcp serve` runs for an MCP client's
//! `tools/call`. The call goes through the session's scheduler exactly as a model's call
//! does (validation, policy rules, approval mode, grants, limits, output caps, whole-output
//! saving), as a batch of its own; its events, approval questions and grant questions go
//! to the session's output stream, tagged with the call's id.
//!
//! Invariants:
//! - each call runs with the session's tools as they are when it starts (after a plugin
//!   reload, the new ones) and keeps them to its end;
//! - a call's id is the engine's own (`served-N`), unique in the session, so a front end can
//!   route the outputs of several calls that run at once;
//! - the call does nothing until its future is polled: a front end learns the id first, so
//!   no output of the call can arrive before the front end can route it.

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use crate::cancel::Cancellation;
use crate::events::EventSink;
use crate::scheduler::{CompletedCall, Scheduler};
use airlock_model::FunctionCall;

/// Starts calls with the session's current scheduler.
#[derive(Debug, Clone)]
pub(super) struct Calls {
    scheduler: Arc<Mutex<Scheduler>>,
    events: EventSink,
    next: Arc<AtomicU64>,
}

impl Calls {
    pub(super) fn new(scheduler: &Scheduler, events: EventSink) -> Self {
        Self { scheduler: Arc::new(Mutex::new(scheduler.clone())), events, next: Arc::default() }
    }

    /// Runs the next calls with `scheduler` (the tools changed, or where outputs are kept).
    pub(super) fn set(&self, scheduler: &Scheduler) {
        *self.scheduler.lock().unwrap_or_else(PoisonError::into_inner) = scheduler.clone();
    }

    /// A call of `tool` with `arguments` (JSON text, checked as a model's are), stopped by
    /// `cancel`.
    pub(super) fn start(&self, tool: &str, arguments: String, cancel: Cancellation) -> Call {
        let id = format!("served-{}", self.next.fetch_add(1, Ordering::Relaxed) + 1);
        let scheduler = self.scheduler.lock().unwrap_or_else(PoisonError::into_inner).clone();
        let events = self.events.clone();
        let call = FunctionCall { id: id.clone(), name: tool.to_owned(), arguments, signature: None };
        let run =
            Box::pin(async move { scheduler.run_batch(std::slice::from_ref(&call), &events, &cancel).await.pop() });
        Call { id, run }
    }
}

/// A call started outside a model turn: its id, then its end.
pub struct Call {
    id: String,
    run: Pin<Box<dyn Future<Output = Option<CompletedCall>> + Send>>,
}

impl std::fmt::Debug for Call {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Call").field("id", &self.id).finish_non_exhaustive()
    }
}

impl Call {
    /// The id its events and questions carry.
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Runs the call to its end. `None` only when its task failed inside airlock (logged).
    pub async fn finish(self) -> Option<CompletedCall> {
        self.run.await
    }
}
