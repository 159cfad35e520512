//! `grep_search`: searches the content of the workspace's text files for a regular
//! expression, honouring `.gitignore`, and returns the matching lines grouped by file.

use std::fmt::Write as _;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use airlock_plugin_sdk::display_path;
use airlock_plugin_sdk::folders::resolve_in_folders;
use airlock_plugin_sdk::fs::io_error;
use airlock_plugin_sdk::prelude::*;
use globset::{GlobBuilder, GlobMatcher};
use grep_matcher::LineTerminator;
use grep_regex::{RegexMatcher, RegexMatcherBuilder};
use grep_searcher::{BinaryDetection, Searcher, SearcherBuilder, Sink, SinkMatch};
use search_walk::{Found, walk};

/// At most this many matching lines are returned.
const MAX_MATCHES: usize = 100;
/// Matching lines are cut to this many characters.
const MAX_LINE_CHARS: usize = 500;
/// Files larger than this are skipped.
const MAX_FILE_BYTES: u64 = 8 * 1024 * 1024;

#[derive(Deserialize, JsonSchema)]
struct Args {
    /// The regular expression to search for (Rust regex syntax, like PCRE without
    /// look-around or backreferences): `fn\s+main`, `TODO|FIXME`, `(?i)error`.
    pattern: String,
    /// The directory (or single file) to search: relative to the workspace root, or absolute
    /// inside it or inside a folder the user added to the session. Defaults to the workspace
    /// root.
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
        matcher(&args.pattern)?;
        include_matcher(args.include.as_deref()).map(|_| ())
    }

    fn describe_call(args: &Args) -> String {
        let mut line = format!("Search for '{}'", args.pattern);
        if let Some(Ok(dir)) = args.dir_path.as_deref().map(resolve_in_folders) {
            let _ = write!(line, " in {}", display_path(&dir));
        }
        if let Some(include) = &args.include {
            let _ = write!(line, " ({include})");
        }
        line
    }

    fn execute(args: Args) -> Result<ToolOutput, ToolError> {
        let base = base_path(&args)?;
        let mut search = Search::new(matcher(&args.pattern)?);
        let include = include_matcher(args.include.as_deref())?;
        let metadata = fs::metadata(&base).map_err(|e| io_error(&base, &e))?;

        walk(&base, &mut |_| true, &mut |found| {
            if metadata.is_dir()
                && let Some(include) = &include
                && !included(include, &base, &found.path)
            {
                return;
            }
            search.file(found);
        });
        Ok(report(&args, &base, &search.files, search.total))
    }
}

/// A search in progress: every matching line is counted, the first [`MAX_MATCHES`] kept.
struct Search {
    matcher: RegexMatcher,
    /// Counts lines, for the matches still shown.
    numbered: Searcher,
    /// Once the shown matches are complete, the rest are only counted, and counting lines
    /// (a pass over every byte) is skipped.
    counting: Searcher,
    files: Vec<FileMatches>,
    total: usize,
}

impl Search {
    fn new(matcher: RegexMatcher) -> Self {
        let searcher = |line_number| {
            SearcherBuilder::new()
                .line_number(line_number)
                // As the matcher's: a line ends at `\n`, and a `\r` before it is no part of it.
                .line_terminator(LineTerminator::crlf())
                .binary_detection(BinaryDetection::quit(b'\0'))
                .build()
        };
        Self { matcher, numbered: searcher(true), counting: searcher(false), files: Vec::new(), total: 0 }
    }

    /// Searches one file: unreadable, binary and oversized files are skipped.
    fn file(&mut self, found: Found) {
        let Ok(file) = found.open(MAX_FILE_BYTES) else {
            return;
        };
        let room = MAX_MATCHES.saturating_sub(self.total);
        let searcher = if room > 0 { &mut self.numbered } else { &mut self.counting };
        let mut sink = FileSink { count: 0, lines: Vec::new(), room, binary: false };
        if searcher.search_reader(&self.matcher, file, &mut sink).is_err() || sink.binary {
            return;
        }
        self.total += sink.count;
        if !sink.lines.is_empty() {
            self.files.push(FileMatches { path: found.path, lines: sink.lines });
        }
    }
}

