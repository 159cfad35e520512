//! `[hooks]` of `config.toml`: `[[hooks.command]]` (programs run under the command sandbox at
//! moments of a session, [`crate::hooks::command`]) and `[hooks.component.NAME]` (overrides
//! for a component hook found in the plugin folders).
//!
//! Invariants: a bad event name, a bad `tools` pattern, a missing `command` or a name set
//! twice in one file is an error naming the hook and what to fix, never a hook silently
//! dropped. Command hooks are not merged like other keys (arrays replace whole): each layer's
//! list is kept with the scope of the file that set it ([`take_commands`]), so a workspace's
//! hooks add to the user's and never replace them, and every hook says where it came from.

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;

use serde::Deserialize;
use toml::de::{DeTable, DeValue};

use crate::hooks::{HookEventName, HookScope, OnError};

/// Default deadline of a command hook, in seconds.
pub const DEFAULT_COMMAND_SECS: u64 = 10;
/// Longest deadline of a command hook, in seconds.
pub const MAX_COMMAND_SECS: u64 = 600;
/// Default address-space cap of a command hook, in MiB: large enough for python3 and most
/// interpreters, which reserve far more address space than they use.
pub const DEFAULT_COMMAND_MIB: u64 = 2048;
/// Largest address-space cap of a command hook, in MiB.
pub const MAX_COMMAND_MIB: u64 = 65_536;
/// Default deadline of a component hook, in milliseconds.
pub const DEFAULT_COMPONENT_MS: u64 = 1000;
/// Longest deadline of a component hook, in milliseconds.
pub const MAX_COMPONENT_MS: u64 = 600_000;
/// Default memory cap of a component hook, in MiB.
pub const DEFAULT_COMPONENT_MIB: u64 = 64;
/// Largest memory cap of a component hook, in MiB.
pub const MAX_COMPONENT_MIB: u64 = 4096;

/// `[hooks]`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HooksSettings {
    /// `[[hooks.command]]`, system's first, then the user's, then the workspace's.
    #[serde(default)]
    pub command: Vec<CommandHookSettings>,
    /// `[hooks.component.NAME]`: overrides for the component hook `NAME`.
    #[serde(default)]
    pub component: BTreeMap<String, ComponentHookSettings>,
}

/// `on_error` as written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OnErrorSetting {
    #[default]
    Deny,
    Allow,
}

impl From<OnErrorSetting> for OnError {
    fn from(setting: OnErrorSetting) -> Self {
        match setting {
            OnErrorSetting::Deny => OnError::Deny,
            OnErrorSetting::Allow => OnError::Allow,
        }
    }
}

/// One `[[hooks.command]]` table.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CommandHookSettings {
    /// Unique among the hooks; default: derived from the command ([`derived_name`]).
    pub name: Option<String>,
    /// airlock's or Claude Code's event names.
    #[serde(default)]
    pub events: Vec<String>,
    /// A regular expression a tool's name must match whole; Claude Code's tool names match
    /// the airlock tools they stand for; `*` or absent: every tool.
    pub tools: Option<String>,
    /// Run by `/bin/sh -c` in the workspace, under the command sandbox.
    pub command: Option<String>,
    pub timeout_secs: Option<u64>,
    #[serde(default)]
    pub on_error: OnErrorSetting,
    /// Its address-space cap, in MiB.
    pub memory_mib: Option<u64>,
    /// Folders of the workspace (relative to it) it may write, `"."` for the whole
    /// workspace: a formatter hook. Default: none.
    #[serde(default)]
    pub writes: Vec<String>,
    /// Whether it may use the network.
    #[serde(default)]
    pub network: bool,
    /// The layer that set it.
    #[serde(skip, default = "user_scope")]
    pub scope: HookScope,
    /// The file that set it.
    #[serde(skip)]
    pub origin: PathBuf,
}

fn user_scope() -> HookScope {
    HookScope::User
}

impl CommandHookSettings {
    /// Its name: the one set, or one derived from the command.
    pub fn name(&self) -> String {
        self.name.clone().unwrap_or_else(|| derived_name(self.command.as_deref().unwrap_or_default()))
    }

    /// The events it runs at (checked by [`Self::check`]; unknown names are left out).
    pub fn event_names(&self) -> Vec<HookEventName> {
        let mut events: Vec<HookEventName> = self.events.iter().filter_map(|e| HookEventName::parse(e)).collect();
        events.sort();
        events.dedup();
        events
    }

    pub fn timeout_secs(&self) -> u64 {
        self.timeout_secs.unwrap_or(DEFAULT_COMMAND_SECS)
    }

    pub fn memory_mib(&self) -> u64 {
        self.memory_mib.unwrap_or(DEFAULT_COMMAND_MIB)
    }

