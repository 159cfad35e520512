//! File access the host does on paths that a guest, a repository or the model could have
//! replaced. Everything here works through handles and never follows a symbolic link:
//!
//! - [`open_dir`] opens a folder by its canonical absolute path, one component at a time
//!   with `O_NOFOLLOW`, so the folder opened is the folder named — a symlink swapped in
//!   anywhere on the way makes the open fail instead of leading elsewhere;
//! - [`open_dir_in`] does the same below a folder already opened, so the result cannot
//!   leave it (in one `openat2` with `RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH` where the
//!   kernel has it);
//! - [`read_file_in`] / [`read_file`] read a *regular* file through such a handle, opened
//!   without following links and without blocking (a FIFO cannot hang us), with a byte
//!   limit checked against its size first and enforced while reading (a `/proc` file that
//!   says it is empty and reads on for ever is still cut);
//! - [`read_user_file`] / [`open_user_file`] do the same for the user's own files (their
//!   links are followed: the user made them), still regular-only, non-blocking and bounded;
//! - [`DirHandle::wasi_path`] names an open folder for wasmtime's preopens, which open by
//!   path: `/proc/self/fd/N` re-opens the very folder we hold, not whatever the path names
//!   now.
//!
//! Beside them: [`create`] (creating, removing and renaming entries of an open folder),
//! [`atomic`] (writing a file so that no reader sees it half-written, moved into place
//! relative to the handle of its folder), [`hash`] (the sha-256 names of contents:
//! components, policy files, plugins) and [`leftovers`] (airlock's own temporary files that
//! a killed process left behind, removed at the next start).
//!
//! Invariant: the host never `stat`s, opens, reads or changes a path under a guest's,
//! a repository's or a command's control except through the handle-based functions here;
//! a write lands in the folder whose handle was opened, never where a link swapped in since
//! would lead.
//!
//! The lowest airlock crate: it uses nothing of airlock's, and `airlock-shell`,
//! `airlock-sandbox` and the engine build on it.

#![deny(clippy::print_stdout, clippy::print_stderr)]

use std::ffi::OsStr;
use std::fs::File;
use std::io::{self, Read};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

use rustix::fs::{FileType, Mode, OFlags};

pub mod atomic;
pub mod create;
pub mod hash;
pub mod leftovers;
pub use atomic::{Replace, Staged, write_atomically, write_in, write_new, write_once};
pub use create::{create_dir_in, open_user_dir};
pub use hash::{content_hash, sha256_bounded};

/// Why a file could not be read.
#[derive(Debug, thiserror::Error)]
pub enum FileError {
    #[error("not found")]
    NotFound,
    #[error("is a symbolic link (or its folder path holds one); links are not followed here")]
    Link,
    #[error("is a {0}, not a regular file")]
    NotRegular(&'static str),
    #[error("has {size} bytes; at most {limit} are read")]
    TooLarge { size: u64, limit: u64 },
    #[error("its path has `..` or is not absolute")]
    BadPath,
    #[error("{0}")]
    Io(io::Error),
}

impl FileError {
    fn from_errno(error: rustix::io::Errno) -> Self {
        match error {
            rustix::io::Errno::NOENT => Self::NotFound,
            // O_NOFOLLOW on a link gives ELOOP; O_DIRECTORY on a link gives ENOTDIR.
            rustix::io::Errno::LOOP | rustix::io::Errno::MLINK => Self::Link,
            other => Self::Io(other.into()),
        }
    }
}

/// An open folder.
#[derive(Debug)]
pub struct DirHandle {
    fd: OwnedFd,
}

impl DirHandle {
    /// A path that re-opens exactly this folder (for APIs that only take paths). Valid while
    /// `self` lives.
    pub fn wasi_path(&self) -> PathBuf {
        use std::os::fd::AsRawFd;
        // Linux re-opens the file behind the descriptor; the BSDs and macOS do the same with
        // their `/dev/fd` (our folder descriptors are plain read-only ones there).
        #[cfg(any(target_os = "linux", target_os = "android"))]
        let base = "/proc/self/fd";
        #[cfg(not(any(target_os = "linux", target_os = "android")))]
        let base = "/dev/fd";
        PathBuf::from(format!("{base}/{}", self.fd.as_raw_fd()))
    }

