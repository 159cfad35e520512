//! What a plugin is granted — the one answer used by the runtime, `plugins show/list`,
//! `plugins grant/revoke` and the hints that name a grant command.
//!
//! A built-in plugin's grant is its default (what it requests) list by list: each of
//! `files`, `network`, `env` and `processes` is the default unless the built-in's table in
//! the user's policy sets that list, and then it is exactly the table's. So a table that
//! only sets `memory_mb` keeps the default access, `grant` (which adds) starts a list from
//! the default, and `revoke` (which narrows) writes the list out without what it takes
//! back. Other plugins have no default: their table is their grant.
//!
//! Binding ([`Policy::bind`], once the plugins are loaded): a `[grants.NAME]` table names a
//! plugin by its own name (or that name with `_` for `-`, which warns) among the plugins
//! that file governs — the user's file the built-in and user-folder plugins, a trusted
//! workspace's its pinned plugins. A tool or file name warns and grants nothing: what it
//! answers to changes with the files present. A name of two plugins, or two tables for one
//! plugin, is an error at the table's line; a name that matches nothing, like a rule for a tool nobody declares, is a warning
//! with the closest name. An entry of a table that cannot take effect (outside the plugin's
//! requests, a folder that does not exist: [`Policy::ineffective`]) is a warning at the table.

use std::collections::BTreeMap;
use std::path::Path;

use super::file::{GrantTable, Parts, PolicyFile};
use super::{Policy, PolicyError};
use crate::capability::diff::Requests;
use crate::capability::{self, Effective, Grant};
use crate::contract::ToolInfo;
use crate::registry::names::{self, How, NameError};
use crate::registry::{Origin, Plugin, Registry, is_reserved};

/// The built-in plugin of `run_shell_command`.
pub const SHELL_PLUGIN: &str = "run-shell-command";
/// How long one call of `run_shell_command` may run by default (its table's `timeout_secs`
/// changes it).
pub const SHELL_TIMEOUT_SECS: u64 = 600;

/// What a plugin is granted and where each part comes from.
#[derive(Debug, Clone, Default)]
pub struct Granted<'a> {
    /// The grant in force: what requests are intersected with.
    pub grant: Grant,
    /// The policy file it comes from (`None` when nothing grants the plugin, or a
    /// built-in has only its default).
    pub file: Option<&'a Path>,
    /// The lists that are the built-in's default.
    pub defaults: Parts,
}

impl Granted<'_> {
    /// The grant of a plugin with `table` (its `[grants.…]` in `file`), on top of `default`
    /// for the lists the table does not set (`default` is empty but for built-ins).
    pub fn combine<'a>(default: Option<Grant>, table: Option<&GrantTable>, file: &'a Path) -> Granted<'a> {
        let Some(default) = default else {
            let grant = table.map(|t| t.grant.clone()).unwrap_or_default();
            return Granted { grant, file: Some(file), defaults: Parts::default() };
        };
        let Some(table) = table else {
            return Granted { grant: default, file: None, defaults: Parts::ALL };
        };
        let own = &table.grant;
        let sets = table.sets;
        let grant = Grant {
            files: pick(sets.files, &own.files, &default.files),
            network: pick(sets.network, &own.network, &default.network),
            env: pick(sets.env, &own.env, &default.env),
            processes: pick(sets.processes, &own.processes, &default.processes),
            memory_mb: own.memory_mb.or(default.memory_mb),
            timeout_secs: own.timeout_secs.or(default.timeout_secs),
            max_output_bytes: own.max_output_bytes.or(default.max_output_bytes),
        };
        let defaults = Parts { files: !sets.files, network: !sets.network, env: !sets.env, processes: !sets.processes };
        Granted { grant, file: Some(file), defaults }
    }
}

/// The table's list when it sets it, else the default's.
fn pick<T: Clone>(set: bool, own: &[T], default: &[T]) -> Vec<T> {
    if set { own.to_vec() } else { default.to_vec() }
}

