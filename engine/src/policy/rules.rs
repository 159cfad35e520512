//! Approval rules (`[[rule]]` in a policy file, or remembered for the session): a tool, an
//! optional command prefix and an optional path glob, and a decision. Among the rules of
//! one source that match a call, the highest priority wins; on a tie deny beats ask beats
//! allow. Sources are consulted in order — session, user, workspace — and the first source
//! with a matching rule decides, so user rules beat workspace rules.
//!
//! The system's rules (`/etc/airlock/policy.toml`) stand above them all: a system `deny` or
//! `ask` decides before any session, user or workspace rule and before the approval mode,
//! so no "allow always", user `allow` or yolo mode undoes it. A system `allow` decides only
//! when no other rule matches: it never overrides a person's own stricter rule.
//!
//! A workspace's rules are a repository's: they approve (`allow`) only a call that stays
//! within that workspace ([`CallFacts::within_workspace`]), so no rule of a repository
//! approves an edit of the user's memory, a write into another folder or a plugin its trust
//! did not pin. Its `ask` and `deny` rules still apply everywhere: they only hold a call back.

use globset::{Glob, GlobSet, GlobSetBuilder};
use serde::{Deserialize, Serialize};

/// What a rule decides.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RuleDecision {
    Allow,
    Ask,
    Deny,
}

impl RuleDecision {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Allow => "allow",
            Self::Ask => "ask",
            Self::Deny => "deny",
        }
    }
}

/// Where a rule comes from, in precedence order.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum RuleSource {
    /// `/etc/airlock/policy.toml` (or `$AIRLOCK_SYSTEM_DIR/policy.toml`).
    System,
    /// "Allow always … for this session".
    Session,
    /// `$AIRLOCK_HOME/policy.toml`.
    User,
    /// `<workspace>/.airlock/policy.toml` of a trusted workspace.
    Workspace,
}

impl RuleSource {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::System => "system",
            Self::Session => "session",
            Self::User => "user",
            Self::Workspace => "workspace",
        }
    }
}

/// One rule.
#[derive(Debug, Clone)]
pub struct Rule {
    /// The tool it applies to; `None` for every tool (`"*"`).
    pub tool: Option<String>,
    /// A command prefix, matched against the command of an exec confirmation.
    pub command: Option<String>,
    /// A glob matched against the path a call touches (workspace-relative when inside it).
    pub path: Option<PathGlob>,
    pub decision: RuleDecision,
    pub priority: i64,
    pub source: RuleSource,
    /// Where it was written (`file:line`), for messages.
    pub origin: String,
}

/// A compiled path glob and its text.
#[derive(Debug, Clone)]
pub struct PathGlob {
    pub text: String,
    matcher: GlobSet,
}

impl PathGlob {
    /// The longest glob accepted: rules come from files a repository writes, which airlock
    /// parses on every start (trusted or not), so a glob's compiled size must stay small.
    pub const MAX_LEN: usize = 1024;

    pub fn new(text: &str) -> Result<Self, String> {
        if text.len() > Self::MAX_LEN {
            return Err(format!("the path glob is {} bytes long; at most {} are accepted", text.len(), Self::MAX_LEN));
        }
        let glob = Glob::new(text).map_err(|e| format!("invalid path glob {:?}: {e}", crate::sanitize::line(text)))?;
        // A set, not `Glob::compile_matcher`, which panics when the compiled pattern is too big.
        let mut set = GlobSetBuilder::new();
        set.add(glob);
        let matcher =
            set.build().map_err(|e| format!("path glob {:?} cannot be used: {e}", crate::sanitize::line(text)))?;
        Ok(Self { text: text.to_string(), matcher })
    }
}

/// What a rule can be matched against.
#[derive(Debug, Clone, Copy, Default)]
pub struct CallFacts<'a> {
    pub tool: &'a str,
    /// The command an exec confirmation shows.
    pub command: Option<&'a str>,
    /// The path the call touches, workspace-relative when inside the workspace.
    pub path: Option<&'a str>,
    /// The command read as bash reads it (one command of an exec confirmation's line): a
    /// prefix that allows or asks must then cover it written out whole, one that denies
    /// matches its program by file name ([`airlock_shell::matching`]).
    pub parsed: Option<&'a airlock_shell::Command>,
    /// Whether the call stays within the workspace's reach: its tool is one the workspace's
    /// trust covers (a built-in, or a workspace plugin pinned by trust) and everything it
    /// can change lies inside the workspace ([`super::Policy::within_workspace`]). Only such
    /// a call may be approved by a workspace's rule; `false` (the default) when unknown.
    pub within_workspace: bool,
}

