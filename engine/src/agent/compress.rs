//! History compression. Before each model request the agent estimates the request's size:
//! the input tokens the provider reported for the latest response, plus its output, plus
//! ~4 characters per token for what was appended since (everything by characters when no
//! count is known yet, as after a resume). Past [`THRESHOLD`] of the context window, the
//! older part of the history is summarised *by the model* in a separate request without
//! tools, and replaced by one user message holding the summary; the most recent messages,
//! up to [`KEEP`] of the window, stay as they were.
//!
//! Invariants: a model message with calls is never separated from the user message with
//! its responses. The kept tail starts, by preference, at a user prompt (a user message
//! without function responses); only when the current prompt's own tool loop is too long
//! for that does it start at a model message. No provider needs a model acknowledgement
//! after the summary: Gemini and Anthropic merge consecutive messages of one role, and
//! chat completions take consecutive user messages. When summarising fails the history is
//! left whole and the run goes on (the provider may still refuse an oversized request,
//! which is then reported as its error): history is never dropped.

use super::Agent;
use crate::cancel::Cancellation;
use crate::events::{Event, EventSink};
use airlock_model::{Media, MediaKind, Message, ModelError, ModelEvent, ModelRequest, Part, Role, Usage, UsageKind};

/// The share of the context window past which history is compressed.
pub const THRESHOLD: f64 = 0.7;
/// The share of the context window the kept recent messages may fill.
pub const KEEP: f64 = 0.3;
/// The share of the window the summarisation request's transcript may fill.
const TRANSCRIPT_SHARE: f64 = 0.5;
/// Characters per token, for estimates.
const CHARS_PER_TOKEN: usize = 4;
/// Tokens a message costs besides its text (role, framing).
const MESSAGE_OVERHEAD: u64 = 4;
/// How much of one tool result or argument text goes into the transcript.
const TRANSCRIPT_PART_CHARS: usize = 2_000;
/// Turns to wait after a failed summary before trying again.
const RETRY_AFTER_TURNS: u32 = 3;

/// The start of the message that replaces the compressed history.
pub const SUMMARY_PREFIX: &str = "Summary of the earlier conversation:";

const SUMMARY_SYSTEM: &str = "You summarise conversations between a user and airlock, an AI agent that works on a \
     software project through tools. Your summary replaces the conversation in the agent's memory, so it must keep \
     everything needed to continue the work, and nothing else.";

const SUMMARY_REQUEST: &str = "Summarise the conversation below so the agent can continue from the summary alone. \
     Use these sections:\n\
     ## Goal\nWhat the user asked for, in their words where it matters.\n\
     ## Key facts and decisions\nWhat was learned and decided, with exact names, paths, values and errors.\n\
     ## Files and changes\nFiles read, created or edited, and what changed.\n\
     ## Tool results that still matter\nOnly what later steps depend on.\n\
     ## Open tasks and next steps\nWhat remains to be done.\n\
     Be specific and brief. Reply with the summary only.";

/// Estimated tokens of `text`.
pub fn text_tokens(text: &str) -> u64 {
    text.len().div_ceil(CHARS_PER_TOKEN) as u64
}

/// Estimated tokens of one message.
pub fn message_tokens(message: &Message) -> u64 {
    let mut media = 0;
    let chars: usize = message
        .parts
        .iter()
        .map(|part| match part {
            Part::Text { text } => text.len(),
            Part::FunctionCall(call) => call.name.len() + call.arguments.len(),
            Part::FunctionResponse(response) => {
                media += response.media.iter().map(media_tokens).sum::<u64>();
                response.name.len() + response.content.len()
            }
            Part::Media(item) => {
                media += media_tokens(item);
                0
            }
        })
        .sum();
    MESSAGE_OVERHEAD + media + chars.div_ceil(CHARS_PER_TOKEN) as u64
}

/// Estimated tokens of an image or a PDF: an image at most what Anthropic counts for one of
/// the ~1.15 megapixels airlock scales down to (pixels / 750, about 1,600), a PDF a token
/// per 64 bytes (a page of text and its image cost a few thousand).
fn media_tokens(media: &Media) -> u64 {
    match media.kind() {
        Some(MediaKind::Pdf) => (media.data.len() as u64 / 64).max(IMAGE_TOKENS),
        _ => IMAGE_TOKENS,
    }
}

/// What one image is assumed to cost.
const IMAGE_TOKENS: u64 = 1_600;

/// Estimated tokens of `messages`.
pub fn tokens(messages: &[Message]) -> u64 {
    messages.iter().map(message_tokens).sum()
}

fn is_prompt(message: &Message) -> bool {
    message.role == Role::User && !message.parts.iter().any(|p| matches!(p, Part::FunctionResponse(_)))
}

/// Where the kept tail of `history` starts so that it fits `keep` tokens, or `None` when
/// nothing can be compressed. In order of preference: the earliest user prompt whose tail
/// fits; the earliest model message after the last prompt whose tail fits; the last
/// message that may start a tail at all (the least that can be kept). A user message
/// holding function responses never starts a tail, index 0 compresses nothing, and a
/// summary alone is not summarised again.
pub fn split_point(history: &[Message], keep: u64) -> Option<usize> {
    let split = choose_split(history, keep)?;
    let only_a_summary = split == 1 && is_summary(&history[0]);
    (!only_a_summary).then_some(split)
}

