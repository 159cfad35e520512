//! The settings of a run, read in layers: the system file (`/etc/airlock/config.toml`, or
//! `$AIRLOCK_SYSTEM_DIR/config.toml`), the user's (`$AIRLOCK_HOME/config.toml`), a trusted
//! workspace's `.airlock/config.toml`, then `[profiles.NAME]` when `--profile NAME` is given;
//! the command line's flags come last ([`Settings::flag`]). Every reader of settings goes
//! through [`load_settings`], so all of them see the same effective values.
//!
//! Invariants: each file is checked on its own first, so an error names the file and line
//! of the bad key in its own layer; a key the system file locks keeps the system's value
//! whatever a later layer or flag says; a workspace's file is read only while `airlock trust`
//! pins its bytes, and may not set the keys [`merge::workspace_refusal`] names; what is
//! refused is said, never silently dropped.

use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;
use toml::de::{DeTable, DeValue};

use super::hooks::HookScope;
use super::merge::{self, Merger, Origin, Role, Why, dotted};
use super::{ConfigError, FileConfig};
use crate::paths::Paths;
use crate::policy::trust::{TrustStatus, TrustStore};

/// One file of the run, placed in the offset space all spans share.
#[derive(Debug)]
struct SourceFile {
    path: PathBuf,
    text: String,
    base: usize,
}

/// The files read, to turn a span into a file and line.
#[derive(Debug, Default)]
struct Sources {
    files: Vec<SourceFile>,
}

impl Sources {
    /// Places `text` after the files already read; the offset it starts at.
    fn add(&mut self, path: PathBuf, text: String) -> usize {
        // One byte apart, so no span of one file ends where the next begins.
        let base = self.files.last().map_or(0, |f| f.base + f.text.len() + 1);
        self.files.push(SourceFile { path, text, base });
        base
    }

    /// The file and 1-based line of shared offset `offset`.
    fn locate(&self, offset: usize) -> Option<(&Path, usize)> {
        let file = self.files.iter().rev().find(|f| f.base <= offset)?;
        Some((&file.path, super::providers::line_of(&file.text, offset - file.base)))
    }

    fn at(&self, offset: usize) -> String {
        self.locate(offset).map_or_else(|| "?".into(), |(path, line)| format!("{}:{line}", path.display()))
    }

    /// `FILE: line N`, as the errors of a single file say it.
    fn error_at(&self, offset: usize) -> String {
        self.locate(offset)
            .map_or_else(|| "the merged settings".into(), |(path, line)| format!("{}: line {line}", path.display()))
    }
}

/// Whether a layer was read, and if not why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LayerState {
    Read,
    Missing,
    /// Not read: why (an untrusted workspace, bytes changed since trust).
    Skipped(String),
}

/// One layer of the run.
#[derive(Debug, Clone)]
pub struct Layer {
    /// `system`, `user` or `workspace`.
    pub name: &'static str,
    pub path: PathBuf,
    pub state: LayerState,
}

/// Where an effective value came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Source {
    Default,
    Flag(String),
    File { path: PathBuf, line: usize },
    Profile { name: String, path: PathBuf, line: usize },
}

/// One effective key, for `airlock config show`.
#[derive(Debug, Clone)]
pub struct Row {
    /// The dotted key path.
    pub key: String,
    pub value: toml::Value,
    pub source: Source,
    pub locked: bool,
}

/// The effective settings of a run and how they came to be.
#[derive(Debug)]
pub struct Settings {
    pub config: FileConfig,
    pub layers: Vec<Layer>,
    /// The profile chosen with `--profile`.
    pub profile: Option<String>,
    /// Every effective key set by a file or a flag, in key order.
    pub rows: Vec<Row>,
    /// The locked key paths, dotted.
    pub locked: Vec<String>,
    /// What a layer tried and was refused, one line each; the host says them once.
    pub warnings: Vec<String>,
    system_file: PathBuf,
}

