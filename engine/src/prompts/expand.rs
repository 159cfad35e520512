//! Expanding a custom command for one run: its arguments filled in, its file includes read.
//!
//! - Markdown (Claude Code): `$ARGUMENTS` is everything after the name, `$1`…`$9` its
//!   words (split at white space; a missing one is empty). A prompt with neither gets the
//!   arguments appended as `ARGUMENTS: …`, as Claude Code does.
//! - TOML (Gemini CLI): `{{args}}` is everything after the name; without it the arguments
//!   are appended after a blank line, as Gemini CLI does.
//! - `@path` (Markdown, at a word's start) and `@{path}` (both) include the file's text,
//!   read as `read_file` reads: the path, relative to the workspace or absolute, must lie in
//!   the workspace or a folder added to the session; the file is read through a handle on
//!   that folder that follows no link; a file is at most [`MAX_INCLUDE_BYTES`] and all of a
//!   command's includes at most [`MAX_INCLUDES_BYTES`]. An include that fails is left as it
//!   was written and said in a notice.
//! - `` !`command` `` (Claude Code) and `!{command}` (Gemini CLI) are never run: a prompt
//!   file runs no code. They stay as text, with a notice.
//!
//! Only the command's own text is scanned: arguments and included files are inserted as
//! they are, so an argument or a file cannot add an include — but for an argument written
//! right after an `@` (`@$1`, `@$ARGUMENTS`, `@{{args}}`), whose first word is read as an
//! include by the same rules, as Claude Code reads the `@path` of a filled-in command.

use std::path::{Component, Path, PathBuf};

use super::commands::{Command, Syntax};

/// The most bytes of one included file.
pub const MAX_INCLUDE_BYTES: u64 = 256 * 1024;
/// The most bytes of all of one expansion's included files.
pub const MAX_INCLUDES_BYTES: usize = 1024 * 1024;

/// Where includes may come from: the workspace and the folders added to the session (all
/// canonical).
#[derive(Debug, Clone, Copy)]
pub struct Roots<'a> {
    pub workspace: &'a Path,
    pub added: &'a [PathBuf],
}

/// A command expanded for one run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Expanded {
    /// The user turn to send.
    pub prompt: String,
    /// What was left out or not run, one line each (unsanitised paths).
    pub notices: Vec<String>,
}

/// Expands `command` with `args` (the text after its name).
pub fn expand(command: &Command, args: &str, roots: Roots<'_>) -> Expanded {
    let args = args.trim();
    let words: Vec<&str> = args.split_whitespace().collect();
    let mut out = Expanded { prompt: String::new(), notices: Vec::new() };
    let mut included = 0usize;
    let mut used_arguments = false;
    let text = command.template.as_str();
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        let at_word_start = text.len() == rest.len()
            || text[..text.len() - rest.len()].chars().next_back().is_some_and(char::is_whitespace);
        let markdown = command.syntax == Syntax::Markdown;
        if markdown && let Some(after) = rest.strip_prefix("$ARGUMENTS") {
            out.prompt.push_str(args);
            used_arguments = true;
            rest = after;
        } else if markdown
            && c == '$'
            && let Some(n) = rest[1..].chars().next().and_then(|d| d.to_digit(10)).filter(|n| *n > 0)
        {
            out.prompt.push_str(words.get(n as usize - 1).copied().unwrap_or_default());
            used_arguments = true;
            rest = &rest[2..];
        } else if !markdown && let Some(after) = rest.strip_prefix("{{args}}") {
            out.prompt.push_str(args);
            used_arguments = true;
            rest = after;
        } else if c == '@'
            && at_word_start
            && let Some((value, after)) = argument_at(&rest[1..], markdown, args, &words)
        {
            // `@$1`, `@$ARGUMENTS`: the person's argument names the file, as in Claude
            // Code, where the filled-in prompt's `@path` is read. Its first word is the
            // include; read by the same rules as any other.
            used_arguments = true;
            let (path, tail) = value.split_once(char::is_whitespace).unwrap_or((value, ""));
            if path.is_empty() {
                out.prompt.push('@');
            } else {
                let written = format!("@{path}");
                include(&mut out, path, &written, roots, &mut included);
            }
            if !tail.is_empty() {
                out.prompt.push(' ');
                out.prompt.push_str(tail);
            }
            rest = after;
        } else if c == '@'
            && at_word_start
            && let Some((path, written, after)) = include_path(rest, markdown)
        {
            include(&mut out, path, written, roots, &mut included);
            rest = after;
        } else if let Some(shell) = shell_interpolation(rest, markdown) {
            out.prompt.push_str(shell);
            out.notices.push(format!(
                "{} is left as text: a command's shell interpolation is not run (a prompt file runs no code)",
                crate::sanitize::line_bounded(shell, 60)
            ));
            rest = &rest[shell.len()..];
        } else {
            out.prompt.push(c);
            rest = &rest[c.len_utf8()..];
        }
    }
    if !used_arguments && !args.is_empty() {
        match command.syntax {
            Syntax::Markdown => out.prompt = format!("{}\n\nARGUMENTS: {args}", out.prompt.trim_end()),
            Syntax::Toml => out.prompt = format!("{}\n\n{args}", out.prompt.trim_end()),
        }
    }
    out
}

