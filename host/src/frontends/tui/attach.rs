//! `@path` mentions: the files a prompt names are read and attached to what the model gets.
//! Only regular files inside the workspace are read (the path is resolved, links included,
//! and must stay under the workspace; the file is then read through a handle on the
//! workspace without following any link, so a link swapped in after the check leads
//! nowhere, and without blocking on a FIFO), text only, at most [`MAX_FILE`] bytes each and
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
        match read(workspace, mention) {
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

fn read(workspace: &Path, mention: &str) -> Result<String, String> {
    let path = workspace.join(mention).canonicalize().map_err(|e| e.to_string())?;
    let Ok(relative) = path.strip_prefix(workspace) else {
        return Err("it is outside the workspace".into());
    };
    let root = airlock_files::open_dir(workspace).map_err(|e| e.to_string())?;
    let bytes = airlock_files::read_file_in(&root, relative, MAX_FILE).map_err(|e| match e {
        airlock_files::FileError::NotRegular(_) | airlock_files::FileError::BadPath => "it is not a file".to_string(),
        airlock_files::FileError::TooLarge { .. } => format!("it is over {} KiB", MAX_FILE >> 10),
        other => other.to_string(),
    })?;
    String::from_utf8(bytes).map_err(|_| "it is not text".to_string())
}
