//! `airlock trust [DIR] [--revoke] [--list]`: let a workspace's own policy file grant its
//! plugins. The trust is pinned to the file's current content and to the digest of every
//! workspace plugin file and of every file under `.airlock/hooks/` (the scripts of its
//! command hooks) as they are now; the command prints what the file grants and the
//! plugins it pins, so the user sees what they trust.
//!
//! Trust records what each pinned plugin requests beside its digest. A plugin that changed
//! since the folder was last trusted gets nothing from the workspace's policy until it is
//! trusted again (its digest is not pinned); `airlock trust` prints its capability diff —
//! what it requests beyond the version trusted before, and what it no longer requests —
//! before anything is trusted, so running it is approving what the diff shows.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};

use super::CommandError;
use airlock_engine::capability::diff::Requests;
use airlock_engine::paths::Paths;
use airlock_engine::policy::rules::RuleSource;
use airlock_engine::policy::trust::TrustStore;
use airlock_engine::policy::{PolicyError, WorkspacePolicy, file, read_workspace_policy, workspace_policy_path};
use airlock_engine::registry::{Origin, Registry, workspace_digests};
use airlock_engine::runtime::Runtime;
use airlock_engine::sanitize::line;

#[derive(Debug, clap::Args)]
pub struct TrustArgs {
    /// The folder (default: the workspace).
    dir: Option<PathBuf>,
    /// Stop trusting the folder.
    #[arg(long, conflicts_with = "list")]
    revoke: bool,
    /// List the trusted folders.
    #[arg(long)]
    list: bool,
}

pub async fn run(paths: &Paths, workspace: &Path, args: &TrustArgs) -> Result<(), CommandError> {
    let mut out = std::io::stdout().lock();
    let mut store = TrustStore::load(&paths.trust_file())?;
    if args.list {
        for folder in store.folders() {
            writeln!(out, "{}", line(&folder.display().to_string()))?;
        }
        return Ok(());
    }
    let folder = match &args.dir {
        Some(dir) => dir.canonicalize().map_err(|e| CommandError::Usage(format!("{}: {e}", dir.display())))?,
        None => workspace.to_path_buf(),
    };
    if args.revoke {
        let was = store.revoke(&folder);
        store.save()?;
        writeln!(
            out,
            "{} {}",
            if was { "no longer trusted:" } else { "was not trusted:" },
            line(&folder.display().to_string())
        )?;
        return Ok(());
    }
    let policy_path = workspace_policy_path(&folder);
    // A malformed file is never trusted: the error names the line. The bytes parsed are the
    // bytes pinned.
    let policy = match read_workspace_policy(&folder) {
        WorkspacePolicy::Missing => {
            file::PolicyFile { path: policy_path.clone(), hash: "none".into(), ..Default::default() }
        }
        WorkspacePolicy::File { bytes, .. } => file::parse(&policy_path, bytes, RuleSource::Workspace)?,
        WorkspacePolicy::Unusable(reason) => return Err(PolicyError::Read { path: policy_path, reason }.into()),
    };
    let plugin_dir = folder.join(".airlock").join("plugins");
    let (plugins, problems) = workspace_digests(&plugin_dir);
    // Its settings file is checked as the next run will read it: a bad key is never pinned.
    airlock_engine::config::check_workspace_file(&folder).map_err(|e| CommandError::Config(e.to_string()))?;
    let config_hash = airlock_engine::mcp::config::workspace_config_hash(&folder)
        .map_err(|reason| PolicyError::Read { path: folder.join(".airlock").join("config.toml"), reason })?;
    let hook_folder = airlock_engine::hooks::command::pins::hooks_folder(&folder);
    let hook_files = airlock_engine::hooks::command::pins::digests(&folder)
        .map_err(|reason| PolicyError::Read { path: hook_folder.clone(), reason })?;
    let requests = plugin_requests(paths, &plugin_dir, &plugins, &store, &folder, &mut out).await?;
    store.trust(&folder, &policy.hash, plugins.clone());
    store.pin_requests(&folder, &requests);
    store.pin_config(&folder, &config_hash);
    store.pin_hooks(&folder, hook_files.clone());
    store.save()?;
    writeln!(out, "trusted {}", line(&folder.display().to_string()))?;
    for (name, digest) in &plugins {
        writeln!(
            out,
            "  pins plugin {} (sha256 {})",
            line(&plugin_dir.join(name).display().to_string()),
            &digest[..16.min(digest.len())]
        )?;
    }
    for (name, digest) in &hook_files {
        writeln!(
            out,
            "  pins hook script {} ({})",
            line(&hook_folder.join(name).display().to_string()),
            &digest[..16.min(digest.len())]
        )?;
    }
    for problem in &problems {
        writeln!(out, "  not pinned: {}: {}", line(&problem.path), line(&problem.reason))?;
    }
    if policy.grants.is_empty() && policy.rules.is_empty() {
        writeln!(out, "its policy ({}) grants nothing and has no rules", line(&policy_path.display().to_string()))?;
    }
    for (plugin, table) in &policy.grants {
        // The file is the repository's: its names and patterns are shown, never obeyed.
        writeln!(out, "  grants {}: {}", line(plugin), super::plugins::describe_grant(&table.grant))?;
    }
    for rule in &policy.rules {
        writeln!(out, "  rule: {} → {} (priority {})", line(&rule.scope()), rule.decision.as_str(), rule.priority)?;
    }
    if config_hash != "none" {
        writeln!(
            out,
            "  pins its settings and MCP servers (.airlock/config.toml, sha256 {})",
            &config_hash[..16.min(config_hash.len())]
        )?;
    }
    writeln!(
        out,
        "if {}, .airlock/config.toml, a plugin in {} or a script in .airlock/hooks changes, airlock ignores it until you run `airlock trust` again",
        line(&policy_path.display().to_string()),
        line(&plugin_dir.display().to_string())
    )?;
    Ok(())
}

