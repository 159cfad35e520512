//! The stat index, as git has one: per absolute path, the file's mtime and ctime (ns), size,
//! inode and mode when it was last hashed, and that hash. A file whose stat is unchanged is
//! not read again, so a checkpoint of an unchanged tree costs stat calls.
//!
//! Invariants:
//! - The index is a cache: a missing, damaged or stale index costs re-reads, never a wrong
//!   answer. It is written whole by rename, and checked by a blake3 of its content on load.
//! - The racy case: a file whose mtime is not clearly older than the moment its hash was
//!   taken could change again within the clock's granularity without its stat changing, so
//!   it is not entered ([`Index::insert`]) and is hashed again next time.
//! - The index names objects. A collection ([`crate::Store::gc`]) that removes objects
//!   removes the index file, and a process that finds the file it knew replaced reloads it.

use std::collections::HashMap;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use crate::objects::{Hash, write_file};

const MAGIC: &[u8] = b"airlock-index 1\n";

/// How much older than the scan a file's times must be to be trusted later: more than the
/// kernel's coarse clock tick (a few ms).
const RACY_NS: i64 = 20_000_000;
/// The same for times with no fraction of a second, from a file system that keeps whole
/// seconds (or two, as FAT does).
const RACY_COARSE_NS: i64 = 2_000_000_000;

/// Past this many entries the index starts over (entries of files long gone are never
/// pruned one by one).
const MAX_ENTRIES: usize = 1_000_000;

/// What the index compares to decide that a file did not change.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stat {
    pub mtime_ns: i64,
    pub ctime_ns: i64,
    pub size: u64,
    pub ino: u64,
    pub mode: u32,
}

impl Stat {
    pub(crate) fn of(stat: &rustix::fs::Stat) -> Self {
        Self {
            mtime_ns: stat.st_mtime.saturating_mul(1_000_000_000).saturating_add(stat.st_mtime_nsec as i64),
            ctime_ns: stat.st_ctime.saturating_mul(1_000_000_000).saturating_add(stat.st_ctime_nsec as i64),
            size: u64::try_from(stat.st_size).unwrap_or(0),
            ino: stat.st_ino,
            mode: stat.st_mode,
        }
    }
}

/// The file the index was loaded from or written to, to notice another process's write.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FileId {
    ino: u64,
    mtime_ns: i128,
    size: u64,
}

pub(crate) fn file_id(path: &Path) -> Option<FileId> {
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::symlink_metadata(path).ok()?;
    Some(FileId {
        ino: meta.ino(),
        mtime_ns: i128::from(meta.mtime()) * 1_000_000_000 + i128::from(meta.mtime_nsec()),
        size: meta.size(),
    })
}

/// The index in memory.
#[derive(Debug, Default)]
pub(crate) struct Index {
    /// Keyed by the path's bytes: hashing a `Path` walks its components, a good part of an
    /// unchanged checkpoint's time.
    entries: HashMap<Vec<u8>, (Stat, Hash)>,
    /// Entries changed since the load or last write.
    pub dirty: bool,
    /// The file as last loaded or written (`None`: no file).
    pub file: Option<FileId>,
}

impl Index {
    /// The index at `path`; empty when it is missing or damaged.
    pub(crate) fn load(path: &Path) -> Self {
        let file = file_id(path);
        let entries = std::fs::read(path).ok().and_then(|bytes| decode(&bytes)).unwrap_or_default();
        Self { entries, dirty: false, file }
    }

    /// The hash of `path` when its stat is the one indexed.
    pub(crate) fn lookup(&self, path: &Path, stat: &Stat) -> Option<Hash> {
        self.entries.get(path.as_os_str().as_bytes()).filter(|(known, _)| known == stat).map(|(_, hash)| *hash)
    }

    /// Notes that `path` with `stat` hashed to `hash`, read in a scan that began at
    /// `scan_ns` (the file system's clock: the mtime of a file made then): a file changed
    /// too close to the scan is left out (racy), since a change after the read could leave
    /// its times as they were.
    pub(crate) fn insert(&mut self, path: &Path, stat: Stat, hash: Hash, scan_ns: i64) {
        let racy = |time: i64| {
            let slack = if time % 1_000_000_000 == 0 { RACY_COARSE_NS } else { RACY_NS };
            time >= scan_ns.saturating_sub(slack)
        };
        if racy(stat.mtime_ns) || racy(stat.ctime_ns) {
            if self.entries.remove(path.as_os_str().as_bytes()).is_some() {
                self.dirty = true;
            }
            return;
        }
        if self.entries.len() >= MAX_ENTRIES {
            self.entries.clear();
        }
        let key = path.as_os_str().as_bytes();
        if self.entries.get(key) != Some(&(stat, hash)) {
            self.entries.insert(key.to_vec(), (stat, hash));
            self.dirty = true;
        }
    }

    /// Writes the index to `path` (by rename) when it changed.
    pub(crate) fn save(&mut self, tmp: &Path, path: &Path) -> std::io::Result<()> {
        if !self.dirty {
            return Ok(());
        }
        write_file(tmp, path, &self.encode())?;
        self.dirty = false;
        self.file = file_id(path);
        Ok(())
    }

    fn encode(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(MAGIC.len() + self.entries.len() * 100);
        out.extend_from_slice(MAGIC);
        for (path, (stat, hash)) in &self.entries {
            let name = path.as_slice();
            out.extend_from_slice(&(name.len() as u32).to_le_bytes());
            out.extend_from_slice(name);
            out.extend_from_slice(&stat.mtime_ns.to_le_bytes());
            out.extend_from_slice(&stat.ctime_ns.to_le_bytes());
            out.extend_from_slice(&stat.size.to_le_bytes());
            out.extend_from_slice(&stat.ino.to_le_bytes());
            out.extend_from_slice(&stat.mode.to_le_bytes());
            out.extend_from_slice(hash.as_bytes());
        }
        let sum = blake3::hash(&out);
        out.extend_from_slice(sum.as_bytes());
        out
    }
}

fn decode(bytes: &[u8]) -> Option<HashMap<Vec<u8>, (Stat, Hash)>> {
    let (body, sum) = bytes.split_last_chunk::<32>()?;
    if blake3::hash(body) != Hash::from_bytes(*sum) {
        return None;
    }
    let mut rest = body.strip_prefix(MAGIC)?;
    let mut entries = HashMap::new();
    while !rest.is_empty() {
        let (length, tail) = rest.split_first_chunk::<4>()?;
        let length = usize::try_from(u32::from_le_bytes(*length)).ok()?;
        if tail.len() < length {
            return None;
        }
        let (name, tail) = tail.split_at(length);
        let (mtime, tail) = tail.split_first_chunk::<8>()?;
        let (ctime, tail) = tail.split_first_chunk::<8>()?;
        let (size, tail) = tail.split_first_chunk::<8>()?;
        let (ino, tail) = tail.split_first_chunk::<8>()?;
        let (mode, tail) = tail.split_first_chunk::<4>()?;
        let (hash, tail) = tail.split_first_chunk::<32>()?;
        let stat = Stat {
            mtime_ns: i64::from_le_bytes(*mtime),
            ctime_ns: i64::from_le_bytes(*ctime),
            size: u64::from_le_bytes(*size),
            ino: u64::from_le_bytes(*ino),
            mode: u32::from_le_bytes(*mode),
        };
        entries.insert(name.to_vec(), (stat, Hash::from_bytes(*hash)));
        rest = tail;
    }
    Some(entries)
}
