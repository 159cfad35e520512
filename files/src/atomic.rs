//! Atomic writes: a file is written whole and synced before any name leads to it, so a
//! reader (or a crash, or `kill -9`) never sees half of it, and nothing is left behind.
//!
//! Everything works through a handle on the folder ([`write_in`], [`Staged`]): the content
//! is staged in that folder and moved into place by `linkat`/`renameat` relative to the
//! same handle, so a folder on the path swapped for a link after the handle was opened
//! cannot carry the write elsewhere. Staging is an anonymous file (`O_TMPFILE`) linked in
//! only when whole, where the file system has it (Linux: ext4, xfs, btrfs, tmpfs): a kill
//! mid-write leaves no file at all. Elsewhere the content goes to `.NAME.airlock-HEX.tmp`,
//! created exclusively (`O_CREAT|O_EXCL`, which never follows a link), mode 0600, and
//! removed when the write fails.
//!
//! The path-based functions ([`write_atomically`], [`write_new`], [`write_once`]) are for
//! the user's and airlock's own files: they open the folder by its path (links followed,
//! the user's), then do the same.

use std::ffi::{OsStr, OsString};
use std::fs::{self, File};
use std::io::{self, Write};
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use rustix::fs::{AtFlags, Mode, OFlags};

use super::{DirHandle, FileError, open_user_dir};

/// Whether [`write_in`] may replace an existing file of that name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Replace {
    Always,
    /// An existing entry stays, and the write fails with `AlreadyExists`.
    Never,
}

/// Content written whole in a folder, not yet under its name.
pub struct Staged<'a> {
    dir: &'a DirHandle,
    file: File,
    /// The temporary name of a staged file that has one (no `O_TMPFILE`); `None` once
    /// moved into place.
    temp: Option<OsString>,
    /// Whether the file has no name at all yet (`O_TMPFILE`, not committed).
    anonymous: bool,
}

impl<'a> Staged<'a> {
    /// Writes `contents` (synced) to a file of `dir` that no name leads to yet, or under a
    /// fresh temporary name made from `name` where the file system cannot do that.
    pub fn write(dir: &'a DirHandle, name: &OsStr, contents: &[u8]) -> io::Result<Self> {
        let staged = match anonymous_file(dir) {
            Some(fd) => Self { dir, file: File::from(fd), temp: None, anonymous: true },
            None => {
                let (temp, fd) = named_temp(dir, name)?;
                Self { dir, file: File::from(fd), temp: Some(temp), anonymous: false }
            }
        };
        // On an error the staged file is dropped, which removes a temporary name.
        (&staged.file).write_all(contents)?;
        staged.file.sync_all()?;
        Ok(staged)
    }

    /// A path that reads the staged content (for APIs that only take paths), valid while
    /// `self` lives.
    pub fn reading_path(&self) -> PathBuf {
        match &self.temp {
            Some(temp) => self.dir.wasi_path().join(temp),
            None => PathBuf::from(format!("{}/{}", proc_fd(), self.file.as_raw_fd())),
        }
    }

    /// Gives the content the name `name` in its folder. With [`Replace::Never`] an existing
    /// entry of that name stays and the error is `AlreadyExists` (the content stays staged,
    /// for another name).
    pub fn commit(&mut self, name: &OsStr, replace: Replace) -> io::Result<()> {
        super::check_name(name).map_err(as_io)?;
        if let Some(temp) = self.temp.clone() {
            self.dir.rename(&temp, self.dir, name, replace == Replace::Always).map_err(as_io)?;
            self.temp = None;
            return Ok(());
        }
        if !self.anonymous {
            return Err(io::Error::other("the staged file was already moved into place"));
        }
        match replace {
            Replace::Never => self.link_as(name)?,
            // A link never replaces: link under a fresh temporary name, then rename that over
            // the file (only this short step can leave a name behind, on a kill between them).
            Replace::Always => {
                let mut attempt = 0;
                let temp = loop {
                    let temp = temp_name(name);
                    match self.link_as(&temp) {
                        Ok(()) => break temp,
                        Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempt < 16 => attempt += 1,
                        Err(e) => return Err(e),
                    }
                };
                self.temp = Some(temp.clone());
                self.dir.rename(&temp, self.dir, name, true).map_err(as_io)?;
                self.temp = None;
            }
        }
        self.anonymous = false;
        Ok(())
    }

    fn link_as(&self, name: &OsStr) -> io::Result<()> {
        let source = format!("{}/{}", proc_fd(), self.file.as_raw_fd());
        rustix::fs::linkat(rustix::fs::CWD, source.as_str(), &self.dir.fd, name, AtFlags::SYMLINK_FOLLOW)
            .map_err(io::Error::from)
    }
}

impl Drop for Staged<'_> {
    fn drop(&mut self) {
        if let Some(temp) = self.temp.take() {
            let _ = rustix::fs::unlinkat(&self.dir.fd, temp.as_os_str(), AtFlags::empty());
        }
    }
}

