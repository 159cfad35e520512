//! `airlock plugins search WORDS`: searches the configured plugin index (a static JSON index
//! at an https URL, or a git repository) and prints beside each result what it requests.

use std::io::Write;

use super::Context;
use crate::commands::CommandError;

/// `airlock plugins search`.
#[derive(Debug, clap::Args)]
pub struct SearchArgs {
    /// Words every result must contain (in its name or description).
    pub words: Vec<String>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub json: bool,
}

pub async fn run(_context: &Context<'_>, _args: &SearchArgs, _out: &mut impl Write) -> Result<(), CommandError> {
    Err(CommandError::Usage("plugins search is not built yet".into()))
}
