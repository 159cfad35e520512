//! airlock's checkpoints (issue 29): before a tool call that holds write access runs, the
//! host snapshots exactly what that call may write (its roots: a file, or folders), so any
//! change any tool makes can be undone.
//!
//! One [`Store`] per workspace, under `$AIRLOCK_HOME/checkpoints/<key>/`: content-addressed
//! objects (blake3, zstd), trees per folder as git has them, a stat index so an unchanged
//! tree costs stat calls and no reads, and one small record per checkpoint. Nothing is
//! written into the workspace by a checkpoint, and no `.git` folder is read or written.
//!
//! Invariants:
//! - A checkpoint records every file under its roots, or says why one was left out
//!   ([`LeftOut`]: ignored, over a size cap, the `.git` folder, …): never silently.
//! - A restore writes each file atomically (a temp file beside it, then a rename), with the
//!   mode it had, through handles that follow no link; a kill at any point leaves every file
//!   whole (either version) and the store opens.
//! - Objects are written before the trees that name them, and trees before the record that
//!   names them, each by rename: a kill leaves at most unreferenced objects, which [`Store::gc`]
//!   removes.
//!
//! Modules: [`store`] (the folder, the lock, taking a checkpoint), [`walk`] and [`ignores`]
//! (what a checkpoint reads), [`objects`], [`tree`], [`record`] and [`index`] (what it
//! writes), [`diff`] (changes and line counts), [`restore`], [`gc`] (listing, usage,
//! collection).

#![deny(clippy::print_stdout, clippy::print_stderr)]

mod diff;
mod gc;
mod ignores;
mod index;
mod objects;
mod record;
mod restore;
mod store;
mod tree;
mod walk;

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};

use store::Inner;

/// A problem with the store or a restore.
#[derive(Debug, thiserror::Error)]
pub enum CheckpointError {
    #[error("cannot use the checkpoint store {path}: {reason}")]
    Store { path: PathBuf, reason: String },
    #[error("no checkpoint {0} in the store (removed by retention or never taken)")]
    Unknown(CheckpointId),
    #[error("the checkpoint store is damaged at {path}: {reason}")]
    Damaged { path: PathBuf, reason: String },
    #[error(
        "the checkpoint record {path} was written by a newer airlock (record version {version}); this one \
         neither reads it nor removes it or the files it names"
    )]
    Newer { path: PathBuf, version: u32 },
    #[error("cannot restore {path}: {reason}")]
    Restore { path: PathBuf, reason: String },
}

/// What a checkpoint may hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Settings {
    /// Files over this size are left out (said at restore time).
    pub max_file_bytes: u64,
    /// Past this many files under its roots, a checkpoint leaves the rest out.
    pub max_files: usize,
    /// Past this many bytes of new content, a checkpoint leaves the rest out.
    pub max_new_bytes: u64,
    /// Folders never snapshotted or restored (airlock's own home, the store itself).
    pub never: Vec<PathBuf>,
}

impl Default for Settings {
    fn default() -> Self {
        Self { max_file_bytes: 16 << 20, max_files: 100_000, max_new_bytes: 512 << 20, never: Vec::new() }
    }
}

/// How much the store keeps ([`Store::gc`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retention {
    /// The most bytes the store may use; the oldest checkpoints go first past it.
    pub max_bytes: u64,
    /// Checkpoints older than this go.
    pub max_age: Duration,
}

/// A checkpoint's name: the hex blake3 of its record.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(transparent)]
pub struct CheckpointId(pub String);

impl std::fmt::Display for CheckpointId {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Who took a checkpoint, for listings and retention.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Label {
    /// The session's id.
    pub session: String,
    /// The user prompt it was taken in (from 1; 0 outside a prompt, e.g. a rewind's own).
    pub prompt: u32,
    /// The call it was taken for, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call: Option<String>,
    /// `before`, `after`, `rewind`: why it was taken.
    pub why: String,
}

/// Something under a checkpoint's roots that it does not hold.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LeftOut {
    /// The path (a folder stands for everything under it).
    pub path: PathBuf,
    /// Why, for a person: `ignored by .gitignore`, `over 16 MiB`, `the .git folder`, …
    pub reason: String,
}

