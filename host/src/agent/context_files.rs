//! `AIRLOCK.md` context files: instructions the user keeps for the agent, added to the
//! system prompt. They are read in order from `$AIRLOCK_HOME/AIRLOCK.md` (the user's own),
//! then the workspace root, then every folder down to the current one when it lies inside
//! the workspace — general first, most specific last, so a later file can refine an
//! earlier one. Each file is cut at [`MAX_FILE_BYTES`] and all of them together at
//! [`MAX_TOTAL_BYTES`]; a cut is said in the prompt and in [`ContextFile::cut`].
//!
//! A workspace's files come with the project, like its code: they steer the model but
//! grant nothing (tools still get only what the policy grants).

use std::path::{Path, PathBuf};

/// The name of a context file.
pub const FILE_NAME: &str = "AIRLOCK.md";
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

/// The folders whose `AIRLOCK.md` is read, in order: `home`, then `workspace`, then each
/// folder from there down to `cwd` when `cwd` lies inside `workspace`. Both `workspace`
/// and `cwd` are expected canonical.
pub fn folders(home: &Path, workspace: &Path, cwd: Option<&Path>) -> Vec<PathBuf> {
    let mut folders = vec![home.to_path_buf(), workspace.to_path_buf()];
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

/// Reads the context files of `folders`, in order, within the size caps. Unreadable files
/// are reported as cut to nothing rather than failing the run.
pub fn load(folders: &[PathBuf]) -> Vec<ContextFile> {
    let mut files = Vec::new();
    let mut budget = MAX_TOTAL_BYTES;
    for folder in folders {
        let path = folder.join(FILE_NAME);
        if path.is_dir() {
            continue;
        }
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => {
                files.push(ContextFile {
                    path,
                    size: 0,
                    content: String::new(),
                    cut: Some(format!("unreadable: {e}")),
                });
                continue;
            }
        };
        let size = bytes.len();
        let text = String::from_utf8_lossy(&bytes);
        let limit = MAX_FILE_BYTES.min(budget);
        let (content, cut) = if text.len() <= limit {
            (text.into_owned(), None)
        } else {
            let end = floor_boundary(&text, limit);
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
                "\n\n# Context from AIRLOCK.md files\n\
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
mod tests {
    use super::*;

    #[test]
    fn folders_run_from_home_through_the_workspace_down_to_the_current_one() {
        let home = Path::new("/h/.airlock");
        let workspace = Path::new("/w");
        assert_eq!(
            folders(home, workspace, Some(Path::new("/w/a/b"))),
            [home, workspace, Path::new("/w/a"), Path::new("/w/a/b")]
        );
        assert_eq!(folders(home, workspace, Some(Path::new("/elsewhere"))), [home, workspace]);
        assert_eq!(folders(home, workspace, Some(workspace)), [home, workspace]);
        assert_eq!(folders(home, workspace, None), [home, workspace]);
    }

    #[test]
    fn loads_files_in_order_and_cuts_them_at_the_caps() {
        let root = tempfile::tempdir().unwrap();
        let dirs: Vec<PathBuf> = ["home", "ws", "ws/sub", "ws/sub/empty"].iter().map(|d| root.path().join(d)).collect();
        for dir in &dirs {
            std::fs::create_dir_all(dir).unwrap();
        }
        std::fs::write(dirs[0].join(FILE_NAME), "home rules").unwrap();
        std::fs::write(dirs[1].join(FILE_NAME), "é".repeat(MAX_FILE_BYTES)).unwrap();
        std::fs::write(dirs[2].join(FILE_NAME), "x".repeat(MAX_FILE_BYTES + 10)).unwrap();
        let files = load(&dirs);
        assert_eq!(files.len(), 3);
        assert_eq!((files[0].content.as_str(), files[0].cut.as_deref()), ("home rules", None));
        assert_eq!(files[1].size, 2 * MAX_FILE_BYTES);
        assert_eq!(files[1].content.len(), MAX_FILE_BYTES);
        assert!(files[1].cut.as_deref().unwrap().contains("one context file may hold"));
        let total: usize = files.iter().map(|f| f.content.len()).sum();
        assert_eq!(total, MAX_TOTAL_BYTES);
        assert!(files[2].cut.as_deref().unwrap().contains("all context files together"));

        let prompt = section(&files);
        let home = prompt.find("home rules").unwrap();
        let sub = prompt.find(&dirs[2].join(FILE_NAME).display().to_string()).unwrap();
        assert!(home < sub);
        assert!(prompt.contains("[… cut at"));
        assert_eq!(section(&[]), "");
    }
}
