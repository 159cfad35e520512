//! Policy files — `$AIRLOCK_HOME/policy.toml` (the user's) and
//! `<workspace>/.airlock/policy.toml` (a workspace's) — read and written.
//!
//! ```toml
//! [grants.weather]                       # by plugin name
//! files = ["~/data:read", "src:read-write"]
//! network = ["https://api.weather.example", "https://*.tiles.example:8443"]
//! env = ["WEATHER_TOKEN"]
//! processes = ["git status"]
//! memory_mb = 128
//! timeout_secs = 30
//! max_output_bytes = 200000
//!
//! [[rule]]
//! tool = "write_file"   # or "*" (the default)
//! path = "docs/**"      # optional glob on the path the call touches
//! command = "git push"  # optional command prefix (exec confirmations)
//! decision = "allow"    # allow | ask | deny
//! priority = 10         # higher wins
//! ```
//!
//! A malformed file is an error naming the file, line and problem: nothing is silently
//! dropped or widened. Writes go through `toml_edit`, so the user's comments and layout
//! survive, and are atomic.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use super::PolicyError;
use super::rules::{PathGlob, Rule, RuleDecision, RuleSource};
use crate::capability::net::NetRule;
use crate::capability::{FileGrant, Grant};
use crate::runtime::cache::write_atomically;

/// One parsed policy file (empty when the file does not exist).
#[derive(Debug, Clone, Default)]
pub struct PolicyFile {
    pub path: PathBuf,
    /// The raw bytes' sha-256 (`none` when absent), for trust pinning.
    pub hash: String,
    pub grants: BTreeMap<String, Grant>,
    pub rules: Vec<Rule>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPolicy {
    #[serde(default)]
    grants: BTreeMap<String, RawGrant>,
    #[serde(default)]
    rule: Vec<Spanned<RawRule>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawGrant {
    #[serde(default)]
    files: Vec<Spanned<String>>,
    #[serde(default)]
    network: Vec<Spanned<String>>,
    #[serde(default)]
    env: Vec<Spanned<String>>,
    #[serde(default)]
    processes: Vec<Spanned<String>>,
    memory_mb: Option<Spanned<usize>>,
    timeout_secs: Option<Spanned<u64>>,
    max_output_bytes: Option<Spanned<usize>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRule {
    tool: Option<String>,
    command: Option<String>,
    path: Option<String>,
    decision: RuleDecision,
    #[serde(default)]
    priority: i64,
}

/// Reads a policy file of the user's (links followed; bounded, regular only); a missing
/// file is an empty policy.
pub fn load(path: &Path, source: RuleSource) -> Result<PolicyFile, PolicyError> {
    match read_user_file(path)? {
        Some(bytes) => parse(path, bytes, source),
        None => Ok(PolicyFile { path: path.to_path_buf(), hash: "none".into(), ..PolicyFile::default() }),
    }
}

/// The bytes of one of the user's own files (policy, trust), at most
/// [`super::MAX_POLICY_BYTES`]; `None` when it does not exist. Never blocks on a FIFO.
pub fn read_user_file(path: &Path) -> Result<Option<Vec<u8>>, PolicyError> {
    match crate::files::read_user_file(path, super::MAX_POLICY_BYTES) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(crate::files::FileError::NotFound) => Ok(None),
        Err(e) => Err(PolicyError::Read { path: path.to_path_buf(), reason: e.to_string() }),
    }
}

/// `bytes` as text, or the error that names `path`.
pub(super) fn utf8(path: &Path, bytes: Vec<u8>) -> Result<String, PolicyError> {
    String::from_utf8(bytes).map_err(|_| PolicyError::Invalid {
        path: path.to_path_buf(),
        line: 1,
        message: "the file is not UTF-8".into(),
    })
}

/// Parses the policy file `path` whose content is `bytes`.
pub fn parse(path: &Path, bytes: Vec<u8>, source: RuleSource) -> Result<PolicyFile, PolicyError> {
    let hash = crate::runtime::cache::content_hash(&bytes);
    let text = utf8(path, bytes)?;
    let invalid = |offset: usize, message: String| PolicyError::Invalid {
        path: path.to_path_buf(),
        line: line_of(&text, offset),
        message,
    };
    let raw: RawPolicy =
        toml::from_str(&text).map_err(|e| invalid(e.span().map_or(0, |s| s.start), e.message().to_string()))?;

    let mut grants = BTreeMap::new();
    for (plugin, raw) in raw.grants {
        let mut grant = Grant::default();
        for file in &raw.files {
            grant.files.push(FileGrant::parse(file.get_ref()).map_err(|e| invalid(file.span().start, e))?);
        }
        for rule in &raw.network {
            grant.network.push(NetRule::parse(rule.get_ref()).map_err(|e| invalid(rule.span().start, e))?);
        }
        for var in &raw.env {
            if !is_env_name(var.get_ref()) {
                return Err(invalid(
                    var.span().start,
                    format!("{:?} is not an environment variable name", var.get_ref()),
                ));
            }
            grant.env.push(var.get_ref().clone());
        }
        for prefix in &raw.processes {
            if prefix.get_ref().trim().is_empty() {
                return Err(invalid(prefix.span().start, "a process grant needs a command prefix".into()));
            }
            grant.processes.push(prefix.get_ref().trim().to_string());
        }
        grant.memory_mb = positive(raw.memory_mb, "memory_mb").map_err(|(at, e)| invalid(at, e))?;
        grant.timeout_secs = positive(raw.timeout_secs, "timeout_secs").map_err(|(at, e)| invalid(at, e))?;
        grant.max_output_bytes =
            positive(raw.max_output_bytes, "max_output_bytes").map_err(|(at, e)| invalid(at, e))?;
        grants.insert(plugin, grant);
    }

    let mut rules = Vec::new();
    for spanned in raw.rule {
        // Point at the rule's `[[rule]]` header rather than its first key.
        let start = spanned.span().start.min(text.len());
        let line = line_of(&text, text[..start].rfind("[[rule]]").unwrap_or(start));
        let raw = spanned.into_inner();
        let path_glob = match raw.path {
            Some(glob) => Some(PathGlob::new(&glob).map_err(|e| PolicyError::Invalid {
                path: path.to_path_buf(),
                line,
                message: e,
            })?),
            None => None,
        };
        if raw.command.as_deref().is_some_and(|c| c.trim().is_empty()) {
            return Err(PolicyError::Invalid { path: path.to_path_buf(), line, message: "`command` is empty".into() });
        }
        rules.push(Rule {
            tool: raw.tool.filter(|t| t != "*"),
            command: raw.command,
            path: path_glob,
            decision: raw.decision,
            priority: raw.priority,
            source,
            origin: format!("{}:{line}", path.display()),
        });
    }
    Ok(PolicyFile { path: path.to_path_buf(), hash, grants, rules })
}

fn positive<T: PartialEq + Default + Copy>(
    value: Option<Spanned<T>>,
    name: &str,
) -> Result<Option<T>, (usize, String)> {
    match value {
        Some(v) if *v.get_ref() == T::default() => Err((v.span().start, format!("`{name}` must be at least 1"))),
        Some(v) => Ok(Some(*v.get_ref())),
        None => Ok(None),
    }
}

fn is_env_name(name: &str) -> bool {
    !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !name.starts_with(|c: char| c.is_ascii_digit())
}

pub(super) fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())].iter().filter(|&&b| b == b'\n').count() + 1
}

