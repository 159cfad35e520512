//! `read_many_files`: the content of many workspace files at once, chosen by paths,
//! folders and glob patterns, honouring `.gitignore` and a default list of folders and
//! file types that are never source; capped in files and bytes, with a note of what was
//! left out and why. Images and PDFs are returned as media when asked for by name or by
//! extension; other binary files are skipped with a note.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use airlock_plugin_sdk::prelude::*;
use airlock_plugin_sdk::{ContentPart, Media};
use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};
use ignore::WalkBuilder;

/// At most this many files are read.
const MAX_FILES: usize = 200;
/// At most this many bytes of text are returned in all (the host's default output cap is
/// 100,000 bytes; the rest is room for the notes).
const MAX_TEXT_BYTES: usize = 96_000;
/// At most this many bytes of one text file are returned.
const MAX_FILE_BYTES: usize = 64 * 1024;
/// At most this many bytes of media (images, PDFs) are returned in all.
const MAX_MEDIA_BYTES: usize = 10 << 20;
/// A NUL byte within this many leading bytes marks a binary file.
const BINARY_SNIFF_BYTES: usize = 8 * 1024;
/// Paths matched before the walk stops looking.
const MAX_MATCHES: usize = 10_000;

/// What is skipped unless `use_default_excludes` is false: folders that are never source,
/// and file types that are never text.
const DEFAULT_EXCLUDES: &[&str] = &[
    "**/node_modules/**",
    "**/.git/**",
    "**/.svn/**",
    "**/.hg/**",
    "**/.vscode/**",
    "**/.idea/**",
    "**/target/**",
    "**/dist/**",
    "**/build/**",
    "**/coverage/**",
    "**/__pycache__/**",
    "**/.venv/**",
    "**/*.{pyc,pyo,class,jar,war,o,a,so,dll,dylib,exe,bin,wasm,zip,tar,gz,tgz,bz2,xz,7z,rar}",
    "**/*.{doc,docx,xls,xlsx,ppt,pptx,odt,ods,odp}",
    "**/.DS_Store",
    "**/.env",
    "**/.env.*",
];

#[derive(Deserialize, JsonSchema)]
struct Args {
    /// Files, folders or glob patterns, relative to the workspace root (or absolute inside
    /// it): `src/main.rs`, `docs`, `src/**/*.ts`. A folder means the files in it (and
    /// below it, unless `recursive` is false).
    #[schemars(length(min = 1))]
    paths: Vec<String>,
    /// More glob patterns to include, as `paths`.
    include: Option<Vec<String>>,
    /// Glob patterns to leave out (`**/*.test.ts`, `vendor/**`).
    exclude: Option<Vec<String>>,
    /// Whether a folder in `paths` includes its subfolders. Defaults to true.
    recursive: Option<bool>,
    /// Whether the default exclusions apply (node_modules, .git, target, dist, build,
    /// archives, binaries, .env files, ...). Defaults to true.
    use_default_excludes: Option<bool>,
    /// Whether files ignored by `.gitignore` are left out. Defaults to true.
    respect_git_ignore: Option<bool>,
}

struct ReadManyFiles;

impl Tool for ReadManyFiles {
    type Args = Args;
    const NAME: &'static str = "read_many_files";
    const DISPLAY_NAME: &'static str = "ReadManyFiles";
    const DESCRIPTION: &'static str = "Reads many workspace files at once and returns their \
        content, each after a `--- path ---` line, in path order. Select files with `paths` \
        (files, folders, or glob patterns such as `src/**/*.rs`), add patterns with `include`, \
        leave some out with `exclude`. Files ignored by .gitignore, folders such as \
        node_modules, target or dist, binaries, archives and .env files are skipped unless \
        asked otherwise. At most 200 files and about 96 KB of text are returned, each file cut \
        at 64 KB; the result ends with what was left out and why. Images (PNG, JPEG, GIF, \
        WEBP) and PDFs are returned as media when named or asked for by extension; other \
        binary files are skipped. Use read_file for one file or for a range of lines.";
    const KIND: Kind = Kind::Read;

    fn capabilities() -> Capabilities {
        Capabilities::none().read(".")
    }

    fn validate(args: &Args) -> Result<(), ToolError> {
        Selection::new(args, &workspace_root()).map(|_| ())
    }

    fn describe_call(args: &Args) -> String {
        let mut shown: Vec<&str> = args.paths.iter().map(String::as_str).take(3).collect();
        if args.paths.len() > 3 {
            shown.push("…");
        }
        format!("Read {}", shown.join(", "))
    }

    fn execute(args: Args) -> Result<ToolOutput, ToolError> {
        let root = workspace_root();
        let selection = Selection::new(&args, &root)?;
        let (files, overflow) = selection.find(&root, &args);
        read_all(&root, &selection, &files, overflow)
    }
}

/// What the arguments select.
struct Selection {
    include: GlobSet,
    exclude: GlobSet,
    /// The include patterns as written, to tell whether one names a media file's type.
    patterns: Vec<String>,
}

