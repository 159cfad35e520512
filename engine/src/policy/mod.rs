//! Policy: what plugins are granted and which calls run, ask or are refused.
//!
//! - [`file`]: the policy files (`/etc/airlock/policy.toml`'s rules, `$AIRLOCK_HOME/policy.toml`,
//!   `<workspace>/.airlock/policy.toml`);
//! - [`trust`]: which workspaces may use their own policy file (pinned to its hash);
//! - [`rules`]: `[[rule]]` matching; [`mode`]: approval modes; [`approver`]: what asking the
//!   user means (requests, answers) — showing the question is a front end's job;
//! - [`grants`]: what a plugin is granted (the one answer for the runtime, the `plugins`
//!   commands and hints), and binding the files' names to the loaded plugins;
//! - [`edit`]: changing a policy file in place; [`effect`]: whether a grant can take effect;
//! - [`reach`]: which calls a workspace's rules may approve (those that stay inside it);
//! - [`folders`]: folders outside the workspace added to the session (`--add-dir`).
//!
//! Grants: built-in plugins get what they request, list by list, unless the user's policy
//! sets that list;
//! plugins from the user's folder get what the user's policy grants; plugins from the
//! workspace folder get what a *trusted* workspace policy grants, and only when their digest
//! was pinned by that trust. An untrusted workspace grants nothing and its rules are
//! ignored: a cloned repository cannot arm itself. Nothing here is reachable from a tool
//! call, so the model can never widen a grant.
//!
//! A grant belongs to one plugin identity: the user's `[grants.NAME]` reach the built-in
//! of that name or, for a name no built-in has, the user-folder plugin; a workspace's reach
//! only workspace plugins whose digest is pinned. Policy files are read bounded
//! ([`MAX_POLICY_BYTES`]) and never blocking; the workspace's without following links.

pub(crate) mod approver;
pub mod edit;
mod effect;
mod exec;
pub mod file;
mod folders;
mod grants;
pub mod line_view;
pub mod mcp_grant;
pub(crate) mod mode;
mod reach;
pub mod rules;
pub mod signatures;
pub mod trust;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use std::time::Duration;

pub use approver::{AlwaysScope, ApprovalOutcome, ApprovalRequest, Approver, GrantOutcome, GrantRequest, RefuseAll};
pub use exec::ExecVerdict;
pub use line_view::{CommandView, LineView};
pub use mode::{ApprovalMode, Basis, Verdict};
use rules::{CallFacts, PathGlob, Rule, RuleDecision, RuleSource};
use trust::{TrustStatus, TrustStore};

pub use effect::reserved_variable;
pub use folders::AddedFolder;
pub use grants::{Granted, SHELL_PLUGIN, SHELL_TIMEOUT_SECS};

use crate::capability::search::{self, SearchEndpoint};
use crate::capability::{self, CallLimits, Effective, Grant, Roots};
use crate::contract::{Confirmation, ToolInfo};
use crate::paths::Paths;
use crate::registry::{Origin, Plugin, Registry};
use airlock_files as files;
use file::PolicyFile;

/// The tool of the built-in that searches: offered only once a search API is configured.
pub const WEB_SEARCH_TOOL: &str = "web_search";
/// The built-in plugin of `activate_skill`.
pub const SKILL_PLUGIN: &str = "activate-skill";

/// Largest policy or trust file read.
pub const MAX_POLICY_BYTES: u64 = 1 << 20;

/// A problem with a policy or trust file.
#[derive(Debug, thiserror::Error)]
pub enum PolicyError {
    #[error("cannot read {path}: {reason}")]
    Read { path: PathBuf, reason: String },
    #[error("{path}:{line}: {message}")]
    Invalid { path: PathBuf, line: usize, message: String },
    #[error("cannot write {path}: {reason}")]
    Write { path: PathBuf, reason: String },
}