impl Policy {
    /// What `plugin` is granted ([`Granted`]); the runtime, the `plugins` commands and the
    /// hints all ask here.
    pub fn grant(&self, plugin: &Plugin) -> Granted<'_> {
        let name = &plugin.info.name;
        match plugin.source.origin {
            Origin::Builtin => {
                Granted::combine(Some(self.builtin_default(plugin)), self.user.grants.get(name), &self.user.path)
            }
            // A built-in's name belongs to the built-in (the registry refuses such plugins;
            // this keeps the grant from leaking should one ever get through).
            Origin::User if is_reserved(name) => Granted::default(),
            Origin::User => Granted::combine(None, self.user.grants.get(name), &self.user.path),
            Origin::Workspace => match &self.workspace {
                Some(file) if self.is_pinned(plugin) => {
                    let mut granted = Granted::combine(None, file.grants.get(name), &file.path);
                    // airlock's memory steers every later session of every project: only the
                    // user's own policy grants it, never a repository's.
                    granted.grant.files.retain(|f| f.path != crate::capability::MEMORY_ROOT);
                    granted
                }
                Some(_) | None => Granted::default(),
            },
        }
    }

    /// The record of the requests `plugin`'s grant was given for (`[grants.NAME.approved]`
    /// of the user's table), which narrows what it gets; `None` approves what it requests.
    /// Only user-folder plugins have one: a built-in keeps its default, and a workspace
    /// plugin's requests are approved by trusting the folder, which pins its digest.
    pub fn approved(&self, plugin: &Plugin) -> Option<&Requests> {
        match plugin.source.origin {
            Origin::User if !is_reserved(&plugin.info.name) => {
                self.user.grants.get(&plugin.info.name)?.approved.as_ref()
            }
            Origin::User | Origin::Builtin | Origin::Workspace => None,
        }
    }

    /// What to say about `plugin`'s requests its grant's record does not approve: each one,
    /// as new and unapproved, and the command that approves them; `None` when there is none.
    pub fn unapproved_hint(&self, plugin: &Plugin, unapproved: &Requests) -> Option<String> {
        if unapproved.is_empty() {
            return None;
        }
        let lines: Vec<String> = unapproved.lines().iter().map(|l| format!("`{l}`")).collect();
        let (these, get, them) = if lines.len() == 1 {
            ("this request is", "it gets", "it")
        } else {
            ("these requests are", "they get", "them")
        };
        Some(format!(
            "{these} new since the version its grant was given for, and not approved: {}; {get} nothing, even \
             where the grant covers {them}, until you run `airlock plugins approve {}`",
            lines.join(", "),
            crate::sanitize::shell_word(&plugin.info.name)
        ))
    }

    /// What a built-in gets unless the user's policy says otherwise: what it requests; for
    /// `web_search`, the configured search API's origin and its three variables, or nothing
    /// while none is configured.
    pub fn builtin_default(&self, plugin: &Plugin) -> Grant {
        if plugin.info.name == SHELL_PLUGIN {
            // Commands get the network only from the user's grant of every host, folders
            // outside the workspace only from the user's grant of them (their toolchains and
            // caches come with every command, `sandbox::folders`), and ten minutes (a build, a
            // test run) unless the user's table says otherwise.
            let mut grant = Grant::requested_by(&plugin.info.tools);
            grant.network.clear();
            grant.files.retain(|file| !file.path.starts_with('~') && !file.path.starts_with('/'));
            grant.timeout_secs = Some(SHELL_TIMEOUT_SECS);
            return grant;
        }
        if plugin.info.name != crate::capability::search::PLUGIN {
            return Grant::requested_by(&plugin.info.tools);
        }
        use crate::capability::search::{KEY_VAR, PROVIDER_VAR, URL_VAR};
        match self.search() {
            Some(search) => Grant {
                network: vec![search.rule.clone()],
                env: [PROVIDER_VAR, URL_VAR, KEY_VAR].map(String::from).to_vec(),
                ..Grant::default()
            },
            None => Grant::default(),
        }
    }

    /// The `[grants.…]` table that speaks for `plugin` in the file that governs it, whether
    /// or not that file is in force (an untrusted workspace's too), for editing and hints.
    pub fn table_of(&self, plugin: &std::sync::Arc<Plugin>) -> Option<&GrantTable> {
        let file = match plugin.source.origin {
            Origin::Builtin | Origin::User => &self.user,
            Origin::Workspace => self.workspace.as_ref().or(self.unarmed.as_ref())?,
        };
        // Only the plugin's own name (or its `_`/`-` spelling) speaks for it: see `bind_file`.
        let own = |key: &String| names::find(&[plugin], key).is_ok_and(|f| matches!(f.how, How::Name | How::Spelling));
        file.grants.get(&plugin.info.name).or_else(|| file.grants.iter().find(|(key, _)| own(key)).map(|(_, t)| t))
    }

    /// What to tell the user when `tool` of `plugin` runs without some of what it asked for
    /// (`effective.missing`): "to grant {what}: " the grant command, or `airlock trust` when
    /// the workspace's policy already grants it but is not in force.
    pub fn grant_hint(
        &self,
        plugin: &std::sync::Arc<Plugin>,
        tool: &ToolInfo,
        effective: &Effective,
        what: &str,
    ) -> String {
        if plugin.source.origin == Origin::Builtin && plugin.info.name == crate::capability::search::PLUGIN {
            return format!(
                "it reaches only the search API of [tools.web_search] in config.toml{}",
                if self.search().is_none() { ", and none is configured" } else { "" }
            );
        }
        let unapproved = self.unapproved_hint(plugin, &effective.unapproved);
        if effective.missing.is_empty() {
            return unapproved.unwrap_or_default();
        }
        if let Some(unapproved) = unapproved {
            let mut rest = effective.clone();
            rest.unapproved = Requests::default();
            return format!("{}; {unapproved}", self.grant_hint(plugin, tool, &rest, what));
        }
        let name = crate::sanitize::shell_word(&plugin.info.name);
        let command = |missing: &[String]| format!("airlock plugins grant {name} {}", missing.join(" "));
        if plugin.source.origin != Origin::Workspace || (self.workspace.is_some() && self.is_pinned(plugin)) {
            return format!("to grant {what}: {}", command(&effective.missing));
        }
        let path = super::workspace_policy_path(&self.roots.workspace);
        let why = if self.workspace.is_none() {
            "this folder is not trusted, so its policy grants nothing".to_string()
        } else {
            format!("{} changed or appeared since you trusted this folder", plugin.source.display())
        };
        let still = match self.table_of(plugin) {
            Some(table) => capability::effective(tool, &table.grant, &self.roots).missing,
            None => effective.missing.clone(),
        };
        if still.is_empty() {
            format!("{} grants it, but {why}: review it, then run `airlock trust`", path.display())
        } else {
            format!("{why}: to grant {what}, run {}, then `airlock trust`", command(&still))
        }
    }

    /// Resolves the names of the policy files' tables and rules against the loaded plugins
    /// (see the module doc); what matches nothing becomes a warning in [`Policy::warnings`].
    pub fn bind(&mut self, registry: &Registry) -> Result<(), PolicyError> {
        let all = registry.plugins();
        let user: Vec<_> = all.iter().copied().filter(|p| p.source.origin != Origin::Workspace).collect();
        let workspace: Vec<_> = all.iter().copied().filter(|p| p.source.origin == Origin::Workspace).collect();
        let mut warnings = Vec::new();
        bind_file(&mut self.user, &user, &all, "which only its workspace's policy can grant", &mut warnings)?;
        if let Some(mut file) = self.workspace.take() {
            let pinned: Vec<_> = workspace.iter().copied().filter(|p| self.is_pinned(p)).collect();
            let why_not = "which changed or appeared since you trusted this folder";
            let bound = bind_file(&mut file, &pinned, &workspace, why_not, &mut warnings);
            self.workspace = Some(file);
            bound?;
        }
        let tools: Vec<&str> = registry.tools().iter().map(|t| t.info.name.as_str()).collect();
        let rules = self.user.rules.iter().chain(self.workspace.iter().flat_map(|w| w.rules.iter()));
        for rule in rules {
            let Some(tool) = &rule.tool else { continue };
            // An MCP server's tools are known only once it started (in the background).
            if !registry.declares_tool(tool) && !super::rules::is_mcp_rule_tool(tool) {
                let close = names::closest_name(tools.iter().copied(), tool)
                    .map(|c| format!(" (did you mean `{c}`?)"))
                    .unwrap_or_default();
                warnings.push(format!(
                    "{}: the rule for tool `{tool}` matches no tool{close}; it decides nothing",
                    rule.origin
                ));
            }
        }
        for plugin in &all {
            let mut named: Vec<&str> = Vec::new();
            for var in plugin.info.tools.iter().flat_map(|tool| &tool.capabilities.env) {
                if let Some(why) = super::reserved_variable(var)
                    && !named.contains(&var.as_str())
                {
                    named.push(var);
                    warnings.push(format!(
                        "{} requests the variable {var}, which no plugin may be given ({why}); the request is ignored",
                        plugin.label()
                    ));
                }
            }
        }
        // A table's entry that cannot take effect changes nothing: said at its table.
        for plugin in &all {
            let file = match plugin.source.origin {
                Origin::Workspace => self.workspace.as_ref().filter(|_| self.is_pinned(plugin)),
                Origin::User if is_reserved(&plugin.info.name) => None,
                Origin::Builtin | Origin::User => Some(&self.user),
            };
            let Some((file, table)) = file.and_then(|f| f.grants.get(&plugin.info.name).map(|t| (f, t))) else {
                continue;
            };
            for reason in self.ineffective(plugin, &table.grant) {
                warnings.push(format!("{}:{}: [grants.{}]: {reason}", file.path.display(), table.line, table.key));
            }
        }
        self.warnings.extend(warnings);
        Ok(())
    }
}

