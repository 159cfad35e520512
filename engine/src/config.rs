//! Settings: the keys of `config.toml` ([`FileConfig`]) and the checks of one file. The
//! files are read in layers — system, user, trusted workspace, profile — by [`layers`], then
//! command-line flags win. A malformed file is an error naming the file, line and problem;
//! nothing is silently ignored (unknown keys included). The model provider settings
//! (`provider`, `[providers.NAME]`, `[retry]`) live in [`providers`].

mod checkpoints;
pub mod hooks;
pub mod layers;
pub mod mcp;
mod merge;
mod plugins;
mod prompts;
mod providers;
mod telemetry;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Deserialize;
use toml::Spanned;

use crate::capability::CallLimits;
use crate::capability::search::SearchEndpoint;
/// Kept here too: front ends read the paths and the settings together.
use crate::policy::ApprovalMode;
pub use checkpoints::{CheckpointSettings, DEFAULTS as CHECKPOINT_DEFAULTS};
pub use layers::{Layer, LayerState, Row, Settings, Source, check_workspace_file, load_settings, system_config_file};
use merge::Role;
pub use plugins::PluginSettings;
pub use prompts::{ContextSettings, DEFAULT_FILE_NAMES, SkillSettings};
pub use providers::{ProviderFlags, ProviderTable, RetrySettings, check_base_url, resolve_provider};
pub use telemetry::TelemetrySettings;
/// A setting's value as `airlock config show` prints it.
pub use toml::Value;

/// The contents of `config.toml`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FileConfig {
    /// A `[providers.NAME]` table or a provider kind.
    pub provider: Option<Spanned<String>>,
    pub model: Option<String>,
    pub base_url: Option<String>,
    /// How long a model stream may stay silent before it is abandoned (or retried).
    pub idle_timeout_secs: Option<u64>,
    #[serde(default)]
    pub providers: BTreeMap<String, Spanned<ProviderTable>>,
    #[serde(default)]
    pub retry: RetrySettings,
    pub approval_mode: Option<ApprovalMode>,
    pub max_turns: Option<u32>,
    /// The model's context window in tokens (default by provider kind); older history is
    /// compressed into a summary before a request would fill 70 % of it.
    pub context_window_tokens: Option<u64>,
    /// Whether repeated calls and repeated text are detected (default on).
    pub loop_detection: Option<bool>,
    #[serde(default)]
    pub tools: ToolSettings,
    /// `[commands]`: what the programs tools start may read, write and inherit besides
    /// their call's folders (the user's toolchains, package caches, secrets).
    #[serde(default)]
    pub commands: airlock_sandbox::folders::Settings,
    /// `[mcp_servers.NAME]`: MCP servers whose tools are offered ([`crate::mcp`]).
    #[serde(default)]
    pub mcp_servers: BTreeMap<String, mcp::ServerConfig>,
    /// `[context]`: the names of context files.
    #[serde(default)]
    pub context: ContextSettings,
    /// `[skills]`: whether skills are offered.
    #[serde(default)]
    pub skills: SkillSettings,
    /// System file only: dotted key paths no other layer (nor a flag) may change.
    #[serde(default)]
    pub locked: Vec<String>,
    /// `[profiles.NAME]`: keys that `--profile NAME` sets over the files.
    #[serde(default)]
    pub profiles: BTreeMap<String, FileConfig>,
    /// `[media]`: the caps on images and PDFs sent to the model ([`crate::media`]).
    #[serde(default)]
    pub media: crate::media::MediaLimits,
    /// `[hooks]`: command hooks and component hook overrides ([`hooks`]).
    #[serde(default)]
    pub hooks: hooks::HooksSettings,
    /// `[telemetry]`: OpenTelemetry export (never from a workspace's file).
    #[serde(default)]
    pub telemetry: TelemetrySettings,
    /// `[audit]`: the tamper-evident audit trail ([`crate::audit`]).
    #[serde(default)]
    pub audit: AuditSettings,
    /// `[checkpoints]`: what the host snapshots before calls that write ([`crate::checkpoints`];
    /// never from a workspace's file).
    #[serde(default)]
    pub checkpoints: CheckpointSettings,
    /// `[plugins]`: the index `plugins search` reads (never from a workspace's file).
    #[serde(default)]
    pub plugins: PluginSettings,
}

