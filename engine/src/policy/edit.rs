//! Edits a policy file in place: `airlock plugins grant/revoke` and "allow always, saved".
//! Everything the user wrote — comments, layout, other tables — survives, through
//! `toml_edit`; the file is written atomically and must still parse afterwards.
//!
//! A workspace's file is read and written through one handle on `<workspace>/.airlock`,
//! opened without following any link: the folder read is the folder written, so a command
//! that swaps `.airlock` for a link while the edit runs (to `$AIRLOCK_HOME`, say) cannot
//! carry the write into the user's own policy.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use super::PolicyError;
use super::file::{PolicyFile, line_of, parse, read_user_file, utf8};
use super::rules::{RuleDecision, RuleSource};
use airlock_files::{self as files, DirHandle, Replace, write_atomically};

/// The policy file's name in a workspace's `.airlock`.
const WORKSPACE_FILE: &str = "policy.toml";

/// Where an edited file is written back.
enum Target {
    /// The user's own file, by its path.
    User,
    /// `policy.toml` of the workspace's `.airlock`, open as this handle.
    Workspace(DirHandle),
}

/// Edits a policy file in place, keeping everything the user wrote.
pub struct Editor {
    path: PathBuf,
    target: Target,
    /// The sha-256 of the bytes read (`none` for a missing file), as trust pins them.
    read_hash: String,
    document: toml_edit::DocumentMut,
}

impl Editor {
    pub fn open(path: &Path) -> Result<Self, PolicyError> {
        Self::parse(path.to_path_buf(), Target::User, read_user_file(path)?)
    }

    /// Opens `<workspace>/.airlock/policy.toml` through a handle on `.airlock` (created when
    /// missing) that no link led to; the file itself is read without following a link.
    pub fn open_workspace(workspace: &Path) -> Result<Self, PolicyError> {
        let path = super::workspace_policy_path(workspace);
        let unusable = |e: files::FileError| PolicyError::Read { path: path.clone(), reason: e.to_string() };
        let dir = crate::paths::open_workspace_dir(workspace, "", true).map_err(unusable)?;
        let bytes = match dir.open_regular(OsStr::new(WORKSPACE_FILE)) {
            Ok((file, stat)) => Some(files::read_bounded(file, stat, super::MAX_POLICY_BYTES).map_err(unusable)?),
            Err(files::FileError::NotFound) => None,
            Err(e) => return Err(unusable(e)),
        };
        Self::parse(path.clone(), Target::Workspace(dir), bytes)
    }

    fn parse(path: PathBuf, target: Target, bytes: Option<Vec<u8>>) -> Result<Self, PolicyError> {
        let read_hash = bytes.as_deref().map_or_else(|| "none".to_string(), files::content_hash);
        let text = utf8(&path, bytes.unwrap_or_default())?;
        let document = text.parse::<toml_edit::DocumentMut>().map_err(|e| PolicyError::Invalid {
            path: path.clone(),
            line: e.span().map_or(1, |s| line_of(&text, s.start)),
            message: e.message().to_string(),
        })?;
        Ok(Self { path, target, read_hash, document })
    }

    /// The sha-256 of the file as it was read (`none` when it did not exist): what was
    /// edited, whatever was loaded at start.
    pub fn read_hash(&self) -> &str {
        &self.read_hash
    }

    /// The `[grants.NAME]` table, created when missing.
    fn grant_table(&mut self, plugin: &str) -> Result<&mut toml_edit::Table, PolicyError> {
        self.table_in("grants", plugin)
    }

    /// The `[SECTION.NAME]` table, created when missing. A table written inline
    /// (`grants = { … }`, `NAME = { … }`) is turned into a standard one first, so an edit
    /// reaches it; anything else under the name is an error, never a skipped edit.
    fn table_in(&mut self, section: &str, name: &str) -> Result<&mut toml_edit::Table, PolicyError> {
        let not_table = |what: String| PolicyError::Write {
            path: self.path.clone(),
            reason: format!("`{what}` is not a table, so it cannot be edited"),
        };
        let (section_error, name_error) = (not_table(section.to_string()), not_table(format!("{section}.{name}")));
        let grants = self.document.entry(section).or_insert_with(|| {
            let mut table = toml_edit::Table::new();
            table.set_implicit(true);
            toml_edit::Item::Table(table)
        });
        let grants = as_standard_table(grants).ok_or(section_error)?;
        let table = grants.entry(name).or_insert_with(|| toml_edit::Item::Table(toml_edit::Table::new()));
        as_standard_table(table).ok_or(name_error)
    }

    /// Adds `values` to the list `key` (`read`, `write`, `env`) of an MCP server's grant
    /// (`[mcp_servers.NAME]`), without duplicates.
    pub fn mcp_add(&mut self, server: &str, key: &str, values: &[String]) {
        if values.is_empty() {
            return;
        }
        let Ok(table) = self.table_in("mcp_servers", server) else { return };
        let item = table.entry(key).or_insert_with(|| toml_edit::value(toml_edit::Array::new()));
        if let Some(array) = item.as_array_mut() {
            for value in values {
                if !array.iter().any(|v| v.as_str() == Some(value)) {
                    array.push(value.as_str());
                }
            }
        }
    }

    /// Removes `values` from the list `key` of an MCP server's grant.
    pub fn mcp_remove(&mut self, server: &str, key: &str, values: &[String]) {
        let Ok(table) = self.table_in("mcp_servers", server) else { return };
        if let Some(array) = table.get_mut(key).and_then(|i| i.as_array_mut()) {
            array.retain(|v| !values.iter().any(|value| v.as_str() == Some(value)));
        }
    }

