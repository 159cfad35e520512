//! `airlock --show-context`: which context files (`AIRLOCK.md`, `AGENTS.md`, or the names
//! `[context] file_names` sets) were found, their sizes and cuts,
//! then the system prompt as the model gets it. A repository's `AIRLOCK.md` is untrusted:
//! paths go through [`sanitize::line`] and the prompt through [`sanitize::block_bounded`],
//! so escape sequences, bidi controls and invisible characters are shown, not obeyed.

use std::io::{self, Write};
use std::path::PathBuf;

use airlock_engine::agent::context_files::ContextFile;
use airlock_engine::sanitize;

/// Most lines of the system prompt printed (context files are capped in bytes already).
const MAX_PROMPT_LINES: usize = 10_000;

/// Prints each context file looked for (`candidates`), the files used and the assembled
/// prompt.
pub fn print(candidates: &[PathBuf], files: &[ContextFile], system: &str, out: &mut impl Write) -> io::Result<()> {
    writeln!(out, "Context files, in the order they are added:")?;
    for path in candidates {
        let shown = sanitize::line(&path.display().to_string());
        match files.iter().find(|f| f.path == *path) {
            Some(file) => {
                write!(out, "  {shown}  {} bytes", file.size)?;
                match &file.cut {
                    Some(cut) => writeln!(out, "  ({})", sanitize::line(cut))?,
                    None => writeln!(out)?,
                }
            }
            None => writeln!(out, "  {shown}  (none)")?,
        }
    }
    writeln!(out, "\nSystem prompt ({} bytes):\n", system.len())?;
    writeln!(out, "{}", sanitize::block_bounded(system, MAX_PROMPT_LINES))
}
