//! Where plugin components come from, and their content hashes. Built-ins are embedded in
//! the binary with hashes computed at build time. Plugin files are found and read through
//! [`airlock_files`]: a workspace's without following any link (a link, folder, FIFO or
//! device named `*.wasm` is reported and skipped), the user's own following links but
//! still regular files only; never blocking, never more than [`MAX_PLUGIN_BYTES`].
//!
//! Identity comes from content. A file's sha-256 is cached under a stamp of what the
//! kernel says about the open file — device, inode, size, modification *and change* time —
//! tagged with the cache's secret (so it cannot be forged). A guest can restore a file's
//! modification time with WASI `set-times`, but that sets the change time to now, and no
//! WASI call sets it back; a stamp is only stored when both times are safely in the past
//! (a later write cannot land in the same clock tick). Whatever the stamp says, the bytes
//! compiled are checked against the digest when they are read ([`PluginSource::bytes`]), so
//! code never runs under another code's digest.

use std::ffi::OsStr;
use std::fs::File;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde::{Deserialize, Serialize};

use super::LoadProblem;
use super::lock::{self, Lock};
use crate::runtime::RuntimeError;
use crate::runtime::cache::{CompileCache, EntryKind};
use airlock_files::{self as files, FileError};

mod builtin {
    include!(concat!(env!("OUT_DIR"), "/builtins.rs"));
}

/// Largest plugin file read.
pub const MAX_PLUGIN_BYTES: u64 = 256 << 20;
/// Largest plugin file read from a workspace — untrusted, and compiled before any trust
/// (the largest real guests, Python and JavaScript, are 12–18 MiB).
pub const MAX_WORKSPACE_PLUGIN_BYTES: u64 = 64 << 20;
/// Most plugin files one workspace may bring; the rest are reported, not read.
pub const MAX_WORKSPACE_PLUGINS: usize = 16;

/// Largest plugin file read from `origin`.
fn max_bytes(origin: Origin) -> u64 {
    if origin == Origin::Workspace { MAX_WORKSPACE_PLUGIN_BYTES } else { MAX_PLUGIN_BYTES }
}
/// How far in the past a file's times must be for its stamp to be kept.
const SETTLED: Duration = Duration::from_secs(2);

/// The three places plugins come from, in precedence order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Origin {
    Builtin,
    User,
    Workspace,
}

/// One component to load.
#[derive(Debug, Clone)]
pub struct PluginSource {
    pub origin: Origin,
    /// The file, or the built-in's name.
    pub path: PathBuf,
    pub content_hash: String,
    embedded: Option<&'static [u8]>,
    /// A built-in's native code, compiled at build time for the runtime's engine settings.
    pub precompiled: Option<&'static [u8]>,
}

impl PluginSource {
    pub fn display(&self) -> String {
        match self.origin {
            Origin::Builtin => format!("built-in {}", self.path.display()),
            _ => self.path.display().to_string(),
        }
    }

    /// The file's name in its folder (what trust pins a workspace plugin by).
    pub fn file_name(&self) -> String {
        self.path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default()
    }

    /// The component's bytes, exactly those whose digest is `content_hash`.
    pub fn bytes(&self) -> Result<Vec<u8>, RuntimeError> {
        if let Some(bytes) = self.embedded {
            return Ok(bytes.to_vec());
        }
        let failed = |reason: String| RuntimeError::Read { path: self.path.clone(), reason };
        let bytes = match self.origin {
            Origin::Workspace => files::read_file(&self.path, MAX_WORKSPACE_PLUGIN_BYTES),
            Origin::Builtin | Origin::User => files::read_user_file(&self.path, MAX_PLUGIN_BYTES),
        }
        .map_err(|e| failed(e.to_string()))?;
        if files::content_hash(&bytes) != self.content_hash {
            return Err(failed(
                "the file changed after airlock identified it (trust and grants were given to its old content); \
                 run airlock again"
                    .into(),
            ));
        }
        Ok(bytes)
    }
}

/// The built-in components.
pub fn builtins() -> Vec<PluginSource> {
    builtin::BUILTIN_COMPONENTS
        .iter()
        .map(|builtin| PluginSource {
            origin: Origin::Builtin,
            path: PathBuf::from(builtin.file),
            content_hash: builtin.hash.to_string(),
            embedded: Some(builtin.bytes),
            precompiled: builtin.native,
        })
        .collect()
}