/// `[audit]`. Only the user's and the system's file may set it: a repository must not be able
/// to turn off the record of what its tools did.
#[derive(Debug, Default, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AuditSettings {
    /// Whether each session keeps an audit trail (default on).
    pub enabled: Option<bool>,
}

impl AuditSettings {
    pub fn enabled(&self) -> bool {
        self.enabled.unwrap_or(true)
    }
}

/// `[tools]`: limits applied to every tool call.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ToolSettings {
    /// Wall-clock deadline of one call, in seconds.
    pub timeout_secs: Option<u64>,
    /// Memory cap of one instance, in MiB.
    pub memory_mb: Option<usize>,
    /// Most bytes of a tool's output sent to the model.
    pub max_output_bytes: Option<usize>,
    /// `[tools.web_search]`: the search API `web_search` calls; without it the tool is not
    /// offered.
    pub web_search: Option<WebSearchTable>,
}

/// `[tools.web_search]`.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WebSearchTable {
    /// `brave`, `tavily` or `searxng`.
    pub provider: String,
    /// The API's URL (Brave's and Tavily's are known; a SearXNG instance's must be given).
    pub url: Option<String>,
    /// The variable of airlock's environment that holds the API key.
    pub key_env: Option<String>,
}

impl ToolSettings {
    /// The search API of `[tools.web_search]`, checked; `None` when the table is absent.
    pub fn search(&self) -> Result<Option<SearchEndpoint>, String> {
        self.web_search
            .as_ref()
            .map(|t| SearchEndpoint::new(&t.provider, t.url.as_deref(), t.key_env.as_deref()))
            .transpose()
    }

    /// Each limit lies between 1 and its largest sensible value ([`crate::capability`]).
    fn check(&self) -> Result<(), String> {
        self.search()?;
        use crate::capability::{MAX_MEMORY_MB, MAX_OUTPUT_BYTES, MAX_TIMEOUT_SECS};
        let limits = [
            ("memory_mb", self.memory_mb.map(|v| v as u64), MAX_MEMORY_MB),
            ("timeout_secs", self.timeout_secs, MAX_TIMEOUT_SECS),
            ("max_output_bytes", self.max_output_bytes.map(|v| v as u64), MAX_OUTPUT_BYTES),
        ];
        for (name, value, max) in limits {
            if value.is_some_and(|v| v == 0 || v > max) {
                return Err(format!("[tools] {name} must be between 1 and {max}"));
            }
        }
        Ok(())
    }

    pub fn limits(&self) -> CallLimits {
        let defaults = CallLimits::default();
        CallLimits {
            memory: self.memory_mb.map_or(defaults.memory, |mb| mb << 20),
            deadline: self.timeout_secs.map_or(defaults.deadline, Duration::from_secs),
            output: self.max_output_bytes.unwrap_or(defaults.output),
        }
    }
}

/// A problem with the settings.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("cannot read {path}: {reason}")]
    Read { path: PathBuf, reason: String },
    #[error("{path}: {message}")]
    Invalid { path: PathBuf, message: String },
    #[error(
        "--provider {name}: unknown provider; known providers: {known} (add a [providers.{name}] table to {} to define it)",
        path.display()
    )]
    UnknownProvider { name: String, known: String, path: PathBuf },
    /// The chosen provider needs an API key that is not set.
    #[error("{0}")]
    MissingKey(String),
    #[error(
        "--profile {name}: unknown profile; known profiles: {known} (define one as [profiles.{name}] in the system or user config.toml)"
    )]
    UnknownProfile { name: String, known: String },
    /// A problem of the layers together, located as `file:line: message`.
    #[error("{0}")]
    Layered(String),
}

