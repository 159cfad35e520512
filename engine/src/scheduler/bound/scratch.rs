//! The scratch folder of a bound edit: a private copy of the confirmed file's folder that
//! the plugin's `execute` writes into instead of the real one, and what the call changed in
//! it afterwards.
//!
//! The copy holds the folder's regular files (at most [`MAX_COPIED_ENTRIES`] entries and
//! [`MAX_COPIED_BYTES`] bytes, the confirmed file first, so a file past the bounds is simply
//! absent), its symbolic links as links with the same text (cap-std refuses to follow one
//! that leads out of the copy), and its subfolders as empty folders (so a path through
//! `sub/..` still resolves; what the real subfolders hold is not copied). Devices, FIFOs and
//! sockets are left out.
//!
//! Invariants: the folder is created private (0700) by `tempfile`, outside the workspace,
//! and removed when the [`Scratch`] is dropped; once the plugin ran, everything in it is the
//! plugin's, so it is read only through handles that follow no link and with bounds.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{DirBuilderExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use rustix::fs::FileType;

use airlock_files::{self as files, DirHandle, FileError};

/// Most entries of the real folder copied.
pub const MAX_COPIED_ENTRIES: usize = 4_096;
/// Most bytes of the real folder's files copied.
pub const MAX_COPIED_BYTES: u64 = 64 << 20;
/// Most entries of the scratch folder looked at for the report of what was discarded.
const MAX_WALKED: usize = 10_000;
/// Deepest folder of the scratch folder looked into.
const MAX_DEPTH: usize = 64;
/// Changes named one by one in a report; the rest are counted.
const MAX_NAMED: usize = 12;

/// What one entry of the real folder was when it was copied.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Copied {
    File { len: u64, sha256: String },
    Link(Vec<u8>),
    Folder,
}

/// A private copy of one folder.
#[derive(Debug)]
pub struct Scratch {
    root: PathBuf,
    copied: BTreeMap<OsString, Copied>,
    /// Removes the folder when dropped; declared last.
    _dir: tempfile::TempDir,
}

/// What a call changed in a scratch folder, besides the confirmed file.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Changes {
    /// `created <path>`, `changed <path>`, `deleted <path>`, paths relative to the folder.
    pub named: Vec<String>,
    /// Changes found past [`MAX_NAMED`].
    pub more: usize,
    /// The walk stopped at its bound: there may be more.
    pub cut: bool,
}

impl Changes {
    pub fn is_empty(&self) -> bool {
        self.named.is_empty() && !self.cut
    }

    fn push(&mut self, change: String) {
        if self.named.len() < MAX_NAMED {
            self.named.push(change);
        } else {
            self.more += 1;
        }
    }
}

impl Scratch {
    /// Copies the folder `dir` (canonical, opened without following links), `first` before
    /// the other entries.
    pub fn copy_of(dir: &Path, first: &OsStr) -> Result<Self, FileError> {
        let private = <std::fs::Permissions as std::os::unix::fs::PermissionsExt>::from_mode(0o700);
        let temp =
            tempfile::Builder::new().prefix("airlock-edit-").permissions(private).tempdir().map_err(FileError::Io)?;
        let root = temp.path().canonicalize().map_err(FileError::Io)?;
        let real = files::open_dir(dir)?;
        let mut names = real.entries()?;
        names.sort();
        if let Some(at) = names.iter().position(|name| name == first) {
            let name = names.remove(at);
            names.insert(0, name);
        }
        let mut copied = BTreeMap::new();
        let mut room = MAX_COPIED_BYTES;
        for name in names.into_iter().take(MAX_COPIED_ENTRIES) {
            // An entry that cannot be copied is absent from the copy: the plugin sees less.
            if let Some(entry) = copy_entry(&real, &name, &root.join(&name), &mut room) {
                copied.insert(name, entry);
            }
        }
        Ok(Self { root, copied, _dir: temp })
    }

    /// The copy's canonical path, for the instance's preopen.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The content the call left at `relative` (a regular file, at most `limit` bytes), or
    /// `None` when nothing is there.
    pub fn read(&self, relative: &Path, limit: u64) -> Result<Option<Vec<u8>>, FileError> {
        let root = files::open_dir(&self.root)?;
        match files::read_file_in(&root, relative, limit) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(FileError::NotFound) => Ok(None),
            Err(error) => Err(error),
        }
    }

    /// Everything the call created, changed or deleted in the copy, except `keep` (the
    /// confirmed file) and the new folders on its way.
    pub fn changes(&self, keep: &Path) -> Changes {
        let mut changes = Changes::default();
        let Ok(root) = files::open_dir(&self.root) else {
            changes.cut = true;
            return changes;
        };
        let mut walk = Walk { keep, changes: &mut changes, visited: 0 };
        let mut names = root.entries().unwrap_or_default();
        names.sort();
        for name in &names {
            let path = PathBuf::from(name);
            match self.copied.get(name) {
                None => walk.created(&root, name, &path, 0),
                Some(copied) => walk.compare(&root, name, &path, copied),
            }
        }
        for name in self.copied.keys().filter(|name| !names.contains(name)) {
            let path = PathBuf::from(name);
            if path != keep {
                walk.changes.push(format!("deleted {}", path.display()));
            }
        }
        changes
    }
}

