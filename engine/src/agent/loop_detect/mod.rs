//! Loop detection: the same call (name and canonical arguments) [`CALL_THRESHOLD`] times in
//! a row, or an answer that repeats itself back to back while it streams.
//!
//! Repetition inside an ordinary answer is normal: list items, table rows and status lines
//! share most of their words, code repeats its shapes, and a passage may come back later.
//! What marks a loop is one passage copied again and again with nothing new between,
//! growing without end. So a stop needs the answer's end to be one unit copied back to back
//! (`period.rs`): at least 5 copies over at least 500 bytes in prose; 4 KiB for short units
//! (separators, padding, `0, 0, 0`) and for repetition inside a code block or a table. A
//! passage that repeats with only its numbers changing ("Attempt 7: …") counts in prose
//! only, and needs 16 copies over 5 KiB, since numbered items are what lists are made of
//! ([`Thresholds::DEFAULT`]). The thresholds were set against the corpus in `corpus/`:
//! real loops caught, ordinary answers never stopped, with a margin (see its README).
//!
//! The agent nudges the model on a first detection and stops the run on a second one in
//! the same prompt.

mod period;

use serde_json::Value;

use airlock_model::FunctionCall;
use period::{Periodicity, Tail};

/// Identical calls in a row that count as a loop.
pub const CALL_THRESHOLD: u32 = 5;

/// What makes a repetition of an answer a loop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Thresholds {
    /// Copies of a unit in a row that a loop needs at least.
    pub min_copies: usize,
    /// The bytes an exact repetition in prose must cover.
    pub prose_span: usize,
    /// Units shorter than this many bytes are separators, padding or the like.
    pub short_unit: usize,
    /// The bytes a repetition of a short unit, or one inside a code block or a table, must
    /// cover.
    pub block_span: usize,
    /// Copies a passage repeating with only its numbers changing needs.
    pub counting_copies: usize,
    /// The bytes such a repetition must cover.
    pub counting_span: usize,
}

impl Thresholds {
    /// The thresholds in use, set against the corpus in `corpus/` (its README says how).
    pub const DEFAULT: Self = Self {
        min_copies: 5,
        prose_span: 500,
        short_unit: 8,
        block_span: 4096,
        counting_copies: 16,
        counting_span: 5120,
    };

    /// Whether an exact repetition is a loop: enough copies over enough bytes, more of them
    /// for short units and inside a code block or a table.
    fn is_loop(&self, tail: &Tail) -> bool {
        let needed = if tail.structured || tail.unit < self.short_unit { self.block_span } else { self.prose_span };
        tail.copies() >= self.min_copies && tail.span >= needed
    }

    /// Whether a repetition of the digits-folded text is a loop: outside code blocks and
    /// tables only, since code and data number their items by design.
    fn is_counting_loop(&self, tail: &Tail) -> bool {
        !tail.structured && tail.copies() >= self.counting_copies && tail.span >= self.counting_span
    }
}

impl Default for Thresholds {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// A repetition that counts as a loop.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Repetition {
    /// The same call `count` times in a row.
    Call { name: String, count: u32 },
    /// The answer's end is one `unit`-byte passage written `copies` times in a row, its
    /// numbers changing from copy to copy when `counting`. The answer's first `kept`
    /// bytes end with the first copy: what the history keeps of it.
    Content { copies: usize, unit: usize, counting: bool, kept: usize },
}

impl Repetition {
    /// What happened, for the user.
    pub fn describe(&self) -> String {
        match self {
            Self::Call { name, count } => {
                format!("the model called `{name}` with the same arguments {count} times in a row")
            }
            Self::Content { copies, unit, counting: false, .. } => {
                format!("the model wrote the same {unit}-byte passage {copies} times in a row")
            }
            Self::Content { copies, unit, counting: true, .. } => {
                format!(
                    "the model wrote the same {unit}-byte passage {copies} times in a row, only its numbers changing"
                )
            }
        }
    }

    /// The message that tells the model to change course.
    pub fn nudge(&self) -> String {
        let what = match self {
            Self::Call { name, count } => format!(
                "you called `{name}` with the same arguments {count} times in a row, so the last call was not run \
                 again; repeating it will not give a different result"
            ),
            Self::Content { .. } => {
                "your last answer kept repeating the same passage, so it was cut off after its first copy".to_owned()
            }
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

/// Finds an answer repeating itself back to back while it streams.
///
/// Two streams are followed: the text as written, and the text with every run of digits
/// written as one placeholder byte, so a passage that comes back with only a counter
/// changing repeats exactly there.
#[derive(Debug, Default)]
pub struct ContentRepeats {
    thresholds: Thresholds,
    exact: Periodicity,
    numbers: Periodicity,
    /// The last byte given to `numbers` was a digit's placeholder.
    in_number: bool,
    found: Option<Repetition>,
}

/// The byte that stands for a run of digits: never part of UTF-8 text.
const NUMBER: u8 = 0xff;

impl ContentRepeats {
    /// Adds the next piece of the answer; a loop once its end repeats itself as its
    /// [`Thresholds`] say. After a loop it keeps answering the same.
    pub fn push(&mut self, delta: &str) -> Option<Repetition> {
        if self.found.is_some() {
            return self.found.clone();
        }
        let exact_floor = self.thresholds.prose_span.min(self.thresholds.block_span);
        let counting_floor = self.thresholds.counting_span;
        for &byte in delta.as_bytes() {
            let (exact, folded) = self.step(byte, exact_floor, counting_floor);
            if let Some(tail) = exact.filter(|t| self.thresholds.is_loop(t)) {
                let start = self.exact.bytes().len() - tail.span;
                return self.found(tail, start + tail.unit, false);
            }
            if let Some(tail) = folded.filter(|t| self.thresholds.is_counting_loop(t)) {
                let start = self.numbers.bytes().len() - tail.span;
                let kept = exact_offset(self.exact.bytes(), start + tail.unit);
                return self.found(tail, kept, true);
            }
        }
        None
    }

    /// Adds one byte of the answer; the longest repetition now ending the text as written,
    /// and the one ending its digits-folded form (none when the byte continues a number),
    /// each if it spans at least its floor.
    fn step(&mut self, byte: u8, exact_floor: usize, counting_floor: usize) -> (Option<Tail>, Option<Tail>) {
        self.exact.push(byte);
        let exact = self.exact.longest(exact_floor);
        let digit = byte.is_ascii_digit();
        if digit && self.in_number {
            return (exact, None);
        }
        self.in_number = digit;
        self.numbers.push(if digit { NUMBER } else { byte });
        (exact, self.numbers.longest(counting_floor))
    }

    fn found(&mut self, tail: Tail, kept: usize, counting: bool) -> Option<Repetition> {
        self.found = Some(Repetition::Content { copies: tail.copies(), unit: tail.unit, counting, kept });
        self.found.clone()
    }
}

/// Where in `text` the byte at `offset` of its digits-folded form comes from.
fn exact_offset(text: &[u8], offset: usize) -> usize {
    let mut folded = 0;
    let mut in_number = false;
    for (at, byte) in text.iter().enumerate() {
        let digit = byte.is_ascii_digit();
        let continues = digit && in_number;
        in_number = digit;
        if continues {
            continue;
        }
        if folded == offset {
            return at;
        }
        folded += 1;
    }
    text.len()
}

#[cfg(test)]
mod corpus_tests;
#[cfg(test)]
mod tests;
