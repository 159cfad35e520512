//! Subcommands that manage airlock rather than run a session: `airlock plugins …` and
//! `airlock trust`. They print to stdout and never run a model.

pub mod plugins;
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
    #[error("cannot write the output: {0}")]
    Output(#[from] std::io::Error),
}

impl CommandError {
    /// Whether the command line itself was wrong (exit 2) rather than a file or setting.
    pub fn is_usage(&self) -> bool {
        matches!(self, Self::Usage(_))
    }
}
