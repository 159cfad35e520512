//! `airlock plugins grant` and `revoke`: edits of the `[grants.…]` table that speaks for a
//! plugin in the policy file that governs it — the user's for built-in and user-folder
//! plugins, the workspace's for workspace plugins (re-pinning the folder's trust when it was
//! trusted, since the user made the change).
//!
//! Invariants: `grant` only ever adds what it names, and only what takes effect (a grant
//! outside the plugin's requests is refused with the reason:
//! [`airlock_engine::policy::Policy::ineffective`]); `revoke` only takes away what it names. A
//! built-in list still at its default ([`airlock_engine::policy::Granted`]) is written out from the
//! default first, so granting `--memory-mb` keeps the built-in's folders and
//! granting `--read ~/notes` adds to them. An existing table is edited under the name it
//! was written with (`[grants.word_count]` for plugin `word-count` stays one table).

use std::io::Write;

use super::{Context, GrantFlags, editor, find, policy_path, source};
use crate::commands::CommandError;
use airlock_engine::capability::diff::Requests;
use airlock_engine::capability::net::NetRule;
use airlock_engine::capability::{FileGrant, Grant};
use airlock_engine::policy::Granted;
use airlock_engine::policy::trust::{TrustStatus, TrustStore};
use airlock_engine::registry::{Origin, Plugin};
use airlock_engine::sanitize::line;

/// Adds (or with `revoke` removes) the flags' capabilities in the plugin's policy file.
pub(super) fn change(context: &Context<'_>, name: &str, flags: &GrantFlags, revoke: bool) -> Result<(), CommandError> {
    if flags.is_empty() {
        let what = if revoke { "take back (or --all)" } else { "grant" };
        return Err(CommandError::Usage(format!("name what to {what}: {}", super::FLAGS)));
    }
    let entries = flags.entries()?;
    let plugin = find(context, name)?;
    // A grant that cannot take effect is refused, not written and reported "granted".
    let ineffective = if revoke { Vec::new() } else { context.policy.ineffective(plugin, &flags_as_grant(flags)?) };
    if !ineffective.is_empty() {
        return Err(CommandError::Usage(format!("nothing was granted: {}", ineffective.join("; "))));
    }
    let canonical = plugin.info.name.as_str();
    let path = policy_path(context, plugin);
    let key = context.policy.table_of(plugin).map_or_else(|| canonical.to_string(), |t| t.key.clone());
    let granted = context.policy.grant(plugin);
    let default = default_of(context, plugin);
    let mut editor = editor(context, plugin, &path)?;
    for (list, values) in entries {
        if values.is_empty() {
            continue;
        }
        // A list that is still the built-in's default starts from it: a grant adds to it, a
        // revoke narrows it.
        if let Some(default) = &default
            && granted.defaults.has(list)
        {
            editor.add_to_list(&key, list, &as_entries(default, list));
        }
        if revoke {
            // `--read src` also takes back `src:read-write`.
            let mut values = values;
            if list == "files" {
                let extra: Vec<String> =
                    values.iter().filter_map(|v| v.strip_suffix(":read").map(|p| format!("{p}:read-write"))).collect();
                values.extend(extra);
            }
            editor.remove_from_list(&key, list, &values);
        } else {
            editor.add_to_list(&key, list, &values);
        }
    }
    for (number, value) in flags.numbers() {
        if value.is_some() {
            editor.set_number(&key, number, if revoke { None } else { value });
        }
    }
    if !revoke && plugin.source.origin == Origin::User {
        editor.set_approved(&key, &approved_after_grant(context, plugin, flags)?)?;
    }
    let edited = editor.read_hash().to_string();
    let written = editor.save(source(plugin))?;
    repin(context, plugin, &edited, &written.hash)?;
    let now = Granted::combine(default, written.grants.get(&key), &path);
    let mut out = std::io::stdout().lock();
    let table = if key == canonical { String::new() } else { format!(" (table [grants.{}])", line(&key)) };
    writeln!(
        out,
        "{} {canonical} in {}{table}",
        if revoke { "updated the grant of" } else { "granted" },
        line(&path.display().to_string())
    )?;
    writeln!(out, "  now granted: {}", super::show::describe_granted(&now))?;
    trust_note(context, plugin, &written.hash, &mut out)
}