/// Whether `name` is a built-in's plugin name (`read-file`, also spelled `read_file`): no
/// other plugin may take it, or it would inherit the user's grant of the built-in.
pub fn is_reserved(name: &str) -> bool {
    let wanted = name.replace('_', "-");
    builtin::BUILTIN_COMPONENTS.iter().any(|b| b.file.trim_end_matches(".wasm").replace('_', "-") == wanted)
}

fn problem(path: &Path, reason: impl std::fmt::Display) -> LoadProblem {
    LoadProblem { path: path.display().to_string(), reason: reason.to_string() }
}

/// A plugin file opened for reading, or why it could not be.
type Opened = Result<(File, rustix::fs::Stat), FileError>;

/// Every `*.wasm` file directly in `dir`, by file name, and what was wrong with the others.
/// A missing folder holds nothing. A workspace folder (`origin` Workspace) is opened without
/// following links, from `dir` (canonical) down; the user's folder follows them.
/// Without a `cache`, every file is hashed (as `airlock trust` does). With `require_signed`
/// (the folder's policy requires signed plugins), only files whose lock entry records a
/// verified signature load ([`lock::check_signed`]); in a workspace folder, only a signature
/// the user's own records in `home` vouch for counts ([`lock::WorkspaceRecords`]).
pub fn scan(
    dir: &Path,
    origin: Origin,
    cache: Option<&CompileCache>,
    require_signed: Option<&str>,
    home: Option<&Path>,
) -> (Vec<PluginSource>, Vec<LoadProblem>) {
    let mut problems = Vec::new();
    let (names, lock): (Vec<(PathBuf, Opened)>, _) = if origin == Origin::Workspace {
        let handle = match files::open_dir(dir) {
            Ok(handle) => handle,
            Err(FileError::NotFound) => return (Vec::new(), problems),
            Err(e) => return (Vec::new(), vec![problem(dir, format!("ignored: {e}"))]),
        };
        let mut names = match handle.entries() {
            Ok(names) => names,
            Err(e) => return (Vec::new(), vec![problem(dir, format!("cannot list: {e}"))]),
        };
        names.retain(|n| Path::new(n).extension().is_some_and(|e| e == "wasm"));
        names.sort();
        for name in names.iter().skip(MAX_WORKSPACE_PLUGINS) {
            problems.push(problem(
                &dir.join(name),
                format!("ignored: a workspace may bring at most {MAX_WORKSPACE_PLUGINS} plugins"),
            ));
        }
        names.truncate(MAX_WORKSPACE_PLUGINS);
        let opened = names.into_iter().map(|name| (dir.join(&name), handle.open_regular(OsStr::new(&name)))).collect();
        // The lock of the folder listed, read through the same handle.
        // Its signature records are the repository's word: replaced by the user's own.
        let records = match (require_signed, home) {
            (Some(_), Some(home)) => match lock::WorkspaceRecords::read(home) {
                Ok(records) => Some(records),
                Err(e) => {
                    problems.push(problem(&home.join(lock::WORKSPACE_RECORDS), format!("{e}; not read")));
                    None
                }
            },
            _ => None,
        };
        (opened, Lock::read_in(&handle, dir).map(|lock| lock.vouched(dir, records.as_ref())))
    } else {
        let entries = match std::fs::read_dir(dir) {
            Ok(entries) => entries,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return (Vec::new(), problems),
            Err(e) => return (Vec::new(), vec![problem(dir, format!("cannot list: {e}"))]),
        };
        let mut paths: Vec<PathBuf> = entries
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "wasm"))
            .collect();
        paths.sort();
        (paths.into_iter().map(|path| (path.clone(), files::open_user_file(&path))).collect(), Lock::read(dir))
    };
    // What `airlock plugins install` recorded: a file that no longer matches is not loaded.
    let lock = lock.unwrap_or_else(|error| {
        problems.push(problem(&lock::path_in(dir), format!("{error}; its entries are not checked")));
        Lock::default()
    });
    let mut sources = Vec::new();
    for (path, opened) in names {
        let identified = opened.and_then(|(file, stat)| match cache {
            Some(cache) => identify(&file, &stat, &path, cache, max_bytes(origin)),
            None => files::sha256_bounded(&file, &stat, max_bytes(origin)),
        });
        match identified {
            Ok(content_hash) => match lock::check(&lock, &path, &content_hash)
                .or_else(|| require_signed.and_then(|origin| lock::check_signed(&lock, &path, origin)))
            {
                Some(mismatch) => problems.push(problem(&path, mismatch)),
                None => sources.push(PluginSource { origin, path, content_hash, embedded: None, precompiled: None }),
            },
            Err(e) => problems.push(problem(&path, format!("ignored: {e}"))),
        }
    }
    (sources, problems)
}

