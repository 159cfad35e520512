//! The session's approver: a call that needs the user's approval becomes a [`Question`] in
//! the engine's output, and waits until the front end answers it with
//! [`super::Op::Approve`]. Questions are numbered by the engine, never by the model, so no
//! call id a model makes up can answer (or collide with) another call's question.
//!
//! A front end answers with a choice ([`Answer`]), not with a policy change: what "allow
//! always" covers is the question's own [`Question::scope`], decided here from the
//! confirmation — for a command line, one rule per command the question showed, and none at all
//! when airlock cannot name every command — and editing is offered only where
//! [`Question::editable`] says so. So a
//! front end — or whatever drives it, an MCP client may be a model — cannot save a rule for
//! another file, command or tool than the one asked about, nor rewrite a call that is not
//! an edit.
//!
//! Invariants: a question is answered at most once; an answer that does not fit its
//! question is refused with a warning and the question stays open; an answer for a question
//! nobody waits for any more is dropped; a question whose call is cancelled while it waits
//! is withdrawn ([`Output::Withdrawn`]), so a late answer cannot reach a later call.

use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};

use tokio::sync::oneshot;

use super::{Output, Outputs};
use crate::contract::Confirmation;
use crate::policy::{AlwaysScope, ApprovalOutcome, ApprovalRequest, Approver, GrantOutcome, GrantRequest};

/// A call waiting for the user's answer.
#[derive(Debug, Clone, PartialEq)]
pub struct Question {
    /// The engine's number for this question (not the model's call id).
    pub id: u64,
    /// The call, its confirmation and what it could write if allowed.
    pub request: ApprovalRequest,
    /// What [`Answer::AlwaysForSession`] and [`Answer::AlwaysSaved`] cover: this file, these
    /// commands, or the tool; [`AlwaysScope::Unavailable`] when they are not offered.
    pub scope: AlwaysScope,
    /// Whether [`Answer::Modify`] is offered: edits whose proposal arrived whole.
    pub editable: bool,
}

/// The user's choice for a question.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Answer {
    /// Run it this once.
    Once,
    /// Run it, and calls within the question's scope, without asking for the session.
    AlwaysForSession,
    /// As [`Answer::AlwaysForSession`], and saved as a rule in the user's `policy.toml`.
    AlwaysSaved,
    /// Run every call of this tool without asking, for the session.
    ToolForSession,
    /// Run it with this content instead of the proposal (editable questions only).
    Modify { proposed: String },
    /// Do not run it; the model is told this message.
    Refuse(String),
    /// Cancel this call and the rest of its batch.
    Cancel,
}

/// Why an answer was not taken.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AnswerError {
    #[error("no call waits for question {0} (it was answered, or its call was cancelled)")]
    NotWaiting(u64),
    #[error("question {0} cannot be answered by modifying the call: it is not an edit whose proposal arrived whole")]
    NotEditable(u64),
    #[error("question {0} offers no \"always\": {1}")]
    NoAlways(u64, String),
}

/// The questions waiting for an answer.
#[derive(Debug)]
pub(super) struct Questions {
    out: Outputs,
    state: Mutex<Pending>,
}

#[derive(Debug, Default)]
struct Pending {
    next: u64,
    waiting: HashMap<u64, Waiting>,
    /// Grant questions, numbered from the same counter.
    grants: HashMap<u64, oneshot::Sender<GrantOutcome>>,
}

#[derive(Debug)]
struct Waiting {
    reply: oneshot::Sender<ApprovalOutcome>,
    scope: AlwaysScope,
    editable: bool,
}

impl Questions {
    pub fn new(out: Outputs) -> Arc<Self> {
        Arc::new(Self { out, state: Mutex::default() })
    }

    /// Hands `answer` to the call waiting on question `id`, as the question allows.
    pub fn answer(&self, id: u64, answer: Answer) -> Result<(), AnswerError> {
        let mut state = self.lock();
        let waiting = state.waiting.get(&id).ok_or(AnswerError::NotWaiting(id))?;
        if let (Answer::AlwaysForSession | Answer::AlwaysSaved, AlwaysScope::Unavailable(why)) =
            (&answer, &waiting.scope)
        {
            return Err(AnswerError::NoAlways(id, why.clone()));
        }
        let outcome = match answer {
            Answer::Once => ApprovalOutcome::AllowOnce,
            Answer::AlwaysForSession => ApprovalOutcome::AllowAlways { scope: waiting.scope.clone(), save: false },
            Answer::AlwaysSaved => ApprovalOutcome::AllowAlways { scope: waiting.scope.clone(), save: true },
            Answer::ToolForSession => ApprovalOutcome::AllowAlways { scope: AlwaysScope::Tool, save: false },
            Answer::Modify { .. } if !waiting.editable => return Err(AnswerError::NotEditable(id)),
            Answer::Modify { proposed } => ApprovalOutcome::Modify { proposed },
            Answer::Refuse(message) => ApprovalOutcome::Refuse(message),
            Answer::Cancel => ApprovalOutcome::Cancel,
        };
        let waiting = state.waiting.remove(&id).ok_or(AnswerError::NotWaiting(id))?;
        waiting.reply.send(outcome).map_err(|_| AnswerError::NotWaiting(id))
    }

