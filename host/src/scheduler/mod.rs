//! The tool scheduler: one state machine per call (DESIGN.md §1), run over a batch — all
//! the calls of one model response.
//!
//! ```text
//! validating ─► awaiting_approval ─► scheduled ─► executing ─► success | error | cancelled
//! ```
//!
//! Validation (registry lookup, JSON-Schema check, the plugin's `validate`, `describe-call`
//! and `confirm`) and approval run for all calls at once; execution starts only when no
//! call is still awaiting approval. Consecutive parallel-safe calls then run together, and
//! a call that is not parallel-safe (an edit) runs alone, in the order the model gave. One
//! call's failure never touches its siblings, every state change is an [`Event`], and every
//! call ends in a terminal state with a response for the model, also when cancelled.

mod call;

use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use futures_util::future::join_all;

use crate::cancel::Cancellation;
use crate::contract::{ErrorKind, ToolError, ToolOutput};
use crate::events::{CallStatus, EventSink};
use crate::model::{FunctionCall, FunctionResponse};
use crate::policy::{ApprovalMode, Approver};
use crate::registry::Registry;
use crate::runtime::Runtime;
use call::Prepared;

/// Limits applied to every call.
#[derive(Debug, Clone, Copy)]
pub struct CallLimits {
    /// Linear-memory cap of an instance, in bytes.
    pub memory: usize,
    /// Wall-clock deadline of one guest call.
    pub deadline: Duration,
    /// Most bytes of tool output sent to the model.
    pub output: usize,
}

impl Default for CallLimits {
    fn default() -> Self {
        Self { memory: 256 << 20, deadline: Duration::from_secs(60), output: 100_000 }
    }
}

/// A finished call.
#[derive(Debug, Clone)]
pub struct CompletedCall {
    pub call: FunctionCall,
    /// `success`, `error` or `cancelled`.
    pub status: CallStatus,
    pub result: Result<ToolOutput, ToolError>,
    pub duration: Duration,
}

impl CompletedCall {
    /// What the model is told.
    pub fn response(&self) -> FunctionResponse {
        let (content, is_error) = match &self.result {
            Ok(output) => (output.llm_text(), false),
            Err(error) => (format!("{}: {}", error.kind.as_str(), error.message), true),
        };
        FunctionResponse { id: self.call.id.clone(), name: self.call.name.clone(), content, is_error }
    }
}

/// Runs batches of tool calls.
pub struct Scheduler {
    runtime: Arc<Runtime>,
    registry: Arc<Registry>,
    workspace: PathBuf,
    mode: ApprovalMode,
    approver: Arc<dyn Approver>,
    limits: CallLimits,
}

impl std::fmt::Debug for Scheduler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Scheduler").field("mode", &self.mode).field("limits", &self.limits).finish_non_exhaustive()
    }
}

impl Scheduler {
    pub fn new(
        runtime: Arc<Runtime>,
        registry: Arc<Registry>,
        workspace: PathBuf,
        mode: ApprovalMode,
        approver: Arc<dyn Approver>,
        limits: CallLimits,
    ) -> Self {
        Self { runtime, registry, workspace, mode, approver, limits }
    }

    pub fn registry(&self) -> &Registry {
        &self.registry
    }

    /// Runs one batch to completion and returns one completed call per request, in order.
    pub async fn run_batch(
        &self,
        calls: &[FunctionCall],
        events: &EventSink,
        cancel: &Cancellation,
    ) -> Vec<CompletedCall> {
        let prepared = join_all(calls.iter().map(|call| self.prepare(call, events, cancel))).await;
        // A user who cancels one approval cancels the batch.
        let batch_cancelled = prepared.iter().any(|p| matches!(p, Prepared::CancelBatch(_)));
        let mut slots: Vec<Option<CompletedCall>> = Vec::with_capacity(calls.len());
        let mut runnable = Vec::new();
        for (index, item) in prepared.into_iter().enumerate() {
            match item {
                Prepared::Done(done) | Prepared::CancelBatch(done) => slots.push(Some(done)),
                Prepared::Ready(ready) if batch_cancelled => {
                    slots.push(Some(ready.cancel("the user cancelled another call of this batch", events)));
                }
                Prepared::Ready(ready) => {
                    slots.push(None);
                    runnable.push((index, ready));
                }
            }
        }
        // Consecutive parallel-safe calls run together; any other call runs alone.
        let mut groups: Vec<Vec<(usize, call::Ready)>> = Vec::new();
        for (index, ready) in runnable {
            let parallel = ready.tool.info.parallel_safe;
            match groups.last_mut() {
                Some(group) if parallel && group.iter().all(|(_, r)| r.tool.info.parallel_safe) => {
                    group.push((index, ready))
                }
                _ => groups.push(vec![(index, ready)]),
            }
        }
        for group in groups {
            let results = join_all(
                group
                    .into_iter()
                    .map(|(index, ready)| async move { (index, self.execute(ready, events, cancel).await) }),
            )
            .await;
            for (index, done) in results {
                slots[index] = Some(done);
            }
        }
        slots
            .into_iter()
            .zip(calls)
            .map(|(slot, call)| {
                slot.unwrap_or_else(|| CompletedCall {
                    call: call.clone(),
                    status: CallStatus::Error,
                    result: Err(ToolError::new(ErrorKind::Execution, "the call was lost by the scheduler")),
                    duration: Duration::ZERO,
                })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests;