/// Whether a rule's `tool` names the tool `name`: the same name, or `SERVER__*` for every
/// tool of an MCP server.
pub fn tool_matches(pattern: &str, name: &str) -> bool {
    match pattern.strip_suffix('*') {
        Some(server) if server.ends_with("__") => name.starts_with(server),
        _ => pattern == name,
    }
}

/// Whether `name` may stand in a rule's `tool` for an MCP server's tools: `SERVER__tool` or
/// `SERVER__*`.
pub fn is_mcp_rule_tool(name: &str) -> bool {
    let Some((server, tool)) = name.split_once("__") else { return false };
    super::mcp_grant::is_server_name(server)
        && (tool == "*"
            || (!tool.is_empty()
                && name.len() <= super::mcp_grant::MAX_OFFERED_NAME
                && tool.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')))
}

impl Rule {
    pub fn matches(&self, facts: &CallFacts<'_>) -> bool {
        if self.tool.as_deref().is_some_and(|tool| !tool_matches(tool, facts.tool)) {
            return false;
        }
        if self.source == RuleSource::Workspace && self.decision == RuleDecision::Allow && !facts.within_workspace {
            return false;
        }
        if let Some(prefix) = &self.command {
            let hit = match (facts.parsed, facts.command) {
                // Deny and ask err on stopping: the program by file name, a word known only
                // at run time counts as a match. Only an allow needs the command written out.
                (Some(parsed), _) if self.decision != RuleDecision::Allow => {
                    airlock_shell::matching::denied_by(prefix, parsed)
                }
                (Some(parsed), _) => parsed.covered_by(prefix),
                (None, Some(command)) => command_has_prefix(command, prefix),
                (None, None) => false,
            };
            if !hit {
                return false;
            }
        }
        if let Some(glob) = &self.path {
            match facts.path {
                Some(path) if glob.matcher.is_match(path) => {}
                _ => return false,
            }
        }
        true
    }

    /// The tool this rule removes from what the model is offered: a deny rule for one
    /// tool with no command or path condition.
    pub fn hidden_tool(&self) -> Option<&str> {
        (self.decision == RuleDecision::Deny && self.command.is_none() && self.path.is_none())
            .then_some(self.tool.as_deref())
            .flatten()
    }

    /// A short description of what the rule covers.
    pub fn scope(&self) -> String {
        let mut scope = format!("tool {}", self.tool.as_deref().unwrap_or("*"));
        if let Some(command) = &self.command {
            scope.push_str(&format!(", command `{command}…`"));
        }
        if let Some(path) = &self.path {
            scope.push_str(&format!(", path {}", path.text));
        }
        scope
    }
}

/// `git push --force` has the prefix `git push` but `gitx` does not have the prefix `git`.
fn command_has_prefix(command: &str, prefix: &str) -> bool {
    let command = command.trim_start();
    let prefix = prefix.trim();
    command.strip_prefix(prefix).is_some_and(|rest| rest.is_empty() || rest.starts_with(char::is_whitespace))
}

/// The rule that decides a call among `rules`, if any: the first source with a match, the
/// highest priority within it, deny over ask over allow on a tie.
pub fn deciding<'a>(rules: impl IntoIterator<Item = &'a Rule>, facts: &CallFacts<'_>) -> Option<&'a Rule> {
    let matching: Vec<&Rule> = rules.into_iter().filter(|rule| rule.matches(facts)).collect();
    let best = |source: RuleSource| {
        matching.iter().copied().filter(|rule| rule.source == source).max_by_key(|rule| (rule.priority, rule.decision))
    };
    let system = best(RuleSource::System);
    if system.is_some_and(|rule| rule.decision != RuleDecision::Allow) {
        return system;
    }
    let source = matching.iter().map(|rule| rule.source).filter(|s| *s != RuleSource::System).min();
    source.and_then(best).or(system)
}

#[cfg(test)]
#[path = "rules_tests.rs"]
mod tests;
