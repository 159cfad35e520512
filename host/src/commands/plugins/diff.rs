//! Capability diffs: what a new version of a plugin requests beyond the installed one, shown
//! before anything changes (`install` over an installed plugin, `update`); the new requests
//! get nothing until approved (`--approve`, `airlock plugins approve`), even where the grant
//! would already cover them, because a grant records the requests it was given for
//! (`[grants.NAME.approved]`, [`airlock_engine::capability::diff`]).
//!
//! Invariants: the diff is printed before the file is replaced; after an install over a
//! plugin whose table has no record yet, the record first holds the *old* version's
//! requests (so the new ones are not approved by a table written before records existed),
//! and after a fresh install under such a table it holds nothing (no request is approved
//! by a table that never saw this plugin);
//! the record never holds a request the installed version does not make (it shrinks to the
//! intersection, so a later version asking again asks anew); only the person's command —
//! `--approve`, `approve`, `grant` — adds to it. Built-ins have no record (their defaults
//! follow airlock); workspace plugins are approved by trusting the folder (`airlock trust`).

use std::io::Write;
use std::sync::Arc;

use super::{Context, InstallArgs, editor, fetch, find, lifecycle, policy_path, source};
use crate::commands::CommandError;
use airlock_engine::capability::diff::{RequestDiff, Requests};
use airlock_engine::paths::open_workspace_dir;
use airlock_engine::registry::lock::Lock;
use airlock_engine::registry::{Origin, Plugin};
use airlock_engine::sanitize::line;
use airlock_files as files;

/// Prints what `new` requests beyond `old` (the installed plugin it replaces), before the
/// file is replaced.
pub(super) fn before_replace(
    context: &Context<'_>,
    old: &Plugin,
    new: &Plugin,
    out: &mut impl Write,
) -> Result<(), CommandError> {
    let diff = RequestDiff::between(&old.info.tools, &new.info.tools);
    let name = line(&new.info.name);
    writeln!(out, "capability diff of {name}: {} -> {}", line(&old.info.version), line(&new.info.version))?;
    write_diff(context, old, &diff, out)?;
    Ok(())
}

/// The diff's lines: new requests (each with the grant entry that already covers it), the
/// requests dropped, the tools added and removed, and memory.
pub(super) fn write_diff(
    context: &Context<'_>,
    plugin: &Plugin,
    diff: &RequestDiff,
    out: &mut impl Write,
) -> std::io::Result<()> {
    if diff.is_empty() {
        writeln!(out, "  requests: unchanged")?;
    }
    let granted = context.policy.grant(plugin).grant;
    let name = airlock_engine::sanitize::shell_word(&plugin.info.name);
    if !diff.added.is_empty() {
        writeln!(out, "  new requests (they get nothing until approved):")?;
        for (request, covering) in diff.added.covered_by(&granted) {
            match covering {
                Some(entry) => writeln!(
                    out,
                    "    + {}  (covered by your grant `{}`, but not approved: it gets nothing until you approve it)",
                    line(&request),
                    line(&entry)
                )?,
                None => writeln!(out, "    + {}", line(&request))?,
            }
        }
        writeln!(out, "  to approve them: `airlock plugins approve {name}` (or install with --approve)")?;
    }
    if !diff.removed.is_empty() {
        writeln!(out, "  no longer requested (dropped from what its grant approves):")?;
        for request in diff.removed.lines() {
            writeln!(out, "    - {}", line(&request))?;
        }
    }
    for (tool, requests) in &diff.tools_added {
        writeln!(out, "  new tool {}: requests {}", line(tool), describe(requests))?;
    }
    for (tool, requests) in &diff.tools_removed {
        writeln!(out, "  tool removed {}: requested {}", line(tool), describe(requests))?;
    }
    // The 0.x contract has no memory request: what bounds a plugin's memory is its grant.
    let memory = match granted.memory_mb {
        Some(mb) => format!("{mb} MiB (your grant's memory_mb)"),
        None => "the session's default ([tools] memory_mb in config.toml, else 256 MiB)".to_string(),
    };
    writeln!(out, "  memory: {memory}, the same for both versions (plugins do not request memory)")?;
    Ok(())
}

/// A request set in one line.
fn describe(requests: &Requests) -> String {
    let lines = requests.lines();
    if lines.is_empty() { "nothing".into() } else { line(&lines.join(", ")) }
}

/// After `plugin` was installed (over `old`, if any): records in its grant which requests are
/// approved — the old version's, plus the new ones with `approve`.
pub(super) fn after_install(
    context: &Context<'_>,
    old: Option<&Plugin>,
    plugin: &Arc<Plugin>,
    approve: bool,
    out: &mut impl Write,
) -> Result<(), CommandError> {
    if plugin.source.origin != Origin::User {
        super::show::write_gets(context, plugin, None, out)?;
        if plugin.source.origin == Origin::Workspace && old.is_some() {
            writeln!(
                out,
                "  the workspace's policy grants it nothing until you review the change and run `airlock trust`"
            )?;
        }
        return Ok(());
    }
    // No table: nothing is granted, so nothing needs approving (`grant` records the
    // requests when it writes one).
    let Some(table) = context.policy.table_of(plugin) else {
        super::show::write_gets(context, plugin, None, out)?;
        return Ok(());
    };
    let now = Requests::of(&plugin.info.tools);
    // A table written before records existed approved what the old version requested; with
    // no old version either (a table written by hand before the install, or left over), it
    // approved nothing this file requests: each request is shown and waits for approval.
    let unrecorded = table.approved.is_none() && old.is_none();
    let record = match (&table.approved, old) {
        (Some(record), _) => record.clone(),
        (None, Some(old)) => Requests::of(&old.info.tools),
        (None, None) => Requests::default(),
    };
    let record = if approve { now.clone() } else { now.intersection(&record) };
    let unapproved = now.beyond(&record);
    let path = policy_path(context, plugin);
    let mut editor = editor(context, plugin, &path)?;
    editor.set_approved(&table.key, &record)?;
    editor.save(source(plugin))?;
    let shown = line(&path.display().to_string());
    if unapproved.is_empty() {
        writeln!(out, "  approved: its grant applies to all it requests (recorded in {shown})")?;
    } else {
        if unrecorded {
            writeln!(
                out,
                "  its grant in {shown} records no requests it was given for, and no earlier version was \
                 installed: none of what this version requests is approved yet"
            )?;
        }
        writeln!(
            out,
            "  not approved: {}; they get nothing until `airlock plugins approve {}` (its grant's record is in {shown})",
            describe(&unapproved),
            airlock_engine::sanitize::shell_word(&plugin.info.name)
        )?;
    }
    // The policy was loaded before the record changed: what each tool gets is shown under
    // the record just written.
    super::show::write_gets(context, plugin, Some(&record), out)?;
    Ok(())
}

