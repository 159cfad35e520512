//! Putting files back. Each file is written to a temporary file beside it (created with
//! `O_CREAT|O_EXCL|O_NOFOLLOW`, mode 0600), given the entry's mode through its handle, and
//! renamed over the file; a link is recreated as a link the same way; a deletion unlinks the
//! one entry (a folder is never emptied). Everything goes through handles on the folders
//! opened from `/` without following a link: a folder on the way that a command replaced by
//! a link (to `~/.ssh`, say) makes the restore of that file fail, and a file replaced by a
//! link is replaced in turn, its target untouched. Missing folders are made (0755 less the
//! umask), never through a link.
//!
//! Invariants:
//! - A kill at any point leaves every file whole: its old content or its new one.
//! - Before the first temporary file is made, the store's `journal` lists every temporary
//!   name the restore will use; whoever opens the store next (or the next restore) removes
//!   those still there, then the journal. No `fsync`: a power loss may leave a restored file
//!   empty or old on file systems that do not order a rename after its data.

use std::ffi::{OsStr, OsString};
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::path::{Component, Path, PathBuf};

use airlock_files::leftovers::is_temp_name;
use airlock_files::{DirHandle, FileError, create_dir_in, open_dir};
use rustix::fs::{FileType, Mode, OFlags};

use crate::objects::write_file;
use crate::store::{Inner, store_error};
use crate::{CheckpointError, EntryKind, Restore, Restored};

/// Folders a restore makes.
const DIR_MODE: u32 = 0o755;

fn restore_error(path: &Path, reason: impl std::fmt::Display) -> CheckpointError {
    CheckpointError::Restore { path: path.to_path_buf(), reason: reason.to_string() }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(text: &str) -> Option<Vec<u8>> {
    (0..text.len()).step_by(2).map(|i| text.get(i..i + 2).and_then(|p| u8::from_str_radix(p, 16).ok())).collect()
}

/// The folder and name of `path`, which must be absolute and hold no `..`.
fn split(path: &Path) -> Result<(&Path, &OsStr), CheckpointError> {
    let plain = path.is_absolute() && path.components().all(|c| matches!(c, Component::RootDir | Component::Normal(_)));
    match (plain, path.parent(), path.file_name()) {
        (true, Some(parent), Some(name)) => Ok((parent, name)),
        _ => Err(restore_error(path, "not an absolute path to a file")),
    }
}

fn link_refused(path: &Path) -> CheckpointError {
    restore_error(path, "a folder on its path is a symbolic link now; airlock does not write through it")
}

/// The folder `dir`, made (with the folders above it) when missing; never through a link.
fn make_parent(dir: &Path, file: &Path) -> Result<DirHandle, CheckpointError> {
    let mut base = dir;
    let mut missing = Vec::new();
    let handle = loop {
        match open_dir(base) {
            Ok(handle) => break handle,
            Err(FileError::NotFound) => match (base.parent(), base.file_name()) {
                (Some(parent), Some(name)) => {
                    missing.push(name);
                    base = parent;
                }
                _ => return Err(restore_error(file, "no folder on its path exists")),
            },
            Err(FileError::Link) => return Err(link_refused(file)),
            Err(e) => return Err(restore_error(file, e)),
        }
    };
    if missing.is_empty() {
        return Ok(handle);
    }
    let rest: PathBuf = missing.iter().rev().collect();
    create_dir_in(&handle, &rest, DIR_MODE).map_err(|e| match e {
        FileError::Link => link_refused(file),
        other => restore_error(file, other),
    })
}

/// Why a restore never writes `path`, if it does not.
fn refused(path: &Path, never: &[PathBuf]) -> Option<&'static str> {
    if path.components().any(|c| c.as_os_str() == ".git") {
        return Some("it is in a .git folder, which a restore never writes");
    }
    never.iter().any(|n| path.starts_with(n)).then_some("it is among airlock's own files, which a restore never writes")
}

