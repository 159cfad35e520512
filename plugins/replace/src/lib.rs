//! `replace`: replaces exact text in one file of the workspace, after the user approved the
//! diff. It refuses ambiguous edits (text found several times without `allow_multiple`),
//! keeps the file's CRLF line endings, and writes atomically. An empty `old_string` on a
//! file that does not exist (or is empty) creates it with `new_string`.

use std::path::PathBuf;

use airlock_plugin_sdk::display_path;
use airlock_plugin_sdk::folders::resolve_in_folders;
use airlock_plugin_sdk::fs::{read_text_optional, write_atomic};
use airlock_plugin_sdk::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct Args {
    /// The file to change: a path relative to the workspace root or an absolute path inside
    /// the workspace or a folder the user added to the session for writing.
    file_path: String,
    /// The exact text to replace, including whitespace and indentation. Include enough
    /// surrounding lines to match exactly one place. Empty to create a new file.
    old_string: String,
    /// The text to put in its place, exact and complete.
    new_string: String,
    /// Replace every occurrence of old_string instead of requiring exactly one. Defaults to
    /// false.
    allow_multiple: Option<bool>,
}

struct Replace;

/// What a call will do to the file.
struct Edit {
    path: PathBuf,
    /// The current content, `None` when the file does not exist.
    original: Option<String>,
    proposed: String,
    replacements: usize,
}

impl Tool for Replace {
    type Args = Args;
    const NAME: &'static str = "replace";
    const DISPLAY_NAME: &'static str = "Edit";
    const DESCRIPTION: &'static str = "Replaces text in a file of the workspace. old_string \
        must match the file's current content exactly (whitespace, indentation and line breaks \
        included) and, unless allow_multiple is true, exactly once: include a few lines of \
        context around the change. Read the file first with read_file. With an empty \
        old_string and a file that does not exist yet, creates the file with new_string. The \
        user approves the change first and may edit it. Returns how many replacements were \
        made.";
    const KIND: Kind = Kind::Edit;
    const PARALLEL_SAFE: bool = false;

    fn capabilities() -> Capabilities {
        Capabilities::none().read_write(".")
    }

    fn validate(args: &Args) -> Result<(), ToolError> {
        resolve_in_folders(&args.file_path)?;
        if args.old_string == args.new_string {
            return Err(ToolError::InvalidParams(
                "No changes to apply: old_string and new_string are identical.".to_string(),
            ));
        }
        Ok(())
    }

    fn describe_call(args: &Args) -> String {
        match resolve_in_folders(&args.file_path) {
            Ok(path) => format!("Edit {}", display_path(&path)),
            Err(_) => format!("Edit {}", args.file_path),
        }
    }

    fn confirm(args: &Args) -> Result<Option<Confirmation>, ToolError> {
        let edit = plan(args)?;
        Ok(Some(edit_confirmation(&edit.path, edit.original.as_deref(), &edit.proposed)))
    }

    fn modify_args(args: Args, proposed: String) -> Result<serde_json::Value, ToolError> {
        // Replacing the whole current content reproduces `proposed` exactly. A missing file
        // reads as "" and an empty old_string creates it.
        let path = resolve_in_folders(&args.file_path)?;
        let current = read_text_optional(&path)?.unwrap_or_default();
        Ok(json!({
            "file_path": args.file_path,
            "old_string": current,
            "new_string": proposed,
        }))
    }

    fn execute(args: Args) -> Result<ToolOutput, ToolError> {
        let edit = plan(&args)?;
        write_atomic(&edit.path, edit.proposed.as_bytes())?;
        let text = match edit.original {
            None => format!("Created new file: {} with the provided content.", edit.path.display()),
            Some(_) => format!(
                "Successfully modified file: {} ({} replacement{}).",
                edit.path.display(),
                edit.replacements,
                if edit.replacements == 1 { "" } else { "s" }
            ),
        };
        Ok(ToolOutput::text(text).with_diff(&edit.path, edit.original.unwrap_or_default(), edit.proposed))
    }
}

/// Works out the new content of the file without changing anything.
fn plan(args: &Args) -> Result<Edit, ToolError> {
    let path = resolve_in_folders(&args.file_path)?;
    let original = read_text_optional(&path)?;
    let shown = display_path(&path);
    let Some(content) = original.as_deref() else {
        if args.old_string.is_empty() {
            return Ok(Edit { path, original: None, proposed: args.new_string.clone(), replacements: 1 });
        }
        return Err(ToolError::NotFound(format!(
            "File not found: {}. To create a new file, call replace with an empty old_string \
             or use write_file.",
            path.display()
        )));
    };
    if args.old_string.is_empty() {
        // An empty file is "" in full: replacing all of it is well defined.
        if content.is_empty() {
            return Ok(Edit { path, proposed: args.new_string.clone(), original, replacements: 1 });
        }
        return Err(ToolError::InvalidParams(format!(
            "old_string is empty but {shown} already exists. Give the exact text to replace \
             (use read_file to see it), or use write_file to overwrite the whole file."
        )));
    }
    let (old, new) = matching_pair(content, &args.old_string, &args.new_string);
    let count = content.matches(old.as_str()).count();
    if count == 0 {
        return Err(ToolError::InvalidParams(format!(
            "0 occurrences found for old_string in {shown}. Use read_file to check the current \
             content; old_string must match it exactly, including whitespace and indentation."
        )));
    }
    if count > 1 && !args.allow_multiple.unwrap_or(false) {
        return Err(ToolError::InvalidParams(format!(
            "Found {count} occurrences of old_string in {shown}, expected exactly 1. Include more \
             surrounding lines in old_string so that it matches only one place, or set \
             allow_multiple: true to replace all {count}."
        )));
    }
    let proposed = content.replace(old.as_str(), &new);
    Ok(Edit { path, original, proposed, replacements: count })
}

/// The old and new text as they must be written in `content`: unchanged when `old` occurs
/// as given; with `\n` turned into `\r\n` when the file uses CRLF line endings and `old`
/// was written with bare `\n` (as models do), so the file keeps its line endings.
fn matching_pair(content: &str, old: &str, new: &str) -> (String, String) {
    let bare_newlines = |s: &str| s.contains('\n') && !s.contains('\r');
    if !content.contains(old) && content.contains("\r\n") && bare_newlines(old) {
        let crlf_old = old.replace('\n', "\r\n");
        if content.contains(&crlf_old) {
            let crlf_new = if new.contains('\r') { new.to_string() } else { new.replace('\n', "\r\n") };
            return (crlf_old, crlf_new);
        }
    }
    (old.to_string(), new.to_string())
}

export_tools!(Replace);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_crlf_line_endings() {
        let (old, new) = matching_pair("a\r\nb\r\nc\r\n", "a\nb", "x\ny");
        assert_eq!((old.as_str(), new.as_str()), ("a\r\nb", "x\r\ny"));
    }

    #[test]
    fn exact_matches_stay_as_given() {
        let (old, new) = matching_pair("a\nb\r\n", "a\nb", "x\ny");
        assert_eq!((old.as_str(), new.as_str()), ("a\nb", "x\ny"));
    }
}
