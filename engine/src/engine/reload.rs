//! Hot reload: the engine watches the plugin folders while a session lives, and a `.wasm`
//! added, replaced or removed changes the tools the model is offered from the next turn on.
//!
//! The watch polls each folder every [`POLL`] (file names, sizes and modification times; no
//! notification crate). A change is taken only once two looks [`SETTLE`] apart agree, so a
//! file being copied in is not loaded half-written; then [`Op::ReloadPlugins`] goes to the
//! engine like any order, and waits for the running turn to end (a turn never sees its tools
//! change under it). The reload loads the tools exactly as a start does (`Tools::load`): the
//! same trust rules, so a workspace that is not trusted gets no workspace plugin this way
//! either, and a plugin that fails to load is reported while the others stay.
//!
//! The watch holds only a weak handle on the order channel: it never keeps a session alive.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use tokio::sync::mpsc;

use super::Op;
use crate::events::Event;
use crate::registry::Registry;

/// How often the folders are looked at.
pub const POLL: Duration = Duration::from_secs(1);
/// How long a change must hold before it is taken.
pub const SETTLE: Duration = Duration::from_millis(300);

/// What a folder holds: each `.wasm` file's size and modification time.
pub(crate) type Snapshot = BTreeMap<PathBuf, (u64, Option<SystemTime>)>;

pub(crate) fn snapshot(dirs: &[PathBuf]) -> Snapshot {
    let mut files = Snapshot::new();
    for dir in dirs {
        let Ok(entries) = std::fs::read_dir(dir) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().is_some_and(|e| e == "wasm")
                && let Ok(meta) = entry.metadata()
            {
                files.insert(path, (meta.len(), meta.modified().ok()));
            }
        }
    }
    files
}

/// Watches `dirs` and sends [`Op::ReloadPlugins`] through `orders` when they settle on
/// content other than `applied` (what they held when the session's tools were loaded). Ends
/// when the session's order channel closes.
pub(super) fn watch(
    dirs: Vec<PathBuf>,
    mut applied: Snapshot,
    orders: mpsc::WeakUnboundedSender<Op>,
) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        loop {
            tokio::time::sleep(POLL).await;
            let seen = snapshot(&dirs);
            if seen == applied {
                if orders.upgrade().is_none() {
                    return;
                }
                continue;
            }
            tokio::time::sleep(SETTLE).await;
            if snapshot(&dirs) != seen {
                continue;
            }
            let Some(sender) = orders.upgrade() else { return };
            if sender.send(Op::ReloadPlugins).is_err() {
                return;
            }
            applied = seen;
        }
    })
}

/// Each plugin's content hash and tool names, by plugin name.
fn plugins(registry: &Registry) -> BTreeMap<String, (String, Vec<String>)> {
    registry
        .plugins()
        .into_iter()
        .map(|p| {
            let tools =
                registry.tools().iter().filter(|t| std::sync::Arc::ptr_eq(&t.plugin, p)).map(|t| t.info.name.clone());
            (p.info.name.clone(), (p.source.content_hash.clone(), tools.collect()))
        })
        .collect()
}

/// What a reload leaves unchanged: the plugins whose code is the same as before (by name),
/// and the tools served by the same code as before.
pub(super) struct Unchanged {
    pub plugins: BTreeSet<String>,
    pub tools: BTreeSet<String>,
}

/// The plugins and tools whose code is the same in `old` and `new`: only these keep what
/// the person gave them for the session.
pub(super) fn unchanged(old: &Registry, new: &Registry) -> Unchanged {
    // A tool is the same when the same plugin (name and origin) serves it with the same code.
    let owner = |registry: &Registry| -> BTreeMap<String, (String, String, String)> {
        registry
            .tools()
            .iter()
            .map(|t| {
                let plugin = &t.plugin;
                let origin = format!("{:?}", plugin.source.origin);
                (t.info.name.clone(), (plugin.info.name.clone(), origin, plugin.source.content_hash.clone()))
            })
            .collect()
    };
    let (before, after) = (plugins(old), plugins(new));
    let plugins = after
        .iter()
        .filter(|(name, (hash, _))| before.get(*name).is_some_and(|(old_hash, _)| old_hash == hash))
        .map(|(name, _)| name.clone())
        .collect();
    let (before, after) = (owner(old), owner(new));
    let tools =
        after.iter().filter(|(name, hash)| before.get(*name) == Some(*hash)).map(|(name, _)| name.clone()).collect();
    Unchanged { plugins, tools }
}

/// The notices that tell what changed between `old` and `new`.
pub(super) fn changes(old: &Registry, new: &Registry) -> Vec<Event> {
    let (before, after) = (plugins(old), plugins(new));
    let mut events = Vec::new();
    for (name, (hash, tools)) in &after {
        let tools = tools.join(", ");
        match before.get(name) {
            None => events.push(notice(format!("plugin {name} added: tools {tools}"))),
            Some((old_hash, _)) if old_hash != hash => {
                events.push(notice(format!("plugin {name} replaced: tools {tools}")))
            }
            Some(_) => {}
        }
    }
    for name in before.keys().filter(|name| !after.contains_key(*name)) {
        events.push(notice(format!("plugin {name} removed")));
    }
    for problem in &new.problems {
        if !old.problems.iter().any(|p| p.path == problem.path && p.reason == problem.reason) {
            events.push(Event::PluginProblem(problem.clone()));
        }
    }
    events
}

fn notice(message: String) -> Event {
    Event::Notice { message: crate::sanitize::line(&message) }
}

/// The folders a session's plugins come from.
pub(crate) fn dirs(paths: &crate::paths::Paths, workspace: &Path) -> Vec<PathBuf> {
    vec![paths.plugins.clone(), workspace.join(".airlock").join("plugins")]
}
