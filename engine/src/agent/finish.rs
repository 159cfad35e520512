//! How the loop reacts to the way a response ended: every [`Stop`] of every wire either
//! lets the run go on (with a warning when the answer may be incomplete), sends the
//! conversation again (a paused turn), or ends the run with an [`Unusable`] answer naming
//! the provider's reason. Invariant: a run never ends as completed with nothing at all —
//! no text and no tool call in the whole run.
//!
//! A malformed function call never reaches here: the model client asks again for it
//! (see `model::retry`), and reports an error once the retries are spent.

use airlock_model::Stop;

/// Why the model's answer could not be used; ends the run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unusable {
    /// The provider blocked the prompt or the answer, or the model refused to answer.
    Blocked { reason: String },
    /// The answer reached the output token limit before anything usable came: no text, or
    /// a tool call that may be cut (its calls are not run).
    Cut { reason: String, with_calls: bool },
    /// The model ended its answer with no text and no tool call.
    Empty { reason: String },
}

impl Unusable {
    /// The error's type in JSON output.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Blocked { .. } => "blocked",
            Self::Cut { .. } => "max_tokens",
            Self::Empty { .. } => "empty_answer",
        }
    }
}

impl std::fmt::Display for Unusable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Blocked { reason } => write!(
                f,
                "the provider blocked the answer ({reason}): its safety or content policy stopped it, and asking \
                 again will not help; rephrase the prompt"
            ),
            Self::Cut { reason, with_calls: true } => write!(
                f,
                "the answer reached the output token limit ({reason}) in the middle of a tool call, so none of its \
                 calls were run; ask for smaller steps, or raise max_tokens in config.toml (Anthropic)"
            ),
            Self::Cut { reason, with_calls: false } => write!(
                f,
                "the answer reached the output token limit ({reason}) before any text; ask for a shorter answer, or \
                 raise max_tokens in config.toml (Anthropic)"
            ),
            Self::Empty { reason } => write!(
                f,
                "the model ended its answer with no text and no tool call (finish reason {reason}); run the prompt \
                 again or rephrase it"
            ),
        }
    }
}

/// What the loop does with a finished response.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Verdict {
    /// Use the response as a whole one, after showing the warning, if any.
    Accept { warning: Option<String> },
    /// Keep the response's text and send the conversation again to let the model go on.
    Continue,
    /// End the run.
    Fail(Unusable),
}

/// What one response brought, as far as judging its end goes.
#[derive(Debug, Clone, Copy)]
pub(super) struct Brought {
    pub text: bool,
    pub calls: bool,
    /// Whether earlier turns of this run produced text or ran calls.
    pub earlier: bool,
}

/// The verdict on a response that ended for `reason`, meaning `stop`.
pub(super) fn judge(stop: Stop, reason: &str, brought: Brought) -> Verdict {
    let reason = reason.to_owned();
    let something = brought.text || brought.calls;
    match stop {
        Stop::Normal if something => Verdict::Accept { warning: None },
        // The tools' work stands, but the user is told the model said nothing about it.
        Stop::Normal if brought.earlier => Verdict::Accept {
            warning: Some(format!("the model ended ({reason}) with no final answer after running its tools")),
        },
        Stop::Normal => Verdict::Fail(Unusable::Empty { reason }),
        Stop::MaxTokens if brought.calls => Verdict::Fail(Unusable::Cut { reason, with_calls: true }),
        Stop::MaxTokens if brought.text => Verdict::Accept {
            warning: Some(format!(
                "the answer was cut off at the output token limit ({reason}); the text so far is kept"
            )),
        },
        Stop::MaxTokens => Verdict::Fail(Unusable::Cut { reason, with_calls: false }),
        Stop::Blocked => Verdict::Fail(Unusable::Blocked { reason }),
        Stop::Paused if brought.calls => Verdict::Accept { warning: None },
        Stop::Paused => Verdict::Continue,
        Stop::Unknown if something => Verdict::Accept {
            warning: Some(format!(
                "the model stopped for a reason airlock does not know ({reason}); the answer may be incomplete"
            )),
        },
        Stop::Unknown => Verdict::Fail(Unusable::Empty { reason }),
    }
}

#[cfg(test)]
#[path = "finish_tests.rs"]
mod tests;