/// The include of `path` (`written` as the command wrote it) added to `out`, or left as
/// written with a notice; `included` counts the bytes included so far.
fn include(out: &mut Expanded, path: &str, written: &str, roots: Roots<'_>, included: &mut usize) {
    match read_include(path, roots, MAX_INCLUDES_BYTES.saturating_sub(*included)) {
        Ok(content) => {
            *included += content.len();
            out.prompt.push_str(&format!("\n--- {path} ---\n{}\n--- end of {path} ---\n", content.trim_end()));
        }
        Err(reason) => {
            out.prompt.push_str(written);
            out.notices.push(format!("@{path} is left out: {reason}"));
        }
    }
}

/// An argument placeholder at the start of `text` (what follows an `@`): its value and
/// what follows it. `$ARGUMENTS` and `$1`…`$9` (Markdown), `{{args}}` (TOML).
fn argument_at<'t, 'a>(text: &'t str, markdown: bool, args: &'a str, words: &[&'a str]) -> Option<(&'a str, &'t str)> {
    if markdown {
        if let Some(after) = text.strip_prefix("$ARGUMENTS") {
            return Some((args, after));
        }
        let n = text.strip_prefix('$')?.chars().next()?.to_digit(10).filter(|n| *n > 0)?;
        return Some((words.get(n as usize - 1).copied().unwrap_or_default(), &text[2..]));
    }
    text.strip_prefix("{{args}}").map(|after| (args, after))
}

/// The path of an include at the start of `text` (which starts with `@`), the text written
/// for it and what follows: `@{path}`, or (Markdown) `@path` up to white space, trailing
/// punctuation left out.
fn include_path(text: &str, markdown: bool) -> Option<(&str, &str, &str)> {
    let body = &text[1..];
    if let Some(braced) = body.strip_prefix('{') {
        let end = braced.find('}')?;
        let path = braced[..end].trim();
        let written = &text[..end + 3];
        return (!path.is_empty()).then_some((path, written, &text[written.len()..]));
    }
    if !markdown {
        return None;
    }
    let end = body.find(char::is_whitespace).unwrap_or(body.len());
    let path = body[..end].trim_end_matches(['.', ',', ';', ':', '!', '?', ')', '"', '\'', '`']);
    if path.is_empty() || path.starts_with('@') {
        return None;
    }
    let written = &text[..1 + path.len()];
    Some((path, written, &text[written.len()..]))
}

/// Shell interpolation at the start of `text`: `` !`…` `` (Markdown) or `!{…}` (TOML).
fn shell_interpolation(text: &str, markdown: bool) -> Option<&str> {
    let (open, close) = if markdown { ("!`", '`') } else { ("!{", '}') };
    let inner = text.strip_prefix(open)?;
    let end = inner.find(close)?;
    Some(&text[..open.len() + end + 1])
}

/// The text of the file `written` names, read as `read_file` reads it, or why not.
fn read_include(written: &str, roots: Roots<'_>, budget: usize) -> Result<String, String> {
    let path = lexical(&roots.workspace.join(written));
    let root = std::iter::once(roots.workspace)
        .chain(roots.added.iter().map(PathBuf::as_path))
        .filter(|root| path.starts_with(root))
        .max_by_key(|root| root.as_os_str().len())
        .ok_or("it is outside the workspace and the folders added to this session")?;
    let relative = path.strip_prefix(root).map_err(|_| "it is outside the workspace".to_string())?;
    let dir = airlock_files::open_dir(root).map_err(|e| format!("its folder {e}"))?;
    let limit = MAX_INCLUDE_BYTES.min(budget as u64);
    let bytes = airlock_files::read_file_in(&dir, relative, limit).map_err(|e| match e {
        airlock_files::FileError::TooLarge { size, .. } if limit < MAX_INCLUDE_BYTES => {
            format!("it has {size} bytes and the command's includes may hold {MAX_INCLUDES_BYTES} in all")
        }
        airlock_files::FileError::BadPath => "it is not a file".to_string(),
        airlock_files::FileError::NotFound => "there is no such file".to_string(),
        airlock_files::FileError::Io(e) => format!("it cannot be read: {e}"),
        other => format!("it {other}"),
    })?;
    String::from_utf8(bytes).map_err(|_| "it is not UTF-8 text".to_string())
}

/// `path` with `.` and `..` resolved by its text (no link is looked at: the read that
/// follows refuses links).
fn lexical(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for component in path.components() {
        match component {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[cfg(test)]
#[path = "expand_tests.rs"]
mod tests;
