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
//! [grants.weather.approved]              # the requests this grant was given for
//! network = ["https://api.weather.example"]
//! env = ["WEATHER_TOKEN"]
//!
//! [[rule]]
//! tool = "write_file"   # or "*" (the default)
//! path = "docs/**"      # optional glob on the path the call touches
//! command = "git push"  # optional command prefix (exec confirmations)
//! decision = "allow"    # allow | ask | deny
//! priority = 10         # higher wins
//! ```
//!
//! Values that cannot be right are errors naming the file, line and problem — a misspelt
//! access mode (`.:rw`), an unknown key, a wrong type, a network entry that is not
//! `scheme://host[:port]`, a rule for a name no tool can have, a variable no plugin may be
//! given ([`super::reserved_variable`]): nothing is silently dropped, widened or read as
//! something else. Names that are well-formed but match nothing
//! installed are only known once plugins are loaded: [`super::Policy::bind`] warns about
//! them. Writes go through [`super::edit::Editor`], so the user's comments and layout
//! survive, and are atomic.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use toml::Spanned;

use super::PolicyError;
pub use super::edit::Editor;
use super::rules::{PathGlob, Rule, RuleDecision, RuleSource};

/// The most `[[rule]]`s one policy file may hold.
const MAX_RULES: usize = 1000;
use crate::capability::diff::Requests;
use crate::capability::net::NetRule;
use crate::capability::{self, FileGrant, Grant};

/// One parsed policy file (empty when the file does not exist).
#[derive(Debug, Clone, Default)]
pub struct PolicyFile {
    pub path: PathBuf,
    /// The raw bytes' sha-256 (`none` when absent), for trust pinning.
    pub hash: String,
    /// The `[grants.NAME]` tables, by the plugin name they belong to (as written until
    /// [`super::Policy::bind`] resolves other names of a plugin to its own).
    pub grants: BTreeMap<String, GrantTable>,
    pub rules: Vec<Rule>,
    /// The `[mcp_servers.NAME]` tables: what each MCP server started from this file's
    /// scope may do ([`super::mcp_grant::McpGrant`]).
    pub mcp_servers: BTreeMap<String, super::mcp_grant::McpGrant>,
    /// `[signatures]`: what the plugin folder this file governs requires and trusts.
    pub signatures: Option<super::signatures::Signatures>,
}

/// One `[grants.NAME]` table.
#[derive(Debug, Clone, Default)]
pub struct GrantTable {
    pub grant: Grant,
    /// The lists the table sets (a built-in keeps its default for the others).
    pub sets: Parts,
    /// The table's name as written in the file (what an edit must change).
    pub key: String,
    /// The line of its header.
    pub line: usize,
    /// `[grants.NAME.approved]`: the requests the grant was given for
    /// ([`crate::capability::diff`]); a request outside it gets nothing. `None` in a table
    /// written before records existed, which approves what the plugin requests now.
    pub approved: Option<Requests>,
}

/// The list parts of a grant.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Parts {
    pub files: bool,
    pub network: bool,
    pub env: bool,
    pub processes: bool,
}

impl Parts {
    pub const ALL: Self = Self { files: true, network: true, env: true, processes: true };
    /// The policy-file keys of the lists, in order.
    pub const KEYS: [&'static str; 4] = ["files", "network", "env", "processes"];

    /// Whether the list `key` (one of [`Self::KEYS`]) is among these parts.
    pub fn has(self, key: &str) -> bool {
        match key {
            "files" => self.files,
            "network" => self.network,
            "env" => self.env,
            "processes" => self.processes,
            _ => false,
        }
    }

    /// These parts' keys.
    pub fn keys(self) -> Vec<&'static str> {
        Self::KEYS.into_iter().filter(|key| self.has(key)).collect()
    }