/// A checkpoint taken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Checkpoint {
    pub id: CheckpointId,
    /// What it covers: absolute paths, each a file or a folder (a file that did not exist is
    /// a root with no entry: restoring deletes what is there then).
    pub roots: Vec<PathBuf>,
    pub created: SystemTime,
    pub label: Label,
    /// What it left out under its roots.
    pub left_out: Vec<LeftOut>,
    /// Files it holds.
    pub files: u64,
}

/// The kind of an entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EntryKind {
    File,
    Symlink,
}

/// One file (or link) as a checkpoint holds it.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Entry {
    pub kind: EntryKind,
    /// The hex blake3 of its content (a link's: its target).
    pub hash: String,
    /// Its permission bits.
    pub mode: u32,
    pub size: u64,
}

/// A path that differs between two checkpoints.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    /// Absolute.
    pub path: PathBuf,
    /// What the first checkpoint held (`None`: nothing there).
    pub before: Option<Entry>,
    /// What the second holds.
    pub after: Option<Entry>,
}

/// Lines added and removed between two versions of a file.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct LineCounts {
    pub added: u32,
    pub removed: u32,
    /// Either side is not text: no counts.
    pub binary: bool,
}

/// One file to put back: `to` its entry, or `None` to delete what is there (a folder there
/// is removed only when empty).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Restore {
    pub path: PathBuf,
    pub to: Option<Entry>,
}

/// What a restore did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Restored {
    pub written: u64,
    /// Files, links and empty folders removed.
    pub deleted: u64,
    /// Folders it was asked to remove that were not empty, left as they are.
    pub folders_left: Vec<PathBuf>,
}

/// What a collection removed and kept.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct GcReport {
    pub checkpoints_removed: u64,
    pub bytes_freed: u64,
    pub bytes_kept: u64,
}

/// The store folder of `workspace` under `home` (`$AIRLOCK_HOME`): `checkpoints/<key>`,
/// the key a hash of the workspace's canonical path.
pub fn store_dir(home: &Path, workspace: &Path) -> PathBuf {
    let canonical = workspace.canonicalize().unwrap_or_else(|_| workspace.to_path_buf());
    let key = blake3::hash(canonical.as_os_str().as_encoded_bytes()).to_hex();
    home.join("checkpoints").join(&key.as_str()[..16])
}

/// One workspace's checkpoints. Shared between threads (`Arc<Store>`): checkpoints,
/// restores and collections take the store's lock, reads need none.
#[derive(Debug)]
pub struct Store {
    inner: Inner,
    settings: Settings,
}

/// The content of `entry` from the store of `inner`.
pub(crate) fn read_entry(inner: &Inner, entry: &Entry) -> Result<Vec<u8>, CheckpointError> {
    let hash = objects::parse_hash(&entry.hash).ok_or_else(|| CheckpointError::Damaged {
        path: inner.dir.clone(),
        reason: format!("`{}` is not an object's name", entry.hash),
    })?;
    inner.objects.get(&hash)
}

impl Store {
    /// Opens (creating on first use) the store of `workspace` under `home`, cleaning what a
    /// killed checkpoint or restore left.
    pub fn open(home: &Path, workspace: &Path, settings: Settings) -> Result<Self, CheckpointError> {
        let workspace = workspace.canonicalize().unwrap_or_else(|_| workspace.to_path_buf());
        Ok(Self { inner: Inner::open(store_dir(home, &workspace), &workspace)?, settings })
    }

    /// The store's folder.
    pub fn path(&self) -> &Path {
        &self.inner.dir
    }

    /// What it may hold.
    pub fn settings(&self) -> &Settings {
        &self.settings
    }

    /// Snapshots `roots` (absolute: files, folders, or paths that do not exist yet) as they
    /// are now. Blocking: call it off the async workers.
    ///
    /// A folder root is walked with the ignore rules in force there; a file root is held
    /// whatever they say (the host named it). Roots inside another root are folded into it.
    pub fn checkpoint(&self, roots: &[PathBuf], label: Label) -> Result<Checkpoint, CheckpointError> {
        self.inner.checkpoint(&self.settings, roots, label)
    }

    /// The checkpoint `id`.
    pub fn get(&self, id: &CheckpointId) -> Result<Checkpoint, CheckpointError> {
        Ok(self.inner.load(id)?.checkpoint.clone())
    }

