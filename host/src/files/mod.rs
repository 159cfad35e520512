//! File access the host does on paths that a guest, a repository or the model could have
//! replaced. Everything here works through handles and never follows a symbolic link:
//!
//! - [`open_dir`] opens a folder by its canonical absolute path, one component at a time
//!   with `O_NOFOLLOW`, so the folder opened is the folder named — a symlink swapped in
//!   anywhere on the way makes the open fail instead of leading elsewhere;
//! - [`open_dir_in`] does the same below a folder already opened, so the result cannot
//!   leave it;
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
//! Beside them: [`hash`] (the sha-256 names of contents: components, policy files, plugins)
//! and [`atomic`] (writing a file so that no reader sees it half-written).
//!
//! Invariant: the host never `stat`s, opens, reads or changes a path under a guest's
//! control except through these functions.

use std::ffi::OsStr;
use std::fs::File;
use std::io::{self, Read};
use std::os::fd::{AsFd, OwnedFd};
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

use rustix::fs::{FileType, Mode, OFlags};

pub mod atomic;
pub mod hash;
pub use atomic::{write_atomically, write_new, write_once};
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
/// leaving `base` (`..` and absolute paths are refused; `.` is skipped).
pub fn open_dir_in(base: &DirHandle, relative: &Path) -> Result<DirHandle, FileError> {
    let mut current: Option<OwnedFd> = None;
    for component in relative.components() {
        match component {
            Component::CurDir => continue,
            Component::Normal(name) => {
                let next = match &current {
                    Some(fd) => open_child_dir(fd, name)?,
                    None => open_child_dir(&base.fd, name)?,
                };
                current = Some(next);
            }
            Component::ParentDir | Component::RootDir | Component::Prefix(_) => return Err(FileError::BadPath),
        }
    }
    match current {
        Some(fd) => Ok(DirHandle { fd }),
        None => base.try_clone().map_err(FileError::Io),
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
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn tree() -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().canonicalize().unwrap();
        std::fs::create_dir_all(root.join("ws/sub")).unwrap();
        std::fs::create_dir_all(root.join("outside")).unwrap();
        std::fs::write(root.join("ws/sub/file.txt"), "inside").unwrap();
        std::fs::write(root.join("outside/secret.txt"), "secret").unwrap();
        (dir, root)
    }

    #[test]
    fn reads_a_regular_file_inside_and_refuses_links_anywhere_on_the_path() {
        let (_dir, root) = tree();
        let ws = open_dir(&root.join("ws")).unwrap();
        assert_eq!(read_file_in(&ws, Path::new("sub/file.txt"), 100).unwrap(), b"inside");
        symlink(root.join("outside/secret.txt"), root.join("ws/abs_link")).unwrap();
        symlink("../outside/secret.txt", root.join("ws/rel_link")).unwrap();
        symlink("../outside", root.join("ws/dir_link")).unwrap();
        symlink("sub/file.txt", root.join("ws/inner_link")).unwrap();
        for path in ["abs_link", "rel_link", "dir_link/secret.txt", "inner_link"] {
            let error = read_file_in(&ws, Path::new(path), 100).unwrap_err();
            assert!(matches!(error, FileError::Link), "{path}: {error:?}");
        }
        for path in ["../outside/secret.txt", "sub/../../outside/secret.txt", "/etc/passwd"] {
            let error = read_file_in(&ws, Path::new(path), 100).unwrap_err();
            assert!(matches!(error, FileError::BadPath), "{path}: {error:?}");
        }
        // A link among the folders of an absolute path is refused too.
        let error = read_file(&root.join("ws/dir_link/secret.txt"), 100).unwrap_err();
        assert!(matches!(error, FileError::Link), "{error:?}");
    }

    #[test]
    fn refuses_fifos_devices_folders_and_oversized_files_without_blocking() {
        let (_dir, root) = tree();
        let ws = open_dir(&root.join("ws")).unwrap();
        rustix::fs::mkfifoat(rustix::fs::CWD, root.join("ws/fifo"), Mode::from_raw_mode(0o600)).unwrap();
        let error = read_file_in(&ws, Path::new("fifo"), 100).unwrap_err();
        assert!(matches!(error, FileError::NotRegular("FIFO")), "{error:?}");
        assert!(matches!(read_file_in(&ws, Path::new("sub"), 100).unwrap_err(), FileError::NotRegular("folder")));
        assert!(matches!(read_file(Path::new("/dev/zero"), 100).unwrap_err(), FileError::NotRegular(_)));
        std::fs::write(root.join("ws/big"), vec![b'x'; 101]).unwrap();
        assert!(matches!(read_file_in(&ws, Path::new("big"), 100).unwrap_err(), FileError::TooLarge { .. }));
        // A sparse file is refused by its size, before any byte is read.
        let sparse = File::create(root.join("ws/sparse")).unwrap();
        sparse.set_len(2 << 30).unwrap();
        assert!(matches!(
            read_file_in(&ws, Path::new("sparse"), 1 << 20).unwrap_err(),
            FileError::TooLarge { size, .. } if size == 2 << 30
        ));
    }

    #[test]
    fn lists_a_folder_and_hashes_a_file_as_a_bounded_stream() {
        let (_dir, root) = tree();
        let ws = open_dir(&root.join("ws")).unwrap();
        std::fs::write(root.join("ws/a"), "abc").unwrap();
        let mut names = ws.entries().unwrap();
        names.sort();
        assert_eq!(names, ["a", "sub"]);
        let (file, stat) = ws.open_regular(OsStr::new("a")).unwrap();
        assert_eq!(
            sha256_bounded(&file, &stat, 3).unwrap(),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert!(matches!(sha256_bounded(&file, &stat, 2).unwrap_err(), FileError::TooLarge { .. }));
        // /proc files say they are empty and read on: the stream is cut at the limit.
        let (file, stat) = open_user_file(Path::new("/proc/self/pagemap")).unwrap();
        assert!(matches!(sha256_bounded(&file, &stat, 1 << 20), Err(FileError::TooLarge { .. } | FileError::Io(_))));
        // The user's own links are followed, but only to regular files.
        symlink(root.join("ws/a"), root.join("user_link")).unwrap();
        assert_eq!(read_user_file(&root.join("user_link"), 10).unwrap(), b"abc");
        symlink("/dev/zero", root.join("zero_link")).unwrap();
        assert!(matches!(read_user_file(&root.join("zero_link"), 10).unwrap_err(), FileError::NotRegular(_)));
    }

    #[test]
    fn a_file_that_reads_past_its_size_is_cut_at_the_limit() {
        // `pagemap` is a regular file of size 0 that reads on for the whole address space.
        let path = PathBuf::from(format!("/proc/{}/pagemap", std::process::id()));
        let stat = rustix::fs::stat(&path).unwrap();
        assert_eq!((FileType::from_raw_mode(stat.st_mode), stat.st_size), (FileType::RegularFile, 0));
        // (pagemap refuses reads that are not a multiple of 8 bytes: either way, it stops.)
        let error = read_file(&path, 4096).unwrap_err();
        assert!(matches!(error, FileError::TooLarge { size: 4097, .. } | FileError::Io(_)), "{error:?}");
        let (file, stat) = open_user_file(&path).unwrap();
        assert_eq!(read_prefix(file, &stat, 4096).unwrap().0.len(), 4096);
    }

    #[test]
    fn canonical_lenient_resolves_every_spelling_of_a_folder_alike() {
        let (_dir, root) = tree();
        symlink(root.join("ws"), root.join("ws_link")).unwrap();
        symlink(root.join("ws/sub"), root.join("outside/sub_link")).unwrap();
        let want = root.join("ws");
        for spelling in [
            root.join("ws"),
            root.join("ws_link"),
            root.join("ws/sub/.."),
            root.join("ws/./sub/../"),
            root.join("outside/sub_link/.."),
            root.join("outside/../ws_link"),
        ] {
            assert_eq!(canonical_lenient(&spelling), want, "{}", spelling.display());
        }
        assert_eq!(canonical_lenient(&root.join("ws_link/new/../new2/x")), root.join("ws/new2/x"));
    }

    #[test]
    fn a_handle_keeps_naming_the_folder_it_opened_after_a_swap() {
        let (_dir, root) = tree();
        let sub = open_dir(&root.join("ws/sub")).unwrap();
        std::fs::rename(root.join("ws/sub"), root.join("ws/moved")).unwrap();
        symlink("../outside", root.join("ws/sub")).unwrap();
        // Opening by the handle's path (as wasmtime's preopens do) finds the folder we hold.
        let names: Vec<_> = std::fs::read_dir(sub.wasi_path()).unwrap().map(|e| e.unwrap().file_name()).collect();
        assert_eq!(names, ["file.txt"]);
        assert_eq!(read_file_in(&sub, Path::new("file.txt"), 100).unwrap(), b"inside");
        assert!(matches!(open_dir(&root.join("ws/sub")).unwrap_err(), FileError::Link));
    }
}
