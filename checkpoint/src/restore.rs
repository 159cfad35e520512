//! Putting files back. Each file is written to a temporary file beside it (created with
//! `O_CREAT|O_EXCL|O_NOFOLLOW`, mode 0600), given the entry's mode through its handle, and
//! renamed over the file; a link is recreated as a link the same way; a deletion unlinks the
//! one entry, or removes a folder only when it is empty (a folder is never emptied). Every
//! deletion goes first, deepest path first, then every write, shallowest first: a file that
//! became a folder (or a folder that became a file) restores, the folder's files deleted
//! before the folder and the folder gone before the file is written. Everything goes through handles on the folders
//! opened from `/` without following a link: a folder on the way that a command replaced by
//! a link (to `~/.ssh`, say) makes the restore of that file fail, and a file replaced by a
//! link is replaced in turn, its target untouched. Missing folders are made (0755 less the
//! umask), never through a link.
//!
//! Before anything is written, every path is checked ([`check`]): its folders open without a
//! link on the way and can be written, a folder that must be made has no file in its way,
//! each target there now is what the step can replace (a file, a link, an empty folder or
//! one this restore empties), every object a write needs is in the store. A restore that
//! would fail for those reasons fails before its first write; one can still fail midway (a
//! full disk, a race with another program), leaving the steps before it done.
//!
//! Invariants:
//! - A kill at any point leaves every file whole: its old content or its new one.
//! - Before the first temporary file is made, the store's `journal` lists every temporary
//!   name the restore will use; whoever opens the store next (or the next restore) removes
//!   those still there, then the journal. No `fsync`: a power loss may leave a restored file
//!   empty or old on file systems that do not order a rename after its data.

use std::cmp::Reverse;
use std::collections::HashSet;
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
    let files = ordered(files);
    let _lock = inner.lock()?;
    clean_journal(inner)?;
    check(inner, &files)?;
    let mut temps = Vec::with_capacity(files.len());
    let mut journal = Vec::new();
    for file in &files {
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
    result.map_err(|error| match error {
        CheckpointError::Restore { path, reason } => CheckpointError::Restore {
            path,
            reason: format!(
                "{reason} (before it, this restore deleted {} and wrote {} files: deletions go first, deepest \
                 first, then writes, shallowest first)",
                done.deleted, done.written
            ),
        },
        other => other,
    })?;
    Ok(done)
}

/// Checks every step of a restore before the first one runs, so a restore that cannot
/// finish for a reason known now fails before writing anything.
fn check(inner: &Inner, files: &[&Restore]) -> Result<(), CheckpointError> {
    let deleted: HashSet<&Path> = files.iter().filter(|f| f.to.is_none()).map(|f| f.path.as_path()).collect();
    for file in files {
        let (parent, name) = split(&file.path)?;
        match &file.to {
            None => check_delete(&file.path, parent, name)?,
            Some(entry) => {
                let known = crate::objects::parse_hash(&entry.hash).is_some_and(|hash| inner.objects.has(&hash));
                if !known {
                    return Err(CheckpointError::Damaged {
                        path: inner.dir.clone(),
                        reason: format!("the content `{}` of {} is not in the store", entry.hash, file.path.display()),
                    });
                }
                check_write(&file.path, parent, name, &deleted)?;
            }
        }
    }
    Ok(())
}

/// The folder `dir` can have entries made and removed in it.
fn writable(dir: &DirHandle, path: &Path, folder: &Path) -> Result<(), CheckpointError> {
    let access = rustix::fs::Access::WRITE_OK | rustix::fs::Access::EXEC_OK;
    rustix::fs::accessat(dir, ".", access, rustix::fs::AtFlags::EACCESS)
        .map_err(|e| restore_error(path, format!("its folder {} cannot be written: {e}", folder.display())))
}

fn check_delete(path: &Path, parent: &Path, name: &OsStr) -> Result<(), CheckpointError> {
    let dir = match open_dir(parent) {
        Ok(dir) => dir,
        Err(FileError::NotFound) => return Ok(()),
        Err(FileError::Link) => return Err(link_refused(path)),
        Err(e) => return Err(restore_error(path, e)),
    };
    match dir.stat_entry(name) {
        Ok(_) => writable(&dir, path, parent),
        Err(FileError::NotFound) => Ok(()),
        Err(e) => Err(restore_error(path, e)),
    }
}

