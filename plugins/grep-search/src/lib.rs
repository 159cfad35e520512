//! `grep_search`: searches the content of the workspace's text files for a regular
//! expression, honouring `.gitignore`, and returns the matching lines grouped by file.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use airlock_plugin_sdk::display_path;
use airlock_plugin_sdk::fs::io_error;
use airlock_plugin_sdk::prelude::*;
use globset::{GlobBuilder, GlobMatcher};
use ignore::WalkBuilder;
use regex::{Regex, RegexBuilder};

/// At most this many matching lines are returned.
const MAX_MATCHES: usize = 100;
/// Matching lines are cut to this many characters.
const MAX_LINE_CHARS: usize = 500;
/// Files larger than this are skipped.
const MAX_FILE_BYTES: u64 = 8 * 1024 * 1024;
/// A NUL byte within this many leading bytes marks a binary file, which is skipped.
const BINARY_SNIFF_BYTES: usize = 8 * 1024;

#[derive(Deserialize, JsonSchema)]
struct Args {
    /// The regular expression to search for (Rust regex syntax, like PCRE without
    /// look-around or backreferences): `fn\s+main`, `TODO|FIXME`, `(?i)error`.
    pattern: String,
    /// The directory (or single file) to search: relative to the workspace root or absolute
    /// inside it. Defaults to the workspace root.
    dir_path: Option<String>,
    /// A glob that limits the search to some files: `*.rs` matches file names at any depth;
    /// a pattern with a `/` (`src/**/*.ts`) matches paths relative to dir_path.
    include: Option<String>,
}

struct GrepSearch;

/// Lines that matched in one file.
struct FileMatches {
    path: PathBuf,
    lines: Vec<(usize, String)>,
}

impl Tool for GrepSearch {
    type Args = Args;
    const NAME: &'static str = "grep_search";
    const DISPLAY_NAME: &'static str = "SearchText";
    const DESCRIPTION: &'static str = "Searches the content of text files in the workspace for \
        a regular expression (Rust regex syntax) and returns the matching lines grouped by \
        file, as `File: <path relative to the workspace>` followed by `L<line number>: \
        <line>`. Searches below dir_path (default: the workspace root), only in files matching \
        the include glob when given. Files ignored by .gitignore, the .git folder, binary files \
        and files over 8 MiB are skipped. Returns at most 100 matches and cuts lines at 500 \
        characters; the result says when it was capped, so narrow the pattern, dir_path or \
        include then.";
    const KIND: Kind = Kind::Search;

    fn capabilities() -> Capabilities {
        Capabilities::none().read(".")
    }

    fn validate(args: &Args) -> Result<(), ToolError> {
        base_path(args)?;
        regex(&args.pattern)?;
        include_matcher(args.include.as_deref()).map(|_| ())
    }

    fn describe_call(args: &Args) -> String {
        let mut line = format!("Search for '{}'", args.pattern);
        if let Some(Ok(dir)) = args.dir_path.as_deref().map(resolve_in_workspace) {
            let _ = write!(line, " in {}", display_path(&dir));
        }
        if let Some(include) = &args.include {
            let _ = write!(line, " ({include})");
        }
        line
    }

    fn execute(args: Args) -> Result<ToolOutput, ToolError> {
        let base = base_path(&args)?;
        let regex = regex(&args.pattern)?;
        let include = include_matcher(args.include.as_deref())?;
        let metadata = fs::metadata(&base).map_err(|e| io_error(&base, &e))?;

        let mut files: Vec<FileMatches> = Vec::new();
        let mut total = 0usize;
        for entry in walker(&base).flatten() {
            if !is_file(&entry) {
                continue;
            }
            let path = entry.path();
            if metadata.is_dir()
                && let Some(include) = &include
                && !included(include, &base, path)
            {
                continue;
            }
            if entry.metadata().is_ok_and(|m| m.len() > MAX_FILE_BYTES) {
                continue;
            }
            let Ok(bytes) = fs::read(path) else {
                continue;
            };
            if bytes[..bytes.len().min(BINARY_SNIFF_BYTES)].contains(&0) {
                continue;
            }
            let text = String::from_utf8_lossy(&bytes);
            let mut lines = Vec::new();
            for (index, line) in text.lines().enumerate() {
                if regex.is_match(line) {
                    total += 1;
                    if total <= MAX_MATCHES {
                        lines.push((index + 1, shorten(line)));
                    }
                }
            }
            if !lines.is_empty() {
                files.push(FileMatches { path: path.to_path_buf(), lines });
            }
        }
        Ok(report(&args, &base, &files, total))
    }
}