/// Edits a policy file in place, keeping everything the user wrote.
pub struct Editor {
    path: PathBuf,
    document: toml_edit::DocumentMut,
}

impl Editor {
    pub fn open(path: &Path) -> Result<Self, PolicyError> {
        Self::parse(path.to_path_buf(), read_user_file(path)?.unwrap_or_default())
    }

    /// Opens `<workspace>/.airlock/policy.toml`, read without following links.
    pub fn open_workspace(workspace: &Path) -> Result<Self, PolicyError> {
        let path = super::workspace_policy_path(workspace);
        let bytes = match super::read_workspace_policy(workspace) {
            super::WorkspacePolicy::Missing => Vec::new(),
            super::WorkspacePolicy::File { bytes, .. } => bytes,
            super::WorkspacePolicy::Unusable(reason) => return Err(PolicyError::Read { path, reason }),
        };
        Self::parse(path, bytes)
    }

    fn parse(path: PathBuf, bytes: Vec<u8>) -> Result<Self, PolicyError> {
        let text = utf8(&path, bytes)?;
        let document = text.parse::<toml_edit::DocumentMut>().map_err(|e| PolicyError::Invalid {
            path: path.clone(),
            line: e.span().map_or(1, |s| line_of(&text, s.start)),
            message: e.message().to_string(),
        })?;
        Ok(Self { path, document })
    }

    /// The `[grants.NAME]` table, created when missing.
    fn grant_table(&mut self, plugin: &str) -> Option<&mut toml_edit::Table> {
        let grants = self.document.entry("grants").or_insert_with(|| {
            let mut table = toml_edit::Table::new();
            table.set_implicit(true);
            toml_edit::Item::Table(table)
        });
        grants
            .as_table_mut()?
            .entry(plugin)
            .or_insert_with(|| toml_edit::Item::Table(toml_edit::Table::new()))
            .as_table_mut()
    }

