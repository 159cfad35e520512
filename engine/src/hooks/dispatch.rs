//! The dispatcher: the session's [`Hooks`], in the order they run, and [`Hooks::fire`], which
//! runs the hooks of one event one after another and folds their replies into one
//! [`Outcome`].
//!
//! Invariants:
//! - order: system, then user, then workspace hooks; within a scope, command hooks in the
//!   settings file's order, then component hooks by name;
//! - a `deny` wins and ends the event: no later hook runs; an `ask` is kept unless a later
//!   hook denies; rewritten arguments are what the next hook sees (only on `before_tool`);
//! - a hook never runs past its timeout plus [`BACKSTOP`]: the hook enforces its deadline, and
//!   the dispatcher drops the future of one that ignores it;
//! - a failure is a [`HookAction::Failed`] note and a warning; on `before_tool` a hook whose
//!   `on_error` is `deny` refuses the call, on every other event the session goes on;
//! - the outcome only narrows: the caller applies the policy's verdict after it.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use super::{Hook, HookAction, HookEvent, HookEventName, HookFailure, HookKind, HookNote, HookVerdict, OnError};
use crate::events::{Event, EventSink};

/// How long past its own timeout a hook's future is kept before the dispatcher drops it.
pub const BACKSTOP: Duration = Duration::from_secs(1);

/// The longest reason or context a hook's reply contributes (longer text is cut).
pub const MAX_TEXT: usize = 8 * 1024;

/// The hooks of a session, in the order they run. Cheap to share behind an `Arc`.
#[derive(Debug)]
pub struct Hooks {
    hooks: Vec<Arc<dyn Hook>>,
    /// The recorded session's id and file, shown to hooks (a resumed or new session
    /// changes them).
    session: Mutex<(String, Option<String>)>,
    workspace: String,
}

/// What the hooks of one event made of it, folded.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Outcome {
    /// `Deny` or `Ask` when a hook said so (`Deny` wins); `None` leaves the decision to the
    /// policy.
    pub verdict: Option<HookVerdict>,
    /// The deciding hook's reason, naming the hook (`hook `x` denied this call: …`).
    pub reason: Option<String>,
    /// `before_tool`: the call's arguments as the last hook that rewrote them left them.
    pub arguments: Option<serde_json::Value>,
    /// What the hooks added to the model's context, each marked with its hook's name.
    pub context: Vec<String>,
    /// What a person is told (already sent as events).
    pub notes: Vec<HookNote>,
}

impl Outcome {
    /// The reason the hooks refused, when they did.
    pub fn denied(&self) -> Option<&str> {
        match self.verdict {
            Some(HookVerdict::Deny) => Some(self.reason.as_deref().unwrap_or("a hook refused")),
            _ => None,
        }
    }

    /// Whether a hook asked for the person's approval (and none refused).
    pub fn asked(&self) -> bool {
        self.verdict == Some(HookVerdict::Ask)
    }

    /// The context the hooks added, as one text for the model, when they added any.
    pub fn context_text(&self) -> Option<String> {
        (!self.context.is_empty()).then(|| self.context.join("\n"))
    }
}

impl Hooks {
    /// The set of `hooks`, put in the order they run (see the module's invariants).
    pub fn new(mut hooks: Vec<Arc<dyn Hook>>, workspace: String) -> Self {
        // A stable sort: command hooks keep their settings file's order within a scope.
        hooks.sort_by(|a, b| order_key(a.as_ref()).cmp(&order_key(b.as_ref())));
        Self { hooks, session: Mutex::new((String::new(), None)), workspace }
    }

    /// The hooks, in the order they run.
    pub fn hooks(&self) -> &[Arc<dyn Hook>] {
        &self.hooks
    }

    pub fn is_empty(&self) -> bool {
        self.hooks.is_empty()
    }

    /// Sets the session the hooks are shown (a new or resumed session), and its file.
    pub fn set_session(&self, session_id: &str, transcript: Option<&std::path::Path>) {
        let mut current = self.session.lock().unwrap_or_else(PoisonError::into_inner);
        *current = (session_id.to_string(), transcript.map(|path| path.display().to_string()));
    }