/// Copies the entry `name` of `real` to `to`; what was copied, or `None`.
fn copy_entry(real: &DirHandle, name: &OsStr, to: &Path, room: &mut u64) -> Option<Copied> {
    let stat = real.stat_entry(name).ok()?;
    match FileType::from_raw_mode(stat.st_mode) {
        FileType::RegularFile => {
            let size = u64::try_from(stat.st_size).ok()?;
            if size > *room {
                return None;
            }
            let (file, stat) = real.open_regular(name).ok()?;
            let bytes = files::read_bounded(file, stat, *room).ok()?;
            let mut copy =
                std::fs::OpenOptions::new().write(true).create_new(true).mode(stat.st_mode & 0o777).open(to).ok()?;
            copy.write_all(&bytes).ok()?;
            *room -= bytes.len() as u64;
            Some(Copied::File { len: bytes.len() as u64, sha256: files::content_hash(&bytes) })
        }
        FileType::Symlink => {
            let target = rustix::fs::readlinkat(real, name, Vec::new()).ok()?.into_bytes();
            std::os::unix::fs::symlink(OsStr::from_bytes(&target), to).ok()?;
            Some(Copied::Link(target))
        }
        FileType::Directory => {
            std::fs::DirBuilder::new().mode(0o700).create(to).ok()?;
            Some(Copied::Folder)
        }
        _ => None,
    }
}

/// A bounded walk of the copy after the call.
struct Walk<'a> {
    keep: &'a Path,
    changes: &'a mut Changes,
    visited: usize,
}

impl Walk<'_> {
    /// Counts one more entry; false once the walk's bound is reached.
    fn visit(&mut self) -> bool {
        self.visited += 1;
        if self.visited > MAX_WALKED {
            self.changes.cut = true;
            return false;
        }
        true
    }

    /// A copied entry `name` of `parent` (at `path`): reported when the call changed it.
    fn compare(&mut self, parent: &DirHandle, name: &OsStr, path: &Path, copied: &Copied) {
        if !self.visit() || path == self.keep {
            return;
        }
        let Ok(stat) = parent.stat_entry(name) else {
            self.changes.push(format!("deleted {}", path.display()));
            return;
        };
        let same = match (copied, FileType::from_raw_mode(stat.st_mode)) {
            (Copied::File { len, sha256 }, FileType::RegularFile) => {
                u64::try_from(stat.st_size).ok() == Some(*len)
                    && parent
                        .open_regular(name)
                        .and_then(|(file, stat)| files::sha256_bounded(&file, &stat, *len))
                        .is_ok_and(|hash| &hash == sha256)
            }
            (Copied::Link(target), FileType::Symlink) => {
                rustix::fs::readlinkat(parent, name, Vec::new()).is_ok_and(|now| now.as_bytes() == target.as_slice())
            }
            (Copied::Folder, FileType::Directory) => {
                // The copy of a folder was empty: all it holds now, the call put there.
                if let Ok(folder) = files::open_dir_in(parent, Path::new(name)) {
                    self.inside(&folder, path, 1);
                }
                true
            }
            _ => false,
        };
        if !same {
            self.changes.push(format!("changed {}", path.display()));
        }
    }

    /// An entry `name` of `parent` (at `path`) the call created, with all it holds.
    fn created(&mut self, parent: &DirHandle, name: &OsStr, path: &Path, depth: usize) {
        if !self.visit() {
            return;
        }
        let folder =
            parent.stat_entry(name).is_ok_and(|stat| FileType::from_raw_mode(stat.st_mode) == FileType::Directory);
        // A new folder on the confirmed file's path is how the file was made: not reported.
        let on_the_way = folder && self.keep.starts_with(path) && self.keep != path;
        if path != self.keep && !on_the_way {
            self.changes.push(format!("created {}{}", path.display(), if folder { "/" } else { "" }));
        }
        if folder && let Ok(inner) = files::open_dir_in(parent, Path::new(name)) {
            self.inside(&inner, path, depth + 1);
        }
    }

    /// Everything inside the folder `dir` (at `path`) was created by the call.
    fn inside(&mut self, dir: &DirHandle, path: &Path, depth: usize) {
        if depth > MAX_DEPTH {
            self.changes.cut = true;
            return;
        }
        let mut names = dir.entries().unwrap_or_default();
        names.sort();
        for name in names {
            self.created(dir, &name, &path.join(&name), depth);
            if self.changes.cut {
                return;
            }
        }
    }
}

#[cfg(test)]
#[path = "scratch_tests.rs"]
mod tests;
