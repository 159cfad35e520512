//! `glob`: finds files of the workspace whose path matches a glob pattern, honouring
//! `.gitignore`, newest first.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use airlock_plugin_sdk::display_path;
use airlock_plugin_sdk::fs::io_error;
use airlock_plugin_sdk::prelude::*;
use globset::{GlobBuilder, GlobMatcher};
use ignore::WalkBuilder;

/// At most this many paths are returned.
const MAX_RESULTS: usize = 1000;
/// Files changed within this long are listed first, newest first; older ones alphabetically.
const RECENT: Duration = Duration::from_secs(24 * 60 * 60);

#[derive(Deserialize, JsonSchema)]
struct Args {
    /// The glob pattern, matched against paths relative to dir_path: `**/*.rs`,
    /// `src/**/*.{ts,tsx}`, `*.md` (top level only), `docs/*`.
    pattern: String,
    /// The directory to search in: relative to the workspace root or absolute inside it.
    /// Defaults to the workspace root.
    dir_path: Option<String>,
    /// Whether the match is case-sensitive. Defaults to false.
    case_sensitive: Option<bool>,
}

struct Glob;

impl Tool for Glob {
    type Args = Args;
    const NAME: &'static str = "glob";
    const DISPLAY_NAME: &'static str = "FindFiles";
    const DESCRIPTION: &'static str = "Finds files whose path matches a glob pattern (`**` \
        matches any number of directories, `*` stays within one, `{a,b}` alternatives), \
        relative to dir_path or the workspace root. Files ignored by .gitignore and the .git \
        folder are skipped. Returns absolute paths: files changed in the last 24 hours first, \
        newest first, then the rest alphabetically; at most 1000 paths. Use it to locate \
        files by name; use grep_search to search their content.";
    const KIND: Kind = Kind::Search;

    fn capabilities() -> Capabilities {
        Capabilities::none().read(".")
    }

    fn validate(args: &Args) -> Result<(), ToolError> {
        let base = base_dir(args)?;
        matcher(args, &base).map(|_| ())
    }

    fn describe_call(args: &Args) -> String {
        match args.dir_path.as_deref().map(resolve_in_workspace) {
            Some(Ok(dir)) => format!("Find files matching '{}' in {}", args.pattern, display_path(&dir)),
            _ => format!("Find files matching '{}'", args.pattern),
        }
    }

    fn execute(args: Args) -> Result<ToolOutput, ToolError> {
        let base = base_dir(&args)?;
        let matcher = matcher(&args, &base)?;
        let metadata = std::fs::metadata(&base).map_err(|e| io_error(&base, &e))?;
        if !metadata.is_dir() {
            return Err(ToolError::InvalidParams(format!("dir_path '{}' is not a directory", display_path(&base))));
        }

        let mut found: Vec<(PathBuf, Option<SystemTime>)> = Vec::new();
        for entry in walker(&base).flatten() {
            if !is_file(&entry) {
                continue;
            }
            let Ok(relative) = entry.path().strip_prefix(&base) else {
                continue;
            };
            if matcher.is_match(relative) {
                let modified = entry.metadata().ok().and_then(|m| m.modified().ok());
                found.push((entry.into_path(), modified));
            }
        }
        sort_recent_first(&mut found, SystemTime::now());

        let count = found.len();
        let shown_dir = base.display();
        if count == 0 {
            return Ok(ToolOutput::text(format!(
                "No files found matching pattern \"{}\" within {shown_dir}",
                args.pattern
            )));
        }
        let mut text = format!(
            "Found {count} file(s) matching \"{}\" within {shown_dir}, sorted by modification \
             time (newest first):\n",
            args.pattern
        );
        for (path, _) in found.iter().take(MAX_RESULTS) {
            text.push_str(&path.display().to_string());
            text.push('\n');
        }
        if count > MAX_RESULTS {
            text.push_str(&format!(
                "(showing the first {MAX_RESULTS} of {count} files; use a narrower pattern or \
                 dir_path to see the rest)\n"
            ));
        }
        let summary = format!("Found {count} file(s) matching `{}`", args.pattern);
        Ok(ToolOutput::text(text.trim_end()).with_markdown(summary))
    }
}