/// `airlock plugins update NAME`: fetches the plugin again from its lock entry's source and,
/// when the digest changed, installs it as `install` does (the same checks, the diff first).
pub(super) async fn update(
    context: &Context<'_>,
    name: &str,
    approve: bool,
    out: &mut impl Write,
) -> Result<(), CommandError> {
    let plugin = find(context, name)?;
    let in_workspace = match plugin.source.origin {
        Origin::Builtin => {
            return Err(CommandError::Usage(format!(
                "{} is built in: it is updated with airlock itself",
                plugin.info.name
            )));
        }
        Origin::User => false,
        Origin::Workspace => true,
    };
    let file_name = plugin.source.file_name();
    let entry = read_lock(context, in_workspace)?.plugins.remove(&file_name).ok_or_else(|| {
        CommandError::Usage(format!(
            "{} has no entry in its folder's plugins.lock, so where it came from is unknown; \
             install the new version with `airlock plugins install SOURCE`",
            plugin.source.display()
        ))
    })?;
    writeln!(out, "checking {} {} at {}", line(&plugin.info.name), line(&plugin.info.version), line(&entry.source))?;
    let fetched = fetch::fetch_for_update(context, &entry.source, in_workspace).await?;
    let digest = files::content_hash(&fetched.bytes);
    if digest == plugin.source.content_hash {
        writeln!(out, "{} is already up to date (sha-256 {digest})", line(&plugin.info.name))?;
        return Ok(());
    }
    let args = InstallArgs {
        source: entry.source.clone(),
        sha256: None,
        in_workspace,
        signature: None,
        bundle: None,
        approve,
    };
    lifecycle::install_fetched(context, &args, None, fetched, out).await
}

/// The lock of the user's plugin folder, or the workspace's (read without following links).
fn read_lock(context: &Context<'_>, in_workspace: bool) -> Result<Lock, CommandError> {
    if !in_workspace {
        return Lock::read(&context.paths.plugins).map_err(CommandError::Unloadable);
    }
    let workspace = &context.policy.roots().workspace;
    let dir = open_workspace_dir(workspace, "plugins", false)
        .map_err(|e| CommandError::Unloadable(format!("the workspace's plugin folder: {e}")))?;
    Lock::read_in(&dir, &workspace.join(airlock_engine::paths::WORKSPACE_DIR).join("plugins"))
        .map_err(CommandError::Unloadable)
}

/// `airlock plugins approve NAME`: shows the requests its grant's record does not approve
/// and records them, so the grant applies to them.
pub(super) fn approve(context: &Context<'_>, name: &str, out: &mut impl Write) -> Result<(), CommandError> {
    let plugin = find(context, name)?;
    match plugin.source.origin {
        Origin::Builtin => {
            return Err(CommandError::Usage(format!(
                "{} is built in: it gets its default, which needs no approval",
                plugin.info.name
            )));
        }
        Origin::Workspace => {
            return Err(CommandError::Usage(format!(
                "{} is a workspace plugin: its requests are approved by trusting the folder; review the change, \
                 then run `airlock trust`",
                plugin.info.name
            )));
        }
        Origin::User => {}
    }
    let Some(table) = context.policy.table_of(plugin) else {
        writeln!(
            out,
            "nothing is granted to {}, so there is nothing to approve (`airlock plugins grant` records what it \
             requests when it grants)",
            line(&plugin.info.name)
        )?;
        return Ok(());
    };
    let now = Requests::of(&plugin.info.tools);
    let unapproved = table.approved.as_ref().map_or_else(Requests::default, |record| now.beyond(record));
    if unapproved.is_empty() && table.approved.as_ref().is_some_and(|r| *r == now) {
        writeln!(out, "{}: every request is approved already", line(&plugin.info.name))?;
        return Ok(());
    }
    let path = policy_path(context, plugin);
    let mut editor = editor(context, plugin, &path)?;
    editor.set_approved(&table.key, &now)?;
    editor.save(source(plugin))?;
    if unapproved.is_empty() {
        writeln!(
            out,
            "{}: every request was approved; recorded them in {}",
            line(&plugin.info.name),
            line(&path.display().to_string())
        )?;
        return Ok(());
    }
    writeln!(out, "approved for {} (recorded in {}):", line(&plugin.info.name), line(&path.display().to_string()))?;
    for request in unapproved.lines() {
        writeln!(out, "  + {}", line(&request))?;
    }
    writeln!(out, "its grant now applies to them where it covers them")?;
    super::show::write_gets(context, plugin, Some(&now), out)?;
    Ok(())
}
