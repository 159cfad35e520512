//! Subcommands that manage airlock rather than run a session: `airlock plugins …` and
//! `airlock trust`. They print to stdout and never run a model.

pub mod plugins;
pub mod trust;

use crate::policy::PolicyError;

/// Why a management command failed.
#[derive(Debug, thiserror::Error)]
pub enum CommandError {
    #[error(transparent)]
    Policy(#[from] PolicyError),
    #[error("{0}")]
    Usage(String),
    #[error("cannot write the output: {0}")]
    Output(#[from] std::io::Error),
}