impl Selection {
    fn new(args: &Args, root: &Path) -> Result<Self, ToolError> {
        if args.paths.iter().all(|p| p.trim().is_empty()) {
            return Err(ToolError::InvalidParams("paths is empty: give at least one file, folder or glob pattern".into()));
        }
        let recursive = args.recursive.unwrap_or(true);
        let mut include = GlobSetBuilder::new();
        let mut patterns = Vec::new();
        for written in args.paths.iter().chain(args.include.iter().flatten()) {
            let written = written.trim();
            if written.is_empty() {
                continue;
            }
            for pattern in include_patterns(written, root, recursive)? {
                include.add(glob(&pattern, written)?);
                patterns.push(pattern);
            }
        }
        let mut exclude = GlobSetBuilder::new();
        for written in args.exclude.iter().flatten() {
            let pattern = relative_pattern(written.trim(), root)?;
            exclude.add(glob(&pattern, written)?);
            // `dir` or `dir/` also leaves out what is below it.
            if !has_glob(&pattern) {
                exclude.add(glob(&format!("{}/**", pattern.trim_end_matches('/')), written)?);
            }
        }
        if args.use_default_excludes.unwrap_or(true) {
            for pattern in DEFAULT_EXCLUDES {
                exclude.add(glob(pattern, pattern)?);
            }
        }
        let built = |set: GlobSetBuilder| set.build().map_err(|e| ToolError::InvalidParams(format!("invalid pattern: {e}")));
        Ok(Self { include: built(include)?, exclude: built(exclude)?, patterns })
    }

    /// The selected files (relative to `root`, sorted), and whether more matched than
    /// [`MAX_MATCHES`].
    fn find(&self, root: &Path, args: &Args) -> (Vec<PathBuf>, bool) {
        let git_ignore = args.respect_git_ignore.unwrap_or(true);
        let walk = WalkBuilder::new(root)
            .hidden(false)
            .git_ignore(git_ignore)
            .git_exclude(git_ignore)
            .ignore(git_ignore)
            .parents(git_ignore)
            .require_git(false)
            .git_global(false)
            .filter_entry(|entry| entry.file_name() != ".git")
            .build();
        let mut found = Vec::new();
        for entry in walk.flatten() {
            if !entry.file_type().is_some_and(|t| t.is_file()) {
                continue;
            }
            let Ok(relative) = entry.path().strip_prefix(root) else { continue };
            if self.include.is_match(relative) && !self.exclude.is_match(relative) {
                found.push(relative.to_path_buf());
                if found.len() == MAX_MATCHES {
                    found.sort();
                    return (found, true);
                }
            }
        }
        found.sort();
        (found, false)
    }

    /// Whether a media file was asked for: named by a pattern, or its extension is.
    fn wants_media(&self, relative: &Path) -> bool {
        let name = relative.to_string_lossy().to_ascii_lowercase();
        let extension = relative.extension().map(|e| e.to_string_lossy().to_ascii_lowercase()).unwrap_or_default();
        self.patterns.iter().any(|p| {
            let p = p.to_ascii_lowercase();
            p == name || p.ends_with(&format!(".{extension}")) || p.contains(&format!("{extension},")) || p.contains(&format!(",{extension}}}"))
        })
    }
}

/// The glob patterns (relative to the root) that `written` stands for: itself when it is a
/// pattern; a folder's files; or one file.
fn include_patterns(written: &str, root: &Path, recursive: bool) -> Result<Vec<String>, ToolError> {
    let pattern = relative_pattern(written, root)?;
    if has_glob(&pattern) {
        return Ok(vec![pattern]);
    }
    let path = root.join(&pattern);
    if pattern.is_empty() || path.is_dir() {
        let dir = pattern.trim_end_matches('/');
        let below = if recursive { "**/*" } else { "*" };
        return Ok(vec![if dir.is_empty() { below.to_string() } else { format!("{dir}/{below}") }]);
    }
    Ok(vec![pattern])
}

/// `written` made relative to the root: an absolute path must lie inside it; `./` and
/// `..` that stays inside are resolved.
fn relative_pattern(written: &str, root: &Path) -> Result<String, ToolError> {
    let outside = || {
        ToolError::PermissionDenied(format!(
            "'{written}' is outside the workspace ({}); give a path or pattern inside it",
            root.display()
        ))
    };
    let text = if written.starts_with('/') {
        let root_text = root.display().to_string();
        match written.strip_prefix(root_text.as_str()) {
            Some(rest) if rest.is_empty() || rest.starts_with('/') => rest.trim_start_matches('/').to_string(),
            _ => return Err(outside()),
        }
    } else {
        written.to_string()
    };
    let mut parts: Vec<&str> = Vec::new();
    for part in text.split('/') {
        match part {
            "" | "." => {}
            ".." => {
                if parts.pop().is_none() {
                    return Err(outside());
                }
            }
            other => parts.push(other),
        }
    }
    Ok(parts.join("/"))
}

fn has_glob(pattern: &str) -> bool {
    pattern.contains(['*', '?', '[', '{'])
}

