//! Atomic writes: a file is written whole under a temporary name, synced, then renamed into
//! place, so a reader (or a crash) never sees half of it. Temporary files are created
//! exclusively under random names, never through a link.

use std::fs;
use std::io::Write;
use std::path::Path;

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
}