    /// Adds `values` to the list `key` of a plugin's grant (no duplicates).
    pub fn add_to_list(&mut self, plugin: &str, key: &str, values: &[String]) {
        if values.is_empty() {
            return;
        }
        let Some(table) = self.grant_table(plugin) else { return };
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
        let Some(table) = self.grant_table(plugin) else { return };
        if let Some(array) = table.get_mut(key).and_then(|i| i.as_array_mut()) {
            array.retain(|v| !values.iter().any(|value| v.as_str() == Some(value)));
        }
    }

    /// Sets (or with `None` removes) a number of a plugin's grant.
    pub fn set_number(&mut self, plugin: &str, key: &str, value: Option<u64>) {
        let Some(table) = self.grant_table(plugin) else { return };
        match value.and_then(|v| i64::try_from(v).ok()) {
            Some(v) => {
                table.insert(key, toml_edit::value(v));
            }
            None => {
                table.remove(key);
            }
        }
    }

    /// Removes a plugin's whole grant.
    pub fn remove_grant(&mut self, plugin: &str) {
        if let Some(grants) = self.document.get_mut("grants").and_then(|g| g.as_table_mut()) {
            grants.remove(plugin);
        }
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

    /// Writes the file atomically and checks that it still parses.
    pub fn save(self, source: RuleSource) -> Result<PolicyFile, PolicyError> {
        let text = self.document.to_string();
        write_atomically(&self.path, text.as_bytes())
            .map_err(|e| PolicyError::Write { path: self.path.clone(), reason: e.to_string() })?;
        parse(&self.path, text.into_bytes(), source)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(text: &str) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("policy.toml");
        std::fs::write(&path, text).unwrap();
        (dir, path)
    }

    #[test]
    fn reads_grants_and_rules() {
        let (_dir, path) = write(
            "[grants.weather]\nfiles = [\"~/data\", \"src:read-write\"]\nnetwork = [\"https://api.example.com\"]\n\
             env = [\"TOKEN\"]\nmemory_mb = 64\n\n[[rule]]\ntool = \"write_file\"\npath = \"docs/**\"\ndecision = \"allow\"\npriority = 3\n",
        );
        let policy = load(&path, RuleSource::User).unwrap();
        let grant = &policy.grants["weather"];
        assert_eq!(grant.files.len(), 2);
        assert_eq!(grant.network.len(), 1);
        assert_eq!(grant.env, ["TOKEN"]);
        assert_eq!(grant.memory_mb, Some(64));
        assert_eq!(policy.rules[0].tool.as_deref(), Some("write_file"));
        assert_eq!(policy.rules[0].priority, 3);
        assert!(policy.rules[0].origin.ends_with(":7"), "{}", policy.rules[0].origin);
    }

    #[test]
    fn names_file_line_and_problem() {
        for (text, line, needle) in [
            ("[grants.x]\nfiles = [\"a\"]\nnetwork = [\"ftp://x\"]\n", 3, "ftp"),
            ("[grants.x]\n\nenv = [\"NOT-A-NAME\"]\n", 3, "environment variable"),
            ("[grants.x]\nfilez = []\n", 2, "filez"),
            ("[[rule]]\ntool = \"x\"\ndecision = \"maybe\"\n", 3, "maybe"),
            ("[[rule]]\ntool = \"x\"\npath = \"[\"\ndecision = \"allow\"\n", 1, "glob"),
            ("[grants.x]\nmemory_mb = 0\n", 2, "at least 1"),
        ] {
            let (_dir, path) = write(text);
            let error = load(&path, RuleSource::User).unwrap_err().to_string();
            assert!(error.contains(&format!("policy.toml:{line}:")), "{text:?}: {error}");
            assert!(error.contains(needle), "{text:?}: {error}");
        }
    }

    #[test]
    fn edits_keep_comments_and_round_trip() {
        let (_dir, path) = write("# my settings\n[grants.weather]\nenv = [\"A\"] # keep me\n");
        let mut editor = Editor::open(&path).unwrap();
        editor.add_to_list("weather", "env", &["B".into(), "A".into()]);
        editor.add_to_list("other", "files", &["src:read".into()]);
        editor.set_number("other", "memory_mb", Some(32));
        editor.add_rule("replace", None, Some("src/a.rs"), RuleDecision::Allow, 100);
        let policy = editor.save(RuleSource::User).unwrap();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.contains("# my settings") && text.contains("# keep me"), "{text}");
        assert_eq!(policy.grants["weather"].env, ["A", "B"]);
        assert_eq!(policy.grants["other"].memory_mb, Some(32));
        assert_eq!(policy.rules.len(), 1);
        let mut editor = Editor::open(&path).unwrap();
        editor.remove_from_list("weather", "env", &["A".into()]);
        editor.remove_grant("other");
        let policy = editor.save(RuleSource::User).unwrap();
        assert_eq!(policy.grants["weather"].env, ["B"]);
        assert!(!policy.grants.contains_key("other"));
    }
}
