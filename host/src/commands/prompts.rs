//! `airlock commands list` and `airlock skills list`: the custom commands and skills found
//! for this workspace, where each comes from, and every file left out with why. Names,
//! descriptions and reasons come from files: they are printed sanitised.

use std::io::{self, Write};
use std::path::Path;

use clap::Subcommand;

/// `airlock commands …`.
#[derive(Debug, Subcommand)]
pub enum CommandsCommand {
    /// Print the custom commands (`/NAME` in the UI, `airlock -p "/NAME ARGS"`).
    List {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}

/// Prints the custom commands of `home` and `workspace`.
pub fn commands(home: &Path, workspace: &Path, command: &CommandsCommand, out: &mut impl Write) -> io::Result<()> {
    let CommandsCommand::List { json } = command;
    let (rows, problems) = airlock_door::queries::custom_commands(home, workspace);
    if *json {
        let value = serde_json::json!({ "commands": rows, "problems": problems });
        return writeln!(out, "{value}");
    }
    if rows.is_empty() {
        writeln!(
            out,
            "no custom commands (put Markdown files in {} or .airlock/commands/)",
            home.join("commands").display()
        )?;
    }
    for row in &rows {
        let hint = row.argument_hint.as_deref().map(|h| format!(" {h}")).unwrap_or_default();
        let mark = match row.source {
            airlock_protocol::CommandSource::User => "",
            airlock_protocol::CommandSource::Workspace => "  (workspace)",
        };
        writeln!(out, "/{}{hint}  {}{mark}", row.name, row.description)?;
    }
    write_problems(&problems, out)
}

fn write_problems(problems: &[String], out: &mut impl Write) -> io::Result<()> {
    if !problems.is_empty() {
        writeln!(out, "\nLeft out:")?;
        for problem in problems {
            writeln!(out, "  {problem}")?;
        }
    }
    Ok(())
}
