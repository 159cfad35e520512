//! The checkpoint store's tests, on real files in temporary folders: one binary, with the
//! helpers shared by every area.

#![allow(clippy::unwrap_used, reason = "a failed set-up step should fail the test loudly")]

mod attacks;
mod crash;
mod dedup;
mod gc;
mod roundtrip;
mod walk;

use std::collections::BTreeMap;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use airlock_checkpoint::{Checkpoint, CheckpointId, Label, Restore, Settings, Store};

/// A workspace and a store home in a temporary folder.
pub struct Fixture {
    pub _dir: tempfile::TempDir,
    pub home: PathBuf,
    pub ws: PathBuf,
    pub store: Store,
}

pub fn fixture() -> Fixture {
    fixture_with(Settings::default())
}

pub fn fixture_with(settings: Settings) -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let home = root.join("home");
    let ws = root.join("ws");
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&ws).unwrap();
    let settings = Settings { never: vec![home.clone()], ..settings };
    let store = Store::open(&home, &ws, settings).unwrap();
    Fixture { _dir: dir, home, ws, store }
}

impl Fixture {
    pub fn checkpoint(&self, why: &str) -> Checkpoint {
        self.store.checkpoint(std::slice::from_ref(&self.ws), label(why)).unwrap()
    }

    /// Puts back what `id` held wherever the workspace differs from it now.
    pub fn rewind_to(&self, id: &CheckpointId) -> airlock_checkpoint::Restored {
        let now = self.checkpoint("rewind");
        let files: Vec<Restore> = self
            .store
            .changes(id, &now.id)
            .unwrap()
            .into_iter()
            .map(|c| Restore { path: c.path, to: c.before })
            .collect();
        self.store.restore(&files).unwrap()
    }
}

pub fn label(why: &str) -> Label {
    Label { session: "s1".into(), prompt: 1, call: Some("c1".into()), why: why.into() }
}

pub fn write(path: &Path, content: impl AsRef<[u8]>) {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent).unwrap();
    }
    std::fs::write(path, content).unwrap();
}

pub fn chmod(path: &Path, mode: u32) {
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

/// What a file system entry is, for comparing whole trees.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Seen {
    File { content: Vec<u8>, mode: u32 },
    Link(PathBuf),
    Dir { mode: u32 },
}

/// Everything under `root` (links not followed).
pub fn state(root: &Path) -> BTreeMap<PathBuf, Seen> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            let meta = std::fs::symlink_metadata(&path).unwrap();
            let rel = path.strip_prefix(root).unwrap().to_path_buf();
            let seen = if meta.file_type().is_symlink() {
                Seen::Link(std::fs::read_link(&path).unwrap())
            } else if meta.is_dir() {
                stack.push(path.clone());
                Seen::Dir { mode: meta.mode() & 0o7777 }
            } else if meta.is_file() {
                Seen::File { content: std::fs::read(&path).unwrap(), mode: meta.mode() & 0o7777 }
            } else {
                continue;
            };
            out.insert(rel, seen);
        }
    }
    out
}

pub fn inode(path: &Path) -> u64 {
    std::fs::symlink_metadata(path).unwrap().ino()
}
