//! Atomic writes: a file is written whole under a temporary name (created exclusively,
//! under a random name, mode 0600, never through a link), synced, then moved into place, so
//! a reader (or a crash) never sees half of it. Three ways to move it: [`write_atomically`]
//! replaces, [`write_new`] never replaces (it picks the first free name), [`write_once`]
//! lets the first writer win.

use std::fs;
use std::io;
use std::io::Write;
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

/// Writes a file so that readers see either the old content or the whole new content.
///
/// The temporary file gets a random name and is created exclusively (`O_CREAT|O_EXCL`, which
/// never follows a link): the folder may be a repository's `.airlock/`, where links named
/// like a predictable temporary file would otherwise redirect the write to any file of the
/// user's (`~/.bashrc`).
pub fn write_atomically(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    fs::create_dir_all(dir)?;
    let name = path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
    let mut temp = tempfile::Builder::new().prefix(&format!(".{name}.")).suffix(".tmp").tempfile_in(dir)?;
    temp.write_all(contents)?;
    temp.as_file().sync_all()?;
    temp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// A synced temporary file in `dir` (created when missing) holding `contents`.
fn written_temp(dir: &Path, contents: &[u8]) -> io::Result<NamedTempFile> {
    fs::create_dir_all(dir)?;
    let mut temp = tempfile::Builder::new().prefix(".airlock.").suffix(".tmp").tempfile_in(dir)?;
    temp.write_all(contents)?;
    temp.as_file().sync_all()?;
    Ok(temp)
}

/// Writes `contents` to a new file of `dir`, named by the first of `name(0)`, `name(1)`, …
/// (at most 100 tries) that is free; an existing file is never replaced. Returns its path.
pub fn write_new(dir: &Path, contents: &[u8], name: impl Fn(u32) -> String) -> io::Result<PathBuf> {
    let mut temp = written_temp(dir, contents)?;
    let mut attempt = 0;
    loop {
        let path = dir.join(name(attempt));
        match temp.persist_noclobber(&path) {
            Ok(_) => return Ok(path),
            Err(error) if error.error.kind() == io::ErrorKind::AlreadyExists && attempt < 100 => {
                temp = error.file;
                attempt += 1;
            }
            Err(error) => return Err(error.error),
        }
    }
}

/// Creates `path` (mode 0600) holding `contents` unless a file is there already: when two
/// processes race, the first one's file stays (a hard link never replaces). A file already
/// there is replaced only when `replace_existing` says so (it is unreadable or damaged);
/// kept, it makes the error `AlreadyExists`.
pub fn write_once(path: &Path, contents: &[u8], replace_existing: impl FnOnce() -> bool) -> io::Result<()> {
    let temp = written_temp(path.parent().unwrap_or(Path::new(".")), contents)?;
    match fs::hard_link(temp.path(), path) {
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists && replace_existing() => {
            temp.persist(path).map(drop).map_err(|e| e.error)
        }
        other => other,
    }
}

#[cfg(test)]
#[path = "atomic_tests.rs"]
mod tests;
