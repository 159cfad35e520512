//! A `session/prompt`'s blocks as the user turn's text, a slash command in it, and the
//! stop reason of a finished turn.
//!
//! Invariants: an embedded resource's text reaches the model as the client sent it, marked
//! with its URI; a resource link is read only as an `@path` mention is (a regular file
//! inside the workspace, bounded, no link followed out), else it is named and left out; an
//! image or a PDF (an image block, a binary resource) travels as an attachment, which the
//! engine checks, scales down or stands in like any other; a block airlock cannot give the
//! model (audio, another binary type) or media over [`MAX_MEDIA_BYTES`] fails the prompt
//! with a clear error rather than being dropped unseen.

use std::path::Path;

use agent_client_protocol::Error;
use agent_client_protocol::v1::schema::{ContentBlock, EmbeddedResourceResource, StopReason};

use super::invalid;
use airlock_door::agent::{Outcome, Report, Unusable};
use airlock_protocol::Attachment;
use airlock_protocol::listing::CommandRow;

/// The built-in command that compresses the history.
pub(super) const COMPRESS: &str = "compress";

/// Most base64 bytes of the images and PDFs of one prompt (about 30 MiB once decoded): a
/// client cannot make airlock hold more than this for one turn.
pub(super) const MAX_MEDIA_BYTES: usize = 40 << 20;

/// The turn's text and media: the text blocks in order, embedded text resources and linked
/// workspace files appended as `<file>` sections (as `@path` mentions are), images and PDFs
/// (image blocks, binary resources, linked workspace media) as attachments.
pub(super) fn text(workspace: &Path, blocks: &[ContentBlock]) -> Result<(String, Vec<Attachment>), Error> {
    let mut text = String::new();
    let mut mentions = Vec::new();
    let mut files = String::new();
    let mut media = Vec::new();
    for block in blocks {
        match block {
            ContentBlock::Text(part) => {
                if !text.is_empty() {
                    text.push('\n');
                }
                text.push_str(&part.text);
            }
            ContentBlock::Resource(resource) => match &resource.resource {
                EmbeddedResourceResource::TextResourceContents(contents) => {
                    files.push_str(&format!("\n\n<file uri=\"{}\">\n{}\n</file>", contents.uri, contents.text));
                }
                EmbeddedResourceResource::BlobResourceContents(contents) => {
                    let mime_type = contents.mime_type.as_deref().unwrap_or_default();
                    if !takes(mime_type) {
                        let uri = airlock_protocol::shown::line(&contents.uri);
                        return Err(invalid(format!(
                            "{uri}: airlock takes binary resources that are images or PDFs only"
                        )));
                    }
                    media.push(Attachment {
                        mime_type: mime_type.to_string(),
                        data: contents.blob.clone(),
                        name: Some(contents.uri.clone()),
                    });
                }
                _ => return Err(invalid("a resource airlock does not know")),
            },
            ContentBlock::ResourceLink(link) => match workspace_path(workspace, &link.uri) {
                Some(relative) => mentions.push(relative),
                None => {
                    let uri = airlock_protocol::shown::line(&link.uri);
                    return Err(invalid(format!("{uri} is not a file in the workspace: airlock cannot read it")));
                }
            },
            ContentBlock::Image(image) => {
                if !takes(&image.mime_type) {
                    let mime_type = airlock_protocol::shown::line(&image.mime_type);
                    return Err(invalid(format!(
                        "an image of type {mime_type}: airlock takes PNG, JPEG, GIF and WebP"
                    )));
                }
                media.push(Attachment {
                    mime_type: image.mime_type.clone(),
                    data: image.data.clone(),
                    name: image.uri.clone(),
                });
            }
            ContentBlock::Audio(_) => return Err(invalid("airlock does not take audio in a prompt")),
            _ => return Err(invalid("a prompt block airlock does not know")),
        }
    }
    let mut left_out = Vec::new();
    let (mut text, linked) =
        crate::tui::attach::with_mentions(workspace, &text, &mentions, &mut |why| left_out.push(why));
    media.extend(linked);
    text.push_str(&files);
    for why in left_out {
        text.push_str(&format!("\n\n(airlock: {why})"));
    }
    if text.trim().is_empty() && media.is_empty() {
        return Err(invalid("the prompt is empty"));
    }
    if media.iter().map(|m| m.data.len()).sum::<usize>() > MAX_MEDIA_BYTES {
        return Err(invalid(format!("the prompt's images and PDFs are over {} MiB", MAX_MEDIA_BYTES >> 20)));
    }
    Ok((text, media))
}

/// Whether a prompt's media of type `mime_type` is passed on: the images and PDFs the model
/// wires take (the engine decodes and checks each before it is sent).
fn takes(mime_type: &str) -> bool {
    matches!(mime_type, "image/png" | "image/jpeg" | "image/gif" | "image/webp" | "application/pdf")
}

/// A `file://` URI's path relative to `workspace`, when it lies inside it.
fn workspace_path(workspace: &Path, uri: &str) -> Option<String> {
    let path = uri.strip_prefix("file://")?;
    let path = Path::new(path);
    if !path.is_absolute() {
        return None;
    }
    let relative = path.strip_prefix(workspace).ok()?;
    Some(relative.to_string_lossy().into_owned())
}

/// What a prompt starting with `/` runs.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Slash<'a> {
    /// `/compress`, airlock's own.
    Compress,
    /// A custom command (`Session::commands`) with the text after its name.
    Custom { name: &'a str, args: &'a str },
}

/// The command `text` runs: its first word after `/`, when it names a custom command or
/// `compress` (a custom command of that name wins); anything else is sent as typed.
pub(super) fn slash<'a>(text: &'a str, custom: &[CommandRow]) -> Option<Slash<'a>> {
    let rest = text.trim_start().strip_prefix('/')?;
    let name = rest.split_whitespace().next()?;
    let args = rest[name.len()..].trim();
    if custom.iter().any(|c| c.name == name) {
        return Some(Slash::Custom { name, args });
    }
    (name == COMPRESS).then_some(Slash::Compress)
}

/// `//text` sends `/text` as typed.
pub(super) fn unescaped(text: String) -> String {
    match text.trim_start().strip_prefix("//") {
        Some(rest) => format!("/{rest}"),
        None => text,
    }
}

/// How a turn that ran to its end (not cancelled by the client) stopped; a model that
/// failed is an error of the prompt.
pub(super) fn stop_reason(report: &Report) -> Result<StopReason, Error> {
    match &report.outcome {
        Outcome::Completed | Outcome::LoopDetected(_) => Ok(StopReason::EndTurn),
        Outcome::MaxTurns(_) => Ok(StopReason::MaxTurnRequests),
        Outcome::Cancelled => Ok(StopReason::Cancelled),
        Outcome::Unusable(Unusable::Blocked { .. }) => Ok(StopReason::Refusal),
        Outcome::Unusable(Unusable::Cut { .. }) => Ok(StopReason::MaxTokens),
        Outcome::Unusable(Unusable::Empty { .. }) => Ok(StopReason::EndTurn),
        Outcome::ModelFailed(error) => {
            Err(Error::internal_error().data(airlock_protocol::shown::line(&format!("the model failed: {error}"))))
        }
    }
}

#[cfg(test)]
#[path = "prompt_tests.rs"]
mod tests;