fn is_summary(message: &Message) -> bool {
    message.role == Role::User
        && matches!(message.parts.first(), Some(Part::Text { text }) if text.starts_with(SUMMARY_PREFIX))
}

fn choose_split(history: &[Message], keep: u64) -> Option<usize> {
    let mut suffix = vec![0; history.len() + 1];
    for i in (0..history.len()).rev() {
        suffix[i] = suffix[i + 1] + message_tokens(&history[i]);
    }
    let fits = |i: &usize| suffix[*i] <= keep;
    let prompts: Vec<usize> = (1..history.len()).filter(|&i| is_prompt(&history[i])).collect();
    if let Some(i) = prompts.iter().copied().find(fits) {
        return Some(i);
    }
    let last_prompt = prompts.last().copied().unwrap_or(0);
    let models: Vec<usize> = (last_prompt + 1..history.len()).filter(|&i| history[i].role == Role::Model).collect();
    if let Some(i) = models.iter().copied().find(fits) {
        return Some(i);
    }
    models.last().or(prompts.last()).copied()
}

/// The messages as plain text for the summarising model: long tool results and arguments
/// are cut, and when the whole is longer than `max_chars` its middle is left out.
pub fn transcript(messages: &[Message], max_chars: usize) -> String {
    let mut out = String::new();
    for message in messages {
        for part in &message.parts {
            match (message.role, part) {
                (_, Part::Text { text }) if text.trim().is_empty() => {}
                (Role::User, Part::Text { text }) => out.push_str(&format!("[user]\n{}\n\n", text.trim_end())),
                (Role::Model, Part::Text { text }) => out.push_str(&format!("[agent]\n{}\n\n", text.trim_end())),
                (_, Part::FunctionCall(call)) => out.push_str(&format!(
                    "[agent calls {}] {}\n\n",
                    call.name,
                    cut(&call.arguments, TRANSCRIPT_PART_CHARS)
                )),
                (_, Part::FunctionResponse(response)) => {
                    let label = if response.is_error { "error from" } else { "result of" };
                    out.push_str(&format!(
                        "[{label} {}]\n{}\n\n",
                        response.name,
                        cut(response.content.trim_end(), TRANSCRIPT_PART_CHARS)
                    ));
                }
                (_, Part::Media(media)) => {
                    out.push_str(&format!("{}\n\n", media.stand_in("the summary sees only its name")));
                }
            }
        }
    }
    if out.len() <= max_chars {
        return out;
    }
    let head = floor_boundary(&out, max_chars / 3);
    let tail = ceil_boundary(&out, out.len() - (max_chars - head));
    format!("{}\n[… {} characters left out …]\n\n{}", &out[..head], tail - head, &out[tail..])
}

/// `text` cut to about `max` bytes, saying how much was left out.
fn cut(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_owned();
    }
    let end = floor_boundary(text, max);
    format!("{}… [{} more characters]", &text[..end], text.len() - end)
}

fn floor_boundary(text: &str, mut index: usize) -> usize {
    while !text.is_char_boundary(index) {
        index -= 1;
    }
    index
}

fn ceil_boundary(text: &str, mut index: usize) -> usize {
    while !text.is_char_boundary(index) {
        index += 1;
    }
    index
}

/// Where the token count of the latest response leaves the estimate.
#[derive(Debug, Clone, Copy)]
pub(super) struct Anchor {
    /// History messages the count covers (the request and the response).
    pub covered: usize,
    pub tokens: u64,
}

/// Why compressing did not happen.
#[derive(Debug)]
pub enum CompressError {
    Cancelled,
}

impl Agent {
    /// The estimated size of the next request, in tokens.
    pub(super) fn estimated_tokens(&self) -> u64 {
        match self.anchor {
            Some(anchor) if anchor.covered <= self.history.len() => {
                anchor.tokens + tokens(&self.history[anchor.covered..])
            }
            _ => self.overhead + tokens(&self.history),
        }
    }

    /// Compresses older history when the next request would pass [`THRESHOLD`] of the
    /// window. `turn` is the run's turn about to start. Only a cancellation stops the run.
    pub(super) async fn compress_if_needed(
        &mut self,
        turn: u32,
        events: &EventSink,
        cancel: &Cancellation,
        report: &mut super::Report,
    ) -> Result<(), CompressError> {
        let window = self.settings.context_window;
        let before = self.estimated_tokens();
        if (before as f64) <= window as f64 * THRESHOLD || self.compress_paused_until > turn {
            return Ok(());
        }
        let keep = (window as f64 * KEEP) as u64;
        let Some(split) = split_point(&self.history, keep) else {
            if !self.warned_uncompressible {
                self.warned_uncompressible = true;
                events.send(Event::Warning {
                    message: format!(
                        "the conversation is about {before} tokens (est.), near the context window of {window}, and \
                         has nothing older to compress; raise context_window_tokens if the model allows more"
                    ),
                });
            }
            return Ok(());
        };
        self.before_compress("auto", events).await;
        if let Err(reason) = self.summarize_older(split, turn, events, cancel, report).await? {
            self.compress_paused_until = turn + RETRY_AFTER_TURNS;
            events.send(Event::Warning {
                message: format!(
                    "could not compress the conversation ({reason}); going on with the whole history \
                     (about {before} tokens est. of a {window}-token window)"
                ),
            });
        }
        Ok(())
    }

