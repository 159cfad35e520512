//! airlock's own temporary files that a write cut short leaves behind.
//!
//! The host's own writes leave none where the file system has `O_TMPFILE` ([`super::atomic`]).
//! A tool's atomic write (the plugin SDK's) stages the file as `.NAME.airlock-HEX.tmp` beside
//! it, through WASI, where no anonymous file exists; a call stopped mid-write (its deadline,
//! a cancel, `kill -9` of airlock) would leave that file, as large as the file written. So:
//!
//! - the runtime notes every file a guest creates under that naming (its path, device and
//!   inode: [`TempFile`]) in the call's [`CallTemps`], and appends it to this process's
//!   journal (`$AIRLOCK_HOME/journal/PID-HEX.journal`), which the process keeps locked
//!   (`flock`) for as long as it lives;
//! - when the call's instance goes, the files it noted that are still there under their
//!   name are removed;
//! - at the next start, [`start`] reads every journal that no live process holds and
//!   removes the files it lists that are still there, then the journal.
//!
//! Invariants: a file is removed only when it still has airlock's temporary naming and the
//! device and inode noted when it was created, is a regular file, and its folder is reached
//! from `/` without following a link; a journal that a live process holds is never read for
//! removal (two sessions may write in one folder at once).

use std::ffi::OsStr;
use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, OnceLock, PoisonError};

use rustix::fs::{AtFlags, FileType, FlockOperation, Mode, OFlags};

use super::open_dir;

/// The journals' folder in `$AIRLOCK_HOME`.
pub const JOURNAL_DIR: &str = "journal";
/// Most temporary files noted for one call: a guest that creates more (a flood) leaves the
/// rest to itself, and cannot grow the host's memory or journal without bound.
const MAX_NOTED_PER_CALL: usize = 4096;
/// Largest journal read; a longer one is removed unread (it lists files whose writes
/// finished long ago).
const MAX_JOURNAL_BYTES: u64 = 16 << 20;

/// Whether `name` has airlock's temporary naming: `.NAME.airlock-HEX.tmp`.
pub fn is_temp_name(name: &[u8]) -> bool {
    let Some(rest) = name.strip_prefix(b".").and_then(|r| r.strip_suffix(b".tmp")) else { return false };
    let Some(at) = rest.windows(9).rposition(|w| w == b".airlock-") else { return false };
    let hex = &rest[at + 9..];
    at > 0 && (1..=32).contains(&hex.len()) && hex.iter().all(u8::is_ascii_hexdigit)
}

/// A file created under airlock's temporary naming, as it was when created.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TempFile {
    pub path: PathBuf,
    dev: u64,
    ino: u64,
}

impl TempFile {
    /// The open file `file`, by the path the kernel gives it now, when it is a regular file
    /// with airlock's temporary naming.
    pub fn of(file: &File) -> Option<Self> {
        let stat = rustix::fs::fstat(file).ok()?;
        if FileType::from_raw_mode(stat.st_mode) != FileType::RegularFile {
            return None;
        }
        let link = format!("/proc/self/fd/{}", file.as_raw_fd());
        let path = PathBuf::from(OsStr::from_bytes(rustix::fs::readlink(link.as_str(), Vec::new()).ok()?.as_bytes()));
        is_temp_name(path.file_name()?.as_bytes()).then_some(Self { path, dev: stat.st_dev, ino: stat.st_ino })
    }

    /// Removes the file when it is still the one noted; whether it did.
    pub fn remove(&self) -> bool {
        let (Some(dir), Some(name)) = (self.path.parent(), self.path.file_name()) else { return false };
        if !is_temp_name(name.as_bytes()) {
            return false;
        }
        let Ok(dir) = open_dir(dir) else { return false };
        let same = dir.stat_entry(name).is_ok_and(|stat| {
            FileType::from_raw_mode(stat.st_mode) == FileType::RegularFile
                && stat.st_dev == self.dev
                && stat.st_ino == self.ino
        });
        same && dir.remove_file(name).is_ok()
    }

    fn line(&self) -> Vec<u8> {
        let mut line = format!("{} {} ", self.dev, self.ino).into_bytes();
        line.extend(hex::encode(self.path.as_os_str().as_bytes()).into_bytes());
        line.push(b'\n');
        line
    }

    fn parse(line: &str) -> Option<Self> {
        let mut parts = line.split(' ');
        let dev = parts.next()?.parse().ok()?;
        let ino = parts.next()?.parse().ok()?;
        let path = PathBuf::from(OsStr::from_bytes(&hex::decode(parts.next()?).ok()?));
        path.is_absolute().then_some(Self { path, dev, ino })
    }
}

/// The temporary files one call's guest created; those still there when it is dropped (the
/// call's instance is gone) are removed.
#[derive(Debug, Default)]
pub struct CallTemps(Vec<TempFile>);

