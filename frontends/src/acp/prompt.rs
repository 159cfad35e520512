//! A `session/prompt`'s blocks as the user turn's text, a slash command in it, and the
//! stop reason of a finished turn.
//!
//! Invariants: an embedded resource's text reaches the model as the client sent it, marked
//! with its URI; a resource link is read only as an `@path` mention is (a regular text file
//! inside the workspace, bounded, no link followed out), else it is named and left out; a
//! block airlock cannot give the model (an image, audio, a binary resource) fails the
//! prompt with a clear error rather than being dropped unseen.

use std::path::Path;

use agent_client_protocol::Error;
use agent_client_protocol::v1::schema::{ContentBlock, EmbeddedResourceResource, StopReason};

use super::invalid;
use airlock_door::agent::{Outcome, Report, Unusable};
use airlock_protocol::listing::CommandRow;

/// The built-in command that compresses the history.
pub(super) const COMPRESS: &str = "compress";

/// The turn's text: the text blocks in order, embedded resources and linked workspace
/// files appended as `<file>` sections (as `@path` mentions are).
pub(super) fn text(workspace: &Path, blocks: &[ContentBlock]) -> Result<String, Error> {
    let mut text = String::new();
    let mut mentions = Vec::new();
    let mut files = String::new();
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
                _ => return Err(invalid("airlock takes text resources only; this one is binary")),
            },
            ContentBlock::ResourceLink(link) => match workspace_path(workspace, &link.uri) {
                Some(relative) => mentions.push(relative),
                None => {
                    let uri = airlock_protocol::shown::line(&link.uri);
                    return Err(invalid(format!("{uri} is not a file in the workspace: airlock cannot read it")));
                }
            },
            ContentBlock::Image(_) | ContentBlock::Audio(_) => {
                return Err(invalid("airlock does not take images or audio in a prompt yet"));
            }
            _ => return Err(invalid("a prompt block airlock does not know")),
        }
    }
    let mut left_out = Vec::new();
    let mut text = crate::tui::attach::with_mentions(workspace, &text, &mentions, &mut |why| left_out.push(why));
    text.push_str(&files);
    for why in left_out {
        text.push_str(&format!("\n\n(airlock: {why})"));
    }
    if text.trim().is_empty() {
        return Err(invalid("the prompt is empty"));
    }
    Ok(text)
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