    /// Hands `answer` to the call waiting on grant question `id`.
    pub fn answer_grant(&self, id: u64, answer: GrantOutcome) -> Result<(), AnswerError> {
        let reply = self.lock().grants.remove(&id).ok_or(AnswerError::NotWaiting(id))?;
        reply.send(answer).map_err(|_| AnswerError::NotWaiting(id))
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Pending> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// What "allow always" covers for `request`, and whether its proposal may be edited.
fn choices(request: &ApprovalRequest) -> (AlwaysScope, bool) {
    match &request.confirmation {
        // A proposal cut for display cannot be edited: saving it would write the cut.
        Confirmation::Edit { path, proposed, .. } => (
            AlwaysScope::File(request.path.clone().unwrap_or_else(|| path.clone())),
            proposed.len() <= crate::runtime::MAX_EDIT_CONTENT,
        ),
        // Each command of the line the question shows, one rule each; none when airlock cannot
        // name them all, or when a rule could not cover one of them again.
        Confirmation::Exec { root_command, .. } => match &request.line {
            Some(view) if !view.always.is_empty() => (AlwaysScope::Commands(view.always.clone()), false),
            Some(view) => (
                AlwaysScope::Unavailable(view.no_always.clone().unwrap_or_else(|| "no command to remember".into())),
                false,
            ),
            None if root_command.trim().is_empty() => {
                (AlwaysScope::Unavailable("the command's program is known only when it runs".into()), false)
            }
            None => (AlwaysScope::Commands(vec![root_command.clone()]), false),
        },
        Confirmation::Info { .. } => (AlwaysScope::Tool, false),
    }
}

/// Withdraws a question when its asker stops waiting (the call was cancelled).
struct Withdraw<'a> {
    questions: &'a Questions,
    id: u64,
}

impl Drop for Withdraw<'_> {
    fn drop(&mut self) {
        let mut state = self.questions.lock();
        let waited = state.waiting.remove(&self.id).is_some() | state.grants.remove(&self.id).is_some();
        drop(state);
        if waited {
            self.questions.out.send(Output::Withdrawn { id: self.id });
        }
    }
}

impl Approver for Questions {
    fn ask(&self, request: ApprovalRequest) -> Pin<Box<dyn Future<Output = ApprovalOutcome> + Send + '_>> {
        let (reply, receiver) = oneshot::channel();
        let (scope, editable) = choices(&request);
        let id = {
            let mut state = self.lock();
            state.next += 1;
            let id = state.next;
            state.waiting.insert(id, Waiting { reply, scope: scope.clone(), editable });
            id
        };
        // Made before the question goes out: a future dropped unpolled withdraws it too.
        let withdraw = Withdraw { questions: self, id };
        let asked = self.out.send(Output::Question(Box::new(Question { id, request, scope, editable })));
        Box::pin(async move {
            let _withdraw = withdraw;
            if !asked {
                return ApprovalOutcome::Refuse("no front end is listening to ask the user".into());
            }
            // The front end went away without answering: nothing may run unasked.
            receiver.await.unwrap_or_else(|_| ApprovalOutcome::Refuse("the question was never answered".into()))
        })
    }

    fn ask_grant(&self, request: GrantRequest) -> Pin<Box<dyn Future<Output = GrantOutcome> + Send + '_>> {
        let (reply, receiver) = oneshot::channel();
        let id = {
            let mut state = self.lock();
            state.next += 1;
            let id = state.next;
            state.grants.insert(id, reply);
            id
        };
        let withdraw = Withdraw { questions: self, id };
        let question = super::GrantQuestion { id, request };
        let asked = self.out.send(Output::Grant(Box::new(question)));
        Box::pin(async move {
            let _withdraw = withdraw;
            if !asked {
                return GrantOutcome::No;
            }
            // Nobody answered: nothing is granted.
            receiver.await.unwrap_or(GrantOutcome::No)
        })
    }
}
