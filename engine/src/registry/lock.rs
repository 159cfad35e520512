//! `plugins.lock`: what `airlock plugins install` put in a plugin folder — for each file, where
//! it came from and its sha-256. A file whose digest no longer matches its entry is not
//! loaded ([`check`]): a plugin replaced behind the user's back (by another program, a sync
//! tool, a `git pull` of a workspace folder) never runs under the name it was installed as.
//! Files dropped into the folder by hand have no entry and load as before.
//!
//! The file is TOML, one table per file name, written atomically through a handle on its
//! folder ([`Lock::write_in`]), so a folder swapped for a link while `install` or `remove`
//! runs cannot carry it elsewhere. A lock file that cannot be read is reported and then
//! treated as holding nothing (it can only take plugins away).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use airlock_files::{self as files, DirHandle};

/// The lock file's name in a plugin folder.
pub const FILE_NAME: &str = "plugins.lock";
/// Largest lock file read.
const MAX_BYTES: u64 = 1 << 20;

/// One installed file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// The plugin's name when it was installed.
    pub name: String,
    /// Its version then.
    pub version: String,
    /// The path or URL it was installed from.
    pub source: String,
    /// The hex sha-256 of the file.
    pub sha256: String,
    /// When, as seconds since the Unix epoch.
    pub installed_at: u64,
    /// For a plugin installed from an OCI registry: what the reference resolved to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub oci: Option<OciPin>,
    /// What was verified of its signature when it was installed; `None`: unsigned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signature: Option<SignatureRecord>,
}

/// What an OCI reference (`oci://HOST/REPO:TAG` or `…@sha256:…`) resolved to when a plugin
/// was installed from it: installing it again from a tag that has moved since is refused.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OciPin {
    /// The reference as given, without `oci://`: `HOST/REPO:TAG` or `HOST/REPO@sha256:…`.
    pub reference: String,
    /// The digest of the manifest it resolved to (`sha256:…`).
    pub manifest_digest: String,
}

/// Who signed a plugin and what was verified, when it was installed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SignatureRecord {
    /// Who signed it: a key's fingerprint (`sha256:…` of its public key) and the name it has
    /// in the policy, or a keyless identity (`subject` from `issuer`).
    pub signer: String,
    /// What was verified, in a sentence: "cosign signature with key …, over sha-256 …".
    pub verified: String,
}

/// A folder's lock file: entries by file name.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct Lock {
    #[serde(default)]
    pub plugins: BTreeMap<String, Entry>,
}

const HEADER: &str = "# Written by `airlock plugins install` and `remove`. A plugin file whose sha-256 differs\n\
                      # from its entry is not loaded. Files without an entry load as they are.\n\n";

impl Lock {
    /// The lock of the user's plugin folder `dir` (links followed: the user's). A missing
    /// file is an empty lock; an unreadable one is an error.
    pub fn read(dir: &Path) -> Result<Self, String> {
        let path = dir.join(FILE_NAME);
        Self::parse(&path, files::read_user_file(&path, MAX_BYTES))
    }

    /// The lock of the plugin folder open as `dir` (at `shown`, for messages), read without
    /// following a link.
    pub fn read_in(dir: &DirHandle, shown: &Path) -> Result<Self, String> {
        Self::parse(&shown.join(FILE_NAME), files::read_file_in(dir, Path::new(FILE_NAME), MAX_BYTES))
    }

    fn parse(path: &Path, read: Result<Vec<u8>, files::FileError>) -> Result<Self, String> {
        let bytes = match read {
            Ok(bytes) => bytes,
            Err(files::FileError::NotFound) => return Ok(Self::default()),
            Err(e) => return Err(format!("{}: {e}", path.display())),
        };
        let text = String::from_utf8(bytes).map_err(|_| format!("{}: not UTF-8 text", path.display()))?;
        toml::from_str(&text).map_err(|e| format!("{}: {}", path.display(), e.message()))
    }

    /// Writes the lock into the plugin folder open as `dir`, atomically; an empty lock
    /// removes the file.
    pub fn write_in(&self, dir: &DirHandle) -> std::io::Result<()> {
        let name = std::ffi::OsStr::new(FILE_NAME);
        if self.plugins.is_empty() {
            return match dir.remove_file(name) {
                Ok(()) | Err(files::FileError::NotFound) => Ok(()),
                Err(e) => Err(std::io::Error::other(e.to_string())),
            };
        }
        let body = toml::to_string_pretty(self).map_err(std::io::Error::other)?;
        files::write_in(dir, name, format!("{HEADER}{body}").as_bytes(), files::Replace::Always)
    }

    /// The entry of the file `name`, if it was installed.
    pub fn entry(&self, name: &str) -> Option<&Entry> {
        self.plugins.get(name)
    }
}

/// Why the plugin file `path`, whose sha-256 is `digest`, must not load under `lock`; `None`
/// when it has no entry or its entry matches.
pub fn check(lock: &Lock, path: &Path, digest: &str) -> Option<String> {
    let name = path.file_name()?.to_string_lossy();
    let entry = lock.entry(&name)?;
    if entry.sha256.eq_ignore_ascii_case(digest) {
        return None;
    }
    Some(format!(
        "not loaded: its sha-256 {digest} differs from the one recorded in {FILE_NAME} when {} {} was installed \
         from {} ({}); something replaced the file since. Install it again (`airlock plugins install`) or \
         remove it (`airlock plugins remove {}`)",
        entry.name, entry.version, entry.source, entry.sha256, entry.name
    ))
}