/// What each workspace plugin requests now (file name → requests; a file that does not load,
/// or changed while it was read, is left out), after printing, for each one that changed
/// or appeared since the folder was last trusted, what it requests beyond what was trusted.
async fn plugin_requests(
    paths: &Paths,
    plugin_dir: &Path,
    plugins: &BTreeMap<String, String>,
    store: &TrustStore,
    folder: &Path,
    out: &mut impl Write,
) -> Result<BTreeMap<String, Requests>, CommandError> {
    let mut requests = BTreeMap::new();
    if plugins.is_empty() {
        return Ok(requests);
    }
    let runtime = Runtime::with_key(paths.cache.clone(), &paths.cache_key())
        .map_err(|e| CommandError::Unloadable(format!("cannot load the workspace's plugins: {e}")))?;
    let pinned = store.pinned_plugins(folder).cloned();
    let before = store.pinned_requests(folder);
    for (name, digest) in plugins {
        let Ok(plugin) = Registry::inspect_from(&runtime, &plugin_dir.join(name), Origin::Workspace).await else {
            continue;
        };
        if plugin.source.content_hash != *digest {
            continue;
        }
        let now = Requests::of(&plugin.info.tools);
        let shown = line(&plugin_dir.join(name).display().to_string());
        match (pinned.as_ref().and_then(|p| p.get(name)), before.get(name)) {
            (Some(old), _) if old == digest => {}
            (Some(_), Some(old)) => {
                writeln!(out, "{shown} changed since you last trusted this folder; capability diff:")?;
                write_change(&now.beyond(old), &old.beyond(&now), out)?;
            }
            (Some(_), None) => {
                writeln!(out, "{shown} changed since you last trusted this folder; it requests:")?;
                write_change(&now, &Requests::default(), out)?;
            }
            (None, _) if pinned.is_some() => {
                writeln!(out, "{shown} is new since you last trusted this folder; it requests:")?;
                write_change(&now, &Requests::default(), out)?;
            }
            (None, _) => {}
        }
        requests.insert(name.clone(), now);
    }
    Ok(requests)
}

/// The requests `added` (`+`) and `removed` (`-`), one a line.
fn write_change(added: &Requests, removed: &Requests, out: &mut impl Write) -> std::io::Result<()> {
    if added.is_empty() && removed.is_empty() {
        return writeln!(out, "  requests: unchanged");
    }
    for request in added.lines() {
        writeln!(out, "  + {}  (new: the workspace's grant applies to it once trusted)", line(&request))?;
    }
    for request in removed.lines() {
        writeln!(out, "  - {}", line(&request))?;
    }
    Ok(())
}