    /// Another handle on the same folder.
    pub fn try_clone(&self) -> io::Result<Self> {
        Ok(Self { fd: self.fd.try_clone()? })
    }

    /// The kind, size and link count of `name` in this folder, not following a link.
    pub fn stat_entry(&self, name: &OsStr) -> Result<rustix::fs::Stat, FileError> {
        check_name(name)?;
        rustix::fs::statat(&self.fd, name, rustix::fs::AtFlags::SYMLINK_NOFOLLOW).map_err(FileError::from_errno)
    }

    /// The names in this folder (not `.` or `..`), unsorted.
    pub fn entries(&self) -> Result<Vec<std::ffi::OsString>, FileError> {
        let fd = rustix::fs::openat(&self.fd, ".", OFlags::RDONLY | OFlags::DIRECTORY | OFlags::CLOEXEC, Mode::empty())
            .map_err(FileError::from_errno)?;
        let mut dir = rustix::fs::Dir::read_from(&fd).map_err(FileError::from_errno)?;
        let mut names = Vec::new();
        while let Some(entry) = dir.read() {
            let entry = entry.map_err(FileError::from_errno)?;
            let name = OsStr::from_bytes(entry.file_name().to_bytes());
            if name != "." && name != ".." {
                names.push(name.to_os_string());
            }
        }
        Ok(names)
    }

    /// Opens `name` in this folder for reading: a regular file only, no link followed,
    /// never blocking.
    pub fn open_regular(&self, name: &OsStr) -> Result<(File, rustix::fs::Stat), FileError> {
        check_name(name)?;
        let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC | OFlags::NOCTTY;
        let fd = rustix::fs::openat(&self.fd, name, flags, Mode::empty()).map_err(FileError::from_errno)?;
        let stat = rustix::fs::fstat(&fd).map_err(FileError::from_errno)?;
        match FileType::from_raw_mode(stat.st_mode) {
            FileType::RegularFile => Ok((File::from(fd), stat)),
            other => Err(FileError::NotRegular(kind_name(other))),
        }
    }
}

/// For `*at` calls on the folder itself (the edits the scheduler applies through it).
impl AsFd for DirHandle {
    fn as_fd(&self) -> std::os::fd::BorrowedFd<'_> {
        self.fd.as_fd()
    }
}

/// One path component that names an entry of a folder: no `/`, not `.` or `..`, not empty.
fn check_name(name: &OsStr) -> Result<(), FileError> {
    let bytes = name.as_bytes();
    if bytes.is_empty() || bytes == b"." || bytes == b".." || bytes.contains(&b'/') || bytes.contains(&0) {
        return Err(FileError::BadPath);
    }
    Ok(())
}

fn kind_name(kind: FileType) -> &'static str {
    match kind {
        FileType::Directory => "folder",
        FileType::Symlink => "symbolic link",
        FileType::Fifo => "FIFO",
        FileType::Socket => "socket",
        FileType::CharacterDevice => "character device",
        FileType::BlockDevice => "block device",
        _ => "special file",
    }
}

/// Folders are opened for path resolution only where the platform allows it (a folder the
/// user may search but not list is still reachable, as with a path).
#[cfg(any(target_os = "linux", target_os = "android"))]
const DIR_ACCESS: OFlags = OFlags::PATH;
#[cfg(not(any(target_os = "linux", target_os = "android")))]
const DIR_ACCESS: OFlags = OFlags::RDONLY;

fn open_child_dir(parent: &impl AsFd, name: &OsStr) -> Result<OwnedFd, FileError> {
    let flags = DIR_ACCESS | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    rustix::fs::openat(parent, name, flags, Mode::empty()).map_err(|e| match e {
        // A symlink opened with O_DIRECTORY|O_NOFOLLOW fails with ENOTDIR or ELOOP.
        rustix::io::Errno::NOTDIR => match rustix::fs::statat(parent, name, rustix::fs::AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) if FileType::from_raw_mode(stat.st_mode) == FileType::Symlink => FileError::Link,
            Ok(stat) => FileError::NotRegular(kind_name(FileType::from_raw_mode(stat.st_mode))),
            Err(e) => FileError::from_errno(e),
        },
        other => FileError::from_errno(other),
    })
}