/// Re-keys `file`'s grant tables by the plugin (among `governed`) each one names; `others`
/// are plugins it may name but does not govern (`why_not`), for a better warning.
fn bind_file(
    file: &mut PolicyFile,
    governed: &[&std::sync::Arc<Plugin>],
    others: &[&std::sync::Arc<Plugin>],
    why_not: &str,
    warnings: &mut Vec<String>,
) -> Result<(), PolicyError> {
    let mut bound: BTreeMap<String, GrantTable> = BTreeMap::new();
    for (key, table) in std::mem::take(&mut file.grants) {
        let at = format!("{}:{}", file.path.display(), table.line);
        let invalid = |message: String| PolicyError::Invalid { path: file.path.clone(), line: table.line, message };
        let plugin = match names::find(governed, &key) {
            // A tool or file name never binds a table: which plugin answers to one changes
            // with the files present (a pinned plugin that changes or goes leaves its tool
            // names to another), so a table would move to a plugin nobody trusted it for.
            Ok(found) if matches!(found.how, How::Tool | How::File) => {
                let plugin = &found.plugin.info.name;
                let note = found.note(&key).unwrap_or_default();
                warnings.push(format!(
                    "{at}: [grants.{key}]: {note}; a table must use the plugin's own name, so it grants \
                     nothing: write [grants.{plugin}]"
                ));
                key.clone()
            }
            Ok(found) => {
                let plugin = found.plugin.info.name.clone();
                if let Some(note) = found.note(&key) {
                    warnings.push(format!(
                        "{at}: [grants.{key}]: {note}; the table grants `{plugin}` (write [grants.{plugin}])"
                    ));
                }
                plugin
            }
            Err(error @ NameError::Ambiguous(_)) => {
                return Err(invalid(format!("[grants.{key}]: {}", error.describe(&key))));
            }
            Err(NameError::Unknown { suggestion }) => {
                let message = match names::find(others, &key) {
                    Ok(found) => {
                        format!("{at}: [grants.{key}] names {}, {why_not}; it grants nothing", found.plugin.label())
                    }
                    Err(_) => {
                        let close = suggestion.map(|c| format!(" (did you mean `{c}`?)")).unwrap_or_default();
                        format!("{at}: [grants.{key}] names no installed plugin{close}; it grants nothing")
                    }
                };
                warnings.push(message);
                key.clone()
            }
        };
        if let Some(other) = bound.get(&plugin) {
            return Err(invalid(format!(
                "[grants.{key}] and [grants.{}] (line {}) both grant plugin `{plugin}`: merge them into one table",
                other.key, other.line
            )));
        }
        bound.insert(plugin, table);
    }
    file.grants = bound;
    Ok(())
}

