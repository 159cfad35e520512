//! Edits the `[mcp_servers.NAME]` tables of a `config.toml` in place, for `airlock mcp add`
//! and `remove`: the user's (`$AIRLOCK_HOME/config.toml`) or a workspace's
//! (`<workspace>/.airlock/config.toml`). Everything else the file holds — comments, layout,
//! other tables — survives, through `toml_edit`.
//!
//! Invariants: `add` never replaces a server that is there (the command refuses first);
//! `remove` takes the table and the comment lines right above its header (`toml_edit` keeps
//! them with the table: they describe it), nothing else;
//! the file is written atomically; a workspace's file is read and written through one
//! handle on `<workspace>/.airlock` opened without following a link, so the folder read
//! is the folder written (the way [`airlock_engine::policy::edit::Editor`] edits a
//! workspace's policy).

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use airlock_files::{self as files, DirHandle, Replace, write_atomically};

/// Largest `config.toml` read for an edit.
const MAX_CONFIG_BYTES: u64 = 1 << 20;
/// The file's name in a workspace's `.airlock`.
const WORKSPACE_FILE: &str = "config.toml";

/// Why a config file could not be edited.
#[derive(Debug, thiserror::Error)]
pub enum EditError {
    #[error("cannot read {path}: {reason}")]
    Read { path: PathBuf, reason: String },
    #[error("{path}: {reason} (fix the file, then run the command again)")]
    Invalid { path: PathBuf, reason: String },
    #[error("cannot write {path}: {reason}")]
    Write { path: PathBuf, reason: String },
}

/// Where the edited file goes back.
enum Target {
    User,
    Workspace(DirHandle),
}

/// One stdio or HTTP server's table, as `airlock mcp add` writes it.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct NewServer {
    pub command: Option<String>,
    pub args: Vec<String>,
    pub env: Vec<String>,
    pub url: Option<String>,
    pub headers: Vec<(String, String)>,
    pub bearer_token_env: Option<String>,
}

/// A `config.toml` open for editing.
pub struct ConfigEditor {
    path: PathBuf,
    target: Target,
    document: toml_edit::DocumentMut,
}

impl ConfigEditor {
    /// The user's `config.toml` at `path` (a missing file is an empty one).
    pub fn open(path: &Path) -> Result<Self, EditError> {
        let bytes = match files::read_user_file(path, MAX_CONFIG_BYTES) {
            Ok(bytes) => Some(bytes),
            Err(files::FileError::NotFound) => None,
            Err(e) => return Err(EditError::Read { path: path.to_path_buf(), reason: e.to_string() }),
        };
        Self::parse(path.to_path_buf(), Target::User, bytes)
    }

    /// `<workspace>/.airlock/config.toml`, through a handle on `.airlock` (created when
    /// missing) that no link led to; the file itself is read without following a link.
    pub fn open_workspace(workspace: &Path) -> Result<Self, EditError> {
        let path = workspace.join(".airlock").join(WORKSPACE_FILE);
        let unusable = |e: files::FileError| EditError::Read { path: path.clone(), reason: e.to_string() };
        let dir = airlock_engine::paths::open_workspace_dir(workspace, "", true).map_err(unusable)?;
        let bytes = match dir.open_regular(OsStr::new(WORKSPACE_FILE)) {
            Ok((file, stat)) => Some(files::read_bounded(file, stat, MAX_CONFIG_BYTES).map_err(unusable)?),
            Err(files::FileError::NotFound) => None,
            Err(e) => return Err(unusable(e)),
        };
        Self::parse(path.clone(), Target::Workspace(dir), bytes)
    }

    fn parse(path: PathBuf, target: Target, bytes: Option<Vec<u8>>) -> Result<Self, EditError> {
        let invalid = |reason: String| EditError::Invalid { path: path.clone(), reason };
        let text = String::from_utf8(bytes.unwrap_or_default()).map_err(|_| invalid("the file is not UTF-8".into()))?;
        let document = text.parse::<toml_edit::DocumentMut>().map_err(|e| invalid(e.to_string()))?;
        Ok(Self { path, target, document })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The names of the `[mcp_servers.*]` tables the file holds.
    pub fn servers(&self) -> Vec<String> {
        self.document
            .get("mcp_servers")
            .and_then(|s| s.as_table_like())
            .map(|table| table.iter().map(|(name, _)| name.to_string()).collect())
            .unwrap_or_default()
    }

    /// Adds `[mcp_servers.NAME]`; `false` when a server of that name is already there
    /// (nothing is changed then).
    pub fn add(&mut self, name: &str, server: &NewServer) -> bool {
        let servers = self.document.entry("mcp_servers").or_insert_with(|| {
            let mut table = toml_edit::Table::new();
            table.set_implicit(true);
            toml_edit::Item::Table(table)
        });
        let Some(servers) = servers.as_table_like_mut() else { return false };
        if servers.contains_key(name) {
            return false;
        }
        let mut table = toml_edit::Table::new();
        if let Some(command) = &server.command {
            table.insert("command", toml_edit::value(command.as_str()));
            if !server.args.is_empty() {
                table.insert("args", toml_edit::value(array(&server.args)));
            }
        }
        if let Some(url) = &server.url {
            table.insert("url", toml_edit::value(url.as_str()));
        }
        if !server.env.is_empty() {
            table.insert("env", toml_edit::value(array(&server.env)));
        }
        if !server.headers.is_empty() {
            let mut headers = toml_edit::InlineTable::new();
            for (key, value) in &server.headers {
                headers.insert(key, value.as_str().into());
            }
            table.insert("headers", toml_edit::value(headers));
        }
        if let Some(var) = &server.bearer_token_env {
            table.insert("bearer_token_env", toml_edit::value(var.as_str()));
        }
        servers.insert(name, toml_edit::Item::Table(table));
        true
    }

    /// Removes `[mcp_servers.NAME]`; `false` when there was none.
    pub fn remove(&mut self, name: &str) -> bool {
        let Some(servers) = self.document.get_mut("mcp_servers").and_then(|s| s.as_table_like_mut()) else {
            return false;
        };
        let removed = servers.remove(name).is_some();
        // An emptied `[mcp_servers]` goes too rather than stay as a bare header.
        if servers.is_empty() {
            self.document.remove("mcp_servers");
        }
        removed
    }

    /// The file's text as it would be written.
    pub fn text(&self) -> String {
        self.document.to_string()
    }

    /// Writes the file atomically.
    pub fn save(self) -> Result<(), EditError> {
        let text = self.document.to_string();
        let written = match &self.target {
            Target::User => write_atomically(&self.path, text.as_bytes()),
            Target::Workspace(dir) => {
                files::write_in(dir, OsStr::new(WORKSPACE_FILE), text.as_bytes(), Replace::Always)
            }
        };
        written.map_err(|e| EditError::Write { path: self.path.clone(), reason: e.to_string() })
    }
}

fn array(values: &[String]) -> toml_edit::Array {
    values.iter().map(String::as_str).collect()
}

#[cfg(test)]
#[path = "config_edit_tests.rs"]
mod tests;