/// The policy of one session.
#[derive(Debug)]
pub struct Policy {
    /// The session's approval mode: a front end may change it mid-session (the user's
    /// choice, never the model's).
    mode: Mutex<ApprovalMode>,
    roots: Roots,
    /// The system policy file's rules, which stand above every other ([`rules`]).
    system: Vec<Rule>,
    user: PolicyFile,
    /// The workspace's policy, when the workspace is trusted.
    workspace: Option<PolicyFile>,
    /// The workspace plugins that trust pinned (file name → sha-256).
    pinned: BTreeMap<String, String>,
    /// airlock's own folders (`$AIRLOCK_HOME`, the compile cache), canonical: no grant
    /// reaches them for writing, or a tool could rewrite the user's policy, trust or cache.
    protected: Vec<PathBuf>,
    /// Folders inside `protected` a grant may still write (the memory folder).
    writable: Vec<PathBuf>,
    /// The search API of `[tools.web_search]`, when configured.
    search: Option<SearchEndpoint>,
    /// An untrusted (or changed) workspace's policy, parsed only to say what trusting it
    /// would grant: it never grants anything.
    unarmed: Option<PolicyFile>,
    /// What the user should know about how the policy was assembled.
    pub notices: Vec<String>,
    /// Names in the policy files that match nothing installed, or name a plugin by another
    /// of its names ([`Policy::bind`]), each one line naming file and line.
    pub warnings: Vec<String>,
    session: Mutex<Vec<Rule>>,
    /// Grants the person gave for the session at a grant prompt, by plugin name: added to
    /// what the files grant.
    session_grants: Mutex<BTreeMap<String, Grant>>,
    /// Folders outside the workspace the person added to the session ([`folders`]).
    added: Mutex<Vec<AddedFolder>>,
}

impl Policy {
    /// Takes over `old`'s session state — the approval mode, the rules and grants
    /// remembered for the session, and the folders added to it — when the policy is loaded
    /// anew (the plugin folders changed): a reload neither forgets an "allow always for this
    /// session" nor resets the mode. Session grants and rules are identities' answers, not names': a plugin's are
    /// kept only when `same_plugin` says its code is unchanged, a tool's rules only when
    /// `same_tool` does — a different `foo.wasm` swapped in under the same name inherits
    /// nothing the person gave the old one.
    pub fn carry_session_from(
        &self,
        old: &Policy,
        same_plugin: &dyn Fn(&str) -> bool,
        same_tool: &dyn Fn(&str) -> bool,
    ) {
        self.set_mode(old.mode());
        let rules: Vec<Rule> = old
            .session
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .iter()
            .filter(|rule| rule.tool.as_deref().is_none_or(same_tool))
            .cloned()
            .collect();
        *self.session.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = rules;
        let grants: BTreeMap<String, Grant> = old
            .session_grants
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .iter()
            .filter(|(plugin, _)| same_plugin(plugin))
            .map(|(plugin, grant)| (plugin.clone(), grant.clone()))
            .collect();
        *self.session_grants.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = grants;
        *self.added.lock().unwrap_or_else(PoisonError::into_inner) = old.added_folders();
    }

    /// Adds `extra` to what `plugin` is granted for the rest of the session (a person's
    /// answer at a grant prompt; never the model's).
    pub fn grant_for_session(&self, plugin: &str, extra: &Grant) {
        let mut grants = self.session_grants.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        grants.entry(plugin.to_string()).or_default().merge(extra);
    }

    /// [`Policy::access`] with `extra` added to the grant, for one call (a grant prompt's
    /// "this call only").
    pub fn access_with(
        &self,
        plugin: &Plugin,
        tool: &ToolInfo,
        defaults: CallLimits,
        extra: &Grant,
    ) -> (Effective, CallLimits) {
        let (_, limits) = self.access(plugin, tool, defaults);
        let mut grant = self.grant(plugin).grant;
        self.add_session_grants(&plugin.info.name, &mut grant);
        grant.merge(extra);
        (self.effective_under(plugin, &grant, tool), limits)
    }

    fn add_session_grants(&self, plugin: &str, grant: &mut Grant) {
        let grants = self.session_grants.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(extra) = grants.get(plugin) {
            grant.merge(extra);
        }
    }