/// The result text for the model and the summary for the user.
fn report(args: &Args, base: &Path, files: &[FileMatches], total: usize) -> ToolOutput {
    let mut scope = format!("in path \"{}\"", display_path(base));
    if let Some(include) = &args.include {
        let _ = write!(scope, " (filter: \"{include}\")");
    }
    if total == 0 {
        return ToolOutput::text(format!("No matches found for pattern \"{}\" {scope}.", args.pattern));
    }
    let plural = if total == 1 { "match" } else { "matches" };
    let mut text = if total > MAX_MATCHES {
        format!(
            "Found {total} {plural} for pattern \"{}\" {scope} (showing first {MAX_MATCHES}; \
             narrow the pattern, dir_path or include to see the rest):\n---\n",
            args.pattern
        )
    } else {
        format!("Found {total} {plural} for pattern \"{}\" {scope}:\n---\n", args.pattern)
    };
    for file in files {
        let _ = writeln!(text, "File: {}", display_path(&file.path));
        for (number, line) in &file.lines {
            let _ = writeln!(text, "L{number}: {line}");
        }
        text.push_str("---\n");
    }
    let summary = format!("Found {total} {plural} in {} file(s)", files.len());
    ToolOutput::text(text.trim_end()).with_markdown(summary)
}

/// The directory or file to search.
fn base_path(args: &Args) -> Result<PathBuf, ToolError> {
    resolve_in_workspace(args.dir_path.as_deref().unwrap_or("."))
}

fn regex(pattern: &str) -> Result<Regex, ToolError> {
    if pattern.is_empty() {
        return Err(ToolError::InvalidParams("pattern is empty; give a regular expression to search for".to_string()));
    }
    RegexBuilder::new(pattern)
        .size_limit(10 * 1024 * 1024)
        .build()
        .map_err(|e| ToolError::InvalidParams(format!("invalid regular expression: {e}")))
}

fn include_matcher(include: Option<&str>) -> Result<Option<GlobMatcher>, ToolError> {
    let Some(include) = include.map(str::trim).filter(|i| !i.is_empty()) else {
        return Ok(None);
    };
    let pattern = include.strip_prefix("./").unwrap_or(include);
    GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .map(|glob| Some(glob.compile_matcher()))
        .map_err(|e| ToolError::InvalidParams(format!("invalid include glob '{include}': {e}")))
}

/// A pattern without `/` matches the file name, one with `/` the path below `base`.
fn included(include: &GlobMatcher, base: &Path, path: &Path) -> bool {
    if include.glob().glob().contains('/') {
        path.strip_prefix(base).is_ok_and(|relative| include.is_match(relative))
    } else {
        path.file_name().is_some_and(|name| include.is_match(name))
    }
}

/// The line without its trailing whitespace, cut at [`MAX_LINE_CHARS`] characters.
fn shorten(line: &str) -> String {
    let line = line.trim_end();
    match line.char_indices().nth(MAX_LINE_CHARS) {
        Some((index, _)) => format!("{}... [truncated]", &line[..index]),
        None => line.to_string(),
    }
}

/// A single-threaded walk (the root may be a single file) that honours `.gitignore` files,
/// also outside a git repository, shows other hidden files, and never enters `.git`.
fn walker(root: &Path) -> ignore::Walk {
    WalkBuilder::new(root)
        .hidden(false)
        .require_git(false)
        .git_global(false)
        .sort_by_file_name(|a, b| a.cmp(b))
        .filter_entry(|entry| entry.file_name() != ".git")
        .build()
}

/// A regular file, or a symbolic link to one.
fn is_file(entry: &ignore::DirEntry) -> bool {
    entry.file_type().is_some_and(|t| t.is_file() || (t.is_symlink() && entry.path().is_file()))
}

export_tools!(GrepSearch);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn include_without_slash_matches_names_at_any_depth() {
        let include = include_matcher(Some("*.rs")).ok().flatten();
        let include = include.as_ref();
        let base = Path::new("/w");
        assert!(include.is_some_and(|i| included(i, base, Path::new("/w/src/deep/a.rs"))));
        assert!(!include.is_some_and(|i| included(i, base, Path::new("/w/a.ts"))));
    }

    #[test]
    fn include_with_slash_matches_relative_paths() {
        let include = include_matcher(Some("src/**/*.ts")).ok().flatten();
        let include = include.as_ref();
        let base = Path::new("/w");
        assert!(include.is_some_and(|i| included(i, base, Path::new("/w/src/a/b.ts"))));
        assert!(!include.is_some_and(|i| included(i, base, Path::new("/w/lib/b.ts"))));
    }

    #[test]
    fn long_lines_are_cut_on_char_boundaries() {
        let line = "ü".repeat(MAX_LINE_CHARS + 10);
        assert!(shorten(&line).ends_with("... [truncated]"));
    }
}