/// Collects one file's matches; a file found to hold binary data counts for nothing.
struct FileSink {
    count: usize,
    lines: Vec<(usize, String)>,
    /// How many more lines may be kept.
    room: usize,
    binary: bool,
}

impl Sink for FileSink {
    type Error = io::Error;

    fn matched(&mut self, _: &Searcher, found: &SinkMatch<'_>) -> Result<bool, io::Error> {
        self.count += 1;
        if self.lines.len() < self.room {
            let number = found.line_number().map_or(0, |n| usize::try_from(n).unwrap_or(usize::MAX));
            self.lines.push((number, shorten(found.bytes())));
        }
        Ok(true)
    }

    fn binary_data(&mut self, _: &Searcher, _: u64) -> Result<bool, io::Error> {
        self.binary = true;
        Ok(false)
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
    resolve_in_folders(args.dir_path.as_deref().unwrap_or("."))
}

/// The pattern, compiled for line-by-line search: it never matches across a line end, `^`
/// and `$` match at the start and end of every line, and `$` matches before `\r\n` as
/// before `\n`.
fn matcher(pattern: &str) -> Result<RegexMatcher, ToolError> {
    if pattern.is_empty() {
        return Err(ToolError::InvalidParams("pattern is empty; give a regular expression to search for".to_string()));
    }
    RegexMatcherBuilder::new()
        .multi_line(true)
        .crlf(true)
        .size_limit(10 * 1024 * 1024)
        .build(pattern)
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

/// The line without its trailing whitespace, cut at [`MAX_LINE_CHARS`] characters. A
/// character takes at most 4 bytes, and an invalid byte becomes one character: only the
/// bytes that can be shown are decoded, however long the line.
fn shorten(line: &[u8]) -> String {
    let line = String::from_utf8_lossy(&line[..line.len().min((MAX_LINE_CHARS + 1) * 4)]);
    let line = line.trim_end();
    match line.char_indices().nth(MAX_LINE_CHARS) {
        Some((index, _)) => format!("{}... [truncated]", &line[..index]),
        None => line.to_string(),
    }
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

    /// Searches a new file holding `text` for `pattern`; returns the matching lines counted.
    fn count(pattern: &str, text: &str) -> usize {
        let dir = std::env::temp_dir().join(format!("airlock-grep-search-{}", std::process::id()));
        let _ = fs::create_dir_all(&dir);
        let path = dir.join(format!("{}.txt", pattern.len()));
        let _ = fs::write(&path, text);
        let mut search = Search::new(matcher(pattern).ok().unwrap_or_else(|| panic!("{pattern}")));
        walk(&path, &mut |_| true, &mut |found| search.file(found));
        let _ = fs::remove_file(&path);
        search.total
    }

    #[test]
    fn matches_are_counted_per_line_and_never_across_a_line_end() {
        let text = "x needle\nnope\r\nneedle 2\r\n";
        assert_eq!(count("needle", text), 2);
        assert_eq!(count("2$", text), 1, "`$` matches before \\r\\n");
        assert_eq!(count(r"^needle \d+$", text), 1, "`^` and `$` hold for every line");
        assert_eq!(count("^nope$", text), 1);
        assert_eq!(count(r"needle\s+2", text), 1);
        assert_eq!(count(r"nope\s+needle", text), 0);
        assert_eq!(count("needle", "needle\n\0binary\n"), 0, "binary files count for nothing");
    }

    #[test]
    fn long_lines_are_cut_on_char_boundaries() {
        let line = "ü".repeat(MAX_LINE_CHARS + 10);
        let shown = shorten(line.as_bytes());
        assert!(shown.ends_with("... [truncated]"));
        assert_eq!(shown.chars().filter(|&c| c == 'ü').count(), MAX_LINE_CHARS);
    }
}
