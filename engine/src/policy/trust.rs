//! Trusted folders (`$AIRLOCK_HOME/trust.toml`, written only by `airlock trust`). A
//! workspace's own policy file counts only when the folder is trusted *and* the file is
//! byte-for-byte what it was when it was trusted: trust is pinned to the file's hash, so a
//! `git pull`, a cloned repository or a tool call that rewrites the file cannot arm it.
//!
//! Trust also pins the code it arms: the sha-256 of every workspace plugin file at trust
//! time. A workspace plugin whose digest is not pinned — changed or added since — gets
//! nothing from the workspace's policy until the folder is trusted again. The same holds for
//! the MCP servers of `.airlock/config.toml`: trust pins that file's hash, and a server list
//! changed since starts nothing; and for the scripts under `.airlock/hooks/`: a workspace's
//! command hooks run only while every one of them is as it was trusted.
//!
//! Beside each plugin's digest, trust records what the plugin requested: when a plugin
//! changed, the next `airlock trust` shows what it requests beyond the version trusted
//! before it trusts it (trusting again is the approval of those requests).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::PolicyError;
use crate::capability::FileGrant;
use crate::capability::diff::Requests;
use crate::capability::net::NetRule;
use airlock_files::write_atomically;

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
    /// sha-256 of each `<folder>/.airlock/plugins/*.wasm` when trusted, by file name.
    #[serde(default)]
    plugins: BTreeMap<String, String>,
    /// sha-256 of `<folder>/.airlock/config.toml` (its MCP servers) when trusted, or `none`;
    /// absent in a record written before airlock pinned it, whose servers then never start.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    config_sha256: Option<String>,
    /// sha-256 of each file under `<folder>/.airlock/hooks/` when trusted, by path relative
    /// to it: the workspace's command hooks run only while these are unchanged.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    hooks: BTreeMap<String, String>,
    /// What each pinned plugin requested when trusted, by file name, in the request syntax:
    /// what a changed plugin's capability diff is taken against at the next `airlock trust`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    requests: BTreeMap<String, RecordedRequests>,
}

/// A plugin's requests as the trust file records them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
struct RecordedRequests {
    #[serde(default)]
    files: Vec<String>,
    #[serde(default)]
    network: Vec<String>,
    #[serde(default)]
    env: Vec<String>,
    #[serde(default)]
    processes: Vec<String>,
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
        let file = match super::file::read_user_file(path)? {
            Some(bytes) => {
                let text = super::file::utf8(path, bytes)?;
                toml::from_str(&text).map_err(|e| PolicyError::Invalid {
                    path: path.to_path_buf(),
                    line: e.span().map_or(1, |s| super::file::line_of(&text, s.start)),
                    message: e.message().to_string(),
                })?
            }
            None => TrustFile::default(),
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

    /// The plugin digests pinned when `workspace` was trusted (file name → sha-256).
    pub fn pinned_plugins(&self, workspace: &Path) -> Option<&BTreeMap<String, String>> {
        self.file.folder.iter().find(|f| f.path == workspace).map(|f| &f.plugins)
    }

    /// The hash of `.airlock/config.toml` pinned when `workspace` was trusted.
    pub fn pinned_config(&self, workspace: &Path) -> Option<&str> {
        self.file.folder.iter().find(|f| f.path == workspace).and_then(|f| f.config_sha256.as_deref())
    }

    /// Pins the hash of `.airlock/config.toml` (`none` when there is none) of a trusted
    /// `workspace`: its MCP servers start only while the file stays so.
    pub fn pin_config(&mut self, workspace: &Path, config_hash: &str) {
        if let Some(folder) = self.file.folder.iter_mut().find(|f| f.path == workspace) {
            folder.config_sha256 = Some(config_hash.to_string());
        }
    }

    /// The digests of the files under `.airlock/hooks/` pinned when `workspace` was trusted.
    pub fn pinned_hooks(&self, workspace: &Path) -> Option<&BTreeMap<String, String>> {
        self.file.folder.iter().find(|f| f.path == workspace).map(|f| &f.hooks)
    }

    /// Pins the files under `.airlock/hooks/` of a trusted `workspace` (path → sha-256).
    pub fn pin_hooks(&mut self, workspace: &Path, hooks: BTreeMap<String, String>) {
        if let Some(folder) = self.file.folder.iter_mut().find(|f| f.path == workspace) {
            folder.hooks = hooks;
        }
    }

    /// What each plugin pinned when `workspace` was trusted requested (file name → its
    /// requests); an entry that no longer parses is left out (its diff shows every request
    /// as new).
    pub fn pinned_requests(&self, workspace: &Path) -> BTreeMap<String, Requests> {
        let Some(folder) = self.file.folder.iter().find(|f| f.path == workspace) else { return BTreeMap::new() };
        folder
            .requests
            .iter()
            .filter_map(|(file, recorded)| {
                let mut requests = Requests::default();
                for text in &recorded.files {
                    requests.files.push(FileGrant::parse(text).ok()?);
                }
                for text in &recorded.network {
                    requests.network.push(NetRule::parse(text).ok()?);
                }
                requests.env = recorded.env.clone();
                requests.processes = recorded.processes.clone();
                Some((file.clone(), requests))
            })
            .collect()
    }

    /// Records what each pinned plugin of a trusted `workspace` requests (file name → its
    /// requests).
    pub fn pin_requests(&mut self, workspace: &Path, requests: &BTreeMap<String, Requests>) {
        if let Some(folder) = self.file.folder.iter_mut().find(|f| f.path == workspace) {
            folder.requests = requests
                .iter()
                .map(|(file, r)| {
                    let recorded = RecordedRequests {
                        files: r.entries("files"),
                        network: r.entries("network"),
                        env: r.entries("env"),
                        processes: r.entries("processes"),
                    };
                    (file.clone(), recorded)
                })
                .collect();
        }
    }

    /// Trusts `workspace` with its policy and its plugins (file name → sha-256) as they
    /// are now.
    pub fn trust(&mut self, workspace: &Path, policy_hash: &str, plugins: BTreeMap<String, String>) {
        self.file.folder.retain(|f| f.path != workspace);
        self.file.folder.push(Folder {
            path: workspace.to_path_buf(),
            policy_sha256: policy_hash.to_string(),
            plugins,
            config_sha256: None,
            hooks: BTreeMap::new(),
            requests: BTreeMap::new(),
        });
    }

    /// Moves the pin of a trusted `workspace` to its policy's new hash (the user changed it
    /// through airlock), keeping the plugin pins as they were.
    pub fn repin_policy(&mut self, workspace: &Path, policy_hash: &str) {
        if let Some(folder) = self.file.folder.iter_mut().find(|f| f.path == workspace) {
            folder.policy_sha256 = policy_hash.to_string();
        }
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
#[path = "trust_tests.rs"]
mod tests;