/// Reads one `config.toml` alone (no layers); a missing file means defaults.
pub fn load(path: &Path) -> Result<FileConfig, ConfigError> {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(FileConfig::default()),
        Err(e) => return Err(ConfigError::Read { path: path.to_path_buf(), reason: e.to_string() }),
    };
    let mut config = check_layer(path, &text, Role::User)?;
    config.hooks.command = hooks::placed(std::mem::take(&mut config.hooks.command), hooks::HookScope::User, path);
    check_merged(&config).map_err(|(offset, message)| {
        let location = offset.map(|o| format!("line {}: ", providers::line_of(&text, o))).unwrap_or_default();
        ConfigError::Invalid { path: path.to_path_buf(), message: format!("{location}{message}") }
    })?;
    Ok(config)
}

/// Parses and checks one layer's file on its own: every check but those that need the
/// other layers ([`check_merged`]).
fn check_layer(path: &Path, text: &str, role: Role<'_>) -> Result<FileConfig, ConfigError> {
    let invalid = |message: String| ConfigError::Invalid { path: path.to_path_buf(), message };
    let config: FileConfig = toml::from_str(text).map_err(|e| {
        let location =
            e.span().map(|span| format!("line {}: ", providers::line_of(text, span.start))).unwrap_or_default();
        invalid(format!("{location}{}", e.message()))
    })?;
    check_values(&config, text).map_err(invalid)?;
    for (name, profile) in &config.profiles {
        if !profile.profiles.is_empty() || !profile.locked.is_empty() {
            return Err(invalid(format!("[profiles.{name}] may not hold profiles or locked keys")));
        }
        if !profile.hooks.command.is_empty() {
            return Err(invalid(format!(
                "[profiles.{name}] may not hold [[hooks.command]]: set command hooks at the top level of a file"
            )));
        }
        check_values(profile, text).map_err(|e| invalid(format!("[profiles.{name}] {e}")))?;
    }
    match role {
        Role::System => {
            for key in &config.locked {
                check_lockable(key).map_err(invalid)?;
            }
        }
        // A workspace's `locked` is refused by the merge, with a warning.
        Role::Workspace => {}
        _ if !config.locked.is_empty() => {
            return Err(invalid("`locked` is read only in the system file".into()));
        }
        _ => {}
    }
    Ok(config)
}

/// The checks of one file's values that need no other layer.
fn check_values(config: &FileConfig, text: &str) -> Result<(), String> {
    providers::check(config, text)?;
    if config.max_turns == Some(0) {
        return Err("max_turns must be at least 1".into());
    }
    config.tools.check()?;
    config.commands.check()?;
    config.context.check()?;
    config.hooks.check()?;
    config.checkpoints.check()?;
    mcp::check_all(&config.mcp_servers)
}

/// The checks of the effective settings, whose parts may come from several layers: an error
/// and the offset of the key it is about, when known.
fn check_merged(config: &FileConfig) -> Result<(), (Option<usize>, String)> {
    providers::check_known(config).map_err(|(offset, message)| (Some(offset), message))?;
    config.tools.check().map_err(|m| (None, m))?;
    config.commands.check().map_err(|m| (None, m))?;
    config.context.check().map_err(|m| (None, m))?;
    mcp::check_all(&config.mcp_servers).map_err(|m| (None, m))
}

/// `key` (dotted) names a key or table of `config.toml`: a document setting it to `true`
/// fails for some other reason than an unknown field.
fn check_lockable(key: &str) -> Result<(), String> {
    let parts: Vec<&str> = key.split('.').collect();
    if parts.iter().any(|part| part.is_empty()) || matches!(parts[0], "locked" | "profiles") {
        return Err(format!("locked: `{key}` is not a key that can be locked"));
    }
    let mut value = toml::Value::Boolean(true);
    for part in parts.iter().rev() {
        let mut table = toml::Table::new();
        table.insert((*part).to_string(), value);
        value = toml::Value::Table(table);
    }
    match value.try_into::<FileConfig>() {
        Err(e) if e.message().contains("unknown field") => {
            Err(format!("locked: `{key}` is not a key of config.toml ({})", e.message()))
        }
        _ => Ok(()),
    }
}

#[cfg(test)]
#[path = "config_tests.rs"]
mod tests;
