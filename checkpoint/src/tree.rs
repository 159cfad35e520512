//! Trees: one object per folder, as git has them. A tree lists the folder's entries sorted by
//! name (bytes), each with its kind (file, link, folder), permission bits, size and the hash
//! of its content (a folder's: its own tree). A folder that did not change is the same tree
//! object, so a checkpoint of an unchanged tree adds no object, and one of a changed file adds
//! that file and the trees on its path only.
//!
//! Encoding (hashed and stored as an object): the line `airlock-tree 1\n`, then per entry a
//! kind byte, the mode (u32 LE), the size (u64 LE), the 32-byte hash, the name's length (u32
//! LE) and the name. Decoding checks every length, so a damaged tree is an error.

use std::ffi::OsString;
use std::os::unix::ffi::{OsStrExt, OsStringExt};

use crate::objects::Hash;
use crate::{Entry, EntryKind};

const MAGIC: &[u8] = b"airlock-tree 1\n";

/// The kind of a tree entry.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    File,
    Symlink,
    Dir,
}

/// One entry of a tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TreeEntry {
    pub name: OsString,
    pub kind: Kind,
    pub mode: u32,
    pub size: u64,
    pub hash: Hash,
}

impl TreeEntry {
    /// The public entry of a file or link (`None` for a folder).
    pub(crate) fn entry(&self) -> Option<Entry> {
        let kind = match self.kind {
            Kind::File => EntryKind::File,
            Kind::Symlink => EntryKind::Symlink,
            Kind::Dir => return None,
        };
        Some(Entry { kind, hash: self.hash.to_hex().to_string(), mode: self.mode, size: self.size })
    }
}

/// A folder's entries, sorted by name.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Tree {
    pub entries: Vec<TreeEntry>,
}

impl Tree {
    /// The entry named `name`.
    pub(crate) fn find(&self, name: &std::ffi::OsStr) -> Option<&TreeEntry> {
        self.entries.binary_search_by(|e| e.name.as_bytes().cmp(name.as_bytes())).ok().map(|i| &self.entries[i])
    }

    pub(crate) fn sort(&mut self) {
        self.entries.sort_by(|a, b| a.name.as_bytes().cmp(b.name.as_bytes()));
    }

    pub(crate) fn encode(&self) -> Vec<u8> {
        let size: usize = self.entries.iter().map(|e| 49 + e.name.len()).sum();
        let mut out = Vec::with_capacity(MAGIC.len() + size);
        out.extend_from_slice(MAGIC);
        for entry in &self.entries {
            out.push(match entry.kind {
                Kind::File => 0,
                Kind::Symlink => 1,
                Kind::Dir => 2,
            });
            out.extend_from_slice(&entry.mode.to_le_bytes());
            out.extend_from_slice(&entry.size.to_le_bytes());
            out.extend_from_slice(entry.hash.as_bytes());
            let name = entry.name.as_bytes();
            out.extend_from_slice(&(name.len() as u32).to_le_bytes());
            out.extend_from_slice(name);
        }
        out
    }

    /// The tree encoded in `bytes`, or `None` when they are not one.
    pub(crate) fn decode(bytes: &[u8]) -> Option<Self> {
        let mut rest = bytes.strip_prefix(MAGIC)?;
        let mut entries = Vec::new();
        while !rest.is_empty() {
            let (&kind, tail) = rest.split_first()?;
            let kind = match kind {
                0 => Kind::File,
                1 => Kind::Symlink,
                2 => Kind::Dir,
                _ => return None,
            };
            let (mode, tail) = tail.split_first_chunk::<4>()?;
            let (size, tail) = tail.split_first_chunk::<8>()?;
            let (hash, tail) = tail.split_first_chunk::<32>()?;
            let (length, tail) = tail.split_first_chunk::<4>()?;
            let length = usize::try_from(u32::from_le_bytes(*length)).ok()?;
            if length == 0 || tail.len() < length {
                return None;
            }
            let (name, tail) = tail.split_at(length);
            if name.contains(&b'/') || name.contains(&0) || name == b"." || name == b".." {
                return None;
            }
            entries.push(TreeEntry {
                name: OsString::from_vec(name.to_vec()),
                kind,
                mode: u32::from_le_bytes(*mode),
                size: u64::from_le_bytes(*size),
                hash: Hash::from_bytes(*hash),
            });
            rest = tail;
        }
        let tree = Self { entries };
        tree.entries.windows(2).all(|w| w[0].name.as_bytes() < w[1].name.as_bytes()).then_some(tree)
    }
}