    /// Compresses the history now, because the user asked (not the size): the older part
    /// is summarised and the most recent [`KEEP`] of it (at most [`KEEP`] of the window) kept.
    /// What happened is told as a notice or a warning; only a cancellation is an error.
    pub async fn compress_now(&mut self, events: &EventSink, cancel: &Cancellation) -> Result<(), CompressError> {
        self.declare_tools();
        let before = self.estimated_tokens();
        let keep = ((self.settings.context_window as f64 * KEEP) as u64).min((before as f64 * KEEP) as u64);
        let Some(split) = split_point(&self.history, keep) else {
            events.send(Event::Notice { message: format!("nothing older to compress (about {before} tokens est.)") });
            return Ok(());
        };
        let mut report = super::Report::default();
        self.before_compress("manual", events).await;
        if let Err(reason) = self.summarize_older(split, 0, events, cancel, &mut report).await? {
            events.send(Event::Warning {
                message: format!("could not compress the conversation ({reason}); the history is left whole"),
            });
        }
        Ok(())
    }

    /// Replaces `history[..split]` by the model's summary of it, and says so. `Ok(Err(why))`
    /// when the model could not summarise: the history is then left whole.
    async fn summarize_older(
        &mut self,
        split: usize,
        turn: u32,
        events: &EventSink,
        cancel: &Cancellation,
        report: &mut super::Report,
    ) -> Result<Result<(), String>, CompressError> {
        let before = self.estimated_tokens();
        let max_chars = (self.settings.context_window as f64 * TRANSCRIPT_SHARE) as usize * CHARS_PER_TOKEN;
        let transcript = transcript(&self.history[..split], max_chars);
        let (summary, usage) = match self.summarize(&transcript, events, cancel).await {
            Ok(summary) => summary,
            Err(SummaryError::Cancelled) => return Err(CompressError::Cancelled),
            Err(SummaryError::Failed(reason)) => return Ok(Err(reason)),
        };
        self.account(report, turn, UsageKind::Summary, usage, events);
        let summary =
            Message { role: Role::User, parts: vec![Part::Text { text: format!("{SUMMARY_PREFIX}\n\n{summary}") }] };
        self.history.compress(split, summary);
        self.anchor = None;
        if let Some(recorder) = &mut self.recorder
            && let Err(error) = recorder.compressed(split, &self.history)
        {
            self.recording_failed(error, events);
        }
        report.compressions += 1;
        events.send(Event::Notice {
            message: format!(
                "compressed {split} earlier messages into a summary ({before} → {} tokens est.)",
                self.estimated_tokens()
            ),
        });
        Ok(Ok(()))
    }

    /// Asks the model for a summary of `transcript`, without tools.
    async fn summarize(
        &self,
        transcript: &str,
        events: &EventSink,
        cancel: &Cancellation,
    ) -> Result<(String, Usage), SummaryError> {
        let messages = [Message {
            role: Role::User,
            parts: vec![Part::Text {
                text: format!("{SUMMARY_REQUEST}\n\n<conversation>\n{transcript}</conversation>"),
            }],
        }];
        let request = ModelRequest {
            system: Some(SUMMARY_SYSTEM),
            messages: &messages,
            tools: &[],
            cache: None,
            output_schema: None,
        };
        let mut text = String::new();
        let mut usage = Usage::default();
        let mut on_event = |event: ModelEvent| match event {
            ModelEvent::TextDelta(delta) => text.push_str(&delta),
            ModelEvent::Usage(u) => usage = u,
            ModelEvent::Retrying { attempt, max, delay, reason } => events.send(Event::Warning {
                message: format!("summarising: retrying ({attempt}/{max}) in {:.1}s: {reason}", delay.as_secs_f64()),
            }),
            ModelEvent::Thought(_) | ModelEvent::FunctionCall(_) | ModelEvent::Finished { .. } => {}
        };
        let Some(client) = &self.client else {
            return Err(SummaryError::Failed(ModelError::NoModel.to_string()));
        };
        let streamed = tokio::select! {
            result = client.stream(request, &mut on_event) => result,
            () = cancel.cancelled() => return Err(SummaryError::Cancelled),
        };
        streamed.map_err(|e: ModelError| SummaryError::Failed(e.to_string()))?;
        let summary = text.trim();
        if summary.is_empty() {
            return Err(SummaryError::Failed("the model answered with an empty summary".into()));
        }
        Ok((summary.to_owned(), usage))
    }
}

enum SummaryError {
    Cancelled,
    Failed(String),
}

#[cfg(test)]
#[path = "compress_tests.rs"]
mod tests;
