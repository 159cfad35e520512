//! `@path` mentions: the files a prompt names are read and attached to what the model gets.
//! Only regular files inside the workspace are read, by the door's
//! [`airlock_door::queries::attachment`] (no link followed out of the workspace, no FIFO
//! blocked on), text only, at most [`MAX_FILE`] bytes each and
//! [`MAX_TOTAL`] in all; anything else is left out with a notice.

use std::path::Path;

/// Most bytes of one attached file.
pub const MAX_FILE: u64 = 256 << 10;
/// Most bytes attached to one prompt.
pub const MAX_TOTAL: usize = 1 << 20;

/// `text` with the files of `mentions` appended; `notice` hears what was left out and why.
pub fn with_mentions(workspace: &Path, text: &str, mentions: &[String], notice: &mut dyn FnMut(String)) -> String {
    let mut full = text.to_string();
    let mut total = 0;
    for mention in mentions {
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
    full
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
