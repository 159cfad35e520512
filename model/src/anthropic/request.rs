//! The request body of the Messages API: `model`, `max_tokens`, `stream`, `system`,
//! `messages` and `tools`.
//!
//! Messages must alternate between `user` and `assistant`, so consecutive messages of one
//! role are merged and empty ones dropped. A user turn puts every `tool_result` first,
//! before any text, as the API requires of the message after `tool_use` blocks. Tool use
//! ids may only hold `[A-Za-z0-9_-]`; ids other providers made (a resumed session) are
//! mapped into that alphabet the same way for the call and its result.
//!
//! Images go as `image` blocks and PDFs as `document` blocks (base64 sources): a call's
//! media inside its `tool_result`'s content list, a user's attachments beside the text.

use serde_json::{Value, json};

use super::super::history::{Fragments, with_fragments};
use super::super::{
    Media, MediaKind, Message, ModelRequest, Part, ProviderKind, Role, ToolDeclaration, json, structured,
};

/// The body, written straight from the history (each message's blocks from the request's
/// cache when it has them).
pub(crate) fn body(model: &str, max_tokens: u32, request: &ModelRequest<'_>) -> Vec<u8> {
    let mut out = Vec::with_capacity(4096);
    out.extend_from_slice(b"{\"max_tokens\":");
    out.extend_from_slice(max_tokens.to_string().as_bytes());
    out.extend_from_slice(b",\"messages\":[");
    with_fragments(request.cache, ProviderKind::Anthropic, request.messages, encode_message, |entries| {
        let size: usize = entries.iter().map(|e| e.first.len() + e.second.len() + 32).sum();
        out.reserve(size);
        messages(&mut out, entries);
    });
    out.extend_from_slice(b"],\"model\":");
    json::string(&mut out, model);
    if let Some(schema) = request.output_schema {
        structured::anthropic_field(&mut out, schema);
    }
    out.extend_from_slice(b",\"stream\":true");
    if let Some(system) = request.system.filter(|s| !s.is_empty()) {
        out.extend_from_slice(b",\"system\":");
        json::string(&mut out, system);
    }
    if !request.tools.is_empty() {
        out.extend_from_slice(b",\"tools\":[");
        for (i, declaration) in request.tools.iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            tool(&mut out, declaration);
        }
        out.push(b']');
    }
    out.push(b'}');
    out
}

fn tool(out: &mut Vec<u8>, tool: &ToolDeclaration) {
    out.extend_from_slice(b"{\"description\":");
    json::string(out, &tool.description);
    out.extend_from_slice(b",\"input_schema\":");
    // `input_schema` is required and must describe an object.
    match &tool.parameters {
        schema @ Value::Object(_) => json::value(out, schema),
        _ => json::value(out, &json!({ "type": "object", "properties": {} })),
    }
    out.extend_from_slice(b",\"name\":");
    json::string(out, &tool.name);
    out.push(b'}');
}

/// Consecutive messages of one role become one turn, whose content is every tool result
/// of the turn first, then its other blocks.
fn messages(out: &mut Vec<u8>, entries: &[Fragments]) {
    let mut start = 0;
    let entries: Vec<&Fragments> = entries.iter().filter(|e| !e.is_empty()).collect();
    while start < entries.len() {
        let role = entries[start].role;
        let end = entries[start..].iter().position(|e| e.role != role).map_or(entries.len(), |n| start + n);
        if start > 0 {
            out.push(b',');
        }
        out.extend_from_slice(b"{\"content\":[");
        let mut first = true;
        for entry in &entries[start..end] {
            json::push_items(out, &mut first, &entry.first);
        }
        for entry in &entries[start..end] {
            json::push_items(out, &mut first, &entry.second);
        }
        out.extend_from_slice(match role {
            Role::User => b"],\"role\":\"user\"}",
            Role::Model => b"],\"role\":\"assistant\"}",
        });
        start = end;
    }
}

/// A message's tool results (`first`) and its other blocks (`second`), empty texts left out.
fn encode_message(message: &Message) -> Fragments {
    let mut fragments = Fragments::new(message.role);
    for part in &message.parts {
        match part {
            Part::Text { text } if text.is_empty() => {}
            Part::Text { text } => text_block(&mut fragments.second, text),
            Part::Media(media) => media_block(&mut fragments.second, media),
            Part::FunctionCall(call) => {
                let out = &mut fragments.second;
                json::next_item(out);
                out.extend_from_slice(b"{\"id\":");
                json::string(out, &tool_use_id(&call.id));
                // The API takes the input as an object; arguments the model got wrong were
                // already answered with an error, so an empty object stands in for them.
                out.extend_from_slice(b",\"input\":");
                match serde_json::from_str::<Value>(&call.arguments) {
                    Ok(input @ Value::Object(_)) => json::value(out, &input),
                    _ => out.extend_from_slice(b"{}"),
                }
                out.extend_from_slice(b",\"name\":");
                json::string(out, &call.name);
                out.extend_from_slice(b",\"type\":\"tool_use\"}");
            }
            Part::FunctionResponse(response) => {
                let out = &mut fragments.first;
                json::next_item(out);
                out.push(b'{');
                // Empty content is left out rather than sent as an empty text. With media,
                // the content is a list of blocks: the text, then an image or document
                // block for each.
                if !response.media.is_empty() {
                    out.extend_from_slice(b"\"content\":[");
                    let mut blocks = Vec::new();
                    if !response.content.is_empty() {
                        text_block(&mut blocks, &response.content);
                    }
                    for media in &response.media {
                        media_block(&mut blocks, media);
                    }
                    out.extend_from_slice(&blocks);
                    out.extend_from_slice(b"],");
                } else if !response.content.is_empty() {
                    out.extend_from_slice(b"\"content\":");
                    json::string(out, &response.content);
                    out.push(b',');
                }
                if response.is_error {
                    out.extend_from_slice(b"\"is_error\":true,");
                }
                out.extend_from_slice(b"\"tool_use_id\":");
                json::string(out, &tool_use_id(&response.id));
                out.extend_from_slice(b",\"type\":\"tool_result\"}");
            }
        }
    }
    fragments
}

/// `{"text":…,"type":"text"}` as the next item of `out`.
fn text_block(out: &mut Vec<u8>, text: &str) {
    json::next_item(out);
    out.extend_from_slice(b"{\"text\":");
    json::string(out, text);
    out.extend_from_slice(b",\"type\":\"text\"}");
}

/// An `image` block (PNG, JPEG, GIF, WebP) or a `document` block (PDF) of base64 source,
/// or a text block standing in for media the wire cannot send.
fn media_block(out: &mut Vec<u8>, media: &Media) {
    let kind = match media.sendable() {
        Ok(kind) => kind,
        Err(why) => return text_block(out, &media.stand_in(why)),
    };
    json::next_item(out);
    out.extend_from_slice(b"{\"source\":{\"data\":");
    media.write_base64(out, "");
    out.extend_from_slice(b",\"media_type\":");
    json::string(out, &media.mime_type);
    out.extend_from_slice(match kind {
        MediaKind::Image => b",\"type\":\"base64\"},\"type\":\"image\"}".as_slice(),
        MediaKind::Pdf => b",\"type\":\"base64\"},\"type\":\"document\"}".as_slice(),
    });
}

/// `id` with every character outside `[A-Za-z0-9_-]` replaced by `_`.
fn tool_use_id(id: &str) -> String {
    id.chars().map(|c| if c.is_ascii_alphanumeric() || c == '_' || c == '-' { c } else { '_' }).collect()
}

#[cfg(test)]
#[path = "request_tests.rs"]
mod tests;