    /// Reads the system's rules, the user's policy, the trust store and (when trusted) the
    /// workspace's policy.
    pub fn load(paths: &Paths, roots: Roots, mode: ApprovalMode) -> Result<Self, PolicyError> {
        let user = file::load(&paths.policy_file(), RuleSource::User)?;
        let mut policy = Self::new(mode, roots, user);
        policy.system = file::load_system(&paths.system.join("policy.toml"))?;
        let workspace_file = workspace_policy_path(&policy.roots.workspace);
        match read_workspace_policy(&policy.roots.workspace) {
            WorkspacePolicy::Missing => {}
            WorkspacePolicy::Unusable(reason) => policy.notices.push(format!(
                "ignoring {}: {reason}; it grants nothing (make it a plain file, then run `airlock trust`)",
                workspace_file.display()
            )),
            WorkspacePolicy::File { bytes, hash } => {
                let trust = TrustStore::load(&paths.trust_file())?;
                let status = trust.status(&policy.roots.workspace, &hash);
                let ignored = match status {
                    TrustStatus::Trusted => None,
                    TrustStatus::Untrusted => {
                        Some("this folder is not trusted, so it grants nothing (review it, then run `airlock trust`)")
                    }
                    TrustStatus::Changed => {
                        Some("it changed since you trusted this folder (review it, then run `airlock trust` again)")
                    }
                };
                // The bytes that were hashed are the bytes parsed: no second read.
                match ignored {
                    None => {
                        policy.workspace = Some(file::parse(&workspace_file, bytes, RuleSource::Workspace)?);
                        policy.pinned = trust.pinned_plugins(&policy.roots.workspace).cloned().unwrap_or_default();
                    }
                    Some(why) => {
                        policy.notices.push(format!("ignoring {}: {why}", workspace_file.display()));
                        // Read for hints only ("it grants this: trust the folder"); a file
                        // that does not parse gives none.
                        policy.unarmed = file::parse(&workspace_file, bytes, RuleSource::Workspace).ok();
                    }
                }
            }
        }
        // Both sides are canonical (`Paths` and the workspace root), so no spelling of the
        // home or cache folder escapes the checks here and in `effective_under`.
        policy.protected = paths.protected();
        policy.writable = paths.writable_inside_protected();
        let workspace = &policy.roots.workspace;
        for folder in &policy.protected {
            if folder.starts_with(workspace) || workspace.starts_with(folder) {
                policy.notices.push(format!(
                    "the workspace overlaps {}, airlock's own folder, so no tool gets write access to it \
                     (nor to any folder holding it); pick another workspace",
                    folder.display()
                ));
            }
        }
        Ok(policy)
    }

    /// A policy from the user's file alone (and the built-in defaults).
    pub fn new(mode: ApprovalMode, roots: Roots, user: PolicyFile) -> Self {
        Self {
            mode: Mutex::new(mode),
            roots,
            system: Vec::new(),
            user,
            workspace: None,
            pinned: BTreeMap::new(),
            protected: Vec::new(),
            writable: Vec::new(),
            search: None,
            unarmed: None,
            notices: Vec::new(),
            warnings: Vec::new(),
            session: Mutex::default(),
            session_grants: Mutex::default(),
            added: Mutex::default(),
        }
    }

    /// What the plugin folder of the workspace (`workspace`) or of the user requires of
    /// signatures and trusts ([`signatures::combine`]).
    pub fn signatures(&self, workspace: bool) -> signatures::Signatures {
        let theirs = self.workspace.as_ref().and_then(|w| w.signatures.as_ref()).filter(|_| workspace);
        signatures::combine(self.user.signatures.as_ref(), theirs)
    }