/// Why the plugin file `path` must not load in a folder whose policy (at `origin`) requires
/// signed plugins: it has no lock entry, or its entry records no verified signature. `None`
/// when it does ([`check`] has compared its digest with the entry's).
pub fn check_signed(lock: &Lock, path: &Path, origin: &str) -> Option<String> {
    let name = path.file_name()?.to_string_lossy();
    let why = match lock.entry(&name) {
        Some(entry) if entry.signature.is_some() => return None,
        Some(_) => {
            "it was installed without a signature (a workspace plugin counts as signed only when \
                     `airlock plugins install --in-workspace` verified it for you: a signature written in the \
                     workspace's plugins.lock proves nothing)"
        }
        None => "it was not installed with `airlock plugins install` (it has no entry in plugins.lock)",
    };
    Some(format!(
        "not loaded: this folder requires signed plugins (require_signed in {origin}) and {why}; install it \
         with `airlock plugins install FILE --signature SIG` (or `--bundle BUNDLE`)"
    ))
}

/// The user's own record (in `$AIRLOCK_HOME`) of the signatures verified when plugins were
/// installed into a workspace's folder. A workspace's `plugins.lock` is repository content, so
/// a signature it records proves nothing: under `require_signed` a workspace plugin loads only
/// when this file, which only `airlock plugins install --in-workspace` writes, vouches for its
/// folder, file name and sha-256.
pub const WORKSPACE_RECORDS: &str = "workspace-signatures.toml";

/// The signatures the user verified for workspace plugins: by canonical plugin folder, then
/// file name.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct WorkspaceRecords {
    #[serde(default)]
    pub folders: BTreeMap<String, BTreeMap<String, Witnessed>>,
}

/// One file's verified signature, for the bytes of `sha256` only.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Witnessed {
    pub sha256: String,
    pub signature: SignatureRecord,
}

impl WorkspaceRecords {
    /// The records in the user's home `home`; a missing file holds none.
    pub fn read(home: &Path) -> Result<Self, String> {
        let path = home.join(WORKSPACE_RECORDS);
        let bytes = match files::read_user_file(&path, MAX_BYTES) {
            Ok(bytes) => bytes,
            Err(files::FileError::NotFound) => return Ok(Self::default()),
            Err(e) => return Err(format!("{}: {e}", path.display())),
        };
        let text = String::from_utf8(bytes).map_err(|_| format!("{}: not UTF-8 text", path.display()))?;
        toml::from_str(&text).map_err(|e| format!("{}: {}", path.display(), e.message()))
    }

    /// Writes the records into `home`, atomically.
    pub fn write(&self, home: &Path) -> std::io::Result<()> {
        let body = toml::to_string_pretty(self).map_err(std::io::Error::other)?;
        let header = "# Written by `airlock plugins install --in-workspace`: the signatures verified for \
                      workspace plugins.\n\n";
        files::write_atomically(&home.join(WORKSPACE_RECORDS), format!("{header}{body}").as_bytes())
    }

    /// Records (or, with `None`, forgets) the signature of the file `name` in the workspace
    /// plugin folder `dir`; whether the records changed (an unsigned install with nothing to
    /// forget writes nothing under the user's home).
    pub fn set(&mut self, dir: &Path, name: &str, witnessed: Option<Witnessed>) -> bool {
        let key = dir.to_string_lossy().into_owned();
        match witnessed {
            Some(witnessed) => {
                self.folders.entry(key).or_default().insert(name.to_owned(), witnessed);
                true
            }
            None => {
                let Some(folder) = self.folders.get_mut(&key) else { return false };
                let removed = folder.remove(name).is_some();
                if folder.is_empty() {
                    self.folders.remove(&key);
                }
                removed
            }
        }
    }

    /// The signature verified for the file `name` of `dir` with the content `sha256`.
    pub fn get(&self, dir: &Path, name: &str, sha256: &str) -> Option<&SignatureRecord> {
        let witnessed = self.folders.get(dir.to_string_lossy().as_ref())?.get(name)?;
        witnessed.sha256.eq_ignore_ascii_case(sha256).then_some(&witnessed.signature)
    }
}

impl Lock {
    /// This workspace lock (of the folder `dir`) with each entry's signature replaced by the
    /// user's record of it, or dropped when the user has none for that entry's digest.
    pub fn vouched(mut self, dir: &Path, records: Option<&WorkspaceRecords>) -> Self {
        for (name, entry) in &mut self.plugins {
            entry.signature = records.and_then(|r| r.get(dir, name, &entry.sha256)).cloned();
        }
        self
    }
}

/// The lock file of a plugin folder, for messages.
pub fn path_in(dir: &Path) -> PathBuf {
    dir.join(FILE_NAME)
}

#[cfg(test)]
#[path = "lock_tests.rs"]
mod tests;
