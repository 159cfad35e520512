//! File access for tools: errors a model can act on, reading text, and atomic writes
//! (temp file in the same directory, then rename) so a failed call never leaves a
//! half-written file behind.

use std::fs;
use std::io::{self, Write as _};
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

use crate::ToolError;
use crate::workspace::{display_path, workspace_root};

/// Turns an I/O error on `path` into a tool error whose message says what to do next.
pub fn io_error(path: &Path, error: &io::Error) -> ToolError {
    let shown = display_path(path);
    match error.kind() {
        io::ErrorKind::NotFound if !within_grant(path) => not_granted(path),
        io::ErrorKind::NotFound => ToolError::NotFound(format!(
            "'{shown}' does not exist; check the path (list_directory or glob can find it)"
        )),
        io::ErrorKind::PermissionDenied => not_granted(path),
        io::ErrorKind::NotADirectory => {
            ToolError::InvalidParams(format!("'{shown}' or one of its parents is not a directory"))
        }
        io::ErrorKind::IsADirectory => ToolError::InvalidParams(format!("'{shown}' is a directory, not a file")),
        _ => ToolError::Execution(format!("cannot access '{shown}': {error}")),
    }
}

/// Whether some directory above `path` inside the workspace is visible to this instance.
/// Paths the host did not grant look like missing files from inside the sandbox; this tells
/// a missing file (its folder is visible) from a missing grant.
pub fn within_grant(path: &Path) -> bool {
    let root = workspace_root();
    path.ancestors().skip(1).take_while(|ancestor| ancestor.starts_with(&root)).any(Path::exists)
}

/// The error for a path this instance may not reach.
fn not_granted(path: &Path) -> ToolError {
    ToolError::PermissionDenied(format!(
        "cannot access '{}': this tool has not been granted access to it (or only read access); \
         the user can grant it in the airlock policy",
        display_path(path)
    ))
}

/// The content of a file, or `None` when it does not exist.
pub fn read_optional(path: &Path) -> Result<Option<Vec<u8>>, ToolError> {
    match fs::read(path) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(error) => Err(io_error(path, &error)),
    }
}

/// The content of a text file, or `None` when it does not exist. A directory or a file
/// that is not UTF-8 is an `invalid-params` error.
pub fn read_text_optional(path: &Path) -> Result<Option<String>, ToolError> {
    if path.is_dir() {
        return Err(ToolError::InvalidParams(format!("'{}' is a directory, not a file", display_path(path))));
    }
    match read_optional(path)? {
        None => Ok(None),
        Some(bytes) => String::from_utf8(bytes).map(Some).map_err(|_| {
            ToolError::InvalidParams(format!(
                "'{}' is not a UTF-8 text file; this tool edits text files only",
                display_path(path)
            ))
        }),
    }
}

/// The content of a text file; a missing file is `not-found`.
pub fn read_text(path: &Path) -> Result<String, ToolError> {
    read_text_optional(path)?.ok_or_else(|| io_error(path, &io::Error::from(io::ErrorKind::NotFound)))
}

/// Writes `content` to `path` atomically, creating missing parent directories: the bytes go
/// to a temporary file next to it, which is then renamed over `path`. When `path` is a
/// symbolic link, the file it points to is replaced instead of the link.
pub fn write_atomic(path: &Path, content: &[u8]) -> Result<(), ToolError> {
    let target = follow_links(path);
    let Some(dir) = target.parent() else {
        return Err(ToolError::InvalidParams(format!("'{}' is not a file path", display_path(path))));
    };
    fs::create_dir_all(dir).map_err(|e| io_error(path, &e))?;
    let (temp, mut file) = create_temp(dir, &target).map_err(|e| io_error(path, &e))?;
    let written = file.write_all(content).and_then(|()| file.sync_all()).and_then(|()| fs::rename(&temp, &target));
    drop(file);
    written.map_err(|error| {
        let _ = fs::remove_file(&temp);
        io_error(path, &error)
    })
}

/// Creates a new, uniquely named temporary file in `dir` for writing `target`.
fn create_temp(dir: &Path, target: &Path) -> io::Result<(PathBuf, fs::File)> {
    let name = target.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let seed = SystemTime::now().duration_since(UNIX_EPOCH).map(|d| d.as_nanos()).unwrap_or_default();
    let mut last_error = io::Error::from(io::ErrorKind::AlreadyExists);
    for attempt in 0..16u128 {
        let temp = dir.join(format!(".{name}.airlock-{:x}.tmp", seed.wrapping_add(attempt)));
        match fs::OpenOptions::new().write(true).create_new(true).open(&temp) {
            Ok(file) => return Ok((temp, file)),
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists => last_error = error,
            Err(error) => return Err(error),
        }
    }
    Err(last_error)
}

/// The file a chain of symbolic links ends at (at most 16 hops), resolved lexically.
fn follow_links(path: &Path) -> PathBuf {
    let mut current = path.to_path_buf();
    for _ in 0..16 {
        let Ok(link) = fs::read_link(&current) else {
            break;
        };
        let base = current.parent().map(Path::to_path_buf).unwrap_or_default();
        current = crate::workspace::normalize(&base.join(link));
    }
    current
}
