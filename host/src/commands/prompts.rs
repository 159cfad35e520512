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

/// `airlock skills …`.
#[derive(Debug, Subcommand)]
pub enum SkillsCommand {
    /// Print the skills the model may activate, and each one left out with why.
    List {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}

/// Prints the skills of `home` and `workspace` (`enabled`: `[skills] enabled`).
pub fn skills(
    home: &Path,
    workspace: &Path,
    enabled: bool,
    command: &SkillsCommand,
    out: &mut impl Write,
) -> io::Result<()> {
    use airlock_engine::prompts::{Origin, skills};
    use airlock_engine::sanitize::line;
    let SkillsCommand::List { json } = command;
    let found = skills::load(home, workspace);
    let problems: Vec<String> = found.problems.iter().map(|p| line(p)).collect();
    if *json {
        let rows: Vec<serde_json::Value> = found
            .list
            .iter()
            .map(|s| {
                serde_json::json!({
                    "name": s.name,
                    "description": line(&s.description),
                    "source": s.origin.as_str(),
                    "path": line(&s.dir.display().to_string()),
                    "description_cut_from": s.cut_from,
                })
            })
            .collect();
        let value = serde_json::json!({ "enabled": enabled, "skills": rows, "problems": problems });
        return writeln!(out, "{value}");
    }
    if !enabled {
        writeln!(out, "skills are off ([skills] enabled = false in config.toml); these would be offered:")?;
    }
    if found.list.is_empty() {
        writeln!(
            out,
            "no skills (put skill folders with a SKILL.md in {} or .airlock/skills/)",
            home.join("skills").display()
        )?;
    }
    for skill in &found.list {
        let mark = if skill.origin == Origin::Workspace { "  (workspace)" } else { "" };
        writeln!(out, "{}  {}{mark}", skill.name, airlock_engine::sanitize::line_bounded(&skill.description, 200))?;
        if let Some(chars) = skill.cut_from {
            let most = skills::MAX_DESCRIPTION_CHARS;
            writeln!(out, "  its description has {chars} characters: the model is shown the first {most}")?;
        }
        writeln!(out, "  {}", line(&skill.dir.display().to_string()))?;
    }
    write_problems(&problems, out)
}