fn glob(pattern: &str, written: &str) -> Result<Glob, ToolError> {
    GlobBuilder::new(pattern)
        .literal_separator(true)
        .build()
        .map_err(|e| ToolError::InvalidParams(format!("invalid glob pattern '{written}': {e}")))
}

/// Why a file was left out.
enum Skip {
    Binary,
    Media,
    Unreadable(String),
    TextBudget,
    MediaBudget,
    FileCount,
}

impl Skip {
    fn reason(&self) -> String {
        match self {
            Self::Binary => "binary".into(),
            Self::Media => "an image or PDF not asked for by name or extension".into(),
            Self::Unreadable(why) => format!("unreadable: {why}"),
            Self::TextBudget => format!("over the {MAX_TEXT_BYTES}-byte text budget of one call"),
            Self::MediaBudget => format!("over the {} MiB media budget of one call", MAX_MEDIA_BYTES >> 20),
            Self::FileCount => format!("over the {MAX_FILES}-file cap of one call"),
        }
    }
}

fn media_type(path: &Path) -> Option<&'static str> {
    let extension = path.extension()?.to_str()?.to_ascii_lowercase();
    match extension.as_str() {
        "png" => Some("image/png"),
        "jpg" | "jpeg" => Some("image/jpeg"),
        "gif" => Some("image/gif"),
        "webp" => Some("image/webp"),
        "pdf" => Some("application/pdf"),
        _ => None,
    }
}

/// Reads `files` into one result, within the caps.
fn read_all(root: &Path, selection: &Selection, files: &[PathBuf], overflow: bool) -> Result<ToolOutput, ToolError> {
    let mut text = String::new();
    let mut media: Vec<ContentPart> = Vec::new();
    let mut media_bytes = 0usize;
    let mut read = 0usize;
    let mut cut: Vec<String> = Vec::new();
    let mut skipped: Vec<(String, Skip)> = Vec::new();
    for relative in files {
        let shown = relative.display().to_string();
        if read == MAX_FILES {
            skipped.push((shown, Skip::FileCount));
            continue;
        }
        let path = root.join(relative);
        if let Some(mime_type) = media_type(relative) {
            if !selection.wants_media(relative) {
                skipped.push((shown, Skip::Media));
                continue;
            }
            match std::fs::read(&path) {
                Ok(data) if media_bytes + data.len() > MAX_MEDIA_BYTES => skipped.push((shown, Skip::MediaBudget)),
                Ok(data) => {
                    media_bytes += data.len();
                    read += 1;
                    let _ = writeln!(text, "--- {shown} --- ({mime_type}, {} bytes, attached)\n", data.len());
                    media.push(ContentPart::Media(Media { mime_type: mime_type.into(), data }));
                }
                Err(error) => skipped.push((shown, Skip::Unreadable(error.to_string()))),
            }
            continue;
        }
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(error) => {
                skipped.push((shown, Skip::Unreadable(error.to_string())));
                continue;
            }
        };
        if bytes[..bytes.len().min(BINARY_SNIFF_BYTES)].contains(&0) {
            skipped.push((shown, Skip::Binary));
            continue;
        }
        let mut content = String::from_utf8_lossy(&bytes[..bytes.len().min(MAX_FILE_BYTES)]).into_owned();
        if bytes.len() > MAX_FILE_BYTES {
            // Cut at a line end where there is one, so no line is half shown.
            if let Some(end) = content.rfind('\n') {
                content.truncate(end + 1);
            }
            cut.push(format!("{shown} (first {} of {} bytes)", content.len(), bytes.len()));
        }
        let header = format!("--- {shown} ---\n");
        if text.len() + header.len() + content.len() + 1 > MAX_TEXT_BYTES {
            skipped.push((shown, Skip::TextBudget));
            continue;
        }
        read += 1;
        text.push_str(&header);
        text.push_str(&content);
        if !content.ends_with('\n') {
            text.push('\n');
        }
        text.push('\n');
    }
    if read == 0 && skipped.is_empty() {
        return Ok(ToolOutput::text(
            "No files matched the given paths and patterns (after .gitignore and the default exclusions).",
        ));
    }
    text.push_str("--- End of content ---\n");
    if !cut.is_empty() {
        let _ = writeln!(text, "Cut at {MAX_FILE_BYTES} bytes (use read_file with start_line for the rest): {}", cut.join(", "));
    }
    if !skipped.is_empty() {
        let _ = writeln!(text, "Left out {} file(s):", skipped.len());
        for (path, why) in skipped.iter().take(50) {
            let _ = writeln!(text, "- {path}: {}", why.reason());
        }
        if skipped.len() > 50 {
            let _ = writeln!(text, "- and {} more", skipped.len() - 50);
        }
    }
    if overflow {
        let _ = writeln!(text, "More than {MAX_MATCHES} files matched; use narrower paths or patterns.");
    }
    let summary = format!("Read {read} file(s){}", if skipped.is_empty() { String::new() } else { format!(", left out {}", skipped.len()) });
    let mut parts = vec![ContentPart::Text(text)];
    parts.extend(media);
    Ok(ToolOutput { llm_content: parts, display: None }.with_markdown(summary))
}

export_tools!(ReadManyFiles);
