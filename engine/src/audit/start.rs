//! The `start` record: what was in force when a session (or a resumed run of it) started —
//! the workspace and its trust, the digests of the settings, policy and trust files, every
//! loaded plugin with its digest and grant in force.

use std::path::Path;

use super::record::{FileDigest, GrantRecord, LoadedRecord, Start};
use crate::paths::Paths;
use crate::policy::Policy;
use crate::registry::{Origin, Registry};

/// Largest file hashed; a bigger one is named by its size (airlock refuses to read it anyway).
const MAX_HASHED: u64 = 1 << 20;

/// The `start` record of a session in `workspace`.
pub fn of(paths: &Paths, workspace: &Path, policy: &Policy, registry: &Registry, resumed: bool) -> Start {
    let files = [
        ("system config", paths.system.join("config.toml")),
        ("system policy", paths.system.join("policy.toml")),
        ("user config", paths.config_file()),
        ("user policy", paths.policy_file()),
        ("trust", paths.trust_file()),
        ("workspace config", workspace.join(".airlock").join("config.toml")),
        ("workspace policy", crate::policy::workspace_policy_path(workspace)),
    ]
    .into_iter()
    .map(|(role, path)| FileDigest {
        role: role.to_owned(),
        sha256: file_digest(&path),
        path: path.display().to_string(),
    })
    .collect();
    let plugins = registry
        .plugins()
        .into_iter()
        .map(|plugin| LoadedRecord {
            name: plugin.info.name.clone(),
            origin: match plugin.source.origin {
                Origin::Builtin => "builtin",
                Origin::User => "user",
                Origin::Workspace => "workspace",
            }
            .to_owned(),
            digest: plugin.source.content_hash.clone(),
            grant: GrantRecord::of_grant(&policy.grant(plugin).grant),
        })
        .collect();
    Start {
        workspace: workspace.display().to_string(),
        trust: if policy.workspace_trusted() { "trusted" } else { "untrusted" }.to_owned(),
        resumed,
        files,
        plugins,
        hooks: Vec::new(),
    }
}

/// The sha-256 of the file at `path`, `none` when there is none, or why it was not read.
fn file_digest(path: &Path) -> String {
    use std::io::Read;
    let file = match std::fs::File::open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return "none".into(),
        Err(e) => return format!("unreadable: {e}"),
    };
    let mut bytes = Vec::new();
    match file.take(MAX_HASHED + 1).read_to_end(&mut bytes) {
        Ok(_) if bytes.len() as u64 > MAX_HASHED => "too large".into(),
        Ok(_) => super::record::digest(&bytes),
        Err(e) => format!("unreadable: {e}"),
    }
}
