//! `activate_skill`: returns one skill's instructions (the body of its `SKILL.md`, after the
//! front matter) and the list of the files in its folder, so the model reads a skill's
//! details only when a task calls for it (the system prompt holds just names and
//! descriptions). The component is granted read access to the two skill folders — the
//! user's (`@skills`, `$AIRLOCK_HOME/skills`) and the workspace's (`.airlock/skills`) —
//! and nothing else: no other file, no network, no command. After a call that succeeded the
//! host lets the session's read tools read that skill's folder. A skill's scripts are files
//! here: running one goes through `run_shell_command`'s approval and sandbox.

use std::fs;
use std::path::{Path, PathBuf};

use airlock_plugin_sdk::fs::read_text;
use airlock_plugin_sdk::prelude::*;

/// Most files listed.
const MAX_FILES: usize = 200;
/// How deep the file list goes.
const MAX_DEPTH: usize = 4;

#[derive(Deserialize, JsonSchema)]
struct Args {
    /// The skill's name, as the system prompt's list of skills gives it.
    name: String,
}

struct ActivateSkill;

impl Tool for ActivateSkill {
    type Args = Args;
    const NAME: &'static str = "activate_skill";
    const DISPLAY_NAME: &'static str = "ActivateSkill";
    const DESCRIPTION: &'static str = "Activates one of the skills the system prompt lists: returns its \
        instructions and the files in its folder (which the read tools can then read). Call it when a task \
        matches a skill's description, before you start the task.";
    const KIND: Kind = Kind::Read;

    fn capabilities() -> Capabilities {
        Capabilities::none().read("@skills").read(".airlock/skills")
    }

    fn validate(args: &Args) -> Result<(), ToolError> {
        if valid_name(&args.name) {
            Ok(())
        } else {
            Err(ToolError::InvalidParams("a skill's name is 1-64 of a-z, 0-9 and `-`".into()))
        }
    }

    fn describe_call(args: &Args) -> String {
        format!("Activate skill {}", args.name.chars().take(64).collect::<String>())
    }

    fn execute(args: Args) -> Result<ToolOutput, ToolError> {
        let dir = skill_dir(&args.name)?;
        let text = read_text(&dir.join("SKILL.md"))?;
        let body = body(&text, &args.name)?;
        let mut files = Vec::new();
        list(&dir, Path::new(""), 0, &mut files);
        let mut out = format!("Skill `{}` is active. Its folder: {}\n\n{}\n", args.name, dir.display(), body.trim());
        if !files.is_empty() {
            out.push_str(
                "\nFiles in its folder (read them with the read tools when the instructions call for them):\n",
            );
            for file in &files {
                out.push_str(&format!("- {file}\n"));
            }
        }
        Ok(ToolOutput::text(out))
    }
}

/// The folder of the skill `name`: the user's first, then the workspace's (the host lists
/// them in that order and leaves a workspace skill out when the user has one of its name).
fn skill_dir(name: &str) -> Result<PathBuf, ToolError> {
    let workspace = workspace_root();
    let mut roots: Vec<PathBuf> = wasip2::filesystem::preopens::get_directories()
        .into_iter()
        .map(|(_, path)| PathBuf::from(path))
        .filter(|path| *path != workspace)
        .collect();
    roots.sort_by_key(|path| path.starts_with(&workspace));
    roots
        .into_iter()
        .map(|root| root.join(name))
        .find(|dir| dir.join("SKILL.md").is_file())
        .ok_or_else(|| ToolError::NotFound(format!("no skill named `{name}`: use a name from the list of skills")))
}

/// The body of a `SKILL.md`, once its front matter names `name`.
fn body<'a>(text: &'a str, name: &str) -> Result<&'a str, ToolError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let invalid = || ToolError::Execution(format!("the skill `{name}` has no valid front matter"));
    let rest = text.strip_prefix("---\n").or_else(|| text.strip_prefix("---\r\n")).ok_or_else(invalid)?;
    let mut offset = 0;
    let mut named = false;
    for line in rest.split_inclusive('\n') {
        let trimmed = line.trim_end();
        if trimmed == "---" {
            return if named { Ok(&rest[offset + line.len()..]) } else { Err(invalid()) };
        }
        if let Some(value) = trimmed.strip_prefix("name:") {
            named = value.trim().trim_matches(['"', '\'']) == name;
        }
        offset += line.len();
    }
    Err(invalid())
}

/// The files below `dir` (`SKILL.md` aside), relative, sorted, within the caps.
fn list(dir: &Path, relative: &Path, depth: usize, files: &mut Vec<String>) {
    let Ok(entries) = fs::read_dir(dir) else { return };
    let mut entries: Vec<_> = entries.flatten().collect();
    entries.sort_by_key(|e| e.file_name());
    for entry in entries {
        if files.len() >= MAX_FILES {
            return;
        }
        let name = entry.file_name();
        let path = relative.join(&name);
        match entry.file_type() {
            Ok(kind) if kind.is_dir() && depth < MAX_DEPTH => list(&entry.path(), &path, depth + 1, files),
            Ok(kind) if kind.is_file() && path != Path::new("SKILL.md") => {
                files.push(path.display().to_string());
            }
            _ => {}
        }
    }
}

fn valid_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--")
}

export_tools!(ActivateSkill);
