//! Server-Sent Events over a streamed HTTP body, as both providers send their answers.
//!
//! [`SseParser`] is incremental and byte-oriented: a chunk may end anywhere, inside a line,
//! between the CR and LF of a line break, or inside a UTF-8 sequence, because lines are
//! only decoded once complete. It follows the WHATWG event-stream rules: `data:` lines of
//! one event are joined with `\n`, `event:` names it, lines starting with `:` are
//! comments, a blank line dispatches, and an event not closed by a blank line when the
//! body ends is discarded (so a cut-off body shows up as truncation, not as bad JSON).
//!
//! [`SseStream`] pulls chunks from the body and enforces the idle timeout on every read.

use std::collections::VecDeque;
use std::time::Duration;

use bytes::Bytes;
use futures_util::{Stream, StreamExt};
use serde::de::DeserializeOwned;

use super::ModelError;

/// How much of an offending payload an error message quotes.
const EXCERPT_CHARS: usize = 160;

/// One dispatched event.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct SseEvent {
    /// The `event:` name, when the server sent one.
    pub event: Option<String>,
    /// The `data:` lines, joined with `\n`.
    pub data: String,
}

impl SseEvent {
    /// The OpenAI end-of-stream marker.
    pub fn is_done(&self) -> bool {
        self.data.trim() == "[DONE]"
    }

    /// Parses the data as JSON; a payload that does not parse is a malformed stream.
    pub fn json<T: DeserializeOwned>(&self) -> Result<T, ModelError> {
        serde_json::from_str(&self.data)
            .map_err(|e| ModelError::MalformedStream(format!("{e} in event data `{}`", excerpt(&self.data))))
    }
}

/// The start of `text`, cut at a character boundary, for error messages.
pub(crate) fn excerpt(text: &str) -> String {
    let text = text.trim();
    match text.char_indices().nth(EXCERPT_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

/// The incremental event-stream parser.
#[derive(Debug, Default)]
pub(crate) struct SseParser {
    /// The current line, not yet terminated.
    line: Vec<u8>,
    /// The previous chunk ended with CR: an LF starting the next one belongs to it.
    after_cr: bool,
    event: Option<String>,
    data: String,
    has_data: bool,
}

impl SseParser {
    /// Consumes one chunk of the body, appending every event it completes to `out`.
    pub fn feed(&mut self, chunk: &[u8], out: &mut VecDeque<SseEvent>) {
        let mut rest = chunk;
        if self.after_cr && !rest.is_empty() {
            self.after_cr = false;
            if rest[0] == b'\n' {
                rest = &rest[1..];
            }
        }
        while let Some(pos) = rest.iter().position(|&b| b == b'\n' || b == b'\r') {
            self.line.extend_from_slice(&rest[..pos]);
            let was_cr = rest[pos] == b'\r';
            rest = &rest[pos + 1..];
            self.end_line(out);
            if was_cr {
                match rest.first() {
                    Some(b'\n') => rest = &rest[1..],
                    Some(_) => {}
                    None => self.after_cr = true,
                }
            }
        }
        self.line.extend_from_slice(rest);
    }

    fn end_line(&mut self, out: &mut VecDeque<SseEvent>) {
        let line = std::mem::take(&mut self.line);
        if line.is_empty() {
            self.dispatch(out);
            return;
        }
        if line[0] == b':' {
            return;
        }
        let line = String::from_utf8_lossy(&line);
        let (field, value) = match line.split_once(':') {
            Some((field, value)) => (field, value.strip_prefix(' ').unwrap_or(value)),
            None => (line.as_ref(), ""),
        };
        match field {
            "data" => {
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(value);
                self.has_data = true;
            }
            "event" => self.event = Some(value.to_owned()),
            // `id` and `retry` only matter to clients that reconnect; these streams are
            // one request each.
            _ => {}
        }
    }

    fn dispatch(&mut self, out: &mut VecDeque<SseEvent>) {
        let event = self.event.take();
        if std::mem::take(&mut self.has_data) {
            out.push_back(SseEvent { event, data: std::mem::take(&mut self.data) });
        }
    }
}

/// Events read from a streamed body, with the idle timeout applied to every read.
pub(crate) struct SseStream<S> {
    body: S,
    parser: SseParser,
    ready: VecDeque<SseEvent>,
    idle_timeout: Duration,
    ended: bool,
}

impl<S, E> SseStream<S>
where
    S: Stream<Item = Result<Bytes, E>> + Unpin,
{
    pub fn new(body: S, idle_timeout: Duration) -> Self {
        Self { body, parser: SseParser::default(), ready: VecDeque::new(), idle_timeout, ended: false }
    }

    /// The next event, or `None` once the body has ended. A body that fails while being
    /// read (the connection dropped) ends the response early: [`ModelError::Truncated`].
    pub async fn next(&mut self) -> Result<Option<SseEvent>, ModelError> {
        loop {
            if let Some(event) = self.ready.pop_front() {
                return Ok(Some(event));
            }
            if self.ended {
                return Ok(None);
            }
            match tokio::time::timeout(self.idle_timeout, self.body.next()).await {
                Err(_) => return Err(ModelError::IdleTimeout(self.idle_timeout)),
                Ok(None) => self.ended = true,
                Ok(Some(Ok(chunk))) => self.parser.feed(&chunk, &mut self.ready),
                Ok(Some(Err(_))) => return Err(ModelError::Truncated),
            }
        }
    }
}

#[cfg(test)]
#[path = "sse_tests.rs"]
mod tests;