    /// What checkpoint `id` holds at `path` (`None`: nothing, or not under its roots).
    pub fn entry(&self, id: &CheckpointId, path: &Path) -> Result<Option<Entry>, CheckpointError> {
        let loaded = self.inner.load(id)?;
        Ok(match self.inner.node_at(&loaded, path)? {
            Some(record::Node::Entry(entry)) => Some(entry),
            _ => None,
        })
    }

    /// Whether `path` lies under checkpoint `id`'s roots and was not left out.
    pub fn covers(&self, id: &CheckpointId, path: &Path) -> Result<bool, CheckpointError> {
        let loaded = self.inner.load(id)?;
        let left_out = loaded.checkpoint.left_out.iter().any(|l| path.starts_with(&l.path));
        Ok(!left_out && loaded.roots.iter().any(|r| path.starts_with(&r.path) && r.node != record::Node::LeftOut))
    }

    /// The paths under `from`'s roots that differ between `from` and `to` (paths `to` does
    /// not cover are left out of the answer), sorted by path.
    pub fn changes(&self, from: &CheckpointId, to: &CheckpointId) -> Result<Vec<Change>, CheckpointError> {
        let (from, to) = (self.inner.load(from)?, self.inner.load(to)?);
        diff::changes(&self.inner, &from, &to)
    }

    /// Lines added and removed by `change` (files up to 1 MiB a side; larger ones count as
    /// binary).
    pub fn line_counts(&self, change: &Change) -> Result<LineCounts, CheckpointError> {
        diff::line_counts(&self.inner, change)
    }

    /// The content of `entry` (a link's: its target).
    pub fn read(&self, entry: &Entry) -> Result<Vec<u8>, CheckpointError> {
        read_entry(&self.inner, entry)
    }

    /// Puts each file back, each atomically, with its mode, through handles that follow no
    /// link; folders are made as needed. Stops at the first failure, saying which file.
    ///
    /// Every deletion goes first, deepest path first, then every write, shallowest first, so
    /// a file that became a folder, or a folder that became a file, restores. A deletion
    /// (`to: None`) whose path is a folder removes it only when it is empty (through its
    /// parent's handle, never recursively): the rewind planner may pass the folders a call
    /// made, after their files, to remove them; one that holds anything else is left as it
    /// is, in [`Restored::folders_left`], and is not an error. A write whose path is an empty
    /// folder now removes that folder first; a folder with anything in it fails the write.
    ///
    /// Before writing anything it checks every path it will touch: each parent folder opens
    /// from `/` without following a link and can be written (or the nearest one that exists,
    /// when folders are to be made, with no file in the way that this restore does not
    /// delete), each target there now is a file, a link or a folder this restore leaves
    /// empty, and every object a write needs is in the store. A restore that would fail for
    /// those reasons fails before its first write. A failure midway remains possible (a full
    /// disk, another program changing the folders meanwhile): the error names the file, and
    /// every step before it in the order above is done (the error says how many).
    /// Refuses, before writing anything, a path in a `.git` folder or under
    /// [`Settings::never`] or the store.
    pub fn restore(&self, files: &[Restore]) -> Result<Restored, CheckpointError> {
        let never: Vec<PathBuf> =
            self.settings.never.iter().chain([&self.inner.dir]).map(|p| airlock_files::canonical_lenient(p)).collect();
        restore::restore(&self.inner, &never, files)
    }

    /// Every checkpoint in the store, oldest first (a record it cannot read is skipped, with
    /// a warning in the log).
    pub fn list(&self) -> Result<Vec<Checkpoint>, CheckpointError> {
        gc::list(&self.inner)
    }

    /// Removes the checkpoints `retention` lets go (never those in `keep`) and the objects
    /// no remaining checkpoint names. A record it cannot read (damaged, written by a newer
    /// airlock, or a read that failed) stops the collection before it removes anything,
    /// with an error naming that record: its objects are never removed on a guess.
    pub fn gc(&self, retention: &Retention, keep: &[CheckpointId]) -> Result<GcReport, CheckpointError> {
        gc::gc(&self.inner, retention, keep)
    }

    /// Bytes the store uses on disk.
    pub fn usage(&self) -> Result<u64, CheckpointError> {
        gc::usage(&self.inner)
    }
}
