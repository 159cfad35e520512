//! The process budget: how many instances may be alive at once in this process, and how much
//! linear memory their caps may add up to. Every store's own limiter caps *its* memories
//! ([`super::state::MemoryLimiter`]); without this, a batch of calls (all prepared at once,
//! parallel calls executed at once) multiplies that cap by the number of calls.
//!
//! Invariants:
//! - an [`super::Instance`] exists only while it holds [`Permits`]: one of the live-instance
//!   count and its memory cap in MiB (rounded up, at least 1, at most the whole budget);
//!   they are released when the instance is dropped, after its store;
//! - so the linear memory of all live instances together stays under
//!   `max(budget, the largest single cap)`: a call whose cap exceeds the budget takes all of
//!   it and runs alone;
//! - waiting is fair (FIFO, so a large call is not starved by small ones) and ends at the
//!   call's deadline or when its cancel flag is set; nothing that holds permits ever waits
//!   for more, so waiting cannot deadlock.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use super::CallFault;
use super::state::CancelFlag;

/// Linear memory the caps of all live instances may add up to, by default.
pub const DEFAULT_MEMORY_BUDGET: usize = 1 << 30;
/// Instances alive at once, by default.
pub const DEFAULT_LIVE_INSTANCES: usize = 16;
/// How often a waiting call looks at its cancel flag.
const CANCEL_POLL: Duration = Duration::from_millis(20);

/// What all the instances of one process may hold together.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcessLimits {
    /// Bytes of linear memory (counted by each instance's cap, not its use).
    pub memory: usize,
    /// Instances alive at once.
    pub instances: usize,
}

impl Default for ProcessLimits {
    fn default() -> Self {
        Self { memory: DEFAULT_MEMORY_BUDGET, instances: DEFAULT_LIVE_INSTANCES }
    }
}

/// The permits of one live instance; dropping them gives the room back.
#[derive(Debug)]
pub struct Permits {
    _instance: OwnedSemaphorePermit,
    _memory: OwnedSemaphorePermit,
}

/// The process-wide semaphores.
#[derive(Debug)]
pub struct Budget {
    limits: ProcessLimits,
    memory_mib: u32,
    memory: Arc<Semaphore>,
    instances: Arc<Semaphore>,
}

impl Budget {
    pub fn new(limits: ProcessLimits) -> Self {
        let memory_mib = u32::try_from(mib(limits.memory)).unwrap_or(u32::MAX).max(1);
        let instances = limits.instances.clamp(1, Semaphore::MAX_PERMITS);
        Self {
            limits,
            memory_mib,
            memory: Arc::new(Semaphore::new(memory_mib as usize)),
            instances: Arc::new(Semaphore::new(instances)),
        }
    }

    pub fn limits(&self) -> ProcessLimits {
        self.limits
    }

    /// The MiB an instance capped at `cap` bytes takes from the budget.
    fn cost(&self, cap: usize) -> u32 {
        u32::try_from(mib(cap)).unwrap_or(u32::MAX).clamp(1, self.memory_mib)
    }

    /// Room for one instance capped at `cap` bytes if there is some now (never ahead of a
    /// call already waiting: the semaphores hand given-back permits to their waiters first).
    pub fn try_acquire(&self, cap: usize) -> Option<Permits> {
        let instance = self.instances.clone().try_acquire_owned().ok()?;
        let memory = self.memory.clone().try_acquire_many_owned(self.cost(cap)).ok()?;
        Some(Permits { _instance: instance, _memory: memory })
    }

    /// Waits for room for one instance capped at `cap` bytes: at most `wait`, and not after
    /// `cancel` is set.
    pub async fn acquire(&self, cap: usize, wait: Duration, cancel: &CancelFlag) -> Result<Permits, CallFault> {
        let cost = self.cost(cap);
        let permits = async {
            // Both semaphores live as long as the budget and are never closed.
            let instance = self.instances.clone().acquire_owned().await.ok()?;
            let memory = self.memory.clone().acquire_many_owned(cost).await.ok()?;
            Some(Permits { _instance: instance, _memory: memory })
        };
        let cancelled = async {
            while !cancel.is_cancelled() {
                tokio::time::sleep(CANCEL_POLL).await;
            }
        };
        if cancel.is_cancelled() {
            return Err(CallFault::Cancelled);
        }
        tokio::select! {
            biased;
            () = cancelled => Err(CallFault::Cancelled),
            permits = permits => permits.ok_or_else(|| CallFault::Instantiate("the process budget was closed".into())),
            () = tokio::time::sleep(wait) => Err(CallFault::Queued {
                waited: wait,
                budget_mib: self.memory_mib as usize,
                instances: self.limits.instances,
            }),
        }
    }
}

/// `bytes` in MiB, rounded up.
fn mib(bytes: usize) -> usize {
    bytes.div_ceil(1 << 20)
}

#[cfg(test)]
#[path = "budget_tests.rs"]
mod tests;
