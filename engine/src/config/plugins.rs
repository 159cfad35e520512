//! `[plugins]`: where `airlock plugins search` looks for plugins (`index`, a URL or a local
//! mirror; the command checks and reads it).
//!
//! Invariant: a workspace's settings file may not set any of these keys
//! ([`super::merge::workspace_refusal`]): a repository must not choose where its user
//! discovers code to install.

use serde::Deserialize;

/// `[plugins]` as written.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PluginSettings {
    /// The plugin index `plugins search` reads: an `https://…/index.json`, a git repository
    /// holding `index.json` (`git+https://…`, `https://….git`), or a local mirror (a path to
    /// an `index.json`, `file://…`, `git+file://…`).
    pub index: Option<String>,
}