/// The directory the pattern is relative to.
fn base_dir(args: &Args) -> Result<PathBuf, ToolError> {
    resolve_in_workspace(args.dir_path.as_deref().unwrap_or("."))
}

/// The compiled pattern. An absolute pattern must lie inside `base`; it is made relative.
fn matcher(args: &Args, base: &Path) -> Result<GlobMatcher, ToolError> {
    let mut pattern = args.pattern.as_str();
    if pattern.trim().is_empty() {
        return Err(ToolError::InvalidParams("pattern is empty; give a glob such as **/*.rs".to_string()));
    }
    let base_text = base.display().to_string();
    if pattern.starts_with('/') {
        pattern =
            pattern.strip_prefix(base_text.as_str()).and_then(|rest| rest.strip_prefix('/')).ok_or_else(|| {
                ToolError::PermissionDenied(format!(
                    "pattern '{}' is an absolute path outside {base_text}; give a pattern \
                     relative to dir_path instead",
                    args.pattern
                ))
            })?;
    }
    let pattern = pattern.strip_prefix("./").unwrap_or(pattern);
    GlobBuilder::new(pattern)
        .literal_separator(true)
        .case_insensitive(!args.case_sensitive.unwrap_or(false))
        .build()
        .map(|glob| glob.compile_matcher())
        .map_err(|e| ToolError::InvalidParams(format!("invalid glob pattern '{}': {e}", args.pattern)))
}

/// A single-threaded walk below `base` that honours `.gitignore` files (also outside a git
/// repository) but shows other hidden files, and never enters `.git`.
fn walker(base: &Path) -> ignore::Walk {
    WalkBuilder::new(base)
        .hidden(false)
        .require_git(false)
        .git_global(false)
        .sort_by_file_name(|a, b| a.cmp(b))
        .filter_entry(|entry| entry.file_name() != ".git")
        .build()
}

/// Files changed within [`RECENT`] of `now` first, newest first; then the others by path.
fn sort_recent_first(found: &mut [(PathBuf, Option<SystemTime>)], now: SystemTime) {
    let recent = |modified: &Option<SystemTime>| {
        modified.is_some_and(|m| now.duration_since(m).map_or(true, |age| age <= RECENT))
    };
    found.sort_by(|(path_a, time_a), (path_b, time_b)| match (recent(time_a), recent(time_b)) {
        (true, true) => time_b.cmp(time_a).then_with(|| path_a.cmp(path_b)),
        (true, false) => std::cmp::Ordering::Less,
        (false, true) => std::cmp::Ordering::Greater,
        (false, false) => path_a.cmp(path_b),
    });
}

/// A regular file, or a symbolic link to one.
fn is_file(entry: &ignore::DirEntry) -> bool {
    entry.file_type().is_some_and(|t| t.is_file() || (t.is_symlink() && entry.path().is_file()))
}

export_tools!(Glob);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recent_files_come_first_newest_first_then_alphabetical() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(10 * 24 * 3600);
        let hours_ago = |h: u64| Some(now - Duration::from_secs(h * 3600));
        let mut found = vec![
            (PathBuf::from("/w/b_old"), hours_ago(100)),
            (PathBuf::from("/w/a_old"), hours_ago(200)),
            (PathBuf::from("/w/recent_1h"), hours_ago(1)),
            (PathBuf::from("/w/recent_0h"), hours_ago(0)),
        ];
        sort_recent_first(&mut found, now);
        let order: Vec<_> = found.iter().map(|(p, _)| p.display().to_string()).collect();
        assert_eq!(order, ["/w/recent_0h", "/w/recent_1h", "/w/a_old", "/w/b_old"]);
    }
}
