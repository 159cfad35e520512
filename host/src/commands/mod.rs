//! Commands that manage or list what airlock has rather than run a session: `airlock
//! plugins …`, `airlock mcp …`, `airlock trust`, `airlock config show`, `airlock tools list`,
//! `airlock sessions list`, `airlock rewind`, `airlock audit verify|show` and `airlock --show-context`, and the checks of a headless run's flags
//! (`--output-schema`). They print to stdout and never run a model. They are the
//! binary's, not front ends of a session: they read and edit the plugin folders, the policy
//! files, the trust store and the session files directly, with no session started, so they
//! name `airlock-engine` (README "Layout" says why they may).

pub mod acp;
pub mod audit;
pub mod completions;
pub mod config_show;
pub mod hooks;
pub mod json;
pub mod mcp;
pub mod mcp_serve;
pub mod output_schema;
pub mod plugins;
pub mod prompts;
pub mod rewind;
pub mod sessions_list;
pub mod show_context;
pub mod tools_list;
pub mod trust;

use airlock_engine::policy::PolicyError;

/// Why a management command failed.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    #[error(transparent)]
    Policy(#[from] PolicyError),
    /// The command line names something that does not exist or nothing to do: exit 2.
    #[error("{0}")]
    Usage(String),
    /// A file given to `plugins inspect` is not a plugin.
    #[error("{0}")]
    Unloadable(String),
    /// A config or policy file the `mcp` commands read or edit cannot be used.
    #[error("{0}")]
    Config(String),
    #[error("cannot write the output: {0}")]
    Output(#[from] std::io::Error),
}

impl CommandError {
    /// Whether the command line itself was wrong (exit 2) rather than a file or setting.
    pub fn is_usage(&self) -> bool {
        matches!(self, Self::Usage(_))
    }
}