/// Where this process's open descriptors can be reopened by path.
fn proc_fd() -> &'static str {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    return "/proc/self/fd";
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    return "/dev/fd";
}

/// A new file of `dir` without a name (`O_TMPFILE`), when the file system supports it and
/// it can be linked in later (through `/proc/self/fd`).
fn anonymous_file(dir: &DirHandle) -> Option<OwnedFd> {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        static PROC_MOUNTED: OnceLock<bool> = OnceLock::new();
        if !*PROC_MOUNTED.get_or_init(|| Path::new("/proc/self/fd").is_dir()) {
            return None;
        }
        let flags = OFlags::TMPFILE | OFlags::WRONLY | OFlags::CLOEXEC;
        rustix::fs::openat(&dir.fd, ".", flags, Mode::from_raw_mode(0o600)).ok()
    }
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    {
        let _ = (dir, &OnceLock::<bool>::new());
        None
    }
}

/// The temporary name of a file written for `name`: airlock's own naming, which
/// [`super::leftovers`] recognises.
pub fn temp_name(name: &OsStr) -> OsString {
    let mut temp = OsString::from(".");
    temp.push(name);
    temp.push(format!(".airlock-{:016x}.tmp", rand::random::<u64>()));
    temp
}

/// A new, exclusively created file of `dir` under a fresh temporary name for `name`.
fn named_temp(dir: &DirHandle, name: &OsStr) -> io::Result<(OsString, OwnedFd)> {
    let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let mut attempt = 0;
    loop {
        let temp = temp_name(name);
        match rustix::fs::openat(&dir.fd, temp.as_os_str(), flags, Mode::from_raw_mode(0o600)) {
            Ok(fd) => return Ok((temp, fd)),
            Err(rustix::io::Errno::EXIST) if attempt < 16 => attempt += 1,
            Err(e) => return Err(e.into()),
        }
    }
}

fn as_io(error: FileError) -> io::Error {
    match error {
        FileError::Io(e) => e,
        FileError::NotFound => io::ErrorKind::NotFound.into(),
        other => io::Error::other(other.to_string()),
    }
}

/// Writes `contents` as the file `name` of the open folder `dir`: whole or not at all, never
/// through a link (a link of that name is replaced by the file, its target untouched).
pub fn write_in(dir: &DirHandle, name: &OsStr, contents: &[u8], replace: Replace) -> io::Result<()> {
    Staged::write(dir, name, contents)?.commit(name, replace)
}

/// The user's folder `dir`, created when missing, opened (links followed: the user's).
fn user_dir(dir: &Path) -> io::Result<DirHandle> {
    fs::create_dir_all(dir)?;
    open_user_dir(dir).map_err(as_io)
}

/// The folder and the name of the file `path`.
fn split(path: &Path) -> io::Result<(&Path, &OsStr)> {
    let name = path.file_name().ok_or_else(|| io::Error::other(format!("{} names no file", path.display())))?;
    let dir = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    Ok((dir, name))
}

/// Writes a file of the user's (or airlock's own) so that readers see either the old content
/// or the whole new content.
pub fn write_atomically(path: &Path, contents: &[u8]) -> io::Result<()> {
    let (dir, name) = split(path)?;
    write_in(&user_dir(dir)?, name, contents, Replace::Always)
}

/// Writes `contents` to a new file of `dir`, named by the first of `name(0)`, `name(1)`, …
/// (at most 100 tries) that is free; an existing file is never replaced. Returns its path.
pub fn write_new(dir: &Path, contents: &[u8], name: impl Fn(u32) -> String) -> io::Result<PathBuf> {
    let handle = user_dir(dir)?;
    let mut staged = Staged::write(&handle, OsStr::new(&name(0)), contents)?;
    let mut attempt = 0;
    loop {
        let candidate = name(attempt);
        match staged.commit(OsStr::new(&candidate), Replace::Never) {
            Ok(()) => return Ok(dir.join(candidate)),
            Err(error) if error.kind() == io::ErrorKind::AlreadyExists && attempt < 100 => attempt += 1,
            Err(error) => return Err(error),
        }
    }
}

/// Creates `path` (mode 0600) holding `contents` unless a file is there already: when two
/// processes race, the first one's file stays. A file already there is replaced only when
/// `replace_existing` says so (it is unreadable or damaged); kept, it makes the error
/// `AlreadyExists`.
pub fn write_once(path: &Path, contents: &[u8], replace_existing: impl FnOnce() -> bool) -> io::Result<()> {
    let (dir, name) = split(path)?;
    let handle = user_dir(dir)?;
    let mut staged = Staged::write(&handle, name, contents)?;
    match staged.commit(name, Replace::Never) {
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists && replace_existing() => {
            staged.commit(name, Replace::Always)
        }
        other => other,
    }
}

#[cfg(test)]
#[path = "atomic_tests.rs"]
mod tests;