/// Opens the folder at the absolute, canonical `path` without following any link on the
/// way (a path that holds one fails with [`FileError::Link`]).
pub fn open_dir(path: &Path) -> Result<DirHandle, FileError> {
    if !path.is_absolute() {
        return Err(FileError::BadPath);
    }
    let root = rustix::fs::open("/", DIR_ACCESS | OFlags::DIRECTORY | OFlags::CLOEXEC, Mode::empty())
        .map_err(FileError::from_errno)?;
    open_dir_in(&DirHandle { fd: root }, path.strip_prefix("/").map_err(|_| FileError::BadPath)?)
}

/// Opens the folder `relative` below `base` without following any link and without
/// leaving `base` (`..` and absolute paths are refused; `.` is skipped). Where the kernel
/// has `openat2` (Linux 5.6), the whole path is resolved in one call that refuses every
/// link and every step out of `base` (`RESOLVE_NO_SYMLINKS | RESOLVE_BENEATH`); otherwise,
/// and to name what failed, one component at a time with `O_NOFOLLOW`.
pub fn open_dir_in(base: &DirHandle, relative: &Path) -> Result<DirHandle, FileError> {
    let mut names = Vec::new();
    for component in relative.components() {
        match component {
            Component::CurDir => continue,
            Component::Normal(name) => names.push(name),
            Component::ParentDir | Component::RootDir | Component::Prefix(_) => return Err(FileError::BadPath),
        }
    }
    if names.is_empty() {
        return base.try_clone().map_err(FileError::Io);
    }
    #[cfg(any(target_os = "linux", target_os = "android"))]
    if names.len() > 1
        && let Some(fd) = open_beneath(base, relative)
    {
        return Ok(DirHandle { fd });
    }
    let mut current: Option<OwnedFd> = None;
    for name in names {
        let next = match &current {
            Some(fd) => open_child_dir(fd, name)?,
            None => open_child_dir(&base.fd, name)?,
        };
        current = Some(next);
    }
    current.map(|fd| DirHandle { fd }).ok_or(FileError::BadPath)
}

/// `relative` below `base` in one `openat2` that follows no link and stays beneath `base`;
/// `None` when it fails for any reason (the walk one component at a time then says why) or
/// the kernel lacks the call.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn open_beneath(base: &DirHandle, relative: &Path) -> Option<OwnedFd> {
    use std::sync::atomic::{AtomicBool, Ordering};
    static MISSING: AtomicBool = AtomicBool::new(false);
    if MISSING.load(Ordering::Relaxed) {
        return None;
    }
    let resolve = rustix::fs::ResolveFlags::NO_SYMLINKS
        | rustix::fs::ResolveFlags::NO_MAGICLINKS
        | rustix::fs::ResolveFlags::BENEATH;
    let flags = DIR_ACCESS | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    match rustix::fs::openat2(&base.fd, relative, flags, Mode::empty(), resolve) {
        Ok(fd) => Some(fd),
        Err(rustix::io::Errno::NOSYS) => {
            MISSING.store(true, Ordering::Relaxed);
            None
        }
        Err(_) => None,
    }
}

/// Reads the regular file `relative` below `base`: no link followed on the way or at the
/// end, nothing outside `base`, at most `limit` bytes (a larger file is refused).
pub fn read_file_in(base: &DirHandle, relative: &Path, limit: u64) -> Result<Vec<u8>, FileError> {
    let (parent, name) = split(relative)?;
    let dir = open_dir_in(base, parent)?;
    let (file, stat) = dir.open_regular(name)?;
    read_bounded(file, stat, limit)
}

/// Reads the regular file at the absolute, canonical `path` the same way.
pub fn read_file(path: &Path, limit: u64) -> Result<Vec<u8>, FileError> {
    let (parent, name) = split(path)?;
    let dir = open_dir(parent)?;
    let (file, stat) = dir.open_regular(name)?;
    read_bounded(file, stat, limit)
}

