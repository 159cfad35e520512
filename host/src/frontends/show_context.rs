//! `airlock --show-context`: which `AIRLOCK.md` files were found, their sizes and cuts,
//! then the system prompt exactly as the model gets it.

use std::io::{self, Write};
use std::path::PathBuf;

use crate::agent::context_files::{ContextFile, FILE_NAME};

/// Prints the folders searched, the files used and the assembled prompt.
pub fn print(folders: &[PathBuf], files: &[ContextFile], system: &str, out: &mut impl Write) -> io::Result<()> {
    writeln!(out, "Context files ({FILE_NAME}), in the order they are added:")?;
    for folder in folders {
        let path = folder.join(FILE_NAME);
        match files.iter().find(|f| f.path == path) {
            Some(file) => {
                write!(out, "  {}  {} bytes", path.display(), file.size)?;
                match &file.cut {
                    Some(cut) => writeln!(out, "  ({cut})")?,
                    None => writeln!(out)?,
                }
            }
            None => writeln!(out, "  {}  (none)", path.display())?,
        }
    }
    writeln!(out, "\nSystem prompt ({} bytes):\n", system.len())?;
    writeln!(out, "{system}")
}
