//! [`History`]: the conversation the agent keeps, with each message's encoding on the
//! wire kept once made, so a turn encodes only its new messages and then joins the pieces.
//!
//! Invariant: entry `i` of the cache is the encoding of message `i` for the cache's wire.
//! Messages are only appended through [`History::push`]; anything that changes a message
//! already there ([`History::replace`], [`History::compress`]) empties the cache, so a
//! stale encoding is never sent. The cache is only reachable through [`History::request`],
//! which is why [`EncodeCache`] has no public constructor.

use std::ops::Deref;
use std::sync::{Mutex, PoisonError};

use super::{Message, ModelRequest, ProviderKind, Role, ToolDeclaration};

/// One message's encoding for one wire: up to two runs of comma-separated JSON values
/// (OpenAI: its chat messages; Gemini: its parts; Anthropic: its tool results, then its
/// other blocks). A message the wire leaves out has two empty runs.
#[derive(Debug)]
pub(crate) struct Fragments {
    pub(crate) role: Role,
    pub(crate) first: Vec<u8>,
    pub(crate) second: Vec<u8>,
}

impl Fragments {
    pub(crate) fn new(role: Role) -> Self {
        Self { role, first: Vec::new(), second: Vec::new() }
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.first.is_empty() && self.second.is_empty()
    }
}

/// The encodings of a [`History`]'s messages for one wire, made as requests need them.
/// Deliberately not constructible outside this module (no `Default`): a cache paired with
/// other messages than its history's would send stale bytes.
#[derive(Debug)]
pub struct EncodeCache {
    state: Mutex<CacheState>,
}

#[derive(Debug, Default)]
struct CacheState {
    /// The wire the entries were made for; another wire starts over.
    kind: Option<ProviderKind>,
    entries: Vec<Fragments>,
}

impl EncodeCache {
    fn new() -> Self {
        Self { state: Mutex::new(CacheState::default()) }
    }

    fn clear(&mut self) {
        let state = self.state.get_mut().unwrap_or_else(PoisonError::into_inner);
        state.kind = None;
        state.entries = Vec::new();
    }
}

/// Calls `join` with the encoding of every message of `messages` for `kind`, made by
/// `encode`: taken from `cache` where it already holds them, and kept there once made.
pub(crate) fn with_fragments<R>(
    cache: Option<&EncodeCache>,
    kind: ProviderKind,
    messages: &[Message],
    encode: fn(&Message) -> Fragments,
    join: impl FnOnce(&[Fragments]) -> R,
) -> R {
    let Some(cache) = cache else {
        let entries: Vec<Fragments> = messages.iter().map(encode).collect();
        return join(&entries);
    };
    // A panic while the lock was held leaves whole entries behind (each is pushed once
    // made), so a poisoned cache is still a valid one.
    let mut state = cache.state.lock().unwrap_or_else(PoisonError::into_inner);
    if state.kind != Some(kind) || state.entries.len() > messages.len() {
        state.kind = Some(kind);
        state.entries.clear();
    }
    let done = state.entries.len();
    state.entries.extend(messages[done..].iter().map(encode));
    join(&state.entries)
}

/// The messages of a conversation, oldest first, with their encodings for the wire.
#[derive(Debug)]
pub struct History {
    messages: Vec<Message>,
    cache: EncodeCache,
}

impl History {
    pub fn new(messages: Vec<Message>) -> Self {
        Self { messages, cache: EncodeCache::new() }
    }

    /// Appends `message`; the encodings of the messages before it stay.
    pub fn push(&mut self, message: Message) {
        self.messages.push(message);
    }

    /// Replaces the whole conversation.
    pub fn replace(&mut self, messages: Vec<Message>) {
        self.messages = messages;
        self.cache.clear();
    }

    /// Replaces the first `split` messages by `summary` (compression).
    pub fn compress(&mut self, split: usize, summary: Message) {
        let split = split.min(self.messages.len());
        self.messages.splice(..split, [summary]);
        self.cache.clear();
    }

    /// A request carrying the whole conversation, encoded through the cache.
    pub fn request<'a>(&'a self, system: Option<&'a str>, tools: &'a [ToolDeclaration]) -> ModelRequest<'a> {
        ModelRequest { system, messages: &self.messages, tools, cache: Some(&self.cache), output_schema: None }
    }
}

impl Default for History {
    fn default() -> Self {
        Self::new(Vec::new())
    }
}

impl Deref for History {
    type Target = [Message];

    fn deref(&self) -> &[Message] {
        &self.messages
    }
}
