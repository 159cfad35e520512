//! `airlock completions SHELL` and `airlock man`: a shell's completion script and the manual
//! page, both generated from the command line's own clap definitions ([`crate::cli::Cli`]), so
//! neither can drift from `--help`.

use std::io::Write;
use std::path::PathBuf;

use super::CommandError;

/// `airlock completions SHELL`.
#[derive(Debug, clap::Args)]
pub struct CompletionsArgs {
    /// The shell: bash, zsh, fish, elvish or powershell.
    pub shell: String,
}

/// `airlock man [--out DIR]`.
#[derive(Debug, clap::Args)]
pub struct ManArgs {
    /// Write `airlock.1` and one page per subcommand into DIR instead of printing `airlock.1`.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

/// Prints the completion script of `args.shell`.
pub fn completions(args: &CompletionsArgs, _out: &mut impl Write) -> Result<(), CommandError> {
    Err(CommandError::Usage(format!("completions for {} are not built yet", args.shell)))
}

/// Prints (or writes) the manual page.
pub fn man(_args: &ManArgs, _out: &mut impl Write) -> Result<(), CommandError> {
    Err(CommandError::Usage("the manual page is not built yet".into()))
}