    /// Whether any hook runs for `event` (and, for a tool event, the tool `tool`): callers
    /// check it before building a [`HookEvent`], so a session without hooks builds none.
    pub fn wants(&self, event: HookEventName, tool: Option<&str>) -> bool {
        self.hooks.iter().any(|hook| hook.spec().runs_for(event, tool))
    }

    /// The event `name` with the session's fields filled in and the rest empty.
    pub fn event(&self, name: HookEventName, approval_mode: &str) -> HookEvent {
        let (session_id, transcript_path) = self.session.lock().unwrap_or_else(PoisonError::into_inner).clone();
        HookEvent {
            event: name,
            session_id,
            transcript_path,
            workspace: self.workspace.clone(),
            approval_mode: approval_mode.to_string(),
            tool: None,
            prompt: None,
            message: None,
            reason: None,
        }
    }

    /// Runs the hooks that match `event`, one after another, and folds their replies. Every
    /// note is sent to `events` as it happens (a failure also as a warning).
    ///
    /// A rewrite is seen by the hooks after the one that made it, not by those before it: so
    /// when a call was rewritten, the hooks that ran before the last rewrite (a system guard
    /// before a workspace's rewriter) are run once more on the final form. They may refuse
    /// it or ask, not rewrite it again: hooks that keep rewriting each other's form refuse
    /// the call.
    pub async fn fire(&self, event: HookEvent, events: &EventSink) -> Outcome {
        let (mut outcome, rewriter) = self.pass(event.clone(), self.hooks.len(), false, events).await;
        let (Some(last), Some(arguments)) = (rewriter, outcome.arguments.clone()) else { return outcome };
        if outcome.verdict == Some(HookVerdict::Deny) || last == 0 {
            return outcome;
        }
        let mut event = event;
        if let Some(tool) = event.tool.as_mut() {
            tool.arguments = arguments;
        }
        let (confirmed, _) = self.pass(event, last, true, events).await;
        outcome.notes.extend(confirmed.notes);
        match confirmed.verdict {
            Some(HookVerdict::Deny) => {
                outcome.verdict = Some(HookVerdict::Deny);
                outcome.reason = confirmed.reason;
            }
            Some(HookVerdict::Ask) if outcome.verdict.is_none() => {
                outcome.verdict = Some(HookVerdict::Ask);
                outcome.reason = confirmed.reason;
            }
            _ => {}
        }
        outcome
    }