impl PluginSource {
    /// A component file named by the user (`airlock plugins inspect`): links followed,
    /// bounded, regular only.
    pub fn file(path: PathBuf, origin: Origin) -> Result<Self, FileError> {
        let (file, stat) = files::open_user_file(&path)?;
        let content_hash = files::sha256_bounded(&file, &stat, MAX_PLUGIN_BYTES)?;
        Ok(Self { origin, path, content_hash, embedded: None, precompiled: None })
    }
}

/// What the kernel says about an open file; any write, rename over, or `set-times` changes it.
#[derive(Debug, PartialEq, Eq, Serialize, Deserialize)]
struct Stamp {
    dev: i128,
    inode: i128,
    len: i128,
    modified_ns: i128,
    changed_ns: i128,
}

impl Stamp {
    fn of(stat: &rustix::fs::Stat) -> Self {
        let ns = |secs: i128, nanos: i128| secs * 1_000_000_000 + nanos;
        Self {
            dev: i128::from(stat.st_dev),
            inode: i128::from(stat.st_ino),
            len: i128::from(stat.st_size),
            modified_ns: ns(i128::from(stat.st_mtime), i128::from(stat.st_mtime_nsec)),
            changed_ns: ns(i128::from(stat.st_ctime), i128::from(stat.st_ctime_nsec)),
        }
    }

    /// Both times lie safely before `now`, so a later change cannot keep them.
    fn settled(&self, now: SystemTime) -> bool {
        let now_ns = now.duration_since(UNIX_EPOCH).map_or(0, |d| i128::try_from(d.as_nanos()).unwrap_or(0));
        let settled = now_ns - i128::try_from(SETTLED.as_nanos()).unwrap_or(0);
        self.modified_ns < settled && self.changed_ns < settled
    }
}

/// A stamp and the content hash it stands for.
#[derive(Debug, Serialize, Deserialize)]
struct SavedStamp {
    stamp: Stamp,
    content_hash: String,
}

/// The content hash of the open plugin `file` at `path`: from its tagged stamp when the
/// file is unchanged, else by hashing it (streamed, bounded).
fn identify(
    file: &File,
    stat: &rustix::fs::Stat,
    path: &Path,
    cache: &CompileCache,
    limit: u64,
) -> Result<String, FileError> {
    use std::os::unix::ffi::OsStrExt;
    let subject = path.as_os_str().as_bytes();
    let stamp_path = cache.stamp_path(path);
    let stamp = Stamp::of(stat);
    if let Some(body) = cache.read_entry(EntryKind::FileStamp, subject, &stamp_path)
        && let Ok(saved) = serde_json::from_slice::<SavedStamp>(&body)
        && saved.stamp == stamp
    {
        return Ok(saved.content_hash);
    }
    let now = SystemTime::now();
    let content_hash = files::sha256_bounded(file, stat, limit)?;
    let unchanged = rustix::fs::fstat(file).is_ok_and(|after| Stamp::of(&after) == stamp);
    if unchanged && stamp.settled(now) {
        let saved = SavedStamp { stamp, content_hash: content_hash.clone() };
        if let Ok(json) = serde_json::to_vec(&saved)
            && let Err(error) = cache.write_entry(EntryKind::FileStamp, subject, &stamp_path, &json)
        {
            tracing::warn!("cannot cache the digest of {}: {error}", path.display());
        }
    }
    Ok(content_hash)
}
