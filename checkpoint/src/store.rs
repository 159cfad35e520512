//! The store's folder and what it keeps in memory: opening (and cleaning what a kill left),
//! the lock, taking a checkpoint, and reading records and trees back.
//!
//! Layout of `$AIRLOCK_HOME/checkpoints/<key>/` (folders 0700, files 0600): `workspace` (the
//! workspace's path), `objects/` ([`crate::objects`]), `refs/<id>` ([`crate::record`]),
//! `index` ([`crate::index`]), `tmp/` (files being written, renamed into place when whole),
//! `journal` (the temporary files a restore has in flight in the workspace), `lock`.
//!
//! Invariants:
//! - Checkpoints, restores and collections hold `lock` (an exclusive `flock`) for their
//!   whole run, so two sessions in one workspace and a collection never interleave; reads
//!   take no lock (every file they read is replaced by rename, whole).
//! - Crash consistency: objects, then trees, then the record, each renamed into place; a
//!   kill leaves at most files in `tmp/` and objects no record names, removed by the next
//!   open and collection. No `fsync` is done: after a power loss (not a process kill) the
//!   newest records and objects may be missing or empty, which reads report as damage.

use std::collections::{HashMap, HashSet};
use std::fs::{File, OpenOptions};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::OpenOptionsExt;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::SystemTime;

use crate::index::{Index, file_id};
use crate::objects::{Hash, Objects, make_dir, temp_path, write_file};
use crate::record::{Loaded, Node, RECORD_VERSION, Record, RecordPath, Root, RootNode, RootRecord, nanos, valid_id};
use crate::tree::Tree;
use crate::walk::{Shared, Walk};
use crate::{Checkpoint, CheckpointError, CheckpointId, Label, LeftOut, Settings};

/// Trees kept decoded in memory; past this the cache starts over.
const MAX_CACHED_TREES: usize = 8192;
/// Records kept in memory; past this the cache starts over.
const MAX_CACHED_RECORDS: usize = 4096;

/// What a store keeps in memory between calls.
#[derive(Debug, Default)]
pub(crate) struct Memory {
    /// The stat index, loaded on first use.
    pub index: Option<Index>,
    /// Objects known to be in the store.
    pub known: HashSet<Hash>,
}

/// The store's folders and caches.
#[derive(Debug)]
pub(crate) struct Inner {
    pub dir: PathBuf,
    pub workspace: PathBuf,
    pub objects: Objects,
    pub memory: Mutex<Memory>,
    pub trees: Mutex<HashMap<Hash, Arc<Tree>>>,
    pub records: Mutex<HashMap<CheckpointId, Arc<Loaded>>>,
}

/// The exclusive lock of a store, released when dropped.
pub(crate) struct Locked {
    _file: File,
}

pub(crate) fn store_error(path: &Path, error: impl std::fmt::Display) -> CheckpointError {
    CheckpointError::Store { path: path.to_path_buf(), reason: error.to_string() }
}

impl Inner {
    pub(crate) fn open(dir: PathBuf, workspace: &Path) -> Result<Self, CheckpointError> {
        for sub in ["", "objects", "refs", "tmp"] {
            let path = dir.join(sub);
            make_dir(&path).map_err(|e| store_error(&path, e))?;
        }
        let named = dir.join("workspace");
        if !named.exists() {
            write_file(&dir.join("tmp"), &named, workspace.as_os_str().as_bytes())
                .map_err(|e| store_error(&named, e))?;
        }
        let inner = Self {
            objects: Objects::new(&dir),
            dir,
            workspace: workspace.to_path_buf(),
            memory: Mutex::new(Memory::default()),
            trees: Mutex::new(HashMap::new()),
            records: Mutex::new(HashMap::new()),
        };
        // Another process holding the lock is alive and owns its temporary files; they are
        // cleaned by whoever opens the store next while it is free. A few tries: a process
        // forking holds a copy of a lock for the moment until its child's `exec`.
        for attempt in 0..5 {
            if let Some(_lock) = inner.try_lock()? {
                inner.clean()?;
                break;
            }
            std::thread::sleep(std::time::Duration::from_millis(2 << attempt));
        }
        Ok(inner)
    }

    fn lock_file(&self) -> Result<File, CheckpointError> {
        let path = self.dir.join("lock");
        OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .mode(0o600)
            .open(&path)
            .map_err(|e| store_error(&path, e))
    }