    /// The table is usable: the message names the hook and says what to fix.
    pub fn check(&self) -> Result<(), String> {
        let name = self.name();
        let at = format!("[[hooks.command]] {name:?}");
        if let Some(given) = &self.name
            && !is_hook_name(given)
        {
            return Err(format!(
                "[[hooks.command]] name {given:?}: a hook's name has 1-64 of a-z, A-Z, 0-9, '_', '-' or '.'"
            ));
        }
        match &self.command {
            None => return Err(format!("{at}: give `command`, the program to run (by /bin/sh -c, in the workspace)")),
            Some(command) if command.trim().is_empty() || command.contains('\0') => {
                return Err(format!("{at}: `command` is empty"));
            }
            Some(_) => {}
        }
        if self.events.is_empty() {
            return Err(format!("{at}: give `events`, for example [\"before_tool\"] or [\"PreToolUse\"]"));
        }
        for event in &self.events {
            if HookEventName::parse(event).is_none() {
                let known: Vec<&str> = HookEventName::ALL.iter().map(|e| e.as_str()).collect();
                return Err(format!(
                    "{at}: unknown event {event:?}; the events are {} (or Claude Code's names: {})",
                    known.join(", "),
                    HookEventName::ALL.iter().map(|e| e.claude_name()).collect::<Vec<_>>().join(", ")
                ));
            }
        }
        if let Some(tools) = &self.tools {
            tools_pattern(tools).map_err(|e| format!("{at}: `tools` is not a valid regular expression: {e}"))?;
        }
        if self.timeout_secs.is_some_and(|v| v == 0 || v > MAX_COMMAND_SECS) {
            return Err(format!("{at}: `timeout_secs` must be between 1 and {MAX_COMMAND_SECS}"));
        }
        if self.memory_mib.is_some_and(|v| v == 0 || v > MAX_COMMAND_MIB) {
            return Err(format!("{at}: `memory_mib` must be between 1 and {MAX_COMMAND_MIB}"));
        }
        for folder in &self.writes {
            let path = std::path::Path::new(folder);
            if folder.is_empty() || path.is_absolute() || path.components().any(|c| c.as_os_str() == "..") {
                return Err(format!(
                    "{at}: `writes = [{folder:?}]`: a hook writes only folders of the workspace, relative to it (\".\" for all of it)"
                ));
            }
        }
        Ok(())
    }
}

/// The regular expression of a `tools` setting, anchored whole; `None` for `*` (every tool).
pub fn tools_pattern(tools: &str) -> Result<Option<regex::Regex>, regex::Error> {
    if tools.trim() == "*" || tools.is_empty() {
        return Ok(None);
    }
    regex::Regex::new(&format!("^(?:{tools})$")).map(Some)
}

/// A name for a hook that has none: the file stem of the script the command runs (`python3
/// hooks/check.py` → `check`), else its first word.
pub fn derived_name(command: &str) -> String {
    let words: Vec<&str> = command.split_whitespace().collect();
    let script = words
        .iter()
        .find(|w| w.contains('/'))
        .or_else(|| words.iter().find(|w| w.len() > 1 && w[1..].contains('.')))
        .or(words.first());
    let stem = script
        .map(|word| {
            let file = word.rsplit('/').next().unwrap_or(word);
            file.split('.').next().unwrap_or(file).to_string()
        })
        .unwrap_or_default();
    let clean: String = stem.chars().filter(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-')).take(64).collect();
    if clean.is_empty() { "command".into() } else { clean }
}

/// 1-64 of `a-z`, `A-Z`, `0-9`, `_`, `-`, `.`.
pub fn is_hook_name(name: &str) -> bool {
    (1..=64).contains(&name.len()) && name.chars().all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

/// One `[hooks.component.NAME]` table.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ComponentHookSettings {
    #[serde(default = "yes")]
    pub enabled: bool,
    #[serde(default = "component_ms")]
    pub timeout_ms: u64,
    #[serde(default)]
    pub on_error: OnErrorSetting,
    #[serde(default = "component_mib")]
    pub memory_mib: u64,
}

impl Default for ComponentHookSettings {
    fn default() -> Self {
        Self {
            enabled: true,
            timeout_ms: DEFAULT_COMPONENT_MS,
            on_error: OnErrorSetting::Deny,
            memory_mib: DEFAULT_COMPONENT_MIB,
        }
    }
}

fn yes() -> bool {
    true
}

fn component_ms() -> u64 {
    DEFAULT_COMPONENT_MS
}

fn component_mib() -> u64 {
    DEFAULT_COMPONENT_MIB
}

impl HooksSettings {
    /// The checks of one file's `[hooks]`.
    pub fn check(&self) -> Result<(), String> {
        let mut names = BTreeSet::new();
        for hook in &self.command {
            hook.check()?;
            let name = hook.name();
            if hook.name.is_some() && !names.insert(name.clone()) {
                return Err(format!("[[hooks.command]] {name:?} is set twice: give each hook its own `name`"));
            }
        }
        for (name, component) in &self.component {
            let at = format!("[hooks.component.{name}]");
            if component.timeout_ms == 0 || component.timeout_ms > MAX_COMPONENT_MS {
                return Err(format!("{at}: `timeout_ms` must be between 1 and {MAX_COMPONENT_MS}"));
            }
            if component.memory_mib == 0 || component.memory_mib > MAX_COMPONENT_MIB {
                return Err(format!("{at}: `memory_mib` must be between 1 and {MAX_COMPONENT_MIB}"));
            }
        }
        Ok(())
    }
}

/// Takes `hooks.command` out of one layer's table before the merge (so no later layer's list
/// replaces it), leaving no empty `[hooks]` behind.
pub(super) fn take_commands(table: &mut DeTable<'_>) {
    let Some(hooks) = table.get_mut("hooks") else { return };
    let emptied = match hooks.get_mut() {
        DeValue::Table(hooks) => {
            hooks.remove("command");
            hooks.is_empty()
        }
        _ => false,
    };
    if emptied {
        table.remove("hooks");
    }
}

/// Marks each of `hooks` as set by `origin` in `scope`.
pub(super) fn placed(
    hooks: Vec<CommandHookSettings>,
    scope: HookScope,
    origin: &std::path::Path,
) -> Vec<CommandHookSettings> {
    hooks.into_iter().map(|hook| CommandHookSettings { scope, origin: origin.to_path_buf(), ..hook }).collect()
}

#[cfg(test)]
#[path = "hooks_tests.rs"]
mod tests;
