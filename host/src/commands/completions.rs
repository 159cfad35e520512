//! `airlock completions SHELL` and `airlock man`: a shell's completion script and the manual
//! page, both generated from the command line's own clap definitions ([`crate::cli::Cli`]), so
//! neither can drift from `--help`. Nothing is loaded or read first: they work on a machine
//! with no `$AIRLOCK_HOME` at all (a package's build script runs them).

use std::io::Write;
use std::path::{Path, PathBuf};

use clap::CommandFactory;
use clap_complete::Shell;
use clap_mangen::roff::{Roff, bold, roman};

use super::CommandError;

/// `airlock completions SHELL`.
#[derive(Debug, clap::Args)]
pub struct CompletionsArgs {
    /// The shell (an unknown one is refused, listing these).
    #[arg(value_enum)]
    pub shell: Shell,
}

/// `airlock man [--out DIR]`.
#[derive(Debug, clap::Args)]
pub struct ManArgs {
    /// Write `airlock.1` and one page per subcommand into DIR instead of printing `airlock.1`.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
}

/// The name the scripts complete and the pages are titled by.
const BIN: &str = "airlock";

/// Prints the completion script of `args.shell`.
pub fn completions(args: &CompletionsArgs, out: &mut impl Write) -> Result<(), CommandError> {
    let mut command = crate::cli::Cli::command();
    // Generated into memory: `generate` panics on a write error (a closed pipe); a write of
    // ours reports it.
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut command, BIN, &mut script);
    out.write_all(&script)?;
    out.flush()?;
    Ok(())
}

/// Prints `airlock.1`, or writes it and one page per subcommand into `--out DIR` (made if
/// missing), saying each file written.
pub fn man(args: &ManArgs, out: &mut impl Write) -> Result<(), CommandError> {
    let mut command = crate::cli::Cli::command().disable_help_subcommand(true);
    // Built once so each subcommand knows its full name (`airlock-plugins-install`).
    command.build();
    let Some(dir) = &args.out else {
        let mut page = Vec::new();
        clap_mangen::Man::new(command.clone()).render(&mut page)?;
        every_command(&command).to_writer(&mut page)?;
        out.write_all(&page)?;
        return Ok(());
    };
    std::fs::create_dir_all(dir)
        .map_err(|e| CommandError::Config(format!("{}: cannot make the folder: {e}", dir.display())))?;
    let mut written = Vec::new();
    write_pages(command, dir, &mut written)?;
    for path in &written {
        writeln!(out, "{}", airlock_engine::sanitize::line(&path.display().to_string()))?;
    }
    Ok(())
}

/// A `COMMANDS` section naming every command in full (`airlock plugins install`) with what
/// it does, so that the one page `airlock man` prints covers them all.
fn every_command(command: &clap::Command) -> Roff {
    let mut roff = Roff::default();
    roff.control("SH", ["COMMANDS"]);
    let mut stack: Vec<(String, &clap::Command)> = vec![(BIN.to_string(), command)];
    let mut rows = Vec::new();
    while let Some((name, command)) = stack.pop() {
        for sub in command.get_subcommands().filter(|s| !s.is_hide_set()).collect::<Vec<_>>().into_iter().rev() {
            let full = format!("{name} {}", sub.get_name());
            rows.push((full.clone(), sub.get_about().map(|a| a.to_string()).unwrap_or_default()));
            stack.push((full, sub));
        }
    }
    rows.sort();
    for (name, about) in rows {
        roff.control("TP", []);
        roff.text([bold(name)]);
        roff.text([roman(about)]);
    }
    roff
}

/// Writes the page of `command`, then those of its visible subcommands, depth first.
fn write_pages(command: clap::Command, dir: &Path, written: &mut Vec<PathBuf>) -> Result<(), CommandError> {
    let subcommands: Vec<clap::Command> = command.get_subcommands().filter(|s| !s.is_hide_set()).cloned().collect();
    let page = clap_mangen::Man::new(command);
    let path = dir.join(page.get_filename());
    let mut bytes = Vec::new();
    page.render(&mut bytes)?;
    std::fs::write(&path, bytes).map_err(|e| CommandError::Config(format!("{}: cannot write: {e}", path.display())))?;
    written.push(path);
    for subcommand in subcommands {
        write_pages(subcommand, dir, written)?;
    }
    Ok(())
}
