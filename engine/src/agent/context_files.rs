//! Context files (`AIRLOCK.md`, `AGENTS.md`, or the names `[context] file_names` sets):
//! instructions the user or a repository keeps for the agent, added to the system prompt.
//! They are read in order from `$AIRLOCK_HOME` (the user's own), then
//! `$AIRLOCK_HOME/memory/AIRLOCK.md` (the facts `save_memory` kept; that folder holds only
//! this name), then the workspace root, then every folder down to the current one when it
//! lies inside the workspace — general first, most specific last, so a later file can
//! refine an earlier one. A folder that holds several of the names gives each, in the order
//! of the names (as Gemini CLI does with several names). Each file is cut at
//! [`MAX_FILE_BYTES`] and all of them together at [`MAX_TOTAL_BYTES`]; a cut is said in the
//! prompt and in [`ContextFile::cut`].
//!
//! A workspace's files come with the project, like its code: they steer the model but
//! grant nothing (tools still get only what the policy grants).

use std::path::{Path, PathBuf};

use airlock_files as files;

/// The name of airlock's own context file (the memory folder's only one).
pub const FILE_NAME: &str = "AIRLOCK.md";
/// The names read when `[context] file_names` is not set: airlock's own, then the one
/// Codex and many repositories use.
pub const DEFAULT_FILE_NAMES: [&str; 2] = [FILE_NAME, "AGENTS.md"];
/// The folder of `$AIRLOCK_HOME` that holds the memory file (`crate::paths::MEMORY_DIR`).
pub const MEMORY_FOLDER: &str = "memory";
/// The most of one file that is used.
pub const MAX_FILE_BYTES: usize = 32 * 1024;
/// The most of all files together that is used.
pub const MAX_TOTAL_BYTES: usize = 64 * 1024;

/// One context file that was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContextFile {
    pub path: PathBuf,
    /// The file's size on disk.
    pub size: usize,
    /// What goes into the prompt (possibly cut).
    pub content: String,
    /// Why less than the whole file is used, if it is.
    pub cut: Option<String>,
}

/// The folders whose `AIRLOCK.md` is read, in order: `home`, its memory folder, then
/// `workspace`, then each
/// folder from there down to `cwd` when `cwd` lies inside `workspace`. Both `workspace`
/// and `cwd` are expected canonical.
pub fn folders(home: &Path, workspace: &Path, cwd: Option<&Path>) -> Vec<PathBuf> {
    let mut folders = vec![home.to_path_buf(), home.join(MEMORY_FOLDER), workspace.to_path_buf()];
    if let Some(relative) = cwd.and_then(|cwd| cwd.strip_prefix(workspace).ok()) {
        let mut folder = workspace.to_path_buf();
        for component in relative.components() {
            folder.push(component);
            folders.push(folder.clone());
        }
    }
    folders.dedup();
    folders
}

/// The context files looked for, in order: in each of `folders`, each of `names` (the
/// memory folder holds only [`FILE_NAME`]).
pub fn candidates(home: &Path, folders: &[PathBuf], names: &[String]) -> Vec<PathBuf> {
    let memory = home.join(MEMORY_FOLDER);
    let mut paths = Vec::new();
    for folder in folders {
        if *folder == memory {
            paths.push(folder.join(FILE_NAME));
        } else {
            paths.extend(names.iter().map(|name| folder.join(name)));
        }
    }
    paths
}

/// Reads the context files of `folders` named `names`, in order, within the size caps. `home`'s file and
/// its memory folder's are the user's own; every other folder must lie inside `workspace`, whose files are read
/// through a handle on it without following any link (a repository's `AIRLOCK.md` that
/// links to `~/.ssh/id_ed25519` or `/proc/self/environ` is not read) and never blocking.
/// Files that cannot be used are reported as cut to nothing rather than failing the run.
pub fn load(home: &Path, workspace: &Path, folders: &[PathBuf], names: &[String]) -> Vec<ContextFile> {
    let mut files = Vec::new();
    let mut budget = MAX_TOTAL_BYTES;
    let workspace_dir = files::open_dir(workspace);
    let memory = home.join(MEMORY_FOLDER);
    for path in candidates(home, folders, names) {
        let folder = path.parent().unwrap_or(&path);
        let name = Path::new(path.file_name().unwrap_or_default());
        // One byte past the cap tells a file that must be cut from one that fits.
        let limit = MAX_FILE_BYTES as u64 + 1;
        let read = if folder == home {
            files::open_user_file(&path).and_then(|(file, stat)| files::read_prefix(file, &stat, limit))
        } else if folder == memory {
            // Tools write this folder (`save_memory`): read through a handle on it, following
            // no link, so a link planted there cannot bring another file into the prompt.
            files::open_dir(folder).and_then(|dir| files::read_prefix_in(&dir, name, limit))
        } else {
            match (&workspace_dir, path.strip_prefix(workspace)) {
                (Ok(dir), Ok(relative)) => files::read_prefix_in(dir, relative, limit),
                (Err(error), _) => Err(files::FileError::Io(std::io::Error::other(error.to_string()))),
                (_, Err(_)) => Err(files::FileError::BadPath),
            }
        };
        let (bytes, size) = match read {
            Ok(read) => read,
            Err(files::FileError::NotFound | files::FileError::NotRegular("folder")) => continue,
            Err(error) => {
                files.push(ContextFile {
                    path,
                    size: 0,
                    content: String::new(),
                    cut: Some(format!("not read: it {error}")),
                });
                continue;
            }
        };
        let size = usize::try_from(size).unwrap_or(usize::MAX);
        let text = String::from_utf8_lossy(&bytes);
        let limit = MAX_FILE_BYTES.min(budget);
        let (content, cut) = if size <= limit && text.len() <= limit {
            (text.into_owned(), None)
        } else {
            let end = floor_boundary(&text, limit.min(text.len()));
            let reason = if limit < MAX_FILE_BYTES {
                format!("cut at {end} of {size} bytes: all context files together may hold {MAX_TOTAL_BYTES}")
            } else {
                format!("cut at {end} of {size} bytes: one context file may hold {MAX_FILE_BYTES}")
            };
            (text[..end].to_owned(), Some(reason))
        };
        budget -= content.len();
        files.push(ContextFile { path, size, content, cut });
    }
    files
}

fn floor_boundary(text: &str, mut index: usize) -> usize {
    while !text.is_char_boundary(index) {
        index -= 1;
    }
    index
}

/// The context files as a section of the system prompt (empty without files).
pub fn section(files: &[ContextFile]) -> String {
    let mut out = String::new();
    for file in files.iter().filter(|f| !f.content.trim().is_empty()) {
        if out.is_empty() {
            out.push_str(
                "\n\n# Context files\n\
                 The user keeps these instructions for you; later files are more specific and take precedence.\n",
            );
        }
        let path = file.path.display();
        out.push_str(&format!("\n--- Context from: {path} ---\n{}", file.content.trim_end()));
        if let Some(cut) = &file.cut {
            out.push_str(&format!("\n[… {cut}]"));
        }
        out.push_str(&format!("\n--- End of context from: {path} ---\n"));
    }
    out
}

#[cfg(test)]
#[path = "context_files_tests.rs"]
mod tests;
