//! Merging settings files at the TOML level, before anything is typed: tables merge key by
//! key, arrays and scalars are replaced whole. Every stream's keys layer without code here.
//!
//! Each file is parsed into a [`DeTable`] whose spans are moved into one offset space shared
//! by all the files of a run ([`shift`]), so a span alone says which file and line a value
//! came from: the merged table deserializes into `FileConfig` with `Spanned` fields that
//! still point into the right file, and [`Merger`] records each leaf's span for
//! `airlock config show`.
//!
//! Two rules bend the merge: a key locked by the system file keeps the system's value
//! whatever a later layer says ([`Merger::locked`]), and a workspace's file may not set the
//! keys [`workspace_refusal`] names.

use std::collections::BTreeMap;

use toml::Spanned;
use toml::de::{DeTable, DeValue};

/// A dotted key path, one element per table level.
pub type KeyPath = Vec<String>;

/// `a.b.c`.
pub fn dotted(path: &[String]) -> String {
    path.join(".")
}

/// `table` with every span moved `base` bytes on, into the run's shared offset space.
pub fn shift<'i>(table: DeTable<'i>, base: usize) -> DeTable<'i> {
    let mut shifted = DeTable::new();
    for (key, value) in table {
        let span = key.span();
        let key = Spanned::new(span.start + base..span.end + base, key.into_inner());
        shifted.insert(key, shift_value(value, base));
    }
    shifted
}

fn shift_value<'i>(value: Spanned<DeValue<'i>>, base: usize) -> Spanned<DeValue<'i>> {
    let span = value.span();
    let inner = match value.into_inner() {
        DeValue::Table(table) => DeValue::Table(shift(table, base)),
        DeValue::Array(mut array) => {
            // In place, so the array keeps whether it was written as `[[table]]`s.
            for item in array.iter_mut() {
                let taken = std::mem::replace(item, Spanned::new(0..0, DeValue::Boolean(false)));
                *item = shift_value(taken, base);
            }
            DeValue::Array(array)
        }
        other => other,
    };
    Spanned::new(span.start + base..span.end + base, inner)
}

/// Where one effective leaf value came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Origin {
    /// The start of its key, in the shared offset space.
    pub offset: usize,
    /// The profile it was set by, if it came from `[profiles.NAME]`.
    pub profile: Option<String>,
}

/// A key a layer tried to set and may not, said once per run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refused {
    pub path: KeyPath,
    /// The start of the refused key, in the shared offset space.
    pub offset: usize,
    pub why: Why,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Why {
    /// The system file locks it (this locked path).
    Locked(String),
    /// A workspace's file may not set it; the reason.
    Workspace(&'static str),
}

/// Folds layers into one table, recording each leaf's origin and what was refused.
#[derive(Default)]
pub struct Merger<'i> {
    pub table: DeTable<'i>,
    pub origins: BTreeMap<KeyPath, Origin>,
    pub refused: Vec<Refused>,
    /// Dotted paths the system file locks (empty until it is merged).
    pub locked: Vec<KeyPath>,
}

/// Which layer is being merged, for the rules that depend on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role<'a> {
    System,
    User,
    Workspace,
    Profile(&'a str),
}

impl<'i> Merger<'i> {
    /// Merges `layer` over what is there.
    pub fn merge(&mut self, layer: DeTable<'i>, role: Role<'_>) {
        let mut into = std::mem::take(&mut self.table);
        self.merge_into(&mut into, layer, &mut Vec::new(), role);
        self.table = into;
    }

    fn merge_into(&mut self, into: &mut DeTable<'i>, layer: DeTable<'i>, path: &mut KeyPath, role: Role<'_>) {
        for (key, value) in layer {
            path.push(key.get_ref().to_string());
            let offset = key.span().start;
            if let Some(why) = self.refusal(path, value.get_ref(), role) {
                self.refused.push(Refused { path: path.clone(), offset, why });
                path.pop();
                continue;
            }
            match (value.into_inner(), into.get_mut(key.get_ref().as_ref() as &str)) {
                (DeValue::Table(inner), Some(existing)) if existing.get_ref().is_table() => {
                    if let DeValue::Table(existing) = existing.get_mut() {
                        self.merge_into(existing, inner, path, role);
                    }
                }
                (DeValue::Table(inner), _) => {
                    let mut fresh = DeTable::new();
                    self.merge_into(&mut fresh, inner, path, role);
                    into.insert(key, Spanned::new(offset..offset, DeValue::Table(fresh)));
                }
                (leaf, _) => {
                    let profile = match role {
                        Role::Profile(name) => Some(name.to_string()),
                        _ => None,
                    };
                    self.origins.retain(|known, _| !known.starts_with(path));
                    self.origins.insert(path.clone(), Origin { offset, profile });
                    into.insert(key, Spanned::new(offset..offset, leaf));
                }
            }
            path.pop();
        }
    }

    /// Why `role` may not set `path` (to `value`), if it may not.
    fn refusal(&self, path: &KeyPath, value: &DeValue<'_>, role: Role<'_>) -> Option<Why> {
        if role == Role::System {
            return None;
        }
        if let Some(locked) = self.locked.iter().find(|locked| locked == &path) {
            return Some(Why::Locked(dotted(locked)));
        }
        (role == Role::Workspace).then(|| workspace_refusal(path, value)).flatten().map(Why::Workspace)
    }

    /// Removes the top-level `key` from the merged table and from the origins.
    pub fn remove(&mut self, key: &str) -> Option<DeValue<'i>> {
        self.origins.retain(|path, _| path.first().map(String::as_str) != Some(key));
        self.table.remove(key).map(Spanned::into_inner)
    }
}

/// Why a workspace's `.airlock/config.toml` may not set `path`, if it may not. A trusted
/// workspace is still someone else's repository: it may tune how airlock works for it, but
/// never widen what commands reach, where model requests (and keys) go, what runs without
/// asking, or which rules lock or profiles mean.
pub fn workspace_refusal(path: &[String], value: &DeValue<'_>) -> Option<&'static str> {
    let first = path.first().map(String::as_str).unwrap_or_default();
    let last = path.last().map(String::as_str).unwrap_or_default();
    let why = match first {
        "commands" => "it widens what commands may read, write and inherit",
        "provider" | "providers" | "base_url" => "it chooses where model requests and their keys go",
        "approval_mode" => {
            let widening = value.as_str().is_none_or(|mode| !matches!(mode, "default" | "plan"));
            return widening.then_some("only \"default\" or \"plan\" may be set by a workspace");
        }
        "locked" => "only the system file locks keys",
        "profiles" => "profiles are defined by the system file and the user's",
        // Every setting of a component hook changes what the user's hooks do: off or on
        // again, failures let pass, a deadline or memory cap too small to ever succeed.
        "hooks" if path.get(1).map(String::as_str) == Some("component") => {
            "it would turn hooks off or on, or set them up to fail"
        }
        "telemetry" => "it could send your prompts and tool calls to a collector of the repository's choosing",
        "audit" => "only the user's or the system's file may turn the audit trail off",
        "checkpoints" => "only the user's or the system's file may turn off or limit the undo of what tools do",
        "plugins" => "a repository must not choose where you discover plugins to install",
        _ if path.iter().any(|part| part == "web_search") => "it chooses where search requests and their key go",
        _ if last.ends_with("_env") || last.ends_with("_variable") || last == "env" || last == "headers" => {
            "it names variables or headers that carry secrets"
        }
        _ if last == "url" || last.ends_with("_url") => "it chooses where requests go",
        _ => return None,
    };
    Some(why)
}

#[cfg(test)]
#[path = "merge_tests.rs"]
mod tests;
