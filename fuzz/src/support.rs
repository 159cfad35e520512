//! What the targets share: a scratch folder for the readers that take a path, made once
//! per thread and emptied by each use, and a fuzz input read as text.

use std::path::{Path, PathBuf};

thread_local! {
    static SCRATCH: Option<(tempfile::TempDir, PathBuf)> = tempfile::tempdir().ok().and_then(|dir| {
        let canonical = dir.path().canonicalize().ok()?;
        Some((dir, canonical))
    });
}

/// Runs `f` with an empty folder of its own (canonical): a fresh sub-folder of the
/// thread's scratch folder, removed afterwards.
pub fn with_folder<T>(f: impl FnOnce(&Path) -> T) -> T {
    SCRATCH.with(|scratch| {
        let Some((_, root)) = scratch else { panic!("no scratch folder could be made") };
        let folder = root.join("case");
        // A leftover of a run that panicked, or nothing.
        let _ = std::fs::remove_dir_all(&folder);
        if let Err(e) = std::fs::create_dir(&folder) {
            panic!("cannot make {}: {e}", folder.display());
        }
        let result = f(&folder);
        let _ = std::fs::remove_dir_all(&folder);
        result
    })
}

/// Writes `bytes` as `folder/name` and returns its path.
pub fn write(folder: &Path, name: &str, bytes: &[u8]) -> PathBuf {
    let path = folder.join(name);
    if let Err(e) = std::fs::write(&path, bytes) {
        panic!("cannot write {}: {e}", path.display());
    }
    path
}
