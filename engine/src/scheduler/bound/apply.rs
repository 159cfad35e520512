//! The host's own write of an approved edit into the real folder: the confirmed file below
//! its folder, reached through handles opened without following any link, so a link or a
//! swapped folder planted on the way makes the write fail instead of leading elsewhere.
//!
//! Invariants: missing folders on the file's path are made one at a time and opened without
//! following links; the content goes to a temporary file created exclusively (never through
//! a link) in the file's folder, synced, then renamed over the file, keeping its mode. A file
//! with other hard links is one file under several names: it is rewritten in place through a
//! no-follow handle, so every name sees the edit, as when the plugin wrote it itself.

use std::ffi::OsStr;
use std::io::Write;
use std::os::fd::{AsFd, OwnedFd};
use std::path::{Component, Path};

use rustix::fs::{AtFlags, FileType, Mode, OFlags};

use airlock_files::{self as files, DirHandle, FileError};

/// The file `relative` below `dir` as it is now: its bytes (at most `limit`), or `None`
/// when it does not exist (nor a folder on its way).
pub fn read_current(dir: &Path, relative: &Path, limit: u64) -> Result<Option<Vec<u8>>, FileError> {
    let base = files::open_dir(dir)?;
    match files::read_file_in(&base, relative, limit) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(FileError::NotFound) => Ok(None),
        Err(error) => Err(error),
    }
}

/// Makes `content` the content of the file `relative` below `dir` (canonical).
pub fn write(dir: &Path, relative: &Path, content: &[u8]) -> Result<(), FileError> {
    let (parents, name) = split(relative)?;
    let mut folder = files::open_dir(dir)?;
    for part in parents {
        folder = match files::open_dir_in(&folder, Path::new(part)) {
            Ok(next) => next,
            Err(FileError::NotFound) => {
                match rustix::fs::mkdirat(&folder, part, Mode::from_raw_mode(0o777)) {
                    Ok(()) | Err(rustix::io::Errno::EXIST) => {}
                    Err(error) => return Err(FileError::Io(error.into())),
                }
                files::open_dir_in(&folder, Path::new(part))?
            }
            Err(error) => return Err(error),
        };
    }
    match rustix::fs::statat(&folder, name, AtFlags::SYMLINK_NOFOLLOW) {
        Err(rustix::io::Errno::NOENT) => replace(&folder, name, content, None),
        Err(error) => Err(FileError::Io(error.into())),
        Ok(stat) => match FileType::from_raw_mode(stat.st_mode) {
            FileType::RegularFile if stat.st_nlink > 1 => in_place(&folder, name, content, &stat),
            FileType::RegularFile => replace(&folder, name, content, Some(stat.st_mode & 0o777)),
            FileType::Symlink => Err(FileError::Link),
            _ => Err(FileError::NotRegular("special file or folder")),
        },
    }
}

/// The folders of `relative` and its file name; only plain names.
fn split(relative: &Path) -> Result<(Vec<&OsStr>, &OsStr), FileError> {
    let mut parts = Vec::new();
    for component in relative.components() {
        match component {
            Component::Normal(part) => parts.push(part),
            Component::CurDir => {}
            _ => return Err(FileError::BadPath),
        }
    }
    let name = parts.pop().ok_or(FileError::BadPath)?;
    Ok((parts, name))
}

/// Writes a temporary file beside `name` and renames it over `name`; `mode` is the mode
/// the file had (a new file gets the usual `0666` less the umask).
fn replace(folder: &DirHandle, name: &OsStr, content: &[u8], mode: Option<u32>) -> Result<(), FileError> {
    let (temp_name, temp) = create_temp(folder, name)?;
    let written = write_synced(temp, content, mode);
    let renamed = written
        .and_then(|()| rustix::fs::renameat(folder, &temp_name, folder, name).map_err(|e| FileError::Io(e.into())));
    if renamed.is_err() {
        let _ = rustix::fs::unlinkat(folder, &temp_name, AtFlags::empty());
    }
    renamed
}

/// A new file in `folder` under a random name next to `name`, created exclusively.
fn create_temp(folder: &DirHandle, name: &OsStr) -> Result<(std::ffi::OsString, OwnedFd), FileError> {
    let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let mut last = rustix::io::Errno::EXIST;
    for _ in 0..16 {
        let mut temp = std::ffi::OsString::from(".");
        temp.push(name);
        temp.push(format!(".airlock-{:016x}.tmp", rand::random::<u64>()));
        match rustix::fs::openat(folder, &temp, flags, Mode::from_raw_mode(0o666)) {
            Ok(fd) => return Ok((temp, fd)),
            Err(rustix::io::Errno::EXIST) => last = rustix::io::Errno::EXIST,
            Err(error) => return Err(FileError::Io(error.into())),
        }
    }
    Err(FileError::Io(last.into()))
}

fn write_synced(fd: OwnedFd, content: &[u8], mode: Option<u32>) -> Result<(), FileError> {
    if let Some(mode) = mode {
        rustix::fs::fchmod(&fd, Mode::from_raw_mode(mode)).map_err(|e| FileError::Io(e.into()))?;
    }
    let mut file = std::fs::File::from(fd);
    file.write_all(content).and_then(|()| file.sync_all()).map_err(FileError::Io)
}

/// Rewrites the regular file `name` (the one `stat` describes) through a no-follow handle.
fn in_place(folder: &DirHandle, name: &OsStr, content: &[u8], stat: &rustix::fs::Stat) -> Result<(), FileError> {
    let flags = OFlags::WRONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC | OFlags::NOCTTY;
    let fd = rustix::fs::openat(folder.as_fd(), name, flags, Mode::empty()).map_err(|e| match e {
        rustix::io::Errno::LOOP => FileError::Link,
        other => FileError::Io(other.into()),
    })?;
    let now = rustix::fs::fstat(&fd).map_err(|e| FileError::Io(e.into()))?;
    // The file opened must be the one looked at, still a regular file.
    if FileType::from_raw_mode(now.st_mode) != FileType::RegularFile
        || now.st_ino != stat.st_ino
        || now.st_dev != stat.st_dev
    {
        return Err(FileError::NotRegular("file replaced while it was written"));
    }
    rustix::fs::ftruncate(&fd, 0).map_err(|e| FileError::Io(e.into()))?;
    write_synced(fd, content, None)
}

#[cfg(test)]
#[path = "apply_tests.rs"]
mod tests;
