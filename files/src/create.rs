//! Changing a folder through its handle: creating a folder or a new file in it, removing an
//! entry, renaming within or between open folders. Every name is one component (no `/`, no
//! `..`) taken relative to the handle, and nothing follows a link: a folder is opened with
//! `O_NOFOLLOW`, a file is created with `O_CREAT|O_EXCL` (which never follows one), and
//! `unlinkat`/`renameat` act on the entry itself. A command that swaps a folder on the
//! path for a link after the handle was opened changes nothing about where these land.
//!
//! [`open_user_dir`] is the one exception, for folders the user named (the parent of
//! `plugins new --dir`, `$AIRLOCK_HOME/plugins`): their links are the user's and are
//! followed, once, when the handle is opened.

use std::ffi::OsStr;
use std::fs::File;
use std::io::Write;
use std::path::Path;

use rustix::fs::{AtFlags, FileType, Mode, OFlags, RenameFlags};

use super::{DIR_ACCESS, DirHandle, FileError, check_name, open_child_dir};

/// How deep [`DirHandle::remove_tree`] goes; deeper folders are left in place.
const MAX_TREE_DEPTH: usize = 64;

/// Opens the folder at `path` as the user named it, following its links; relative paths are
/// taken from the current folder.
pub fn open_user_dir(path: &Path) -> Result<DirHandle, FileError> {
    let fd = rustix::fs::open(path, DIR_ACCESS | OFlags::DIRECTORY | OFlags::CLOEXEC, Mode::empty())
        .map_err(FileError::from_errno)?;
    Ok(DirHandle { fd })
}

/// The folder `relative` below `base`, each missing folder on the way created with `mode`
/// (less the umask), none reached through a link, nothing outside `base`.
pub fn create_dir_in(base: &DirHandle, relative: &Path, mode: u32) -> Result<DirHandle, FileError> {
    let mut current = base.try_clone().map_err(FileError::Io)?;
    for component in relative.components() {
        match component {
            std::path::Component::CurDir => {}
            std::path::Component::Normal(name) => current = current.create_dir(name, mode)?,
            _ => return Err(FileError::BadPath),
        }
    }
    Ok(current)
}

impl DirHandle {
    /// The folder `name` of this folder, created (with `mode`, less the umask) when missing;
    /// a link of that name fails with [`FileError::Link`], whatever it points to.
    pub fn create_dir(&self, name: &OsStr, mode: u32) -> Result<DirHandle, FileError> {
        check_name(name)?;
        match rustix::fs::mkdirat(&self.fd, name, Mode::from_raw_mode(mode)) {
            Ok(()) | Err(rustix::io::Errno::EXIST) => {}
            Err(e) => return Err(FileError::from_errno(e)),
        }
        Ok(DirHandle { fd: open_child_dir(&self.fd, name)? })
    }

    /// Creates the folder `name`, which must not exist yet (`AlreadyExists` otherwise).
    pub fn create_new_dir(&self, name: &OsStr, mode: u32) -> Result<DirHandle, FileError> {
        check_name(name)?;
        rustix::fs::mkdirat(&self.fd, name, Mode::from_raw_mode(mode)).map_err(FileError::from_errno)?;
        Ok(DirHandle { fd: open_child_dir(&self.fd, name)? })
    }

    /// Creates the new file `name` holding `contents` with exactly `mode` (the umask does
    /// not apply); an existing entry of that name, a link included, is never touched.
    pub fn write_new_file(&self, name: &OsStr, contents: &[u8], mode: u32) -> Result<(), FileError> {
        check_name(name)?;
        let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let fd =
            rustix::fs::openat(&self.fd, name, flags, Mode::from_raw_mode(0o600)).map_err(FileError::from_errno)?;
        rustix::fs::fchmod(&fd, Mode::from_raw_mode(mode)).map_err(FileError::from_errno)?;
        let mut file = File::from(fd);
        file.write_all(contents).and_then(|()| file.sync_all()).map_err(FileError::Io)
    }

    /// Sets the permissions of the folder `name` of this folder (never through a link).
    pub fn set_dir_mode(&self, name: &OsStr, mode: u32) -> Result<(), FileError> {
        check_name(name)?;
        let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let fd = rustix::fs::openat(&self.fd, name, flags, Mode::empty()).map_err(FileError::from_errno)?;
        rustix::fs::fchmod(&fd, Mode::from_raw_mode(mode)).map_err(FileError::from_errno)
    }

    /// Removes the entry `name` unless it is a folder: a file, or a link itself (never what
    /// it points to). A missing entry is [`FileError::NotFound`].
    pub fn remove_file(&self, name: &OsStr) -> Result<(), FileError> {
        check_name(name)?;
        rustix::fs::unlinkat(&self.fd, name, AtFlags::empty()).map_err(|e| match e {
            rustix::io::Errno::ISDIR => FileError::NotRegular("folder"),
            other => FileError::from_errno(other),
        })
    }

    /// Removes the empty folder `name` (a link of that name is refused, not followed).
    pub fn remove_empty_dir(&self, name: &OsStr) -> Result<(), FileError> {
        check_name(name)?;
        rustix::fs::unlinkat(&self.fd, name, AtFlags::REMOVEDIR).map_err(FileError::from_errno)
    }

    /// Removes the folder `name` and everything in it, descending only through folders
    /// opened without following links (a link inside is removed, never followed).
    pub fn remove_tree(&self, name: &OsStr) -> Result<(), FileError> {
        self.remove_tree_at(name, 0)
    }

    fn remove_tree_at(&self, name: &OsStr, depth: usize) -> Result<(), FileError> {
        check_name(name)?;
        if depth < MAX_TREE_DEPTH {
            let dir = DirHandle { fd: open_child_dir(&self.fd, name)? };
            for entry in dir.entries()? {
                let stat = dir.stat_entry(&entry)?;
                if FileType::from_raw_mode(stat.st_mode) == FileType::Directory {
                    dir.remove_tree_at(&entry, depth + 1)?;
                } else {
                    dir.remove_file(&entry)?;
                }
            }
        }
        self.remove_empty_dir(name)
    }

    /// Renames `from` of this folder to `to` of the folder `target` (which may be this one):
    /// the entry itself moves, a link is never followed. With `replace` false an existing
    /// `to` is never replaced (`AlreadyExists`).
    pub fn rename(&self, from: &OsStr, target: &DirHandle, to: &OsStr, replace: bool) -> Result<(), FileError> {
        check_name(from)?;
        check_name(to)?;
        if replace {
            return rustix::fs::renameat(&self.fd, from, &target.fd, to).map_err(FileError::from_errno);
        }
        match rustix::fs::renameat_with(&self.fd, from, &target.fd, to, RenameFlags::NOREPLACE) {
            // A file system without RENAME_NOREPLACE: a hard link never replaces either (for
            // files; a folder cannot be hard-linked, so it is refused there).
            Err(rustix::io::Errno::INVAL | rustix::io::Errno::NOSYS) => {
                rustix::fs::linkat(&self.fd, from, &target.fd, to, AtFlags::empty()).map_err(FileError::from_errno)?;
                rustix::fs::unlinkat(&self.fd, from, AtFlags::empty()).map_err(FileError::from_errno)
            }
            other => other.map_err(FileError::from_errno),
        }
    }
}

#[cfg(test)]
#[path = "create_tests.rs"]
mod tests;
