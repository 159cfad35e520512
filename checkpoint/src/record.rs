//! Checkpoint records: one small JSON file per checkpoint at `refs/<id>`, naming its roots
//! (each a tree, a file or link, absent, or left out), what it left out, its label, when it
//! was taken and how many files it holds. The id is the blake3 of the record's bytes.
//!
//! Invariants:
//! - A record is written last, by rename, after every object it names: a record that exists
//!   is whole and everything it reaches is in the store (until a collection removes the
//!   record first, then its objects).
//! - Reading a record checks its bytes against its id, then its version: a record of a
//!   newer version is refused ([`CheckpointError::Newer`]), never read as if it were this one.
//! - Paths that are not UTF-8 are kept exactly (as hex), never lossily.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use crate::objects::{Hash, parse_hash};
use crate::{Checkpoint, CheckpointError, CheckpointId, Entry, Label, LeftOut};

/// The version of the records this store writes and reads.
pub(crate) const RECORD_VERSION: u32 = 1;

/// A record's version, read before the rest so a newer record is named as such even when
/// its other fields no longer parse as this version's.
#[derive(Deserialize)]
struct Versioned {
    version: u32,
}

/// A path as the record keeps it: text when it is UTF-8, else its bytes in hex.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub(crate) enum RecordPath {
    Text(String),
    Bytes { hex: String },
}

impl RecordPath {
    pub(crate) fn of(path: &Path) -> Self {
        match path.to_str() {
            Some(text) => Self::Text(text.to_owned()),
            None => Self::Bytes { hex: path.as_os_str().as_bytes().iter().map(|b| format!("{b:02x}")).collect() },
        }
    }

    pub(crate) fn path(&self) -> Option<PathBuf> {
        match self {
            Self::Text(text) => Some(PathBuf::from(text)),
            Self::Bytes { hex } => {
                let bytes = (0..hex.len())
                    .step_by(2)
                    .map(|i| hex.get(i..i + 2).and_then(|pair| u8::from_str_radix(pair, 16).ok()))
                    .collect::<Option<Vec<u8>>>()?;
                Some(PathBuf::from(OsStr::from_bytes(&bytes)))
            }
        }
    }
}

/// What a checkpoint holds at one of its roots.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum RootNode {
    /// Nothing was there.
    Absent,
    /// A folder: its tree.
    Tree { hash: String },
    /// A file or a link.
    Entry { entry: Entry },
    /// Not held (the reason is in the left-out list).
    LeftOut,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct RootRecord {
    pub path: RecordPath,
    #[serde(flatten)]
    pub node: RootNode,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct LeftOutRecord {
    pub path: RecordPath,
    pub reason: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Record {
    pub version: u32,
    /// Nanoseconds since the Unix epoch.
    pub created: u64,
    pub label: Label,
    pub roots: Vec<RootRecord>,
    pub left_out: Vec<LeftOutRecord>,
    pub files: u64,
}

/// A root as the store works with it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Root {
    pub path: PathBuf,
    pub node: Node,
}

/// What a checkpoint holds at a path.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Node {
    Absent,
    Tree(Hash),
    Entry(Entry),
    LeftOut,
}

/// A record read back: its checkpoint, and its roots as the store works with them.
#[derive(Debug, Clone)]
pub(crate) struct Loaded {
    pub checkpoint: Checkpoint,
    pub roots: Vec<Root>,
    /// On-disk bytes of the record.
    pub bytes: u64,
}

impl Record {
    pub(crate) fn encode(&self) -> Result<Vec<u8>, CheckpointError> {
        serde_json::to_vec(self)
            .map_err(|e| CheckpointError::Store { path: PathBuf::from("refs"), reason: e.to_string() })
    }

    /// The record of checkpoint `id` as read from `path` (its bytes checked against `id`).
    pub(crate) fn load(path: &Path, id: &CheckpointId) -> Result<Loaded, CheckpointError> {
        let damaged = |reason: String| CheckpointError::Damaged { path: path.to_path_buf(), reason };
        let bytes = std::fs::read(path).map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => CheckpointError::Unknown(id.clone()),
            _ => damaged(e.to_string()),
        })?;
        if blake3::hash(&bytes).to_hex().as_str() != id.0 {
            return Err(damaged("the record does not match its name".into()));
        }
        let version = serde_json::from_slice::<Versioned>(&bytes).map_err(|e| damaged(e.to_string()))?.version;
        if version > RECORD_VERSION {
            return Err(CheckpointError::Newer { path: path.to_path_buf(), version });
        }
        let record: Record = serde_json::from_slice(&bytes).map_err(|e| damaged(e.to_string()))?;
        let bad = || damaged("the record names a path or hash it cannot hold".into());
        let mut roots = Vec::new();
        for root in &record.roots {
            let node = match &root.node {
                RootNode::Absent => Node::Absent,
                RootNode::LeftOut => Node::LeftOut,
                RootNode::Tree { hash } => Node::Tree(parse_hash(hash).ok_or_else(bad)?),
                RootNode::Entry { entry } => {
                    parse_hash(&entry.hash).ok_or_else(bad)?;
                    Node::Entry(entry.clone())
                }
            };
            roots.push(Root { path: root.path.path().filter(|p| p.is_absolute()).ok_or_else(bad)?, node });
        }
        let left_out = record
            .left_out
            .iter()
            .map(|l| Some(LeftOut { path: l.path.path()?, reason: l.reason.clone() }))
            .collect::<Option<Vec<_>>>()
            .ok_or_else(bad)?;
        let checkpoint = Checkpoint {
            id: id.clone(),
            roots: roots.iter().map(|r| r.path.clone()).collect(),
            created: UNIX_EPOCH + Duration::from_nanos(record.created),
            label: record.label,
            left_out,
            files: record.files,
        };
        Ok(Loaded { checkpoint, roots, bytes: bytes.len() as u64 })
    }
}

/// Nanoseconds since the Unix epoch of `time`.
pub(crate) fn nanos(time: SystemTime) -> u64 {
    time.duration_since(UNIX_EPOCH).map_or(0, |d| u64::try_from(d.as_nanos()).unwrap_or(u64::MAX))
}

/// Whether `id` can name a record (64 hex digits), so it cannot name a path elsewhere.
pub(crate) fn valid_id(id: &CheckpointId) -> bool {
    id.0.len() == 64 && id.0.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}