impl Settings {
    /// A flag's value, unless the system file locks a key it stands for: `keys` are
    /// dotted paths, the first the flag's own, where `*` stands for any one name
    /// (`--base-url` also overrides `providers.*.base_url`). A refused flag gives `None`
    /// and a warning naming the locked key; `config show` shows a used one as the flag's.
    pub fn flag<T>(
        &mut self,
        keys: &[&str],
        flag: &str,
        value: Option<T>,
        shown: impl Fn(&T) -> toml::Value,
    ) -> Option<T> {
        let value = value?;
        let key = keys.first().copied().unwrap_or_default();
        if let Some(locked) = keys.iter().find_map(|pattern| self.lock_over(pattern)) {
            self.warnings.push(format!(
                "{locked} is locked by {}: {flag} {} is not used",
                self.system_file.display(),
                crate::sanitize::line(&shown(&value).to_string())
            ));
            return None;
        }
        let row =
            Row { key: key.to_string(), value: shown(&value), source: Source::Flag(flag.to_string()), locked: false };
        match self.rows.iter_mut().find(|r| r.key == key) {
            Some(existing) => *existing = row,
            None => {
                self.rows.push(row);
                self.rows.sort_by(|a, b| a.key.cmp(&b.key));
            }
        }
        Some(value)
    }

    /// One line for each file that exists but was not read (an untrusted workspace's, one
    /// changed since trust), as the policy and MCP loaders say theirs.
    pub fn notices(&self) -> Vec<String> {
        let skipped = self.layers.iter().filter_map(|layer| match &layer.state {
            LayerState::Skipped(why) => Some(format!("ignoring the settings of {}: {why}", layer.path.display())),
            _ => None,
        });
        skipped.collect()
    }

    /// Whether `key` (dotted) lies under a locked path.
    pub fn is_locked(&self, key: &str) -> bool {
        self.lock_over(key).is_some()
    }

    /// The locked path that covers `pattern` (dotted, `*` matching any one name), if any:
    /// a locked table covers every key in it.
    fn lock_over(&self, pattern: &str) -> Option<String> {
        let wanted: Vec<&str> = pattern.split('.').collect();
        self.locked
            .iter()
            .find(|locked| {
                let parts: Vec<&str> = locked.split('.').collect();
                parts.len() <= wanted.len() && parts.iter().zip(&wanted).all(|(l, w)| *w == "*" || l == w)
            })
            .cloned()
    }
}

/// `<system dir>/config.toml`.
pub fn system_config_file(paths: &Paths) -> PathBuf {
    paths.system.join("config.toml")
}

