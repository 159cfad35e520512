//! `list_directory`: the entries of one directory, folders first, without what
//! `.gitignore` hides (the listing says how many entries it left out) and without `.git`.

use std::fs;
use std::path::{Path, PathBuf};

use airlock_plugin_sdk::folders::resolve_in_folders;
use airlock_plugin_sdk::fs::io_error;
use airlock_plugin_sdk::prelude::*;
use airlock_plugin_sdk::{display_path, workspace};
use globset::{Glob, GlobSet, GlobSetBuilder};
use ignore::Match;
use ignore::gitignore::{Gitignore, GitignoreBuilder};

/// At most this many entries are listed.
const MAX_ENTRIES: usize = 1000;

#[derive(Deserialize, JsonSchema)]
struct Args {
    /// The directory to list: a path relative to the workspace root (`src`, `.`) or an
    /// absolute path inside the workspace or a folder the user added to the session.
    dir_path: String,
    /// Glob patterns for entry names to leave out (`*.log`, `node_modules`).
    ignore: Option<Vec<String>>,
}

struct ListDirectory;

impl Tool for ListDirectory {
    type Args = Args;
    const NAME: &'static str = "list_directory";
    const DISPLAY_NAME: &'static str = "ReadFolder";
    const DESCRIPTION: &'static str = "Lists the files and subdirectories directly inside a \
        directory of the workspace or of a folder the user added to the session (not \
        recursive). Directories come first and are shown as \
        `[DIR] name`. Entries hidden by .gitignore files and the .git folder are left out; the \
        listing says how many were ignored. At most 1000 entries are shown. Use glob to find \
        files by pattern across many directories.";
    const KIND: Kind = Kind::Search;

    fn capabilities() -> Capabilities {
        Capabilities::none().read(".")
    }

    fn validate(args: &Args) -> Result<(), ToolError> {
        resolve_in_folders(&args.dir_path)?;
        ignore_set(args.ignore.as_deref()).map(|_| ())
    }

    fn describe_call(args: &Args) -> String {
        match resolve_in_folders(&args.dir_path) {
            Ok(path) => format!("List {}", display_path(&path)),
            Err(_) => format!("List {}", args.dir_path),
        }
    }

    fn execute(args: Args) -> Result<ToolOutput, ToolError> {
        let dir = resolve_in_folders(&args.dir_path)?;
        let metadata = fs::metadata(&dir).map_err(|e| io_error(&dir, &e))?;
        if !metadata.is_dir() {
            return Err(ToolError::InvalidParams(format!(
                "'{}' is a file, not a directory; use read_file to read it",
                display_path(&dir)
            )));
        }
        let skip = ignore_set(args.ignore.as_deref())?;
        let gitignores = gitignore_chain(&workspace_root(), &dir);

        let mut entries: Vec<(bool, String)> = Vec::new();
        let mut git_ignored = 0usize;
        let mut pattern_ignored = 0usize;
        for entry in fs::read_dir(&dir).map_err(|e| io_error(&dir, &e))? {
            let entry = entry.map_err(|e| io_error(&dir, &e))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            if name == ".git" {
                continue;
            }
            let path = entry.path();
            // Follow symbolic links so a link to a folder is listed as a folder.
            let is_dir = fs::metadata(&path)
                .map(|m| m.is_dir())
                .or_else(|_| entry.file_type().map(|t| t.is_dir()))
                .unwrap_or(false);
            if is_git_ignored(&gitignores, &path, is_dir) {
                git_ignored += 1;
            } else if skip.is_match(&name) {
                pattern_ignored += 1;
            } else {
                entries.push((is_dir, name));
            }
        }
        entries.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));

        let shown = display_path(&dir);
        let mut text = if entries.is_empty() {
            format!("Directory {} is empty.", dir.display())
        } else {
            format!("Directory listing for {}:\n", dir.display())
        };
        for (is_dir, name) in entries.iter().take(MAX_ENTRIES) {
            if *is_dir {
                text.push_str("[DIR] ");
            }
            text.push_str(name);
            text.push('\n');
        }
        if entries.len() > MAX_ENTRIES {
            text.push_str(&format!(
                "\n(showing the first {MAX_ENTRIES} of {} entries; use glob to narrow down)\n",
                entries.len()
            ));
        }
        let mut notes = Vec::new();
        if git_ignored > 0 {
            notes.push(format!("{git_ignored} ignored by .gitignore"));
        }
        if pattern_ignored > 0 {
            notes.push(format!("{pattern_ignored} ignored by the ignore patterns"));
        }
        if !notes.is_empty() {
            text.push_str(&format!("\n({})", notes.join(", ")));
        }
        let summary =
            format!("Listed {} entr{} in {shown}", entries.len(), if entries.len() == 1 { "y" } else { "ies" });
        Ok(ToolOutput::text(text.trim_end()).with_markdown(summary))
    }
}

/// The user's ignore patterns, matched against entry names.
fn ignore_set(patterns: Option<&[String]>) -> Result<GlobSet, ToolError> {
    let mut builder = GlobSetBuilder::new();
    for pattern in patterns.unwrap_or_default() {
        let glob = Glob::new(pattern)
            .map_err(|e| ToolError::InvalidParams(format!("invalid ignore pattern '{pattern}': {e}")))?;
        builder.add(glob);
    }
    builder.build().map_err(|e| ToolError::InvalidParams(format!("invalid ignore patterns: {e}")))
}

/// The `.gitignore` of every directory from `dir` up to the workspace root, deepest first.
fn gitignore_chain(root: &Path, dir: &Path) -> Vec<Gitignore> {
    let mut chain = Vec::new();
    let mut level: Option<PathBuf> = Some(dir.to_path_buf());
    while let Some(current) = level {
        let mut builder = GitignoreBuilder::new(&current);
        // A missing or unreadable .gitignore simply adds no rules.
        let _ = builder.add(current.join(".gitignore"));
        if let Ok(gitignore) = builder.build() {
            chain.push(gitignore);
        }
        level = match current.parent() {
            Some(parent) if current != root && parent.starts_with(root) => Some(workspace::normalize(parent)),
            _ => None,
        };
    }
    chain
}

/// Whether the deepest `.gitignore` with an opinion on `path` ignores it.
fn is_git_ignored(chain: &[Gitignore], path: &Path, is_dir: bool) -> bool {
    for gitignore in chain {
        match gitignore.matched(path, is_dir) {
            Match::Ignore(_) => return true,
            Match::Whitelist(_) => return false,
            Match::None => {}
        }
    }
    false
}

export_tools!(ListDirectory);