fn check_write(path: &Path, parent: &Path, name: &OsStr, deleted: &HashSet<&Path>) -> Result<(), CheckpointError> {
    // The nearest folder above that exists: the restore makes the rest.
    let mut base = parent;
    let dir = loop {
        match open_dir(base) {
            Ok(dir) => break dir,
            Err(FileError::Link) => return Err(link_refused(path)),
            // A file this restore deletes first is no obstacle.
            Err(FileError::NotFound) => {}
            Err(FileError::NotRegular(_)) if deleted.iter().any(|d| base.starts_with(d)) => {}
            Err(FileError::NotRegular(_)) => {
                return Err(restore_error(path, "a folder on its path is not a folder now"));
            }
            Err(e) => return Err(restore_error(path, e)),
        }
        base = base.parent().ok_or_else(|| restore_error(path, "no folder on its path exists"))?;
    };
    writable(&dir, path, base)?;
    if base != parent {
        return Ok(());
    }
    let kind = match dir.stat_entry(name) {
        Ok(stat) => FileType::from_raw_mode(stat.st_mode),
        Err(FileError::NotFound) => return Ok(()),
        Err(e) => return Err(restore_error(path, e)),
    };
    match kind {
        FileType::RegularFile | FileType::Symlink => Ok(()),
        FileType::Directory if emptied(&dir, name, path, deleted, 0) => Ok(()),
        FileType::Directory => Err(restore_error(path, "is a folder now, not empty; it is left as it is")),
        _ => Err(restore_error(path, "is a special file now (a FIFO, socket or device); it is left as it is")),
    }
}

/// Whether the folder `name` of `dir` (at `path`) is empty once this restore's deletions
/// (`deleted`) have run.
fn emptied(dir: &DirHandle, name: &OsStr, path: &Path, deleted: &HashSet<&Path>, depth: usize) -> bool {
    const MAX_DEPTH: usize = 64;
    let Ok(folder) = airlock_files::open_dir_in(dir, Path::new(name)) else { return false };
    let Ok(names) = folder.entries() else { return false };
    depth < MAX_DEPTH
        && names.iter().all(|child| {
            let at = path.join(child);
            let is_dir =
                folder.stat_entry(child).is_ok_and(|s| FileType::from_raw_mode(s.st_mode) == FileType::Directory);
            deleted.contains(at.as_path()) && (!is_dir || emptied(&folder, child, &at, deleted, depth + 1))
        })
}

/// The order a restore works in: every deletion, deepest first (a folder's files before the
/// folder), then every write, shallowest first (a folder removed before a file takes its
/// place, and before the files under a folder that replaces a file). The sorts are stable:
/// paths of one depth keep the caller's order.
fn ordered(files: &[Restore]) -> Vec<&Restore> {
    let depth = |file: &&Restore| file.path.components().count();
    let (mut deletions, mut writes): (Vec<&Restore>, Vec<&Restore>) = files.iter().partition(|f| f.to.is_none());
    deletions.sort_by_key(|file| Reverse(depth(file)));
    writes.sort_by_key(depth);
    deletions.extend(writes);
    deletions
}

/// Whether removing a folder failed because it holds something.
fn not_empty(error: &FileError) -> bool {
    let full = [rustix::io::Errno::NOTEMPTY, rustix::io::Errno::EXIST].map(|e| Some(e.raw_os_error()));
    matches!(error, FileError::Io(e) if full.contains(&e.raw_os_error()))
}

fn one(inner: &Inner, file: &Restore, temp: Option<&OsStr>, done: &mut Restored) -> Result<(), CheckpointError> {
    let (parent, name) = split(&file.path)?;
    let (Some(entry), Some(temp)) = (&file.to, temp) else {
        return delete(&file.path, parent, name, done);
    };
    let content = crate::read_entry(inner, entry)?;
    let dir = make_parent(parent, &file.path)?;
    // A folder cannot be renamed over: an empty one (a deletion of this restore may have
    // emptied it) goes first; one with anything in it is left, and this file with it.
    if dir.stat_entry(name).is_ok_and(|stat| FileType::from_raw_mode(stat.st_mode) == FileType::Directory) {
        dir.remove_empty_dir(name).map_err(|e| match e {
            e if not_empty(&e) => restore_error(&file.path, "is a folder now, not empty; it is left as it is"),
            other => restore_error(&file.path, other),
        })?;
    }
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

/// Deletes the file or link at `path`, or the folder there when it is empty (one holding
/// anything is left as it is, in [`Restored::folders_left`]).
fn delete(path: &Path, parent: &Path, name: &OsStr, done: &mut Restored) -> Result<(), CheckpointError> {
    let dir = match open_dir(parent) {
        Ok(dir) => dir,
        Err(FileError::NotFound) => return Ok(()),
        Err(FileError::Link) => return Err(link_refused(path)),
        Err(e) => return Err(restore_error(path, e)),
    };
    let is_dir = match dir.stat_entry(name) {
        Ok(stat) => FileType::from_raw_mode(stat.st_mode) == FileType::Directory,
        Err(FileError::NotFound) => return Ok(()),
        Err(e) => return Err(restore_error(path, e)),
    };
    let removed = if is_dir { dir.remove_empty_dir(name) } else { dir.remove_file(name) };
    match removed {
        Ok(()) => done.deleted += 1,
        Err(FileError::NotFound) => {}
        Err(e) if is_dir && not_empty(&e) => done.folders_left.push(path.to_path_buf()),
        // Made a folder since the stat: left as it is.
        Err(FileError::NotRegular(_)) => done.folders_left.push(path.to_path_buf()),
        Err(e) => return Err(restore_error(path, e)),
    }
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