impl CallTemps {
    pub fn add(&mut self, temp: TempFile) {
        if self.0.len() < MAX_NOTED_PER_CALL {
            record(&temp);
            self.0.push(temp);
        }
    }
}

impl Drop for CallTemps {
    fn drop(&mut self) {
        for temp in &self.0 {
            if temp.remove() {
                tracing::info!("removed {}, left by a write that did not finish", temp.path.display());
            }
        }
    }
}

/// This process's journal: its folder, and the file once something was written to it.
struct Journal {
    dir: PathBuf,
    file: Mutex<Option<File>>,
}

static JOURNAL: OnceLock<Journal> = OnceLock::new();

/// Keeps this process's journal in `home` and removes what dead processes' journals list.
/// Returns how many files it removed.
pub fn start(home: &Path) -> usize {
    let dir = home.join(JOURNAL_DIR);
    let removed = sweep(&dir);
    let _ = JOURNAL.set(Journal { dir, file: Mutex::new(None) });
    removed
}

/// Makes sure this process's journal exists, before a guest creates a temporary file: the
/// journal's creation (a folder, a locked file, a rename) then lies outside the instant
/// between the file's creation and its line in the journal, where a kill leaves the file.
pub fn prepare() {
    let Some(journal) = JOURNAL.get() else { return };
    let mut file = journal.file.lock().unwrap_or_else(PoisonError::into_inner);
    open_journal(journal, &mut file);
}

/// Appends `temp` to this process's journal (created and locked on first use). Without a
/// journal (no [`start`], or it cannot be written) the file is still removed when its call
/// ends; only a kill would leave it.
fn record(temp: &TempFile) {
    let Some(journal) = JOURNAL.get() else { return };
    let mut file = journal.file.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(file) = open_journal(journal, &mut file)
        && let Err(error) = file.write_all(&temp.line())
    {
        tracing::warn!("cannot write the journal of temporary files: {error}");
    }
}

/// The journal's file, created and locked when `file` holds none yet.
fn open_journal<'a>(journal: &Journal, file: &'a mut Option<File>) -> Option<&'a mut File> {
    if file.is_none() {
        match create_journal(&journal.dir) {
            Ok(created) => *file = Some(created),
            Err(error) => {
                tracing::warn!("cannot keep a journal of temporary files in {}: {error}", journal.dir.display());
                return None;
            }
        }
    }
    file.as_mut()
}

/// A new journal of this process in `dir`, locked. It is locked under a name no sweep
/// reads, then renamed: a sweep never sees it unlocked.
fn create_journal(dir: &Path) -> std::io::Result<File> {
    let mut builder = std::fs::DirBuilder::new();
    std::os::unix::fs::DirBuilderExt::mode(builder.recursive(true), 0o700);
    builder.create(dir)?;
    let handle = super::open_user_dir(dir).map_err(|e| std::io::Error::other(e.to_string()))?;
    let stem = format!("{}-{:016x}", std::process::id(), rand::random::<u64>());
    let fresh = format!("{stem}.new");
    let flags = OFlags::WRONLY | OFlags::APPEND | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
    let fd = rustix::fs::openat(&handle.fd, fresh.as_str(), flags, Mode::from_raw_mode(0o600))?;
    rustix::fs::flock(&fd, FlockOperation::LockExclusive)?;
    rustix::fs::renameat(&handle.fd, fresh.as_str(), &handle.fd, format!("{stem}.journal").as_str())?;
    Ok(File::from(fd))
}

/// Removes what every journal of `dir` that no live process holds lists, then the journal;
/// how many files it removed.
fn sweep(dir: &Path) -> usize {
    let Ok(handle) = super::open_user_dir(dir) else { return 0 };
    let Ok(names) = handle.entries() else { return 0 };
    let mut removed = 0;
    for name in names {
        let bytes = name.as_bytes();
        let journal = bytes.ends_with(b".journal");
        if !journal && !bytes.ends_with(b".new") {
            continue;
        }
        let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
        let Ok(fd) = rustix::fs::openat(&handle.fd, name.as_os_str(), flags, Mode::empty()) else { continue };
        // Held by a live process: its files may be mid-write.
        if rustix::fs::flock(&fd, FlockOperation::NonBlockingLockExclusive).is_err() {
            continue;
        }
        let mut file = File::from(fd);
        if journal {
            let mut text = String::new();
            let _ = Read::by_ref(&mut file).take(MAX_JOURNAL_BYTES).read_to_string(&mut text);
            removed += text.lines().filter_map(TempFile::parse).filter(TempFile::remove).count();
        }
        // Removed while still locked, so no other sweep reads it twice.
        let _ = rustix::fs::unlinkat(&handle.fd, name.as_os_str(), AtFlags::empty());
        drop(file);
    }
    if removed > 0 {
        tracing::info!("removed {removed} temporary file(s) left by writes a killed airlock did not finish");
    }
    removed
}

#[cfg(test)]
#[path = "leftovers_tests.rs"]
mod tests;