    /// Sets whether an MCP server may reach the network (`false` removes the key: the
    /// default).
    pub fn mcp_set_network(&mut self, server: &str, network: bool) {
        let Ok(table) = self.table_in("mcp_servers", server) else { return };
        if network {
            table.insert("network", toml_edit::value(true));
        } else {
            table.remove("network");
        }
    }

    /// Removes an MCP server's whole grant.
    pub fn mcp_remove_grant(&mut self, server: &str) {
        if let Some(servers) = self.document.get_mut("mcp_servers").and_then(|g| g.as_table_like_mut()) {
            servers.remove(server);
        }
    }

    /// Adds `values` to the list `key` of a plugin's grant (no duplicates).
    pub fn add_to_list(&mut self, plugin: &str, key: &str, values: &[String]) {
        if values.is_empty() {
            return;
        }
        let Ok(table) = self.grant_table(plugin) else { return };
        let item = table.entry(key).or_insert_with(|| toml_edit::value(toml_edit::Array::new()));
        if let Some(array) = item.as_array_mut() {
            for value in values {
                if !array.iter().any(|v| v.as_str() == Some(value)) {
                    array.push(value.as_str());
                }
            }
        }
    }

    /// Removes `values` from the list `key` of a plugin's grant.
    pub fn remove_from_list(&mut self, plugin: &str, key: &str, values: &[String]) {
        let Ok(table) = self.grant_table(plugin) else { return };
        if let Some(array) = table.get_mut(key).and_then(|i| i.as_array_mut()) {
            array.retain(|v| !values.iter().any(|value| v.as_str() == Some(value)));
        }
    }

    /// Sets (or with `None` removes) a number of a plugin's grant.
    pub fn set_number(&mut self, plugin: &str, key: &str, value: Option<u64>) {
        let Ok(table) = self.grant_table(plugin) else { return };
        match value.and_then(|v| i64::try_from(v).ok()) {
            Some(v) => {
                table.insert(key, toml_edit::value(v));
            }
            None => {
                table.remove(key);
            }
        }
    }

    /// Sets the record of the requests a plugin's grant was given for
    /// (`[grants.NAME.approved]`), replacing what it held; every list is written, an empty
    /// one too (an empty record approves nothing, a missing one what the plugin requests).
    ///
    /// An error when the grant cannot hold a record: a missing record approves everything,
    /// so the edit must never be skipped quietly.
    pub fn set_approved(
        &mut self,
        plugin: &str,
        record: &crate::capability::diff::Requests,
    ) -> Result<(), PolicyError> {
        let table = self.grant_table(plugin)?;
        let mut approved = toml_edit::Table::new();
        for key in super::file::Parts::KEYS {
            let mut array = toml_edit::Array::new();
            for entry in record.entries(key) {
                array.push(entry);
            }
            approved.insert(key, toml_edit::value(array));
        }
        table.insert("approved", toml_edit::Item::Table(approved));
        Ok(())
    }

    /// Removes a plugin's whole grant, written as a table or inline; an error when `grants`
    /// is something else (the grant would outlive its plugin).
    pub fn remove_grant(&mut self, plugin: &str) -> Result<(), PolicyError> {
        let Some(grants) = self.document.get_mut("grants") else { return Ok(()) };
        let grants = grants.as_table_like_mut().ok_or_else(|| PolicyError::Write {
            path: self.path.clone(),
            reason: "`grants` is not a table, so it cannot be edited".into(),
        })?;
        grants.remove(plugin);
        Ok(())
    }

    /// Appends a `[[rule]]`.
    pub fn add_rule(
        &mut self,
        tool: &str,
        command: Option<&str>,
        path: Option<&str>,
        decision: RuleDecision,
        priority: i64,
    ) {
        let mut table = toml_edit::Table::new();
        table.insert("tool", toml_edit::value(tool));
        if let Some(command) = command {
            table.insert("command", toml_edit::value(command));
        }
        if let Some(path) = path {
            table.insert("path", toml_edit::value(path));
        }
        table.insert("decision", toml_edit::value(decision.as_str()));
        table.insert("priority", toml_edit::value(priority));
        let rules = self
            .document
            .entry("rule")
            .or_insert_with(|| toml_edit::Item::ArrayOfTables(toml_edit::ArrayOfTables::new()));
        if let Some(rules) = rules.as_array_of_tables_mut() {
            rules.push(table);
        }
    }

    /// Writes the file atomically and checks that it still parses; the result's `hash` is
    /// that of the bytes written (what a trust pin must name, never a second read).
    pub fn save(self, source: RuleSource) -> Result<PolicyFile, PolicyError> {
        let text = self.document.to_string();
        let written = match &self.target {
            Target::User => write_atomically(&self.path, text.as_bytes()),
            Target::Workspace(dir) => {
                files::write_in(dir, OsStr::new(WORKSPACE_FILE), text.as_bytes(), Replace::Always)
            }
        };
        written.map_err(|e| PolicyError::Write { path: self.path.clone(), reason: e.to_string() })?;
        parse(&self.path, text.into_bytes(), source)
    }
}

/// The item as a standard table: an inline table is turned into one (its entries kept).
fn as_standard_table(item: &mut toml_edit::Item) -> Option<&mut toml_edit::Table> {
    if item.is_inline_table() {
        let inline = std::mem::take(item);
        *item = match inline.into_table() {
            Ok(table) => toml_edit::Item::Table(table),
            Err(other) => other,
        };
    }
    item.as_table_mut()
}
