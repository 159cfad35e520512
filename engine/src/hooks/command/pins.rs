//! The files under `<workspace>/.airlock/hooks/` that `airlock trust` pins: a workspace's
//! command hooks run only while every one of them is byte for byte what was trusted (none
//! added, none removed), as workspace plugins are pinned.
//!
//! Invariants: links are pinned as links (their target's text), never followed, so a link
//! pointing out of the folder cannot swap what runs without changing the pins; a folder too
//! large to pin is an error, never a partial pin.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// Most files pinned under `.airlock/hooks/`.
pub const MAX_FILES: usize = 1024;
/// Largest file pinned, in bytes.
pub const MAX_FILE_BYTES: u64 = 16 << 20;

/// `<workspace>/.airlock/hooks`.
pub fn hooks_folder(workspace: &Path) -> PathBuf {
    workspace.join(".airlock").join("hooks")
}

/// The sha-256 of every file under `<workspace>/.airlock/hooks/`, by path relative to that
/// folder; empty when there is no such folder.
pub fn digests(workspace: &Path) -> Result<BTreeMap<String, String>, String> {
    let root = hooks_folder(workspace);
    let mut found = BTreeMap::new();
    match std::fs::symlink_metadata(&root) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(found),
        Err(e) => return Err(format!("cannot read {}: {e}", root.display())),
        Ok(meta) if !meta.is_dir() => return Err(format!("{} is not a folder", root.display())),
        Ok(_) => {}
    }
    let mut pending = vec![root.clone()];
    while let Some(dir) = pending.pop() {
        let entries = std::fs::read_dir(&dir).map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
        for entry in entries {
            let entry = entry.map_err(|e| format!("cannot read {}: {e}", dir.display()))?;
            let path = entry.path();
            let meta = std::fs::symlink_metadata(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
            let relative = path.strip_prefix(&root).unwrap_or(&path).to_string_lossy().into_owned();
            let digest = if meta.is_dir() {
                pending.push(path);
                continue;
            } else if meta.file_type().is_symlink() {
                let target = std::fs::read_link(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
                format!("link:{}", target.display())
            } else if meta.len() > MAX_FILE_BYTES {
                return Err(format!("{} is over {MAX_FILE_BYTES} bytes, too large to pin", path.display()));
            } else {
                let bytes = std::fs::read(&path).map_err(|e| format!("cannot read {}: {e}", path.display()))?;
                airlock_files::content_hash(&bytes)
            };
            found.insert(relative, digest);
            if found.len() > MAX_FILES {
                return Err(format!("{} holds over {MAX_FILES} files, too many to pin", root.display()));
            }
        }
    }
    Ok(found)
}

/// What changed between `pinned` and `now`, one name each (`check.sh changed`, `new.sh
/// added`, `old.sh removed`); empty when nothing did.
pub fn changes(pinned: &BTreeMap<String, String>, now: &BTreeMap<String, String>) -> Vec<String> {
    let mut changes = Vec::new();
    for (name, digest) in now {
        match pinned.get(name) {
            Some(was) if was == digest => {}
            Some(_) => changes.push(format!("{name} changed")),
            None => changes.push(format!("{name} added")),
        }
    }
    changes.extend(pinned.keys().filter(|name| !now.contains_key(*name)).map(|name| format!("{name} removed")));
    changes
}