    /// Waits for the store's lock.
    pub(crate) fn lock(&self) -> Result<Locked, CheckpointError> {
        let file = self.lock_file()?;
        file.lock().map_err(|e| store_error(&self.dir.join("lock"), e))?;
        Ok(Locked { _file: file })
    }

    fn try_lock(&self) -> Result<Option<Locked>, CheckpointError> {
        let file = self.lock_file()?;
        match file.try_lock() {
            Ok(()) => Ok(Some(Locked { _file: file })),
            Err(std::fs::TryLockError::WouldBlock) => Ok(None),
            Err(std::fs::TryLockError::Error(e)) => Err(store_error(&self.dir.join("lock"), e)),
        }
    }

    /// Removes what a killed writer left: files in `tmp/`, and a restore's temporary files
    /// in the workspace. Holds the lock.
    pub(crate) fn clean(&self) -> Result<(), CheckpointError> {
        let tmp = self.dir.join("tmp");
        if let Ok(entries) = std::fs::read_dir(&tmp) {
            for entry in entries.flatten() {
                let _ = std::fs::remove_file(entry.path());
            }
        }
        crate::restore::clean_journal(self)
    }

    pub(crate) fn memory(&self) -> MutexGuard<'_, Memory> {
        self.memory.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// The index, reloaded when another process wrote or a collection removed it.
    pub(crate) fn fresh_index(memory: &mut Memory, path: &Path) {
        let stale = memory.index.as_ref().is_none_or(|index| index.file != file_id(path));
        if stale {
            memory.index = Some(Index::load(path));
            memory.known.clear();
        }
    }

    /// The file system's clock now: the mtime of a file made in `tmp/`.
    fn fs_now(&self) -> i64 {
        let probe = temp_path(&self.dir.join("tmp"));
        let time = File::create(&probe).and_then(|f| f.metadata()).and_then(|m| m.modified()).ok();
        let _ = std::fs::remove_file(&probe);
        i64::try_from(nanos(time.unwrap_or_else(SystemTime::now))).unwrap_or(i64::MAX)
    }

    pub(crate) fn checkpoint(
        &self,
        settings: &Settings,
        roots: &[PathBuf],
        label: Label,
    ) -> Result<Checkpoint, CheckpointError> {
        let roots = normalise_roots(roots)?;
        let mut walk_settings = settings.clone();
        // The walk compares folders to these by bytes: canonical, as the roots are.
        walk_settings.never =
            settings.never.iter().chain([&self.dir]).map(|p| airlock_files::canonical_lenient(p)).collect();
        let _lock = self.lock()?;
        let mut memory = self.memory();
        let index_path = self.dir.join("index");
        Self::fresh_index(&mut memory, &index_path);
        let scan_ns = self.fs_now();
        let mut index = memory.index.take().unwrap_or_default();
        let shared = Shared {
            objects: &self.objects,
            index: &index,
            settings: &walk_settings,
            workspace: &self.workspace,
            files: AtomicU64::new(0),
            new_bytes: AtomicU64::new(0),
        };
        let mut walk = Walk::new(&shared, std::mem::take(&mut memory.known));
        let mut records = Vec::new();
        let mut result = Ok(());
        for root in &roots {
            match walk.root(root) {
                Ok(node) => records.push(RootRecord { path: RecordPath::of(root), node: root_node(node) }),
                Err(e) => {
                    result = Err(e);
                    break;
                }
            }
        }
        let files = shared.files.load(Ordering::SeqCst);
        let Walk { known, inserts, left_out, .. } = walk;
        for (path, stat, hash) in inserts {
            index.insert(&path, stat, hash, scan_ns);
        }
        memory.known = known;
        if let Err(e) = index.save(&self.dir.join("tmp"), &index_path) {
            tracing::debug!("cannot write the checkpoint index: {e}");
        }
        memory.index = Some(index);
        drop(memory);
        result?;
        let created = SystemTime::now();
        let record = Record {
            version: RECORD_VERSION,
            created: nanos(created),
            label: label.clone(),
            roots: records,
            left_out: left_out
                .iter()
                .map(|(path, reason)| crate::record::LeftOutRecord {
                    path: RecordPath::of(path),
                    reason: reason.clone(),
                })
                .collect(),
            files,
        };
        let bytes = record.encode()?;
        let id = CheckpointId(blake3::hash(&bytes).to_hex().to_string());
        let path = self.dir.join("refs").join(&id.0);
        write_file(&self.dir.join("tmp"), &path, &bytes).map_err(|e| store_error(&path, e))?;
        Ok(Checkpoint {
            id,
            roots,
            created: std::time::UNIX_EPOCH + std::time::Duration::from_nanos(record.created),
            label,
            left_out: left_out.into_iter().map(|(path, reason)| LeftOut { path, reason }).collect(),
            files,
        })
    }