/// Reads every layer for `workspace` (none: the system and user layers only) and the
/// profile `paths.profile`.
pub fn load_settings(paths: &Paths, workspace: Option<&Path>) -> Result<Settings, ConfigError> {
    let mut sources = Sources::default();
    let mut layers = Vec::new();
    let mut read = Vec::new();
    let system_file = system_config_file(paths);
    for (name, path, role) in [("system", system_file.clone(), Role::System), ("user", paths.config_file(), Role::User)]
    {
        match read_text(&path)? {
            Some(text) => {
                read.push((role, sources.add(path.clone(), text)));
                layers.push(Layer { name, path, state: LayerState::Read });
            }
            None => layers.push(Layer { name, path, state: LayerState::Missing }),
        }
    }
    if let Some(workspace) = workspace {
        let path = super::mcp::workspace_config_path(workspace);
        let state = match workspace_text(paths, workspace)? {
            Ok(text) => {
                read.push((Role::Workspace, sources.add(path.clone(), text)));
                LayerState::Read
            }
            Err(state) => state,
        };
        layers.push(Layer { name: "workspace", path, state });
    }

    // Each file alone first: its errors name its own file and line.
    let mut locked = Vec::new();
    // Each layer's command hooks keep the scope of their file (see `super::hooks`).
    let mut command_hooks = Vec::new();
    for (index, (role, _)) in read.iter().enumerate() {
        let file = &sources.files[index];
        let config = super::check_layer(&file.path, &file.text, *role)?;
        let scope = match role {
            Role::System => HookScope::System,
            Role::Workspace => HookScope::Workspace,
            Role::User | Role::Profile(_) => HookScope::User,
        };
        command_hooks.extend(super::hooks::placed(config.hooks.command, scope, &file.path));
        if *role == Role::System {
            locked = config.locked;
        }
    }
    let mut merger = Merger::default();
    for (index, (role, base)) in read.iter().enumerate() {
        let file = &sources.files[index];
        let mut table = parse(&file.path, &file.text)?;
        super::hooks::take_commands(&mut table);
        if *role == Role::Workspace {
            // Its MCP servers are started by `crate::mcp` under the workspace's own grants.
            table.remove("mcp_servers");
        }
        merger.merge(merge::shift(table, *base), *role);
        if *role == Role::System {
            merger.locked = locked.iter().map(|key| key.split('.').map(str::to_string).collect()).collect();
        }
    }
    merger.remove("locked");
    let profiles = merger.remove("profiles");
    if let Some(name) = &paths.profile {
        let mut profiles = match profiles {
            Some(DeValue::Table(table)) => table,
            _ => DeTable::new(),
        };
        match profiles.remove(name.as_str()).map(Spanned::into_inner) {
            Some(DeValue::Table(profile)) => merger.merge(profile, Role::Profile(name)),
            _ => {
                let known: Vec<String> = profiles.keys().map(|k| k.get_ref().to_string()).collect();
                return Err(ConfigError::UnknownProfile {
                    name: name.clone(),
                    known: if known.is_empty() { "none".into() } else { known.join(", ") },
                });
            }
        }
    }

    let total = sources.files.last().map_or(0, |f| f.base + f.text.len());
    let deserializer = toml::de::Deserializer::from(Spanned::new(0..total, merger.table.clone()));
    let mut config = FileConfig::deserialize(deserializer).map_err(|e| {
        let at = e.span().map(|span| sources.error_at(span.start)).unwrap_or_else(|| "the merged settings".into());
        ConfigError::Layered(format!("{at}: {}", e.message()))
    })?;
    config.hooks.command = command_hooks;
    super::check_merged(&config).map_err(|(offset, message)| {
        let at = offset.map(|o| sources.error_at(o)).unwrap_or_else(|| "the merged settings".into());
        ConfigError::Layered(format!("{at}: {message}"))
    })?;

    let warnings = merger
        .refused
        .iter()
        .map(|refused| {
            let key = dotted(&refused.path);
            let at = sources.at(refused.offset);
            match &refused.why {
                Why::Locked(lock) => {
                    let under = if *lock == key { String::new() } else { format!(" (as part of {lock})") };
                    format!("{key} is locked by {}{under}: the value at {at} is not used", system_file.display())
                }
                Why::Workspace(why) => {
                    format!("{key} at {at} is not used: a workspace's settings may not set it ({why})")
                }
            }
        })
        .collect::<Vec<String>>();
    let mut warnings = warnings;
    // Command hooks skip the merge, so a lock on them is applied here.
    if let Some(lock) = locked.iter().find(|key| matches!(key.as_str(), "hooks" | "hooks.command")) {
        for hook in config.hooks.command.iter().filter(|hook| hook.scope != HookScope::System) {
            warnings.push(format!(
                "hooks.command {:?} in {} is not used: {lock} is locked by {}",
                hook.name(),
                hook.origin.display(),
                system_file.display()
            ));
        }
        config.hooks.command.retain(|hook| hook.scope == HookScope::System);
    }
    // A workspace's hook sees every prompt and every tool's output: it may not also reach
    // the network or write, or it could send them anywhere (as `[telemetry]` and
    // `[commands]` are refused from a workspace).
    config.hooks.command.retain(|hook| {
        let reaches = hook.scope == HookScope::Workspace && (hook.network || !hook.writes.is_empty());
        if reaches {
            warnings.push(format!(
                "hooks.command {:?} in {} is not used: a workspace's hook may not set `network` or `writes` \
                 (set it in your own config.toml if you want it)",
                hook.name(),
                hook.origin.display()
            ));
        }
        !reaches
    });
    let locked_dotted: Vec<String> = locked;
    let rows = rows(&merger, &sources, &locked_dotted);
    Ok(Settings { config, layers, profile: paths.profile.clone(), rows, locked: locked_dotted, warnings, system_file })
}