    /// One pass over the first `limit` hooks; with it, the index of the last hook that
    /// rewrote the call. `confirming`: the pass over a rewritten call's final form, where a
    /// further rewrite refuses the call and context is not added twice.
    async fn pass(
        &self,
        mut event: HookEvent,
        limit: usize,
        confirming: bool,
        events: &EventSink,
    ) -> (Outcome, Option<usize>) {
        let mut outcome = Outcome::default();
        let mut rewriter = None;
        let name = event.event;
        let call_id = event.tool.as_ref().map(|tool| tool.call_id.clone());
        let mut shared = Arc::new(event.clone());
        for (index, hook) in self.hooks.iter().enumerate().take(limit) {
            let spec = hook.spec();
            if !spec.runs_for(name, event.tool.as_ref().map(|tool| tool.name.as_str())) {
                continue;
            }
            let note = |action, message: String| HookNote {
                hook: spec.name.clone(),
                event: name,
                call_id: call_id.clone(),
                action,
                message,
            };
            let reply = match tokio::time::timeout(spec.timeout + BACKSTOP, hook.run(Arc::clone(&shared))).await {
                Ok(reply) => reply,
                Err(_) => Err(HookFailure::TimedOut(spec.timeout)),
            };
            let reply = match reply {
                Ok(reply) => reply,
                Err(failure) => {
                    let refuses = name == HookEventName::BeforeTool && spec.on_error == OnError::Deny;
                    let then = if refuses { "the call is refused (on_error = deny)" } else { "it is passed over" };
                    let message = format!("hook `{}` failed: {failure}; {then}", spec.name);
                    events.send(Event::Warning { message: message.clone() });
                    send(&mut outcome, events, note(HookAction::Failed, failure.to_string()));
                    if refuses {
                        outcome.verdict = Some(HookVerdict::Deny);
                        outcome.reason = Some(message);
                        return (outcome, rewriter);
                    }
                    continue;
                }
            };
            let reason = reply.reason.as_deref().map(|reason| cut(reason.trim()).to_string());
            let context = reply.context.as_deref().map(str::trim).filter(|text| !text.is_empty() && !confirming);
            if let Some(context) = context {
                let added = note(HookAction::AddedContext, cut(context).to_string());
                outcome.context.push(context_of(&added));
                send(&mut outcome, events, added);
            }
            if name == HookEventName::BeforeTool
                && let (Some(arguments), Some(tool)) = (reply.arguments, event.tool.as_mut())
                && arguments != tool.arguments
            {
                if confirming {
                    let message = "rewrote the call again after a later hook rewrote it; hooks must agree on one form";
                    send(&mut outcome, events, note(HookAction::Denied, message.to_string()));
                    outcome.verdict = Some(HookVerdict::Deny);
                    outcome.reason = Some(format!("hook `{}` {message}", spec.name));
                    return (outcome, rewriter);
                }
                rewriter = Some(index);
                let message = reason.clone().unwrap_or_else(|| "rewrote the call's arguments".to_string());
                send(&mut outcome, events, note(HookAction::Rewrote, message));
                tool.arguments = arguments.clone();
                outcome.arguments = Some(arguments);
                shared = Arc::new(event.clone());
            }
            match (name, reply.verdict) {
                (HookEventName::BeforeTool | HookEventName::PromptSubmitted, Some(HookVerdict::Deny)) => {
                    let what = if name == HookEventName::BeforeTool { "this call" } else { "the prompt" };
                    let said = reason.unwrap_or_else(|| "no reason given".to_string());
                    send(&mut outcome, events, note(HookAction::Denied, said.clone()));
                    outcome.verdict = Some(HookVerdict::Deny);
                    outcome.reason = Some(format!("hook `{}` denied {what}: {said}", spec.name));
                    return (outcome, rewriter);
                }
                (HookEventName::BeforeTool, Some(HookVerdict::Ask)) if outcome.verdict.is_none() => {
                    let said = reason.unwrap_or_else(|| "asks for your approval".to_string());
                    send(&mut outcome, events, note(HookAction::Asked, said.clone()));
                    outcome.verdict = Some(HookVerdict::Ask);
                    outcome.reason = Some(format!("hook `{}`: {said}", spec.name));
                }
                // `stop`: a refusal with a reason keeps the agent going, the reason its next
                // instruction; without a reason there is nothing to go on with.
                (HookEventName::Stop, Some(HookVerdict::Deny)) => {
                    if let Some(said) = reason.filter(|said| !said.is_empty()) {
                        send(&mut outcome, events, note(HookAction::Continued, said.clone()));
                        outcome.verdict = Some(HookVerdict::Deny);
                        outcome.reason = Some(said);
                        return (outcome, rewriter);
                    }
                }
                _ => {}
            }
        }
        (outcome, rewriter)
    }
}

/// The text an [`HookAction::AddedContext`] note gives the model, marked with its hook.
pub fn context_of(note: &HookNote) -> String {
    format!("[from hook `{}`] {}", note.hook, note.message)
}

/// Where a hook stands in the running order.
fn order_key(hook: &dyn Hook) -> (super::HookScope, bool, &str) {
    let spec = hook.spec();
    match spec.kind {
        HookKind::Command => (spec.scope, false, ""),
        HookKind::Component => (spec.scope, true, spec.name.as_str()),
    }
}

fn send(outcome: &mut Outcome, events: &EventSink, note: HookNote) {
    events.send(Event::Hook(note.clone()));
    outcome.notes.push(note);
}

/// `text` cut to [`MAX_TEXT`] bytes, on a character boundary.
fn cut(text: &str) -> &str {
    &text[..text.floor_char_boundary(MAX_TEXT)]
}

#[cfg(test)]
#[path = "dispatch_tests.rs"]
mod tests;
