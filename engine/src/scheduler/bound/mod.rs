//! An approved edit of a third-party plugin, bound to its effect.
//!
//! A confirmation shows one file's change (`edit { path, original, proposed }`), but WASI
//! preopens are whole folder trees: given the confirmed file's folder, a plugin could write
//! any file below it (at the workspace root, `.git/hooks` too). So its `execute` runs with
//! every granted folder read-only and a [`Scratch`] copy of that folder writable at the
//! folder's own path; afterwards the host looks at what the call left there and writes the
//! one approved file itself ([`apply`]). Everything else the call wrote is discarded and
//! named, to the model and to the person.
//!
//! Built-in edit tools are shipped with airlock and write exactly the file they confirm;
//! they keep writing their folder directly (`Writes::Edit`), with no copy to make.
//!
//! Invariants:
//! - the real file changes only to the approved content (the confirmation's `proposed`, or
//!   the person's edit of it), and only while it still holds the confirmation's `original`;
//!   when it changed since the confirmation (an earlier call of the batch edited it), the
//!   plugin's result is written only if its change removes and adds exactly the lines the
//!   approved change does, so an approval never overwrites what another call wrote;
//! - nothing is written when the call fails, is cancelled or runs out of time;
//! - a confirmation whose contents were cut for display is refused before anyone is asked:
//!   what was not shown cannot be approved.

mod apply;
mod scratch;

use std::path::{Path, PathBuf};
use std::time::Duration;

use scratch::Changes;
pub use scratch::Scratch;

use super::sandboxing::EditTarget;
use crate::contract::{ContentPart, ErrorKind, ToolError, ToolOutput};
use crate::runtime::MAX_EDIT_CONTENT;
use airlock_files::FileError;

/// The longest a diff of a changed file is searched for (the check fails closed past it).
const DIFF_DEADLINE: Duration = Duration::from_millis(500);

/// An approved edit of one file, and the content approved for it.
#[derive(Debug, Clone)]
pub(super) struct BoundEdit {
    pub target: EditTarget,
    /// The file below `target.dir`: its name, or a few names when folders are to be made.
    relative: PathBuf,
    original: String,
    proposed: String,
}

/// What became of a bound edit's call, and what the person is told.
pub(super) struct Settled {
    pub result: Result<ToolOutput, ToolError>,
    /// For the person: what was discarded or refused, in one line.
    pub warning: Option<String>,
}

impl BoundEdit {
    /// The edit of `target` from `original` to `proposed`; refused when the confirmation's
    /// contents were cut for display.
    pub fn new(target: EditTarget, original: &str, proposed: &str) -> Result<Self, String> {
        if original.len() > MAX_EDIT_CONTENT || proposed.len() > MAX_EDIT_CONTENT {
            return Err(format!(
                "the edit's content is over {} MiB, too large to be shown whole; a plugin's edit is applied \
                 only as it was shown, so this one cannot run",
                MAX_EDIT_CONTENT >> 20
            ));
        }
        let relative = target.file.strip_prefix(&target.dir).map_err(|_| "the edit's path is unusable".to_string())?;
        if relative.as_os_str().is_empty() {
            return Err("the edit names a folder, not a file".into());
        }
        let relative = relative.to_path_buf();
        Ok(Self { target, relative, original: original.to_string(), proposed: proposed.to_string() })
    }

    /// The person changed the proposal before approving it: that is what gets written.
    pub fn set_proposed(&mut self, proposed: String) {
        self.proposed = proposed;
    }

    /// A fresh copy of the confirmed file's folder for one execution (blocking).
    pub fn scratch(&self) -> Result<Scratch, FileError> {
        let first = self.relative.iter().next().unwrap_or_default();
        Scratch::copy_of(&self.target.dir, first)
    }