    /// The record `id` (cached: a record never changes, but a collection may remove it, so
    /// a cached one is used only while its file is there).
    pub(crate) fn load(&self, id: &CheckpointId) -> Result<Arc<Loaded>, CheckpointError> {
        if !valid_id(id) {
            return Err(CheckpointError::Unknown(id.clone()));
        }
        let path = self.dir.join("refs").join(&id.0);
        let mut records = self.records.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(loaded) = records.get(id) {
            if path.exists() {
                return Ok(loaded.clone());
            }
            records.remove(id);
        }
        drop(records);
        let loaded = Arc::new(Record::load(&path, id)?);
        let mut records = self.records.lock().unwrap_or_else(PoisonError::into_inner);
        if records.len() >= MAX_CACHED_RECORDS {
            records.clear();
        }
        records.insert(id.clone(), loaded.clone());
        Ok(loaded)
    }

    /// The tree `hash`, decoded (cached).
    pub(crate) fn tree(&self, hash: &Hash) -> Result<Arc<Tree>, CheckpointError> {
        if let Some(tree) = self.trees.lock().unwrap_or_else(PoisonError::into_inner).get(hash) {
            return Ok(tree.clone());
        }
        let bytes = self.objects.get(hash)?;
        let tree =
            Arc::new(Tree::decode(&bytes).ok_or_else(|| CheckpointError::Damaged {
                path: self.objects.path(hash),
                reason: "not a tree".into(),
            })?);
        let mut trees = self.trees.lock().unwrap_or_else(PoisonError::into_inner);
        if trees.len() >= MAX_CACHED_TREES {
            trees.clear();
        }
        trees.insert(*hash, tree.clone());
        Ok(tree)
    }

    /// What `loaded` holds at `path`: `None` when no root covers it.
    pub(crate) fn node_at(&self, loaded: &Loaded, path: &Path) -> Result<Option<Node>, CheckpointError> {
        let Some(root) = loaded.roots.iter().find(|r| path.starts_with(&r.path)) else { return Ok(None) };
        let Ok(rest) = path.strip_prefix(&root.path) else { return Ok(None) };
        self.descend(root, rest).map(Some)
    }

    fn descend(&self, root: &Root, rest: &Path) -> Result<Node, CheckpointError> {
        let mut node = root.node.clone();
        for part in rest.components() {
            let Component::Normal(name) = part else { return Ok(Node::Absent) };
            node = match node {
                Node::Tree(hash) => match self.tree(&hash)?.find(name) {
                    Some(entry) => match entry.entry() {
                        Some(file) => Node::Entry(file),
                        None => Node::Tree(entry.hash),
                    },
                    None => Node::Absent,
                },
                Node::LeftOut => Node::LeftOut,
                // Under a file, a link or nothing: nothing.
                Node::Entry(_) | Node::Absent => Node::Absent,
            };
        }
        Ok(node)
    }
}

fn root_node(node: Node) -> RootNode {
    match node {
        Node::Absent => RootNode::Absent,
        Node::Tree(hash) => RootNode::Tree { hash: hash.to_hex().to_string() },
        Node::Entry(entry) => RootNode::Entry { entry },
        Node::LeftOut => RootNode::LeftOut,
    }
}

/// The roots, absolute and without `.`/`..`, sorted, without those inside another.
fn normalise_roots(roots: &[PathBuf]) -> Result<Vec<PathBuf>, CheckpointError> {
    let mut clean = Vec::new();
    for root in roots {
        let mut path = PathBuf::new();
        for part in root.components() {
            match part {
                Component::RootDir => path.push("/"),
                Component::Normal(name) => path.push(name),
                Component::CurDir => {}
                Component::ParentDir | Component::Prefix(_) => {
                    return Err(store_error(root, "a checkpoint's root must be absolute, without `..`"));
                }
            }
        }
        if !path.is_absolute() {
            return Err(store_error(root, "a checkpoint's root must be absolute, without `..`"));
        }
        clean.push(path);
    }
    clean.sort();
    clean.dedup();
    let mut kept: Vec<PathBuf> = Vec::new();
    for path in clean {
        if !kept.iter().any(|k| path.starts_with(k)) {
            kept.push(path);
        }
    }
    Ok(kept)
}