/// Opens the user's own file at `path` (links followed) for reading: a regular file only,
/// never blocking.
pub fn open_user_file(path: &Path) -> Result<(File, rustix::fs::Stat), FileError> {
    let flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::CLOEXEC | OFlags::NOCTTY;
    let fd = rustix::fs::open(path, flags, Mode::empty()).map_err(FileError::from_errno)?;
    let stat = rustix::fs::fstat(&fd).map_err(FileError::from_errno)?;
    match FileType::from_raw_mode(stat.st_mode) {
        FileType::RegularFile => Ok((File::from(fd), stat)),
        other => Err(FileError::NotRegular(kind_name(other))),
    }
}

/// Reads the user's own file at `path` (links followed), bounded like [`read_file`].
pub fn read_user_file(path: &Path, limit: u64) -> Result<Vec<u8>, FileError> {
    let (file, stat) = open_user_file(path)?;
    read_bounded(file, stat, limit)
}

fn split(path: &Path) -> Result<(&Path, &OsStr), FileError> {
    match (path.parent(), path.file_name()) {
        (Some(parent), Some(name)) if !matches!(path.components().next_back(), Some(Component::ParentDir)) => {
            Ok((parent, name))
        }
        _ => Err(FileError::BadPath),
    }
}

/// Reads `file` to its end, refusing one whose size says it holds more than `limit` bytes
/// and stopping at `limit` bytes whatever the size said.
pub fn read_bounded(file: File, stat: rustix::fs::Stat, limit: u64) -> Result<Vec<u8>, FileError> {
    let size = u64::try_from(stat.st_size).unwrap_or(0);
    if size > limit {
        return Err(FileError::TooLarge { size, limit });
    }
    // The file was opened non-blocking (so a FIFO could not hang the open); a regular
    // file reads the same either way.
    let mut bytes = Vec::with_capacity(usize::try_from(size).unwrap_or(0));
    file.take(limit + 1).read_to_end(&mut bytes).map_err(FileError::Io)?;
    if bytes.len() as u64 > limit {
        return Err(FileError::TooLarge { size: bytes.len() as u64, limit });
    }
    Ok(bytes)
}

/// Reads at most `limit` bytes from the start of the regular file `relative` below `base`
/// (opened as [`read_file_in`] does); returns them and the file's size (at least what was
/// read, for a file that reads past the size it claims).
pub fn read_prefix_in(base: &DirHandle, relative: &Path, limit: u64) -> Result<(Vec<u8>, u64), FileError> {
    let (parent, name) = split(relative)?;
    let (file, stat) = open_dir_in(base, parent)?.open_regular(name)?;
    read_prefix(file, &stat, limit)
}

/// At most `limit` bytes from the start of `file`, and its size.
pub fn read_prefix(file: File, stat: &rustix::fs::Stat, limit: u64) -> Result<(Vec<u8>, u64), FileError> {
    let size = u64::try_from(stat.st_size).unwrap_or(0);
    let mut bytes = Vec::with_capacity(usize::try_from(size.min(limit)).unwrap_or(0));
    file.take(limit).read_to_end(&mut bytes).map_err(FileError::Io)?;
    let read = bytes.len() as u64;
    Ok((bytes, size.max(read)))
}

/// `path` made absolute and canonical, resolved physically (`link/..` is the link target's
/// parent, as the kernel sees it); when it does not exist (yet), its nearest existing
/// ancestor is canonicalised and the missing rest appended (`.` and `..` in that rest name no
/// link, so they resolve lexically).
pub fn canonical_lenient(path: &Path) -> PathBuf {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir().map(|cwd| cwd.join(path)).unwrap_or_else(|_| path.to_path_buf())
    };
    let mut existing = absolute.as_path();
    let mut missing = Vec::new();
    let mut base = loop {
        if let Ok(canonical) = existing.canonicalize() {
            break canonical;
        }
        match (existing.parent(), existing.components().next_back()) {
            (Some(parent), Some(last)) => {
                missing.push(last.as_os_str().to_os_string());
                existing = parent;
            }
            _ => break PathBuf::from("/"),
        }
    };
    for part in missing.iter().rev() {
        match Path::new(part).components().next() {
            Some(Component::ParentDir) => {
                base.pop();
            }
            Some(Component::Normal(name)) => base.push(name),
            _ => {}
        }
    }
    base
}

#[cfg(test)]
#[path = "lib_tests.rs"]
mod tests;
