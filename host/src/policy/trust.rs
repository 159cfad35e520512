//! Trusted folders (`$AIRLOCK_HOME/trust.toml`, written only by `airlock trust`). A
//! workspace's own policy file counts only when the folder is trusted *and* the file is
//! byte-for-byte what it was when it was trusted: trust is pinned to the file's hash, so a
//! `git pull`, a cloned repository or a tool call that rewrites the file cannot arm it.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::PolicyError;
use crate::runtime::cache::write_atomically;

/// Whether a workspace's policy may be used.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TrustStatus {
    Trusted,
    /// Never trusted.
    Untrusted,
    /// Trusted, but its policy file changed since.
    Changed,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
struct Folder {
    path: PathBuf,
    /// sha-256 of `<folder>/.airlock/policy.toml` when trusted, or `none`.
    policy_sha256: String,
}

#[derive(Debug, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct TrustFile {
    #[serde(default)]
    folder: Vec<Folder>,
}

/// The trusted folders.
#[derive(Debug)]
pub struct TrustStore {
    path: PathBuf,
    file: TrustFile,
}

impl TrustStore {
    pub fn load(path: &Path) -> Result<Self, PolicyError> {
        let file = match std::fs::read_to_string(path) {
            Ok(text) => toml::from_str(&text).map_err(|e| PolicyError::Invalid {
                path: path.to_path_buf(),
                line: e.span().map_or(1, |s| {
                    text.as_bytes()[..s.start.min(text.len())].iter().filter(|&&b| b == b'\n').count() + 1
                }),
                message: e.message().to_string(),
            })?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => TrustFile::default(),
            Err(e) => return Err(PolicyError::Read { path: path.to_path_buf(), reason: e.to_string() }),
        };
        Ok(Self { path: path.to_path_buf(), file })
    }

    /// The status of `workspace` whose policy file currently hashes to `policy_hash`.
    pub fn status(&self, workspace: &Path, policy_hash: &str) -> TrustStatus {
        match self.file.folder.iter().find(|f| f.path == workspace) {
            Some(folder) if folder.policy_sha256 == policy_hash => TrustStatus::Trusted,
            Some(_) => TrustStatus::Changed,
            None => TrustStatus::Untrusted,
        }
    }

    pub fn folders(&self) -> impl Iterator<Item = &Path> {
        self.file.folder.iter().map(|f| f.path.as_path())
    }

    /// Trusts `workspace` with its policy as it is now.
    pub fn trust(&mut self, workspace: &Path, policy_hash: &str) {
        self.file.folder.retain(|f| f.path != workspace);
        self.file.folder.push(Folder { path: workspace.to_path_buf(), policy_sha256: policy_hash.to_string() });
    }

    /// Forgets `workspace`; returns whether it was trusted.
    pub fn revoke(&mut self, workspace: &Path) -> bool {
        let before = self.file.folder.len();
        self.file.folder.retain(|f| f.path != workspace);
        before != self.file.folder.len()
    }

    pub fn save(&self) -> Result<(), PolicyError> {
        let text = toml::to_string_pretty(&self.file)
            .map_err(|e| PolicyError::Write { path: self.path.clone(), reason: e.to_string() })?;
        let text = format!("# Folders whose .airlock/policy.toml airlock uses. Managed by `airlock trust`.\n{text}");
        write_atomically(&self.path, text.as_bytes())
            .map_err(|e| PolicyError::Write { path: self.path.clone(), reason: e.to_string() })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trust_is_pinned_to_the_policy_hash() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("trust.toml");
        let mut store = TrustStore::load(&path).unwrap();
        let ws = Path::new("/work/project");
        assert_eq!(store.status(ws, "abc"), TrustStatus::Untrusted);
        store.trust(ws, "abc");
        store.save().unwrap();
        let store = TrustStore::load(&path).unwrap();
        assert_eq!(store.status(ws, "abc"), TrustStatus::Trusted);
        assert_eq!(store.status(ws, "def"), TrustStatus::Changed);
        assert_eq!(store.status(Path::new("/work/other"), "abc"), TrustStatus::Untrusted);
    }
}
