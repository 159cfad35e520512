//! The object store: every file content, link target and tree, named by the blake3 of its
//! bytes and kept zstd-compressed at `objects/ab/cdef…` (the first two hex digits name the
//! folder).
//!
//! Invariants:
//! - An object is written whole to `tmp/` and then renamed to its name, so a name always
//!   holds a whole object; an object already present is never rewritten.
//! - Reading an object checks its hash: a damaged object is an error, never wrong content.
//! - Names come from hashes checked to be 64 hex digits, so no name can leave `objects/`.
//! - Folders are made 0700 and files 0600: the store holds copies of the user's files.

use std::fs::{self, DirBuilder, File, OpenOptions};
use std::io::{Read, Write};
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::CheckpointError;

/// zstd level: level 1 keeps a checkpoint's cost close to a copy and still shrinks source
/// text about fourfold.
const LEVEL: i32 = 1;

/// Largest object read back (compressed or not): the biggest file a checkpoint holds is
/// `Settings::max_file_bytes`; this bounds what a damaged or planted object can make us
/// allocate.
const MAX_OBJECT_BYTES: u64 = 1 << 32;

pub(crate) type Hash = blake3::Hash;

/// A hex hash as a [`Hash`], refused unless it is exactly 64 hex digits.
pub(crate) fn parse_hash(hex: &str) -> Option<Hash> {
    if hex.len() != 64 || !hex.bytes().all(|b| b.is_ascii_hexdigit()) {
        return None;
    }
    Hash::from_hex(hex).ok()
}

/// Makes `path` a folder of the store (0700) if it is not one yet.
pub(crate) fn make_dir(path: &Path) -> std::io::Result<()> {
    DirBuilder::new().recursive(true).mode(0o700).create(path)
}

/// A fresh name for a temporary file of this process in the store's `tmp/`.
pub(crate) fn temp_path(tmp: &Path) -> PathBuf {
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let count = COUNTER.fetch_add(1, Ordering::Relaxed);
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos());
    tmp.join(format!("{}-{count}-{nanos}", std::process::id()))
}

/// Writes `bytes` to `target` (a file of the store) by a temporary file in `tmp` and a
/// rename, so `target` is either absent, its old content, or `bytes` whole.
pub(crate) fn write_file(tmp: &Path, target: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let temp = temp_path(tmp);
    let result = (|| {
        let mut file = OpenOptions::new().write(true).create_new(true).mode(0o600).open(&temp)?;
        file.write_all(bytes)?;
        fs::rename(&temp, target)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&temp);
    }
    result
}

/// The objects of one store.
#[derive(Debug)]
pub(crate) struct Objects {
    dir: PathBuf,
    tmp: PathBuf,
}

impl Objects {
    pub(crate) fn new(store: &Path) -> Self {
        Self { dir: store.join("objects"), tmp: store.join("tmp") }
    }

    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    pub(crate) fn path(&self, hash: &Hash) -> PathBuf {
        let hex = hash.to_hex();
        self.dir.join(&hex.as_str()[..2]).join(&hex.as_str()[2..])
    }

    pub(crate) fn has(&self, hash: &Hash) -> bool {
        fs::symlink_metadata(self.path(hash)).is_ok()
    }

    /// Stores `bytes` under `hash` (their blake3) unless present; the bytes it added on disk.
    pub(crate) fn put_hashed(&self, hash: &Hash, bytes: &[u8]) -> Result<u64, CheckpointError> {
        let path = self.path(hash);
        if fs::symlink_metadata(&path).is_ok() {
            return Ok(0);
        }
        let compressed = zstd::bulk::compress(bytes, LEVEL).map_err(|e| self.error(&path, e))?;
        if let Some(parent) = path.parent() {
            make_dir(parent).map_err(|e| self.error(parent, e))?;
        }
        write_file(&self.tmp, &path, &compressed).map_err(|e| self.error(&path, e))?;
        Ok(compressed.len() as u64)
    }

    /// The content of the object `hash`, checked against its name.
    pub(crate) fn get(&self, hash: &Hash) -> Result<Vec<u8>, CheckpointError> {
        let path = self.path(hash);
        let damaged = |reason: String| CheckpointError::Damaged { path: path.clone(), reason };
        let file = File::open(&path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => damaged("the object is missing".into()),
            _ => damaged(e.to_string()),
        })?;
        let mut compressed = Vec::new();
        file.take(MAX_OBJECT_BYTES).read_to_end(&mut compressed).map_err(|e| damaged(e.to_string()))?;
        let mut bytes = Vec::new();
        zstd::stream::read::Decoder::new(compressed.as_slice())
            .and_then(|decoder| decoder.take(MAX_OBJECT_BYTES).read_to_end(&mut bytes))
            .map_err(|e| damaged(format!("cannot decompress: {e}")))?;
        if blake3::hash(&bytes) != *hash {
            return Err(damaged("its content does not match its name".into()));
        }
        Ok(bytes)
    }

    fn error(&self, path: &Path, error: impl std::fmt::Display) -> CheckpointError {
        CheckpointError::Store { path: path.to_path_buf(), reason: error.to_string() }
    }
}