pub(crate) fn restore(inner: &Inner, never: &[PathBuf], files: &[Restore]) -> Result<Restored, CheckpointError> {
    for file in files {
        split(&file.path)?;
        if let Some(reason) = refused(&file.path, never) {
            return Err(restore_error(&file.path, reason));
        }
    }
    let _lock = inner.lock()?;
    clean_journal(inner)?;
    let mut temps = Vec::with_capacity(files.len());
    let mut journal = Vec::new();
    for file in files {
        let (parent, name) = split(&file.path)?;
        let temp = file.to.as_ref().map(|_| airlock_files::atomic::temp_name(name));
        if let Some(temp) = &temp {
            journal.extend_from_slice(hex(parent.join(temp).as_os_str().as_bytes()).as_bytes());
            journal.push(b'\n');
        }
        temps.push(temp);
    }
    let journal_path = inner.dir.join("journal");
    if !journal.is_empty() {
        write_file(&inner.dir.join("tmp"), &journal_path, &journal).map_err(|e| store_error(&journal_path, e))?;
    }
    let mut done = Restored::default();
    let result = files.iter().zip(&temps).try_for_each(|(file, temp)| one(inner, file, temp.as_deref(), &mut done));
    let _ = std::fs::remove_file(&journal_path);
    result.map(|()| done)
}

fn one(inner: &Inner, file: &Restore, temp: Option<&OsStr>, done: &mut Restored) -> Result<(), CheckpointError> {
    let (parent, name) = split(&file.path)?;
    let (Some(entry), Some(temp)) = (&file.to, temp) else {
        let dir = match open_dir(parent) {
            Ok(dir) => dir,
            Err(FileError::NotFound) => return Ok(()),
            Err(FileError::Link) => return Err(link_refused(&file.path)),
            Err(e) => return Err(restore_error(&file.path, e)),
        };
        return match dir.remove_file(name) {
            Ok(()) => {
                done.deleted += 1;
                Ok(())
            }
            Err(FileError::NotFound) => Ok(()),
            Err(FileError::NotRegular(_)) => Err(restore_error(&file.path, "is a folder now; it is left as it is")),
            Err(e) => Err(restore_error(&file.path, e)),
        };
    };
    let content = crate::read_entry(inner, entry)?;
    let dir = make_parent(parent, &file.path)?;
    let staged = match entry.kind {
        EntryKind::File => write_temp(&dir, temp, &content, entry.mode),
        EntryKind::Symlink => rustix::fs::symlinkat(content.as_slice(), &dir, temp).map_err(std::io::Error::from),
    };
    let moved = staged.and_then(|()| rustix::fs::renameat(&dir, temp, &dir, name).map_err(std::io::Error::from));
    if let Err(e) = moved {
        let _ = rustix::fs::unlinkat(&dir, temp, rustix::fs::AtFlags::empty());
        return Err(restore_error(&file.path, e));
    }
    done.written += 1;
    Ok(())
}

fn write_temp(dir: &DirHandle, temp: &OsStr, content: &[u8], mode: u32) -> std::io::Result<()> {
    let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let fd = rustix::fs::openat(dir, temp, flags, Mode::from_raw_mode(0o600))?;
    let mut file = std::fs::File::from(fd);
    file.write_all(content)?;
    rustix::fs::fchmod(&file, Mode::from_raw_mode(mode & 0o7777))?;
    Ok(())
}

/// Removes the temporary files a killed restore left in the workspace (those the journal
/// names that still have airlock's temporary naming and are files or links, reached without
/// following a link), then the journal. Holds the lock.
pub(crate) fn clean_journal(inner: &Inner) -> Result<(), CheckpointError> {
    let path = inner.dir.join("journal");
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(store_error(&path, e)),
    };
    for line in text.lines() {
        let Some(bytes) = unhex(line) else { continue };
        let temp = PathBuf::from(OsString::from(OsStr::from_bytes(&bytes)));
        let (Some(dir), Some(name)) = (temp.parent(), temp.file_name()) else { continue };
        if !is_temp_name(name.as_bytes()) {
            continue;
        }
        let Ok(dir) = open_dir(dir) else { continue };
        let removable = dir.stat_entry(name).is_ok_and(|stat| {
            matches!(FileType::from_raw_mode(stat.st_mode), FileType::RegularFile | FileType::Symlink)
        });
        if removable && dir.remove_file(name).is_ok() {
            tracing::info!("removed {}, left by a restore that did not finish", temp.display());
        }
    }
    std::fs::remove_file(&path).map_err(|e| store_error(&path, e))
}