/// Checks a workspace's `.airlock/config.toml` as its layer would be read (`airlock trust`
/// never pins a file that would then stop every run): fine when there is none.
pub fn check_workspace_file(workspace: &Path) -> Result<(), ConfigError> {
    let path = super::mcp::workspace_config_path(workspace);
    let invalid = |message: String| ConfigError::Invalid { path: path.clone(), message };
    let Some(bytes) = super::mcp::read_workspace_config(workspace).map_err(invalid)? else {
        return Ok(());
    };
    let text = String::from_utf8(bytes).map_err(|_| invalid("the file is not UTF-8".into()))?;
    super::check_layer(&path, &text, Role::Workspace).map(|_| ())
}

/// The rows of the keys files set.
fn rows(merger: &Merger<'_>, sources: &Sources, locked: &[String]) -> Vec<Row> {
    let deserializer = toml::de::Deserializer::from(Spanned::new(0..0, merger.table.clone()));
    let values = toml::Table::deserialize(deserializer).unwrap_or_default();
    merger
        .origins
        .iter()
        .filter_map(|(path, Origin { offset, profile })| {
            let (last, parents) = path.split_last()?;
            let mut table = &values;
            for part in parents {
                table = table.get(part)?.as_table()?;
            }
            let value = table.get(last)?.clone();
            let (file, line) = sources.locate(*offset)?;
            let path_buf = file.to_path_buf();
            let source = match profile {
                Some(name) => Source::Profile { name: name.clone(), path: path_buf, line },
                None => Source::File { path: path_buf, line },
            };
            let key = dotted(path);
            let is_locked = locked.iter().any(|l| key == *l || key.starts_with(&format!("{l}.")));
            Some(Row { key, value, source, locked: is_locked })
        })
        .collect()
}

fn parse<'i>(path: &Path, text: &'i str) -> Result<DeTable<'i>, ConfigError> {
    // Checked already by `check_layer`; kept an error rather than a panic.
    DeTable::parse(text)
        .map(Spanned::into_inner)
        .map_err(|e| ConfigError::Invalid { path: path.to_path_buf(), message: e.message().to_string() })
}

/// A file's text; `None` when it does not exist.
fn read_text(path: &Path) -> Result<Option<String>, ConfigError> {
    match std::fs::read_to_string(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(ConfigError::Read { path: path.to_path_buf(), reason: e.to_string() }),
    }
}

/// A workspace's `.airlock/config.toml` when `airlock trust` pinned these very bytes;
/// otherwise why it is not read.
fn workspace_text(paths: &Paths, workspace: &Path) -> Result<Result<String, LayerState>, ConfigError> {
    let path = super::mcp::workspace_config_path(workspace);
    let invalid = |message: String| ConfigError::Invalid { path: path.clone(), message };
    let Some(bytes) = super::mcp::read_workspace_config(workspace).map_err(invalid)? else {
        return Ok(Err(LayerState::Missing));
    };
    let store = TrustStore::load(&paths.trust_file()).map_err(|e| invalid(e.to_string()))?;
    let trusted = crate::policy::workspace_policy_hash(workspace)
        .is_ok_and(|hash| store.status(workspace, &hash) == TrustStatus::Trusted);
    if !trusted {
        return Ok(Err(LayerState::Skipped("this folder is not trusted (review it, then run `airlock trust`)".into())));
    }
    // Trust pins these bytes: a `git pull` that changes them does not change the settings.
    if store.pinned_config(workspace) != Some(airlock_files::content_hash(&bytes).as_str()) {
        return Ok(Err(LayerState::Skipped(
            "the file changed since this folder was trusted (review it, then run `airlock trust` again)".into(),
        )));
    }
    String::from_utf8(bytes).map(Ok).map_err(|_| invalid("the file is not UTF-8".into()))
}

#[cfg(test)]
#[path = "layers_tests.rs"]
mod tests;