impl Policy {
    /// The file a grant prompt's "always" writes for `plugin`: the user's policy (a
    /// workspace plugin's grant belongs in its workspace's policy, which a prompt does not
    /// write: `airlock plugins grant` does, with the trust that goes with it).
    pub fn grant_file(&self, plugin: &Plugin) -> Option<&Path> {
        (plugin.source.origin != Origin::Workspace).then_some(self.user.path.as_path())
    }

    /// Writes `extra` into the plugin's table of the user's policy file, as `airlock plugins
    /// grant` does (a built-in list still at its default is written out from the default
    /// first, so nothing the built-in had is lost). Returns the file written.
    pub fn save_grant(
        &self,
        plugin: &std::sync::Arc<Plugin>,
        extra: &Grant,
    ) -> Result<std::path::PathBuf, PolicyError> {
        let Some(path) = self.grant_file(plugin).map(Path::to_path_buf) else {
            return Err(PolicyError::Write {
                path: crate::policy::workspace_policy_path(&self.roots.workspace),
                reason: "a workspace plugin's grant is written in the workspace's policy: use `airlock plugins grant`"
                    .into(),
            });
        };
        let key = self.table_of(plugin).map_or_else(|| plugin.info.name.clone(), |t| t.key.clone());
        let granted = self.grant(plugin);
        let default = (plugin.source.origin == Origin::Builtin).then(|| self.builtin_default(plugin));
        let mut editor = super::edit::Editor::open(&path)?;
        for list in ["files", "network", "env", "processes"] {
            let values = entries(extra, list);
            if values.is_empty() {
                continue;
            }
            if let Some(default) = &default
                && granted.defaults.has(list)
            {
                editor.add_to_list(&key, list, &entries(default, list));
            }
            editor.add_to_list(&key, list, &values);
        }
        editor.save(super::rules::RuleSource::User)?;
        Ok(path)
    }
}

/// A grant's list `list` as the policy file writes it.
fn entries(grant: &Grant, list: &str) -> Vec<String> {
    match list {
        "files" => grant.files.iter().map(capability::FileGrant::to_text).collect(),
        "network" => grant.network.iter().map(ToString::to_string).collect(),
        "env" => grant.env.clone(),
        _ => grant.processes.clone(),
    }
}
