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
mod tests {
    use super::write_atomically;

    /// A repository can plant links named like the temporary files of its own
    /// `.airlock/policy.toml` (process ids are small in containers); `airlock plugins
    /// grant` writing that policy must never write through them.
    #[cfg(unix)]
    #[test]
    fn planted_links_named_like_temporary_files_are_never_written_through() {
        let dir = tempfile::tempdir().unwrap();
        let victim = dir.path().join("bashrc");
        std::fs::write(&victim, "original\n").unwrap();
        let airlock = dir.path().join("repo/.airlock");
        std::fs::create_dir_all(&airlock).unwrap();
        let pid = std::process::id();
        for guessed_pid in [pid, 1, 2, 7, 42] {
            for n in 0..16 {
                let name = airlock.join(format!(".policy.toml.{guessed_pid}.{n}.tmp"));
                std::os::unix::fs::symlink(&victim, name).unwrap();
            }
        }
        for round in 0..4 {
            write_atomically(&airlock.join("policy.toml"), format!("round = {round}\n").as_bytes()).unwrap();
        }
        assert_eq!(std::fs::read_to_string(&victim).unwrap(), "original\n");
        assert_eq!(std::fs::read_to_string(airlock.join("policy.toml")).unwrap(), "round = 3\n");
        assert!(std::fs::symlink_metadata(airlock.join("policy.toml")).unwrap().file_type().is_file());
    }

    #[test]
    fn write_new_never_replaces_and_write_once_keeps_the_first_file() {
        let dir = tempfile::tempdir().unwrap();
        let name = |attempt: u32| if attempt == 0 { "out.txt".to_string() } else { format!("out-{attempt}.txt") };
        let first = super::write_new(dir.path(), b"one", name).unwrap();
        let second = super::write_new(dir.path(), b"two", name).unwrap();
        assert_eq!(
            (first.file_name().unwrap(), second.file_name().unwrap()),
            ("out.txt".as_ref(), "out-1.txt".as_ref())
        );
        assert_eq!(std::fs::read(&first).unwrap(), b"one");
        let key = dir.path().join("key");
        super::write_once(&key, b"first", || false).unwrap();
        let kept = super::write_once(&key, b"second", || false).unwrap_err();
        assert_eq!(kept.kind(), std::io::ErrorKind::AlreadyExists);
        assert_eq!(std::fs::read(&key).unwrap(), b"first");
        super::write_once(&key, b"third", || true).unwrap();
        assert_eq!(std::fs::read(&key).unwrap(), b"third");
        let mode = std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(&key).unwrap().permissions());
        assert_eq!(mode & 0o777, 0o600);
        // No temporary file is left behind.
        let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names.len(), 3, "{names:?}");
    }
}