/// `revoke --all`: removes the plugin's table (a built-in falls back to its default).
pub(super) fn revoke_all(context: &Context<'_>, name: &str) -> Result<(), CommandError> {
    let plugin = find(context, name)?;
    let path = policy_path(context, plugin);
    let key = context.policy.table_of(plugin).map_or_else(|| plugin.info.name.clone(), |t| t.key.clone());
    let mut editor = editor(context, plugin, &path)?;
    editor.remove_grant(&key)?;
    let edited = editor.read_hash().to_string();
    let written = editor.save(source(plugin))?;
    repin(context, plugin, &edited, &written.hash)?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "revoked everything granted to {} in {}", plugin.info.name, line(&path.display().to_string()))?;
    if plugin.source.origin == Origin::Builtin {
        let now = Granted::combine(default_of(context, plugin), None, &path);
        writeln!(out, "  now granted: {}", super::show::describe_granted(&now))?;
    }
    Ok(())
}

/// A built-in's default grant (what it requests; `web_search`'s search API); other plugins
/// have none.
fn default_of(context: &Context<'_>, plugin: &Plugin) -> Option<Grant> {
    (plugin.source.origin == Origin::Builtin).then(|| context.policy.builtin_default(plugin))
}

/// The entries of the list `list` of `grant`, as a policy file writes them.
fn as_entries(grant: &Grant, list: &str) -> Vec<String> {
    match list {
        "files" => grant.files.iter().map(FileGrant::to_text).collect(),
        "network" => grant.network.iter().map(ToString::to_string).collect(),
        "env" => grant.env.clone(),
        _ => grant.processes.clone(),
    }
}

/// Says when a workspace plugin's grant is not in force yet (`written`: the hash of the
/// policy file as the command wrote it).
fn trust_note(context: &Context<'_>, plugin: &Plugin, written: &str, out: &mut impl Write) -> Result<(), CommandError> {
    if plugin.source.origin != Origin::Workspace {
        return Ok(());
    }
    let store = TrustStore::load(&context.paths.trust_file())?;
    let workspace = &context.policy.roots().workspace;
    if store.status(workspace, written) != TrustStatus::Trusted {
        writeln!(out, "  this workspace is not trusted: the grant takes effect after `airlock trust`")?;
    } else if !context.policy.is_pinned(plugin) {
        writeln!(
            out,
            "  {} is not pinned by this folder's trust: the grant takes effect after `airlock trust`",
            line(&plugin.source.display())
        )?;
    }
    Ok(())
}

/// After the user changed a trusted workspace's policy through airlock, keep it trusted
/// (its plugin pins stay as they were: the user reviewed a grant, not new code). Only when
/// the file edited (`edited`: the hash of the bytes read) is the one trusted, and pinned to
/// the bytes written (`written`), never to a second read: a file swapped in while the
/// command ran must not become trusted through it.
fn repin(context: &Context<'_>, plugin: &Plugin, edited: &str, written: &str) -> Result<(), CommandError> {
    if plugin.source.origin != Origin::Workspace {
        return Ok(());
    }
    let workspace = &context.policy.roots().workspace;
    let mut store = TrustStore::load(&context.paths.trust_file())?;
    if store.status(workspace, edited) == TrustStatus::Trusted && context.policy.workspace_trusted() {
        store.repin_policy(workspace, written);
        store.save()?;
    }
    Ok(())
}

/// The grant's record of approved requests after `grant` with `flags`: what the plugin
/// requests now when the table has no record yet (it is the version the user grants to);
/// else the record, plus the requests the flags name (the part of each the flags cover) —
/// granting a new request by name approves it, a grant that covers none adds nothing.
fn approved_after_grant(
    context: &Context<'_>,
    plugin: &std::sync::Arc<Plugin>,
    flags: &GrantFlags,
) -> Result<Requests, CommandError> {
    let now = Requests::of(&plugin.info.tools);
    let record = match context.policy.table_of(plugin).and_then(|t| t.approved.as_ref()) {
        Some(record) => record,
        None => return Ok(now),
    };
    let named = flags_as_grant(flags)?;
    let named = Requests { files: named.files, network: named.network, env: named.env, processes: named.processes };
    Ok(record.union(&now.intersection(&named)))
}

fn flags_as_grant(flags: &GrantFlags) -> Result<Grant, CommandError> {
    let mut grant = Grant::default();
    for (key, values) in flags.entries()? {
        for value in values {
            match key {
                "files" => grant.files.push(FileGrant::parse(&value).map_err(CommandError::Usage)?),
                "network" => grant.network.push(NetRule::parse(&value).map_err(CommandError::Usage)?),
                "env" => grant.env.push(value),
                _ => grant.processes.push(value),
            }
        }
    }
    Ok(grant)
}
