//! The gate every `spawn` passes: a command line is read as bash reads it
//! ([`crate::shell`]) and may start only when
//!
//! - no command of it is denied by the user's rules (matched by the program's file name, so
//!   `/bin/rm` is `rm`; a program known only when the line runs is refused while the tool
//!   has deny rules),
//! - every redirection that writes lands in a folder the call may write (a target known only
//!   at run time is refused), and
//! - it is exactly the line the user approved for this call, in the folder shown, once —
//!   or every command of it is covered by a granted prefix, written out whole (no
//!   variables, no substitutions, no `NAME=value` before it).
//!
//! A line that cannot be read is refused, never guessed at.

use std::path::{Path, PathBuf};

use crate::shell::{self, Word};

/// What decides whether one call's command lines may start.
#[derive(Debug, Clone, Default)]
pub struct Gate {
    /// The granted command prefixes; `*` stands for "the line approved for this call".
    pub prefixes: Vec<String>,
    /// The line the user (or the approval mode) approved for this call, and its folder;
    /// spent by its first start.
    pub approved: Option<(String, PathBuf)>,
    /// Command prefixes the user's rules deny for this tool.
    pub denied: Vec<String>,
}

/// Why a line may not start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// A rule, the grant or a folder says no.
    Denied(String),
    /// The line cannot be read with certainty.
    Unreadable(String),
}

impl Gate {
    /// Checks `line`, to run in `dir` (canonical), against the gate; `writable` are the
    /// folders the call may write (canonical).
    pub fn check(&mut self, line: &str, dir: &Path, writable: &[PathBuf]) -> Result<(), Refusal> {
        let parsed = shell::parse(line).map_err(|e| {
            Refusal::Unreadable(format!("the command line cannot be checked ({e}); write it more plainly"))
        })?;
        for command in &parsed.commands {
            if let Some(prefix) = self.denied.iter().find(|prefix| shell::matching::denied_by(prefix, command)) {
                return Err(Refusal::Denied(format!(
                    "the user's policy denies `{prefix}`, and the line runs `{}`; do not retry it",
                    command.text
                )));
            }
            // A variable assignment on its own starts no program.
            if command.program().is_none() && !command.words.is_empty() && !self.denied.is_empty() {
                return Err(Refusal::Denied(format!(
                    "`{}` starts a program known only when it runs, and this tool has deny rules; \
                     name the program",
                    command.text
                )));
            }
        }
        if let Some(redirect) = shell::matching::write_outside(&parsed, dir, writable) {
            return Err(Refusal::Denied(match &redirect.target {
                Word::Dynamic(_) => {
                    format!("`{}` writes to a file known only when the line runs; name the file", redirect.text)
                }
                Word::Literal(_) => {
                    format!("`{}` writes outside the folders this call may write ({})", redirect.text, list(writable))
                }
            }));
        }
        if self.prefixes.iter().any(|p| p == "*")
            && self.approved.as_ref().is_some_and(|(approved, folder)| approved == line && folder == dir)
        {
            self.approved = None;
            return Ok(());
        }
        let granted: Vec<&String> = self.prefixes.iter().filter(|p| *p != "*").collect();
        for command in &parsed.commands {
            if !granted.iter().any(|prefix| command.covered_by(prefix)) {
                let why = if granted.is_empty() {
                    "it is not the command line approved for this call".to_string()
                } else {
                    format!(
                        "the tool may run only {} (each command written out whole, without variables or `NAME=value`)",
                        granted.iter().map(|p| format!("`{p}`")).collect::<Vec<_>>().join(", ")
                    )
                };
                return Err(Refusal::Denied(format!("`{}` may not run: {why}", command.text)));
            }
        }
        Ok(())
    }
}

fn list(folders: &[PathBuf]) -> String {
    if folders.is_empty() {
        return "none".into();
    }
    folders.iter().map(|f| f.display().to_string()).collect::<Vec<_>>().join(", ")
}

#[cfg(test)]
#[path = "gate_tests.rs"]
mod tests;
