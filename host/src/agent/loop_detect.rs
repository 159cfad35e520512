//! Loop detection, as Gemini CLI does it: the same call (name and canonical arguments)
//! [`CALL_THRESHOLD`] times in a row, or the same [`CHUNK`]-byte piece of text
//! [`CHUNK_THRESHOLD`] times close together within one response ("chanting"). Text inside
//! code fences is not tracked: code repeats legitimately. The agent nudges the model on a
//! first detection and stops the run on a second one in the same prompt.

use std::collections::HashMap;
use std::hash::{DefaultHasher, Hash, Hasher};

use serde_json::Value;

use crate::model::FunctionCall;

/// Identical calls in a row that count as a loop.
pub const CALL_THRESHOLD: u32 = 5;
/// The size of the text pieces compared, in bytes.
pub const CHUNK: usize = 50;
/// Occurrences of one piece that count as a loop.
pub const CHUNK_THRESHOLD: usize = 10;
/// The most the occurrences may lie apart on average (Gemini CLI's bound).
const MAX_AVERAGE_DISTANCE: usize = CHUNK * 5;
const FENCE: &[u8] = b"```";

/// A repetition that counts as a loop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Repetition {
    /// The same call `count` times in a row.
    Call { name: String, count: u32 },
    /// The same piece of text `count` times in one response.
    Content { count: usize },
}

impl Repetition {
    /// What happened, for the user.
    pub fn describe(&self) -> String {
        match self {
            Self::Call { name, count } => {
                format!("the model called `{name}` with the same arguments {count} times in a row")
            }
            Self::Content { count } => format!("the model repeated the same text {count} times in one answer"),
        }
    }

    /// The message that tells the model to change course.
    pub fn nudge(&self) -> String {
        let what = match self {
            Self::Call { name, count } => format!(
                "you called `{name}` with the same arguments {count} times in a row, so the last call was not run \
                 again; repeating it will not give a different result"
            ),
            Self::Content { .. } => "your last answer kept repeating the same text, so it was cut off".to_owned(),
        };
        format!(
            "[airlock] Loop detected: {what}. Stop repeating yourself and change your approach: reconsider what you \
             already know, try different tools or arguments, or answer with what you have."
        )
    }
}

/// Counts identical consecutive calls.
#[derive(Debug, Default)]
pub struct CallRepeats {
    last: Option<String>,
    count: u32,
}

impl CallRepeats {
    /// Notes the next call; a loop when it is the [`CALL_THRESHOLD`]th identical one in a row.
    pub fn observe(&mut self, call: &FunctionCall) -> Option<Repetition> {
        let key = call_key(call);
        if self.last.as_ref() == Some(&key) {
            self.count += 1;
        } else {
            self.last = Some(key);
            self.count = 1;
        }
        (self.count >= CALL_THRESHOLD).then(|| Repetition::Call { name: call.name.clone(), count: self.count })
    }

    /// Forgets the calls so far (after a nudge: the model gets a fresh count).
    pub fn reset(&mut self) {
        *self = Self::default();
    }
}

/// The name and the arguments with object keys sorted, so key order does not hide a loop.
fn call_key(call: &FunctionCall) -> String {
    let arguments = match serde_json::from_str::<Value>(&call.arguments) {
        Ok(value) => canonical(&value),
        Err(_) => call.arguments.clone(),
    };
    format!("{}\u{0}{arguments}", call.name)
}

fn canonical(value: &Value) -> String {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            let inner: Vec<String> =
                entries.into_iter().map(|(k, v)| format!("{}:{}", Value::String(k.clone()), canonical(v))).collect();
            format!("{{{}}}", inner.join(","))
        }
        Value::Array(items) => format!("[{}]", items.iter().map(canonical).collect::<Vec<_>>().join(",")),
        other => other.to_string(),
    }
}

/// Finds text repeating itself within one response.
#[derive(Debug, Default)]
pub struct ContentRepeats {
    text: Vec<u8>,
    /// Where the next piece starts.
    scanned: usize,
    in_code: bool,
    /// Where each piece was seen, by hash.
    seen: HashMap<u64, Vec<usize>>,
}

impl ContentRepeats {
    /// Adds the next piece of the response; a loop once some piece came
    /// [`CHUNK_THRESHOLD`] times with its occurrences close together.
    pub fn push(&mut self, delta: &str) -> Option<Repetition> {
        self.text.extend_from_slice(delta.as_bytes());
        while self.scanned + CHUNK <= self.text.len() {
            let start = self.scanned;
            if self.text[start..].starts_with(FENCE) {
                // Entering or leaving code: what repeats on either side is unrelated.
                self.in_code = !self.in_code;
                self.seen.clear();
                self.scanned += FENCE.len();
                continue;
            }
            self.scanned += 1;
            if self.in_code {
                continue;
            }
            if let Some(count) = self.record(start) {
                return Some(Repetition::Content { count });
            }
        }
        None
    }

    /// Notes the piece at `start`; its occurrence count when that makes a loop.
    fn record(&mut self, start: usize) -> Option<usize> {
        let piece = &self.text[start..start + CHUNK];
        let mut hasher = DefaultHasher::new();
        piece.hash(&mut hasher);
        let positions = self.seen.entry(hasher.finish()).or_default();
        if let Some(&first) = positions.first()
            && self.text[first..first + CHUNK] != *piece
        {
            return None;
        }
        positions.push(start);
        if positions.len() < CHUNK_THRESHOLD {
            return None;
        }
        let recent = &positions[positions.len() - CHUNK_THRESHOLD..];
        let average = (recent[CHUNK_THRESHOLD - 1] - recent[0]) / (CHUNK_THRESHOLD - 1);
        (average <= MAX_AVERAGE_DISTANCE).then_some(positions.len())
    }
}

#[cfg(test)]
#[path = "loop_detect_tests.rs"]
mod tests;
