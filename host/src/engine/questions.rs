//! The session's approver: a call that needs the user's approval becomes a [`Question`] in
//! the engine's output, and waits until the front end answers it with
//! [`super::Op::Approve`]. Questions are numbered by the engine, never by the model, so no
//! call id a model makes up can answer (or collide with) another call's question.
//!
//! Invariants: a question is answered at most once; an answer for a question nobody waits
//! for any more (its call was cancelled, or the id is unknown) is dropped; a question whose
//! call is cancelled while it waits is withdrawn, so a late answer cannot reach a later call.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::oneshot;

use super::{Output, Outputs, Question};
use crate::policy::{ApprovalOutcome, ApprovalRequest, Approver};

/// The questions waiting for an answer.
#[derive(Debug)]
pub(super) struct Questions {
    out: Outputs,
    state: Mutex<Pending>,
}

#[derive(Debug, Default)]
struct Pending {
    next: u64,
    waiting: HashMap<u64, oneshot::Sender<ApprovalOutcome>>,
}

impl Questions {
    pub fn new(out: Outputs) -> Arc<Self> {
        Arc::new(Self { out, state: Mutex::default() })
    }

    /// Hands `outcome` to the call waiting on question `id`. False when none waits.
    pub fn answer(&self, id: u64, outcome: ApprovalOutcome) -> bool {
        let waiting = self.lock().waiting.remove(&id);
        waiting.is_some_and(|sender| sender.send(outcome).is_ok())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Pending> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Withdraws a question when its asker stops waiting (the call was cancelled).
struct Withdraw<'a> {
    questions: &'a Questions,
    id: u64,
}

impl Drop for Withdraw<'_> {
    fn drop(&mut self) {
        self.questions.lock().waiting.remove(&self.id);
    }
}

impl Approver for Questions {
    fn ask(&self, request: ApprovalRequest) -> Pin<Box<dyn Future<Output = ApprovalOutcome> + Send + '_>> {
        let (sender, receiver) = oneshot::channel();
        let id = {
            let mut state = self.lock();
            state.next += 1;
            let id = state.next;
            state.waiting.insert(id, sender);
            id
        };
        // Made before the question goes out: a future dropped unpolled withdraws it too.
        let withdraw = Withdraw { questions: self, id };
        self.out.send(Output::Question(Box::new(Question { id, request })));
        Box::pin(async move {
            let _withdraw = withdraw;
            // The front end went away without answering: nothing may run unasked.
            receiver.await.unwrap_or_else(|_| ApprovalOutcome::Refuse("the question was never answered".into()))
        })
    }
}
