//! `glob`: finds files of the workspace whose path matches a glob pattern, honouring
//! `.gitignore`, newest first.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use airlock_plugin_sdk::display_path;
use airlock_plugin_sdk::folders::resolve_in_folders;
use airlock_plugin_sdk::fs::io_error;
use airlock_plugin_sdk::prelude::*;
use globset::{GlobBuilder, GlobMatcher};
use search_walk::walk;

/// At most this many paths are returned.
const MAX_RESULTS: usize = 1000;
/// Files changed within this long are listed first, newest first; older ones alphabetically.
const RECENT: Duration = Duration::from_secs(24 * 60 * 60);

#[derive(Deserialize, JsonSchema)]
struct Args {
    /// The glob pattern, matched against paths relative to dir_path: `**/*.rs`,
    /// `src/**/*.{ts,tsx}`, `*.md` (top level only), `docs/*`.
    pattern: String,
    /// The directory to search in: relative to the workspace root, or absolute inside it or
    /// inside a folder the user added to the session. Defaults to the workspace root.
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
        match args.dir_path.as_deref().map(resolve_in_folders) {
            Some(Ok(dir)) => format!("Find files matching '{}' in {}", args.pattern, display_path(&dir)),
            _ => format!("Find files matching '{}'", args.pattern),
        }
    }

    fn execute(args: Args) -> Result<ToolOutput, ToolError> {
        let base = base_dir(&args)?;
        let matcher = matcher(&args, &base)?;
        let reach = Reach::of(&args, relative_pattern(&args, &base)?);
        let metadata = std::fs::metadata(&base).map_err(|e| io_error(&base, &e))?;
        if !metadata.is_dir() {
            return Err(ToolError::InvalidParams(format!("dir_path '{}' is not a directory", display_path(&base))));
        }

        let mut found: Vec<(PathBuf, Option<SystemTime>)> = Vec::new();
        // The walk enters only the folders within the pattern's reach.
        let mut enter = |folder: &Path| {
            reach.as_ref().is_none_or(|reach| folder.strip_prefix(&base).is_ok_and(|relative| reach.allows(relative)))
        };
        walk(&base, &mut enter, &mut |file| {
            if file.path.strip_prefix(&base).is_ok_and(|relative| matcher.is_match(relative)) {
                let modified = file.modified();
                found.push((file.path, modified));
            }
        });
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
    resolve_in_folders(args.dir_path.as_deref().unwrap_or("."))
}

/// The compiled pattern.
fn matcher(args: &Args, base: &Path) -> Result<GlobMatcher, ToolError> {
    if args.pattern.trim().is_empty() {
        return Err(ToolError::InvalidParams("pattern is empty; give a glob such as **/*.rs".to_string()));
    }
    component_glob(relative_pattern(args, base)?, args)
        .map_err(|e| ToolError::InvalidParams(format!("invalid glob pattern '{}': {e}", args.pattern)))
}

/// The pattern relative to `base`: an absolute pattern must lie inside `base`.
fn relative_pattern<'a>(args: &'a Args, base: &Path) -> Result<&'a str, ToolError> {
    let mut pattern = args.pattern.as_str();
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
    Ok(pattern.strip_prefix("./").unwrap_or(pattern))
}

fn component_glob(pattern: &str, args: &Args) -> Result<GlobMatcher, globset::Error> {
    GlobBuilder::new(pattern)
        .literal_separator(true)
        .case_insensitive(!args.case_sensitive.unwrap_or(false))
        .build()
        .map(|glob| glob.compile_matcher())
}

/// Which folders can hold a match, from the pattern's leading folder components: in
/// `src/*/lib/**/*.rs` a match lies in `src/<any>/lib` or below, so the walk enters no other
/// folder; `*.md` keeps it at the top. `**` anywhere in a component lets every folder
/// below count.
struct Reach {
    /// One glob per folder level, up to the first `**`.
    levels: Vec<GlobMatcher>,
    /// Whether folders deeper than `levels` may hold matches (a `**` came).
    open_ended: bool,
}

impl Reach {
    /// The reach of `pattern`; `None` (walk everything) when the pattern cannot be cut into
    /// components safely: a `/` inside braces or brackets, or an escape.
    fn of(args: &Args, pattern: &str) -> Option<Self> {
        let mut depth = 0i32;
        for c in pattern.chars() {
            match c {
                '{' | '[' => depth += 1,
                '}' | ']' => depth -= 1,
                '/' if depth != 0 => return None,
                '\\' => return None,
                _ => {}
            }
        }
        let parts: Vec<&str> = pattern.split('/').collect();
        let folders = &parts[..parts.len() - 1];
        let mut levels = Vec::new();
        for part in folders {
            if part.contains("**") {
                return Some(Self { levels, open_ended: true });
            }
            levels.push(component_glob(part, args).ok()?);
        }
        let open_ended = parts.last().is_some_and(|last| last.contains("**"));
        Some(Self { levels, open_ended })
    }

    /// Whether the folder at `relative` (below the base) can hold a match.
    fn allows(&self, relative: &Path) -> bool {
        for (level, component) in relative.components().enumerate() {
            match self.levels.get(level) {
                Some(glob) => {
                    if !glob.is_match(component.as_os_str()) {
                        return false;
                    }
                }
                None => return self.open_ended,
            }
        }
        true
    }
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

export_tools!(Glob);

#[cfg(test)]
mod tests {
    use super::*;

    fn reach(pattern: &str) -> Option<Reach> {
        let args = Args { pattern: pattern.to_string(), dir_path: None, case_sensitive: None };
        Reach::of(&args, pattern)
    }

    #[test]
    fn the_walk_enters_only_folders_that_can_hold_a_match() {
        let allows = |pattern: &str, folder: &str| reach(pattern).is_none_or(|r| r.allows(Path::new(folder)));
        assert!(allows("src/*/lib/**/*.rs", "src/a/lib/deep/er"));
        assert!(allows("src/*/lib/**/*.rs", "src/a"));
        assert!(!allows("src/*/lib/**/*.rs", "src/a/bin"));
        assert!(!allows("src/*/lib/**/*.rs", "docs"));
        assert!(!allows("*.md", "docs"));
        assert!(!allows("docs/*", "docs/sub"));
        assert!(allows("**/*.rs", "any/where"));
        assert!(allows("SRC/**", "src/x"), "case-insensitive by default");
        assert!(allows("src/**", "src/x/y"));
        assert!(allows("crate_1*/**/*.md", "crate_12/src"));
        assert!(!allows("crate_1*/**/*.md", "crate_20"));
        // A `/` inside braces: the pattern is not cut, every folder is walked.
        assert!(reach("{src,docs/api}/*.md").is_none());
        assert!(allows("{src,docs}/*.md", "docs"));
        assert!(!allows("{src,docs}/*.md", "lib"));
    }

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
