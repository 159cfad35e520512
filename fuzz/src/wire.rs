//! The three wires' answer decoders (SSE reader and JSON events), fed an untrusted body.
//!
//! Input: the first byte says how many of the next bytes are chunk lengths (its value
//! modulo 16); the rest is the body, cut into chunks of those lengths in turn (a zero
//! length counts as one byte). The body is decoded once whole and once so cut.
//!
//! Checks: both decodings yield the same events and the same outcome (ids airlock makes up
//! for calls aside, which differ run to run); text and thoughts never add up to more
//! characters than the body has bytes (a byte that is not UTF-8 becomes one U+FFFD), nor
//! does everything yielded to more bytes than [`AMPLIFICATION`] times the body.

use airlock_model::{ModelEvent, ProviderKind, decode_body};

/// How much larger than the body everything a decoder yields may be: call arguments given
/// as a JSON object are passed on re-serialised, and a number like `1e15` comes back as
/// `1000000000000000.0`.
pub const AMPLIFICATION: usize = 8;

pub fn gemini(data: &[u8]) {
    run(ProviderKind::Gemini, data);
}

pub fn openai(data: &[u8]) {
    run(ProviderKind::Openai, data);
}

pub fn anthropic(data: &[u8]) {
    run(ProviderKind::Anthropic, data);
}

fn run(kind: ProviderKind, data: &[u8]) {
    let Some((&head, rest)) = data.split_first() else { return };
    let count = usize::from(head % 16).min(rest.len());
    let (lengths, body) = rest.split_at(count);
    let whole = decode(kind, &[body]);
    let chunks = cut(body, lengths);
    let cut_up = decode(kind, &chunks);
    assert_eq!(whole, cut_up, "{kind:?}: the body cut into {} chunks decodes differently", chunks.len());

    let (events, _) = &whole;
    let text: usize = events
        .iter()
        .map(|event| match event {
            ModelEvent::TextDelta(text) | ModelEvent::Thought(text) => text.chars().count(),
            _ => 0,
        })
        .sum();
    assert!(text <= body.len(), "{kind:?}: {text} characters of text out of a body of {} bytes", body.len());
    let all: usize = events.iter().map(size).sum();
    assert!(all <= AMPLIFICATION * body.len(), "{kind:?}: {all} bytes yielded out of a body of {}", body.len());
}

/// `body` cut into chunks of `lengths` in turn; the whole body when there are none.
fn cut<'a>(body: &'a [u8], lengths: &[u8]) -> Vec<&'a [u8]> {
    if lengths.is_empty() {
        return vec![body];
    }
    let mut chunks = Vec::new();
    let mut rest = body;
    for &length in lengths.iter().cycle() {
        if rest.is_empty() {
            break;
        }
        let (chunk, tail) = rest.split_at(usize::from(length.max(1)).min(rest.len()));
        chunks.push(chunk);
        rest = tail;
    }
    chunks
}

/// The events and the outcome (its message, for comparing) of decoding `chunks`.
fn decode(kind: ProviderKind, chunks: &[&[u8]]) -> (Vec<ModelEvent>, Result<(), String>) {
    let mut events = Vec::new();
    let outcome = decode_body(kind, chunks, &mut |event| events.push(normalised(event))).map_err(|e| e.to_string());
    (events, outcome)
}

/// `event` with an id airlock made up replaced by a fixed one.
fn normalised(event: ModelEvent) -> ModelEvent {
    match event {
        ModelEvent::FunctionCall(mut call) => {
            for prefix in ["gemini-call-", "call-"] {
                if call.id.strip_prefix(prefix).is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
                {
                    call.id = format!("{prefix}N");
                }
            }
            ModelEvent::FunctionCall(call)
        }
        other => other,
    }
}

/// The bytes of text an event carries.
fn size(event: &ModelEvent) -> usize {
    match event {
        ModelEvent::TextDelta(text) | ModelEvent::Thought(text) => text.len(),
        ModelEvent::FunctionCall(call) => {
            call.id.len() + call.name.len() + call.arguments.len() + call.signature.as_ref().map_or(0, String::len)
        }
        ModelEvent::Finished { reason, .. } => reason.len(),
        ModelEvent::Retrying { reason, .. } => reason.len(),
        ModelEvent::Usage(_) => 0,
    }
}
