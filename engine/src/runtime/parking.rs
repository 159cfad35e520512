//! Parked instances: a call's check instance set aside for its execution, when both run in
//! the very same sandbox (the scheduler decides that), so the call instantiates once.
//!
//! A parked instance keeps its permits of the process budget ([`super::budget`]), so it must
//! never make another call wait for room:
//! - a call that finds no room gives up (drops) every parked instance before it waits;
//! - an instance parked while a call waits is given up at once;
//! - a wait that can take long (a person's answer) gives them all up first
//!   ([`Runtime::release_parked`]).
//!
//! The first two are ordered through [`Parking::waiting`]: a waiter counts itself before it
//! looks for parked instances, a parker lists its instance before it looks for waiters, so
//! at least one of them sees the other.
//!
//! Invariants: an instance that faulted (a trap, an exit, a deadline, exhaustion) is never
//! parked; nothing runs in a parked instance; it is taken out at most once, with its deadline
//! restarted as if it had just been made.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, PoisonError, Weak};

use super::budget::Permits;
use super::{CallFault, Instance, Runtime, Sandbox};

type Slot = Mutex<Option<Instance>>;

/// The parked instances of a runtime, and how many calls wait for room.
#[derive(Debug, Default)]
pub(super) struct Parking {
    waiting: AtomicUsize,
    slots: Mutex<Vec<Weak<Slot>>>,
}

/// An instance set aside for a later call of the same sandbox; dropping it drops the
/// instance.
pub struct Parked {
    slot: Arc<Slot>,
}

impl std::fmt::Debug for Parked {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Parked").field("held", &lock(&self.slot).is_some()).finish()
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Parked {
    /// The instance, its deadline restarted; `None` when it was given up meanwhile.
    pub fn resume(self) -> Option<Instance> {
        let mut instance = lock(&self.slot).take()?;
        instance.renew();
        Some(instance)
    }
}

impl Parking {
    /// Drops every parked instance (outside the lock: dropping gives permits back).
    fn release_all(&self) {
        let slots = std::mem::take(&mut *lock(&self.slots));
        let released: Vec<Instance> = slots.iter().filter_map(Weak::upgrade).filter_map(|s| lock(&s).take()).collect();
        drop(released);
    }
}

/// Counts a waiting call while it lives.
struct Waiting<'a>(&'a AtomicUsize);

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

impl Runtime {
    /// Sets `instance` aside for a later call in the same sandbox. `None` (and the instance
    /// dropped) when it faulted, or when another call waits for room.
    pub fn park(&self, instance: Instance) -> Option<Parked> {
        if instance.faulted {
            return None;
        }
        let slot = Arc::new(Mutex::new(Some(instance)));
        {
            let mut slots = lock(&self.parking.slots);
            slots.retain(|slot| slot.strong_count() > 0);
            slots.push(Arc::downgrade(&slot));
        }
        if self.parking.waiting.load(Ordering::SeqCst) > 0 {
            self.parking.release_all();
            return None;
        }
        Some(Parked { slot })
    }

    /// Gives up every parked instance: before a wait that can be long, so no instance holds
    /// room in the budget (or memory) while nothing runs in it.
    pub fn release_parked(&self) {
        self.parking.release_all();
    }

    /// Room in the process budget for one instance of `sandbox`: at once when there is some,
    /// else after giving up the parked instances, waiting as [`super::budget::Budget::acquire`]
    /// does.
    pub(super) async fn permits(&self, sandbox: &Sandbox) -> Result<Permits, CallFault> {
        if sandbox.cancel.is_cancelled() {
            return Err(CallFault::Cancelled);
        }
        if let Some(permits) = self.budget.try_acquire(sandbox.memory_limit) {
            return Ok(permits);
        }
        self.parking.waiting.fetch_add(1, Ordering::SeqCst);
        let _waiting = Waiting(&self.parking.waiting);
        self.parking.release_all();
        self.budget.acquire(sandbox.memory_limit, sandbox.deadline, &sandbox.cancel).await
    }
}