    /// After the execution: writes the approved file when the call made it as approved,
    /// and says what else was discarded (blocking).
    pub fn settle(
        &self,
        scratch: &Scratch,
        result: Result<ToolOutput, ToolError>,
        tool: &str,
        workspace: &Path,
    ) -> Settled {
        let shown = shown(&self.target.file, workspace);
        let changes = scratch.changes(&self.relative);
        let discarded = discarded_list(&changes, &self.target.dir, workspace);
        let result = match result {
            Err(error) => Err(error),
            Ok(output) => match self.decide(scratch) {
                Decision::Keep => Ok(output),
                Decision::Write(content) => match apply::write(&self.target.dir, &self.relative, content.as_bytes()) {
                    Ok(()) => Ok(output),
                    Err(error) => {
                        Err(ToolError::new(ErrorKind::Execution, format!("airlock could not write {shown}: {error}")))
                    }
                },
                Decision::Refuse(reason) => Err(ToolError::new(
                    ErrorKind::PolicyDenied,
                    format!(
                        "`{tool}` {reason}; only the content its confirmation showed may be written, so {shown} was \
                         left as it was"
                    ),
                )),
            },
        };
        let warning = match (&result, &discarded) {
            (_, Some(list)) => Some(format!(
                "`{tool}` wrote beside {shown}, the one file its confirmation showed; airlock discarded: {list}"
            )),
            (Err(error), None) if error.kind == ErrorKind::PolicyDenied => Some(error.message.clone()),
            _ => None,
        };
        let result = match (result, discarded) {
            (Ok(mut output), Some(list)) => {
                output.llm_content.push(ContentPart::Text {
                    text: format!(
                        "[airlock wrote only {shown}, the file the confirmation showed, and discarded the rest of \
                         what this call wrote: {list}]"
                    ),
                });
                Ok(output)
            }
            (Err(mut error), Some(list)) => {
                error.message.push_str(&format!(" [airlock also discarded what the call wrote beside it: {list}]"));
                Err(error)
            }
            (result, None) => result,
        };
        Settled { result, warning }
    }

    /// Whether, and what, to write after the call.
    fn decide(&self, scratch: &Scratch) -> Decision {
        let limit = MAX_EDIT_CONTENT as u64;
        let written = match scratch.read(&self.relative, limit) {
            Ok(Some(bytes)) => bytes,
            Ok(None) => return Decision::Refuse("did not leave the file it showed (it removed or renamed it)".into()),
            Err(error) => return Decision::Refuse(format!("left the file it showed unusable: it {error}")),
        };
        let current = match apply::read_current(&self.target.dir, &self.relative, limit) {
            Ok(current) => current.unwrap_or_default(),
            Err(error) => return Decision::Refuse(format!("cannot have its edit applied: the file {error}")),
        };
        if current == self.original.as_bytes() {
            return if written == self.proposed.as_bytes() {
                if written == current { Decision::Keep } else { Decision::Write(self.proposed.clone()) }
            } else if written == current {
                Decision::Refuse("left the file as it was instead of writing the content shown".into())
            } else {
                Decision::Refuse("wrote other content than its confirmation showed".into())
            };
        }
        // The file changed since the confirmation: the plugin's result stands only when it
        // makes the very change that was approved.
        let (Ok(current), Ok(written)) = (String::from_utf8(current), String::from_utf8(written)) else {
            return Decision::Refuse("wrote content that is not the text shown".into());
        };
        if changed_lines(&current, &written) == changed_lines(&self.original, &self.proposed) {
            if written == current { Decision::Keep } else { Decision::Write(written) }
        } else {
            Decision::Refuse(
                "made another change than the one shown (the file changed after its confirmation, perhaps by \
                 another call of this batch; ask for the edit again)"
                    .into(),
            )
        }
    }
}

enum Decision {
    /// The file already is as approved.
    Keep,
    /// Write this content.
    Write(String),
    /// Write nothing, for this reason (a phrase after the tool's name).
    Refuse(String),
}

/// The lines a change removes and the lines it adds, in order.
fn changed_lines<'a>(before: &'a str, after: &'a str) -> (Vec<&'a str>, Vec<&'a str>) {
    let diff = similar::TextDiff::configure().timeout(DIFF_DEADLINE).diff_lines(before, after);
    let (mut removed, mut added) = (Vec::new(), Vec::new());
    for change in diff.iter_all_changes() {
        match change.tag() {
            similar::ChangeTag::Delete => removed.push(change.value()),
            similar::ChangeTag::Insert => added.push(change.value()),
            similar::ChangeTag::Equal => {}
        }
    }
    (removed, added)
}

/// `file` for messages: workspace-relative when inside it, made safe to show.
fn shown(file: &Path, workspace: &Path) -> String {
    let path = file.strip_prefix(workspace).unwrap_or(file);
    crate::sanitize::line(&path.display().to_string())
}

/// The changes as one line (`created docs/x.md, deleted docs/y.md and 3 more`), or `None`.
fn discarded_list(changes: &Changes, dir: &Path, workspace: &Path) -> Option<String> {
    if changes.is_empty() {
        return None;
    }
    let base = dir.strip_prefix(workspace).unwrap_or(dir);
    let mut items: Vec<String> = changes
        .named
        .iter()
        .map(|change| match change.split_once(' ') {
            Some((verb, path)) => format!("{verb} {}", crate::sanitize::line(&base.join(path).display().to_string())),
            None => crate::sanitize::line(change),
        })
        .collect();
    if changes.more > 0 {
        items.push(format!("{} more", changes.more));
    }
    if changes.cut {
        items.push("more than airlock looked at".into());
    }
    Some(items.join(", "))
}

#[cfg(test)]
#[path = "mod_tests.rs"]
mod tests;
