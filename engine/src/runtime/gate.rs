//! The gate every `spawn` passes: a command line is read as bash reads it
//! ([`airlock_shell`]) and may start only when
//!
//! - no command of it is denied by the user's rules (matched by the program's file name, so
//!   `/bin/rm` is `rm`),
//! - every redirection that writes lands in a folder the call may write (a target known only
//!   at run time is refused), and
//! - it is exactly the line approved for this call, in the folder shown, once — or every
//!   command of it is covered by a granted prefix, written out whole (no variables, no
//!   substitutions, no `NAME=value` before it, no redirection or argument that writes or runs
//!   more than its name says: `git status > x`, `find -delete`, `sed 'w x'`).
//!
//! A line whose commands airlock cannot all name ([`airlock_shell::Line::uncertain`], or git
//! configuration it cannot read whole) starts only when a person was asked about that very
//! line; under a prefix grant, or approved by a rule or the mode alone, it is refused
//! ([`Refusal::Uncertain`]). A line that cannot be read is refused, never guessed at.
//!
//! What passes gets [`Pass::host_env`]: a line no person was asked about runs with the
//! repository's git programs switched off ([`airlock_shell::repo`]); one a person allowed, having
//! been shown what git's configuration runs, runs as it is. An approved line runs with no
//! standard input: the person never saw what a plugin would write to it.

use std::path::{Path, PathBuf};

use airlock_shell::{self as shell, Word, repo};

/// What decides whether one call's command lines may start.
#[derive(Debug, Clone, Default)]
pub struct Gate {
    /// The granted command prefixes; `*` stands for "the line approved for this call".
    pub prefixes: Vec<String>,
    /// The line approved for this call; spent by its first start.
    pub approved: Option<ApprovedLine>,
    /// Command prefixes the user's rules deny for this tool.
    pub denied: Vec<String>,
}

/// A command line approved for a call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovedLine {
    pub line: String,
    /// The folder it was shown to run in.
    pub folder: PathBuf,
    /// Whether a person answered a question about this very line (not a rule or the mode).
    pub asked: bool,
}

/// Why a line may not start.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// A rule, the grant or a folder says no.
    Denied(String),
    /// The line cannot be read with certainty.
    Unreadable(String),
    /// airlock cannot name every command the line runs, and nobody was asked about it.
    Uncertain(String),
}

/// A line that may start, and the variables the host sets for it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pass {
    pub host_env: Vec<(String, String)>,
}

impl Gate {
    /// Checks `line`, to run in `dir` (canonical), against the gate; `writable` are the
    /// folders the call may write (canonical); `stdin` whether the spawn writes to its input.
    pub fn check(&mut self, line: &str, dir: &Path, writable: &[PathBuf], stdin: bool) -> Result<Pass, Refusal> {
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
        let approved = self.prefixes.iter().any(|p| p == "*")
            && self.approved.as_ref().is_some_and(|approved| approved.line == line && approved.folder == dir);
        if approved {
            let asked = self.approved.as_ref().is_some_and(|approved| approved.asked);
            if stdin {
                return Err(Refusal::Denied(
                    "the line was approved to run with no input, and a plugin may not add standard input the \
                     person never saw; pass the data in a file of the workspace instead"
                        .into(),
                ));
            }
            let pass = if asked { Pass::default() } else { unasked(&parsed, dir)? };
            self.approved = None;
            return Ok(pass);
        }
        let granted: Vec<&String> = self.prefixes.iter().filter(|p| *p != "*").collect();
        if !granted.is_empty() {
            // Nobody is asked about a start under a prefix grant.
            if let Some(why) = parsed.uncertainty() {
                return Err(Refusal::Uncertain(format!(
                    "airlock cannot tell which commands this line runs: {why}; nobody can be asked here, so it \
                     does not start. Write every command out plainly"
                )));
            }
        }
        for command in &parsed.commands {
            if !granted.iter().any(|prefix| command.covered_by(prefix)) {
                let why = if granted.is_empty() {
                    "it is not the command line approved for this call".to_string()
                } else if let Some(beyond) = command.beyond_its_name() {
                    format!("{beyond}, which no granted prefix covers")
                } else {
                    format!(
                        "the tool may run only {} (each command written out whole, without variables or `NAME=value`)",
                        granted.iter().map(|p| format!("`{p}`")).collect::<Vec<_>>().join(", ")
                    )
                };
                return Err(Refusal::Denied(format!("`{}` may not run: {why}", command.text)));
            }
        }
        unasked(&parsed, dir)
    }
}

/// A line no person was asked about: it must be certain, and runs with the repository's git
/// programs switched off.
fn unasked(parsed: &shell::Line, dir: &Path) -> Result<Pass, Refusal> {
    if let Some(why) = parsed.uncertainty() {
        return Err(Refusal::Uncertain(format!(
            "airlock cannot tell which commands this line runs ({why}), and no person was asked about it"
        )));
    }
    let git = repo::inspect(parsed, dir);
    if let Some(why) = git.unknown.as_deref() {
        return Err(Refusal::Uncertain(format!(
            "airlock cannot tell which programs git runs here ({why}), and no person was asked about this line"
        )));
    }
    Ok(Pass { host_env: git.neutralising_env() })
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
