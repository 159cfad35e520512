//! `@path` mentions: the files a prompt names are read and attached to what the model gets.
//! Only regular files inside the workspace are read, by the door's
//! [`airlock_door::queries::attachment`] (no link followed out of the workspace, no FIFO
//! blocked on): text files at most [`MAX_FILE`] bytes each and [`MAX_TOTAL`] in all, added
//! to the prompt's text; images and PDFs as attachments ([`crate::attachments`]); anything
//! else is left out with a notice.

use std::path::Path;

use airlock_protocol::Attachment;
use base64::Engine as _;

use crate::attachments;

/// Most bytes of one attached file.
pub const MAX_FILE: u64 = 256 << 10;
/// Most bytes attached to one prompt.
pub const MAX_TOTAL: usize = 1 << 20;

/// `text` with the text files of `mentions` appended, and the images and PDFs of `mentions`;
/// `notice` hears what was left out and why.
pub fn with_mentions(
    workspace: &Path,
    text: &str,
    mentions: &[String],
    notice: &mut dyn FnMut(String),
) -> (String, Vec<Attachment>) {
    let mut full = text.to_string();
    let mut media = Vec::new();
    let mut total = 0;
    for mention in mentions {
        if attachments::media_type(mention).is_some() {
            match attachments::from_mention(workspace, mention) {
                Ok(attachment) => media.push(attachment),
                Err(why) => notice(format!("@{mention} not attached: {why}")),
            }
            continue;
        }
        match airlock_door::queries::attachment(workspace, mention, MAX_FILE) {
            Ok(content) if total + content.len() > MAX_TOTAL => {
                notice(format!("@{mention} not attached: the attachments would pass {} KiB", MAX_TOTAL >> 10));
            }
            Ok(content) => {
                total += content.len();
                full.push_str(&format!("\n\n<file path=\"{mention}\">\n{content}\n</file>"));
            }
            Err(why) => notice(format!("@{mention} not attached: {why}")),
        }
    }
    (full, media)
}

/// [`media_label`] of an attachment about to be sent.
pub fn attachment_label(attachment: &Attachment) -> String {
    let data = base64::engine::general_purpose::STANDARD.decode(attachment.data.as_bytes()).unwrap_or_default();
    media_label(attachment.name.as_deref(), &attachment.mime_type, &data)
}

/// The line the transcript shows for an attached image or PDF: `[image: name, WxH, N KiB]`
/// (the size in pixels when the header says it), `[pdf: name, N KiB]`.
pub fn media_label(name: Option<&str>, mime_type: &str, data: &[u8]) -> String {
    let name = name.unwrap_or(mime_type);
    let kib = data.len().div_ceil(1024);
    match airlock_door::queries::image_size(data) {
        Some((width, height)) if mime_type.starts_with("image/") => {
            format!("[image: {name}, {width}x{height}, {kib} KiB]")
        }
        _ if mime_type.starts_with("image/") => format!("[image: {name}, {kib} KiB]"),
        _ => format!("[pdf: {name}, {kib} KiB]"),
    }
}

#[cfg(test)]
#[path = "attach_tests.rs"]
mod tests;