    pub fn is_empty(self) -> bool {
        self == Self::default()
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPolicy {
    #[serde(default)]
    grants: BTreeMap<Spanned<String>, RawGrant>,
    #[serde(default)]
    rule: Vec<Spanned<RawRule>>,
    #[serde(default)]
    mcp_servers: BTreeMap<String, super::mcp_grant::McpGrant>,
    signatures: Option<Spanned<super::signatures::RawSignatures>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawGrant {
    files: Option<Vec<Spanned<String>>>,
    network: Option<Vec<Spanned<String>>>,
    env: Option<Vec<Spanned<String>>>,
    processes: Option<Vec<Spanned<String>>>,
    memory_mb: Option<Spanned<usize>>,
    timeout_secs: Option<Spanned<u64>>,
    max_output_bytes: Option<Spanned<usize>>,
    approved: Option<RawApproved>,
}

/// `[grants.NAME.approved]`: requests, in the syntax the plugin declares them.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawApproved {
    #[serde(default)]
    files: Vec<Spanned<String>>,
    #[serde(default)]
    network: Vec<Spanned<String>>,
    #[serde(default)]
    env: Vec<Spanned<String>>,
    #[serde(default)]
    processes: Vec<Spanned<String>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawRule {
    tool: Option<Spanned<String>>,
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
    match airlock_files::read_user_file(path, super::MAX_POLICY_BYTES) {
        Ok(bytes) => Ok(Some(bytes)),
        Err(airlock_files::FileError::NotFound) => Ok(None),
        Err(e) => Err(PolicyError::Read { path: path.to_path_buf(), reason: e.to_string() }),
    }
}

/// The rules of the system policy file `path` (none when it does not exist). It holds
/// `[[rule]]`s only: what a plugin or server is granted stays the user's and the trusted
/// workspace's to say, so a grant there is an error rather than silently unused.
pub fn load_system(path: &Path) -> Result<Vec<Rule>, PolicyError> {
    let file = load(path, RuleSource::System)?;
    if let Some((name, table)) = file.grants.iter().next() {
        return Err(PolicyError::Invalid {
            path: path.to_path_buf(),
            line: table.line,
            message: format!("[grants.{name}]: the system policy file holds [[rule]]s only"),
        });
    }
    if let Some(name) = file.mcp_servers.keys().next() {
        return Err(PolicyError::Invalid {
            path: path.to_path_buf(),
            line: 1,
            message: format!("[mcp_servers.{name}]: the system policy file holds [[rule]]s only"),
        });
    }
    Ok(file.rules)
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
    let hash = airlock_files::content_hash(&bytes);
    let text = utf8(path, bytes)?;
    let invalid = |offset: usize, message: String| PolicyError::Invalid {
        path: path.to_path_buf(),
        line: line_of(&text, offset),
        message,
    };
    let raw: RawPolicy =
        toml::from_str(&text).map_err(|e| invalid(e.span().map_or(0, |s| s.start), e.message().to_string()))?;

    let mut grants = BTreeMap::new();
    for (key, raw) in raw.grants {
        let table = parse_grant(key, raw, &text, &invalid)?;
        grants.insert(table.key.clone(), table);
    }
    let mut rules = Vec::new();
    for (index, spanned) in raw.rule.into_iter().enumerate() {
        rules.push(parse_rule(index, spanned, &text, path, source, &invalid)?);
    }
    for (name, grant) in &raw.mcp_servers {
        grant.check(name).map_err(|message| invalid(0, message))?;
    }
    let signatures = match raw.signatures {
        Some(table) => {
            let line =
                line_of(&text, text[..(table.span().start + 12).min(text.len())].rfind("[signatures]").unwrap_or(0));
            let workspace = source == RuleSource::Workspace;
            Some(super::signatures::parse(table.into_inner(), path, line, workspace, &invalid)?)
        }
        None => None,
    };
    Ok(PolicyFile { path: path.to_path_buf(), hash, grants, rules, mcp_servers: raw.mcp_servers, signatures })
}

/// Where in a policy file's text a problem is, and what: the error to return.
type Invalid<'a> = dyn Fn(usize, String) -> PolicyError + 'a;

/// One `[grants.NAME]` table.
fn parse_grant(key: Spanned<String>, raw: RawGrant, text: &str, invalid: &Invalid) -> Result<GrantTable, PolicyError> {
    let at = key.span().start;
    let key = key.into_inner();
    if key.trim().is_empty() || key.chars().any(crate::sanitize::is_hidden) {
        return Err(invalid(at, format!("[grants.{key:?}] cannot name a plugin: give the plugin's name")));
    }
    let mut table = GrantTable { key: key.clone(), line: line_of(text, at), ..GrantTable::default() };
    let grant = &mut table.grant;
    table.sets = Parts {
        files: raw.files.is_some(),
        network: raw.network.is_some(),
        env: raw.env.is_some(),
        processes: raw.processes.is_some(),
    };
    for file in raw.files.iter().flatten() {
        grant.files.push(FileGrant::parse(file.get_ref()).map_err(|e| invalid(file.span().start, e))?);
    }
    for rule in raw.network.iter().flatten() {
        grant.network.push(NetRule::parse(rule.get_ref()).map_err(|e| invalid(rule.span().start, e))?);
    }
    for var in raw.env.iter().flatten() {
        if !is_env_name(var.get_ref()) {
            return Err(invalid(var.span().start, format!("{:?} is not an environment variable name", var.get_ref())));
        }
        if let Some(why) = super::reserved_variable(var.get_ref()) {
            return Err(invalid(
                var.span().start,
                format!("no plugin may be granted the variable {}: {why}; remove it", var.get_ref()),
            ));
        }
        grant.env.push(var.get_ref().clone());
    }
    for prefix in raw.processes.iter().flatten() {
        if prefix.get_ref().trim().is_empty() {
            return Err(invalid(prefix.span().start, "a process grant needs a command prefix".into()));
        }
        grant.processes.push(prefix.get_ref().trim().to_string());
    }
    grant.memory_mb =
        positive(raw.memory_mb, "memory_mb", capability::MAX_MEMORY_MB).map_err(|(at, e)| invalid(at, e))?;
    grant.timeout_secs =
        positive(raw.timeout_secs, "timeout_secs", capability::MAX_TIMEOUT_SECS).map_err(|(at, e)| invalid(at, e))?;
    grant.max_output_bytes = positive(raw.max_output_bytes, "max_output_bytes", capability::MAX_OUTPUT_BYTES)
        .map_err(|(at, e)| invalid(at, e))?;
    table.approved = raw.approved.map(|raw| parse_approved(raw, invalid)).transpose()?;
    Ok(table)
}

/// A table's record of approved requests. A request a plugin may declare never names a
/// variable no plugin may be given, but an old record might: such an entry approves nothing,
/// so it is kept rather than refused.
fn parse_approved(raw: RawApproved, invalid: &Invalid) -> Result<Requests, PolicyError> {
    let mut record = Requests::default();
    for file in &raw.files {
        record.files.push(FileGrant::parse(file.get_ref()).map_err(|e| invalid(file.span().start, e))?);
    }
    for rule in &raw.network {
        record.network.push(NetRule::parse(rule.get_ref()).map_err(|e| invalid(rule.span().start, e))?);
    }
    for var in &raw.env {
        if !is_env_name(var.get_ref()) {
            return Err(invalid(var.span().start, format!("{:?} is not an environment variable name", var.get_ref())));
        }
        record.env.push(var.get_ref().clone());
    }
    for prefix in &raw.processes {
        if prefix.get_ref().trim().is_empty() {
            return Err(invalid(prefix.span().start, "an approved process request needs a command prefix".into()));
        }
        record.processes.push(prefix.get_ref().trim().to_string());
    }
    Ok(record)
}

/// One `[[rule]]`, the `index`-th of its file.
fn parse_rule(
    index: usize,
    spanned: Spanned<RawRule>,
    text: &str,
    path: &Path,
    source: RuleSource,
    invalid: &Invalid,
) -> Result<Rule, PolicyError> {
    // Point at the rule's `[[rule]]` header rather than its first key.
    let start = spanned.span().start.min(text.len());
    let line = line_of(text, text[..start].rfind("[[rule]]").unwrap_or(start));
    let raw = spanned.into_inner();
    let at_rule = |message: String| PolicyError::Invalid { path: path.to_path_buf(), line, message };
    // Every start parses (and compiles the globs of) a repository's policy, trusted or not.
    if index == MAX_RULES {
        return Err(at_rule(format!("more than {MAX_RULES} rules: merge some (a glob can cover many paths)")));
    }
    let path_glob = match raw.path {
        Some(glob) if glob.trim().is_empty() => {
            return Err(at_rule("`path` is empty: give a glob, e.g. \"docs/**\", or leave it out".into()));
        }
        Some(glob) => Some(PathGlob::new(&glob).map_err(at_rule)?),
        None => None,
    };
    if raw.command.as_deref().is_some_and(|c| c.trim().is_empty()) {
        return Err(at_rule("`command` is empty".into()));
    }
    let tool = match raw.tool {
        Some(tool) if tool.get_ref() == "*" => None,
        Some(tool)
            if !crate::registry::is_tool_name(tool.get_ref()) && !super::rules::is_mcp_rule_tool(tool.get_ref()) =>
        {
            return Err(invalid(
                tool.span().start,
                format!(
                    "`tool = {:?}` can name no tool: tool names are lowercase letters, digits and `_`, \
                     starting with a letter, or an MCP server's `SERVER__tool` or `SERVER__*` \
                     (or \"*\" for every tool)",
                    tool.get_ref()
                ),
            ));
        }
        Some(tool) => Some(tool.into_inner()),
        None => None,
    };
    Ok(Rule {
        tool,
        command: raw.command,
        path: path_glob,
        decision: raw.decision,
        priority: raw.priority,
        source,
        origin: format!("{}:{line}", path.display()),
    })
}

/// A limit of a grant: at least 1 and at most `max`.
fn positive<T: Copy + TryInto<u64>>(
    value: Option<Spanned<T>>,
    name: &str,
    max: u64,
) -> Result<Option<T>, (usize, String)> {
    let Some(value) = value else { return Ok(None) };
    match (*value.get_ref()).try_into() {
        Ok(0) => Err((value.span().start, format!("`{name}` must be at least 1"))),
        Ok(n) if n <= max => Ok(Some(*value.get_ref())),
        _ => Err((value.span().start, format!("`{name}` may be at most {max}"))),
    }
}

/// Whether `name` can be an environment variable's name.
pub fn is_env_name(name: &str) -> bool {
    !name.is_empty()
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        && !name.starts_with(|c: char| c.is_ascii_digit())
}

pub(super) fn line_of(text: &str, offset: usize) -> usize {
    text.as_bytes()[..offset.min(text.len())].iter().filter(|&&b| b == b'\n').count() + 1
}

#[cfg(test)]
#[path = "file_tests.rs"]
mod tests;