    /// The approval mode in force.
    pub fn mode(&self) -> ApprovalMode {
        *self.mode.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Changes the approval mode for the rest of the session (calls already approved run).
    pub fn set_mode(&self, mode: ApprovalMode) {
        *self.mode.lock().unwrap_or_else(PoisonError::into_inner) = mode;
    }

    pub fn roots(&self) -> &Roots {
        &self.roots
    }

    /// airlock's own folders (`$AIRLOCK_HOME`, the compile cache), canonical: hidden from
    /// every command, never writable through a grant.
    pub fn protected_folders(&self) -> &[PathBuf] {
        &self.protected
    }

    /// Whether the workspace's own policy is in force.
    pub fn workspace_trusted(&self) -> bool {
        self.workspace.is_some()
    }

    /// Whether trust pinned this workspace plugin's exact content.
    pub fn is_pinned(&self, plugin: &Plugin) -> bool {
        let name = plugin.source.path.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        self.pinned.get(&name).is_some_and(|digest| *digest == plugin.source.content_hash)
    }

    /// Notices about workspace plugins that the trusted policy does not arm because they
    /// changed or appeared since the folder was trusted.
    /// Also, for each plugin whose grant's record leaves requests unapproved, which ones and
    /// the command that approves them.
    pub fn plugin_notices(&self, registry: &Registry) -> Vec<String> {
        let mut notices: Vec<String> = registry
            .plugins()
            .into_iter()
            .filter_map(|plugin| {
                let record = self.approved(plugin)?;
                let unapproved = capability::diff::Requests::of(&plugin.info.tools).beyond(record);
                let hint = self.unapproved_hint(plugin, &unapproved)?;
                Some(format!("plugin {}: {hint}", plugin.label()))
            })
            .collect();
        if self.workspace.is_none() {
            return notices;
        }
        notices.extend(self.changed_workspace_plugins(registry));
        notices
    }

    fn changed_workspace_plugins(&self, registry: &Registry) -> Vec<String> {
        registry
            .plugins()
            .into_iter()
            .filter(|p| p.source.origin == Origin::Workspace && !self.is_pinned(p))
            .map(|p| {
                let how = if self.pinned.contains_key(&p.source.file_name()) {
                    "changed since you trusted this folder"
                } else {
                    "was added since you trusted this folder"
                };
                format!(
                    "{} {how}: the workspace policy grants it nothing (review it, then run `airlock trust` again)",
                    p.source.display()
                )
            })
            .collect()
    }

    /// What one tool of `plugin` gets: requested ∩ granted.
    pub fn effective(&self, plugin: &Plugin, tool: &ToolInfo) -> Effective {
        self.effective_under(plugin, &self.grant(plugin).grant, tool)
    }

    /// What one call of `tool` gets: its capabilities, and its limits (the grant's, else
    /// `defaults`).
    pub fn access(&self, plugin: &Plugin, tool: &ToolInfo, defaults: CallLimits) -> (Effective, CallLimits) {
        let mut grant = self.grant(plugin).grant;
        self.add_session_grants(&plugin.info.name, &mut grant);
        let limits = CallLimits {
            memory: grant.memory_mb.map_or(defaults.memory, |mb| mb << 20),
            deadline: grant.timeout_secs.map_or(defaults.deadline, Duration::from_secs),
            output: grant.max_output_bytes.unwrap_or(defaults.output),
        };
        (self.effective_under(plugin, &grant, tool), limits)
    }

    /// [`Policy::effective`] with `record` standing for the grant's record of approved
    /// requests (one written after this policy was loaded; `None`: no record).
    pub fn effective_recorded(
        &self,
        plugin: &Plugin,
        tool: &ToolInfo,
        record: Option<&capability::diff::Requests>,
    ) -> Effective {
        self.effective_with(plugin, &self.grant(plugin).grant, tool, record)
    }

    fn effective_under(&self, plugin: &Plugin, grant: &Grant, tool: &ToolInfo) -> Effective {
        self.effective_with(plugin, grant, tool, self.approved(plugin))
    }

    fn effective_with(
        &self,
        plugin: &Plugin,
        grant: &Grant,
        tool: &ToolInfo,
        record: Option<&capability::diff::Requests>,
    ) -> Effective {
        // A request of a variable no plugin may be given is ignored (and warned about once,
        // by `bind`): it is neither granted nor offered at a grant prompt.
        let without_reserved;
        let tool = if tool.capabilities.env.iter().any(|var| reserved_variable(var).is_some()) {
            let mut narrowed = tool.clone();
            narrowed.capabilities.env.retain(|var| reserved_variable(var).is_none());
            without_reserved = narrowed;
            &without_reserved
        } else {
            tool
        };
        // A request the grant's record does not approve gets nothing, whatever the grant
        // covers: it is new since the version the grant was given for.
        let approved_only;
        let mut unapproved = capability::diff::Requests::default();
        let tool = match record {
            Some(record) => {
                let (narrowed, rest) = record.narrow(tool);
                approved_only = narrowed;
                unapproved = rest;
                &approved_only
            }
            None => tool,
        };
        let mut effective = capability::effective(tool, grant, &self.roots);
        effective.unapproved = unapproved;
        self.add_added_folders(plugin, tool, &mut effective);
        // The memory folder stays writable only through a grant that names it (`@memory`),
        // from the user's own policy or a built-in's default — never through a grant of a
        // folder holding it, and never for a workspace's plugin.
        let names_memory = grant
            .files
            .iter()
            .any(|f| f.path == capability::MEMORY_ROOT && f.access == crate::contract::Access::ReadWrite);
        let writable: &[PathBuf] =
            if names_memory && plugin.source.origin != Origin::Workspace { &self.writable } else { &[] };
        effective.protect(&self.protected, writable);
        // The shell's commands get the network and folders of the home only from a deliberate
        // grant: their absence is the default, not something missing to prompt for.
        if plugin.source.origin == Origin::Builtin && plugin.info.name == grants::SHELL_PLUGIN {
            effective.missing.retain(|flag| !flag.starts_with("--net") && !flag.starts_with("--read"));
        }
        // A skill folder that does not exist (no user or no workspace skills) is nothing
        // missing: the tool reads the other one.
        if plugin.source.origin == Origin::Builtin && plugin.info.name == SKILL_PLUGIN {
            effective.missing.clear();
        }
        if let Some(search) = self.search_of(plugin) {
            effective.provided_env = search.environment();
            // Its grant is the configured API, not what it requests: nothing is missing.
            effective.missing.clear();
        }
        effective
    }

    /// Sets the search API of `[tools.web_search]` (before the policy is shared).
    pub fn set_search(&mut self, search: Option<SearchEndpoint>) {
        self.search = search;
    }

    /// The search API of `[tools.web_search]`, when configured.
    pub fn search(&self) -> Option<&SearchEndpoint> {
        self.search.as_ref()
    }

    /// The configured search API, when `plugin` is the built-in that calls it.
    fn search_of(&self, plugin: &Plugin) -> Option<&SearchEndpoint> {
        let builtin = plugin.source.origin == Origin::Builtin && plugin.info.name == search::PLUGIN;
        self.search.as_ref().filter(|_| builtin)
    }

    /// Whether the model is offered `tool` at all: not in a mode that leaves its kind out,
    /// nor hidden by a rule, nor `web_search` while no search API is configured.
    pub fn offers(&self, tool: &ToolInfo) -> bool {
        if tool.name == WEB_SEARCH_TOOL && self.search.is_none() {
            return false;
        }
        self.mode().offers(tool.kind)
            && !self.with_rules(|mut rules| {
                Iterator::any(&mut rules, |r| r.hidden_tool().is_some_and(|t| rules::tool_matches(t, &tool.name)))
            })
    }

    /// Decides a call.
    pub fn verdict(&self, tool: &ToolInfo, facts: &CallFacts<'_>, confirmation: Option<&Confirmation>) -> Verdict {
        self.decide(tool, facts, confirmation).0
    }

    /// Decides a call, and says what the decision rests on ([`Basis`]).
    pub fn decide(
        &self,
        tool: &ToolInfo,
        facts: &CallFacts<'_>,
        confirmation: Option<&Confirmation>,
    ) -> (Verdict, Basis) {
        let mode = self.mode();
        if !mode.offers(tool.kind) {
            return (mode::by_mode(mode, tool.kind, confirmation), Basis::Mode(mode));
        }
        let decided = self.with_rules(|rules| {
            rules::deciding(rules, facts).map(|rule| {
                let whose = if rule.source == RuleSource::System { "system" } else { "user's" };
                (
                    rule.decision,
                    format!("the {whose} policy denies this call (rule at {} ({}))", rule.origin, rule.scope()),
                    Basis::of_rule(rule),
                )
            })
        });
        match decided {
            Some((RuleDecision::Allow, _, basis)) => (Verdict::Allow, basis),
            Some((RuleDecision::Ask, _, basis)) => (Verdict::Ask, basis),
            Some((RuleDecision::Deny, why, basis)) => (Verdict::Deny(format!("{why}; do not retry it")), basis),
            None => {
                // auto-edit approves edits of the workspace; an edit elsewhere (the memory
                // file, which steers every later session) still asks.
                let outside = matches!(confirmation, Some(Confirmation::Edit { path, .. })
                    if !Path::new(path).starts_with(&self.roots.workspace));
                if mode == ApprovalMode::AutoEdit && outside {
                    return (Verdict::Ask, Basis::Mode(mode));
                }
                (mode::by_mode(mode, tool.kind, confirmation), mode::basis_by_mode(mode, tool.kind, confirmation))
            }
        }
    }

    /// Remembers "allow always" for the session, and saves it as a rule in the user's
    /// policy file when `save` is set. Returns a description of what is now allowed.
    pub fn remember(&self, tool: &str, scope: &AlwaysScope, save: bool) -> Result<String, PolicyError> {
        let refused = |message: String| PolicyError::Invalid { path: self.user.path.clone(), line: 0, message };
        // One rule per command a line's question showed (`python3`, `wc`), or one for the tool or file.
        let scopes: Vec<(Option<String>, Option<String>)> = match scope {
            AlwaysScope::Unavailable(why) => return Err(refused(format!("\"always\" was not offered: {why}"))),
            AlwaysScope::Commands(prefixes) if prefixes.iter().any(|p| p.trim().is_empty()) || prefixes.is_empty() => {
                return Err(refused(
                    "the command's program is known only when it runs, so it cannot be allowed always".into(),
                ));
            }
            AlwaysScope::Tool => vec![(None, None)],
            AlwaysScope::Commands(prefixes) => prefixes.iter().map(|p| (Some(p.clone()), None)).collect(),
            AlwaysScope::File(path) => vec![(None, Some(globset::escape(path)))],
        };
        let mut rules = Vec::with_capacity(scopes.len());
        for (command, path) in scopes {
            let glob = match &path {
                Some(text) => Some(PathGlob::new(text).map_err(refused)?),
                None => None,
            };
            rules.push((command, path, glob));
        }
        let mut origin = "this session".to_string();
        if save {
            let mut editor = file::Editor::open(&self.user.path)?;
            for (command, path, _) in &rules {
                editor.add_rule(tool, command.as_deref(), path.as_deref(), RuleDecision::Allow, 100);
            }
            editor.save(RuleSource::User)?;
            origin = self.user.path.display().to_string();
        }
        let mut described = Vec::new();
        let mut session = self.session.lock().unwrap_or_else(PoisonError::into_inner);
        for (command, _, path) in rules {
            let rule = Rule {
                tool: Some(tool.to_string()),
                command,
                path,
                decision: RuleDecision::Allow,
                priority: 100,
                source: RuleSource::Session,
                origin: origin.clone(),
            };
            described.push(rule.scope());
            session.push(rule);
        }
        Ok(format!("allowed without asking: {} (saved in {origin})", described.join("; ")))
    }

    fn with_rules<T>(&self, f: impl FnOnce(&mut dyn Iterator<Item = &Rule>) -> T) -> T {
        let session = self.session.lock().unwrap_or_else(PoisonError::into_inner);
        let workspace = self.workspace.iter().flat_map(|w| w.rules.iter());
        let mut all = self.system.iter().chain(session.iter()).chain(self.user.rules.iter()).chain(workspace);
        f(&mut all)
    }
}

/// `<workspace>/.airlock/policy.toml`.
pub fn workspace_policy_path(workspace: &Path) -> PathBuf {
    workspace.join(".airlock").join("policy.toml")
}

/// What `<workspace>/.airlock/policy.toml` is.
#[derive(Debug)]
pub enum WorkspacePolicy {
    Missing,
    /// A regular file inside the workspace, and the sha-256 of these very bytes.
    File {
        bytes: Vec<u8>,
        hash: String,
    },
    /// A link, folder, FIFO, device or oversized file: ignored, with this reason.
    Unusable(String),
}

/// Reads `<workspace>/.airlock/policy.toml` through a handle on the (canonical) workspace,
/// following no link, bounded, never blocking.
pub fn read_workspace_policy(workspace: &Path) -> WorkspacePolicy {
    let dir = match files::open_dir(workspace) {
        Ok(dir) => dir,
        Err(e) => return WorkspacePolicy::Unusable(format!("cannot open the workspace: {e}")),
    };
    match files::read_file_in(&dir, Path::new(".airlock/policy.toml"), MAX_POLICY_BYTES) {
        Ok(bytes) => WorkspacePolicy::File { hash: files::content_hash(&bytes), bytes },
        Err(files::FileError::NotFound) => WorkspacePolicy::Missing,
        Err(e) => WorkspacePolicy::Unusable(e.to_string()),
    }
}

/// The sha-256 of the workspace's policy file, `none` when it does not exist; an error when
/// it is not a usable file.
pub fn workspace_policy_hash(workspace: &Path) -> Result<String, PolicyError> {
    match read_workspace_policy(workspace) {
        WorkspacePolicy::Missing => Ok("none".into()),
        WorkspacePolicy::File { hash, .. } => Ok(hash),
        WorkspacePolicy::Unusable(reason) => Err(PolicyError::Read { path: workspace_policy_path(workspace), reason }),
    }
}
