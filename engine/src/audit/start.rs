//! The `start` record: what was in force when a session (or a resumed run of it) started —
//! the workspace and its trust, the digests of the settings, policy and trust files, every
//! loaded plugin with its digest and grant in force.

use std::path::Path;

use super::record::{FileDigest, GrantRecord, LoadedRecord, Start};
use crate::paths::Paths;
use crate::policy::Policy;
use crate::registry::{Origin, Registry};
use airlock_files as files;

/// Largest file hashed; a bigger one is said not read (airlock refuses to read it anyway).
const MAX_HASHED: u64 = 1 << 20;

/// The `start` record of a session in `workspace`.
pub fn of(paths: &Paths, workspace: &Path, policy: &Policy, registry: &Registry, resumed: bool) -> Start {
    let user = [
        ("system config", paths.system.join("config.toml")),
        ("system policy", paths.system.join("policy.toml")),
        ("user config", paths.config_file()),
        ("user policy", paths.policy_file()),
        ("trust", paths.trust_file()),
    ]
    .into_iter()
    .map(|(role, path)| digest_of(role, &path, files::read_user_file(&path, MAX_HASHED)));
    // A workspace's files are read as its policy is: through a handle on the workspace,
    // following no link, never blocking (a FIFO planted there must not hang the start).
    let dir = files::open_dir(workspace);
    let in_workspace = [("workspace config", ".airlock/config.toml"), ("workspace policy", ".airlock/policy.toml")]
        .into_iter()
        .map(|(role, relative)| {
            let read = match &dir {
                Ok(dir) => files::read_file_in(dir, Path::new(relative), MAX_HASHED),
                Err(_) => Err(files::FileError::NotFound),
            };
            digest_of(role, &workspace.join(relative), read)
        });
    let files = user.chain(in_workspace).collect();
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

/// A file's digest: its sha-256, `none` when there is none, or why it was not read.
fn digest_of(role: &str, path: &Path, read: Result<Vec<u8>, files::FileError>) -> FileDigest {
    let sha256 = match read {
        Ok(bytes) => super::record::digest(&bytes),
        Err(files::FileError::NotFound) => "none".into(),
        Err(error) => format!("not read: {error}"),
    };
    FileDigest { role: role.to_owned(), path: path.display().to_string(), sha256 }
}
