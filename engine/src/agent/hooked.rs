//! The agent's hooks: `session_start`, `session_end`, `prompt_submitted`, `before_compress`
//! and `stop` (the scheduler runs the tool events). Each moment asks [`Hooks::wants`]
//! first, so a session without hooks builds no event.
//!
//! Invariants:
//! - context a hook gives at `session_start` or `prompt_submitted` joins the next prompt the
//!   model reads, marked with the hook's name;
//! - a `prompt_submitted` refusal drops the prompt: the model never sees it;
//! - a `stop` refusal with a reason keeps the agent going at most [`MAX_CONTINUATIONS`] times
//!   in a row, so a hook cannot keep a run alive for ever.

use std::sync::Arc;

use super::Agent;
use crate::events::{Event, EventSink};
use crate::hooks::{HookEvent, HookEventName, Hooks, Outcome};

/// Most times in a row a `stop` hook keeps the agent going.
pub const MAX_CONTINUATIONS: u32 = 3;

/// How a run ended, in a word, for a `notification` hook.
pub fn run_ending(outcome: &super::Outcome) -> &'static str {
    use super::Outcome::*;
    match outcome {
        Completed => "completed",
        MaxTurns(_) => "max_turns",
        LoopDetected(_) => "loop_detected",
        Cancelled => "cancelled",
        ModelFailed(_) => "model_failed",
        Unusable(_) => "unusable",
    }
}

/// What `prompt_submitted` made of a prompt.
pub(super) enum Submitted {
    /// Send it, with this context after it.
    Send(Option<String>),
    /// A hook refused it (the person was told).
    Dropped,
}

impl Agent {
    /// Runs the session's `hooks` from now on, here and in the scheduler.
    pub fn set_hooks(&mut self, hooks: Arc<Hooks>) {
        self.scheduler.set_hooks(Arc::clone(&hooks));
        self.hooks = (!hooks.is_empty()).then_some(hooks);
    }

    /// Runs the hooks of `name` when one wants it, with the event `fill` completes.
    async fn fire(
        &self,
        name: HookEventName,
        fill: impl FnOnce(&mut HookEvent),
        events: &EventSink,
    ) -> Option<Outcome> {
        let hooks = self.hooks.as_ref().filter(|hooks| hooks.wants(name, None))?;
        let mut event = hooks.event(name, self.scheduler.policy().mode().as_str());
        fill(&mut event);
        Some(hooks.fire(event, events).await)
    }

    /// `session_start` (`reason`: `startup`, `resume` or `clear`): what hooks add goes with the
    /// next prompt.
    pub async fn session_started(&mut self, reason: &str, events: &EventSink) {
        if let Some(hooks) = &self.hooks {
            let transcript = self.recorder.as_ref().map(|recorder| recorder.path().to_path_buf());
            hooks.set_session(&self.session_id(), transcript.as_deref());
        }
        let fill = |e: &mut HookEvent| e.reason = Some(reason.to_string());
        if let Some(outcome) = self.fire(HookEventName::SessionStart, fill, events).await {
            self.hook_context.extend(outcome.context);
        }
    }

    /// `session_start` when the engine starts serving: `resume` when it resumed a session.
    pub async fn session_opened(&mut self, events: &EventSink) {
        if self.hooks.is_some() {
            let reason = if !self.history.is_empty() { "resume" } else { "startup" };
            self.session_started(reason, events).await;
        }
    }

    /// `session_end` (`reason`: `exit`, `resume` or `clear`).
    pub async fn session_ended(&mut self, reason: &str, events: &EventSink) {
        self.fire(HookEventName::SessionEnd, |e| e.reason = Some(reason.to_string()), events).await;
    }

    /// `prompt_submitted`: the prompt goes to the model (with what hooks add), or is dropped.
    pub(super) async fn prompt_submitted(&mut self, prompt: &str, events: &EventSink) -> Submitted {
        if self.hooks.is_none() {
            return Submitted::Send(None);
        }
        let outcome = self.fire(HookEventName::PromptSubmitted, |e| e.prompt = Some(prompt.to_string()), events).await;
        if let Some(reason) = outcome.as_ref().and_then(Outcome::denied) {
            events.send(Event::Warning { message: format!("the prompt was not sent: {reason}") });
            return Submitted::Dropped;
        }
        self.hook_context.extend(outcome.map(|o| o.context).unwrap_or_default());
        let context = std::mem::take(&mut self.hook_context);
        Submitted::Send((!context.is_empty()).then(|| context.join("\n")))
    }

    /// `before_compress` (`reason`: `auto` or `manual`): hooks are told, they cannot stop it.
    pub(super) async fn before_compress(&self, reason: &str, events: &EventSink) {
        self.fire(HookEventName::BeforeCompress, |e| e.reason = Some(reason.to_string()), events).await;
    }

    /// `stop`, once the model answered without calls: the instruction a hook gives to keep
    /// going, unless `continued` times in a row already reached [`MAX_CONTINUATIONS`].
    pub(super) async fn stopped(&self, continued: u32, events: &EventSink) -> Option<String> {
        // `hook` when a hook's continuation led here: Claude Code's `stop_hook_active`, which
        // stop hooks read to keep from looping.
        let why = if continued > 0 { "hook" } else { "end_turn" };
        let outcome = self.fire(HookEventName::Stop, |e| e.reason = Some(why.into()), events).await?;
        let reason = outcome.denied()?;
        if continued >= MAX_CONTINUATIONS {
            events.send(Event::Warning {
                message: format!(
                    "a stop hook asked to go on again ({reason}); stopped after {MAX_CONTINUATIONS} times in a row"
                ),
            });
            return None;
        }
        Some(reason.to_string())
    }

    /// `notification` that a run ended and airlock waits for the person.
    pub async fn notify_run_ended(&self, how: &str, events: &EventSink) {
        let fill = |e: &mut HookEvent| e.message = Some(format!("airlock finished ({how}) and waits for you"));
        self.fire(HookEventName::Notification, fill, events).await;
    }

    /// The recorded session's id, or none.
    fn session_id(&self) -> String {
        self.recorder.as_ref().map(|recorder| recorder.id().to_string()).unwrap_or_default()
    }
}
