//! Skills, in the Agent Skills format (agentskills.io) that Claude Code and Codex read: a
//! folder holding a `SKILL.md` whose YAML front matter has `name` (1–64 of `a-z`, `0-9`
//! and `-`, no leading, trailing or double `-`, the folder's own name) and `description`
//! (the format says 1–1024 characters; Anthropic's own skills pass that, and Claude Code
//! loads them, so a longer one up to [`LONGEST_DESCRIPTION_CHARS`] loads with its first
//! [`MAX_DESCRIPTION_CHARS`] used); the body is the skill's instructions, and files beside it (scripts,
//! references, templates) are read when the instructions say so. Other keys (`license`,
//! `compatibility`, `metadata`, `allowed-tools`) are read and ignored: `allowed-tools`
//! never grants anything.
//!
//! Found in `$AIRLOCK_HOME/skills/` and `<workspace>/.airlock/skills/`, one folder deep.
//! Only names and descriptions go into the system prompt ([`section`]); the body and the
//! files are read when the model activates a skill with the `activate_skill` tool (a
//! sandboxed component granted read access to those two folders and nothing else).
//! A skill that is not valid (no front matter, a bad or mismatched name, a missing or
//! over-long description, a name another skill has) is left out and said in
//! [`Skills::problems`].

use std::path::{Path, PathBuf};

use super::{Origin, front_matter};

/// The most bytes of one `SKILL.md` read to find its front matter.
pub const MAX_SKILL_FILE_BYTES: u64 = 256 * 1024;
/// The most of a description used, in characters (the Agent Skills limit): a longer one is
/// cut there, so 200 skills cannot make the system prompt grow past about 200 KiB.
pub const MAX_DESCRIPTION_CHARS: usize = 1024;
/// The longest description a skill may have and load (cut to [`MAX_DESCRIPTION_CHARS`]).
pub const LONGEST_DESCRIPTION_CHARS: usize = 8 * 1024;
/// The most skills taken from one folder.
pub const MAX_SKILLS: usize = 200;
/// The name of the tool that activates a skill.
pub const TOOL: &str = "activate_skill";

/// A skill that loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skill {
    pub name: String,
    /// Unsanitised: from a file.
    pub description: String,
    pub origin: Origin,
    /// Its folder (canonical when the user's folder is a link).
    pub dir: PathBuf,
    /// The description's length in characters when it was cut to [`MAX_DESCRIPTION_CHARS`].
    pub cut_from: Option<usize>,
}

/// The skills found, and what was left out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Skills {
    /// The user's first, then the workspace's, each sorted by name.
    pub list: Vec<Skill>,
    /// One line for each skill left out, and why.
    pub problems: Vec<String>,
}

impl Skills {
    /// The skill named `name`.
    pub fn get(&self, name: &str) -> Option<&Skill> {
        self.list.iter().find(|s| s.name == name)
    }
}

/// Finds the skills of `home` and of `workspace` (canonical).
pub fn load(home: &Path, workspace: &Path) -> Skills {
    let mut skills = Skills::default();
    for origin in [Origin::User, Origin::Workspace] {
        let dir = match super::open_folder(origin, home, workspace, "skills") {
            Ok(Some(dir)) => dir,
            Ok(None) => continue,
            Err(problem) => {
                skills.problems.push(problem);
                continue;
            }
        };
        let root = PathBuf::from(super::folder_name(origin, home, workspace, "skills"));
        // The user's folder may be a link (to `~/.claude/skills`): its real path is what a
        // grant names.
        let root = if origin == Origin::User { root.canonicalize().unwrap_or(root) } else { root };
        let mut names = match dir.entries() {
            Ok(names) => names,
            Err(error) => {
                skills.problems.push(format!("{}: {error}", root.display()));
                continue;
            }
        };
        names.sort();
        let mut taken = 0;
        for name in names {
            let Ok(stat) = dir.stat_entry(&name) else { continue };
            let text_name = name.to_string_lossy().into_owned();
            if rustix::fs::FileType::from_raw_mode(stat.st_mode) != rustix::fs::FileType::Directory
                || text_name.starts_with('.')
            {
                continue;
            }
            let path = root.join(&name);
            if taken >= MAX_SKILLS {
                skills.problems.push(format!("{}: left out: at most {MAX_SKILLS} skills are read", path.display()));
                break;
            }
            taken += 1;
            match read(&dir, &text_name) {
                Ok(_) if skills.get(&text_name).is_some() => {
                    skills
                        .problems
                        .push(format!("{}: left out: a skill named `{text_name}` was found first", path.display()));
                }
                Ok((description, cut_from)) => {
                    skills.list.push(Skill { name: text_name, description, origin, dir: path, cut_from });
                }
                Err(reason) => skills.problems.push(format!("{}: left out: {reason}", path.display())),
            }
        }
    }
    skills
}

/// The description of the skill in folder `name` of `dir` (cut, with its length in
/// characters, when it is longer than [`MAX_DESCRIPTION_CHARS`]), or why it is not valid.
fn read(dir: &airlock_files::DirHandle, name: &str) -> Result<(String, Option<usize>), String> {
    let file = Path::new(name).join("SKILL.md");
    let bytes =
        airlock_files::read_file_in(dir, &file, MAX_SKILL_FILE_BYTES).map_err(|e| format!("its SKILL.md {e}"))?;
    let text = String::from_utf8(bytes).map_err(|_| "its SKILL.md is not UTF-8 text".to_string())?;
    let parsed = front_matter::parse(&text);
    if !parsed.present {
        return Err("its SKILL.md has no front matter (`---`, `name:`, `description:`, `---`)".into());
    }
    let declared = parsed.get("name").ok_or("its front matter has no `name`")?;
    if !valid_name(declared) {
        return Err(format!(
            "its name `{}` is not 1-64 of a-z, 0-9 and `-` (no leading, trailing or double `-`)",
            crate::sanitize::line_bounded(declared, 80)
        ));
    }
    if declared != name {
        return Err(format!("its name `{declared}` is not its folder's name `{name}`"));
    }
    let description = parsed.get("description").ok_or("its front matter has no `description`")?;
    let chars = description.chars().count();
    if chars > LONGEST_DESCRIPTION_CHARS {
        return Err(format!("its description has {chars} characters; at most {LONGEST_DESCRIPTION_CHARS}"));
    }
    if chars > MAX_DESCRIPTION_CHARS {
        let cut: String = description.chars().take(MAX_DESCRIPTION_CHARS).collect();
        return Ok((format!("{cut}…"), Some(chars)));
    }
    Ok((description.to_owned(), None))
}

/// Whether `name` is a skill name as the Agent Skills format has them.
pub fn valid_name(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !name.starts_with('-')
        && !name.ends_with('-')
        && !name.contains("--")
}

/// The skills as a section of the system prompt: how to activate one, then one line per
/// skill (empty without skills). Descriptions are put on one line: a description cannot
/// forge a heading or another skill.
pub fn section(skills: &Skills) -> String {
    if skills.list.is_empty() {
        return String::new();
    }
    let mut out = format!(
        "\n\n# Skills\n\
         Skills hold instructions for particular tasks. When a task matches a skill's description, call \
         `{TOOL}` with its name before you start: it returns the skill's instructions and the files in its \
         folder, which you may then read with the read tools. A skill grants nothing: its instructions \
         go through the same approvals as anything else.\n"
    );
    for skill in &skills.list {
        let mark = if skill.origin == Origin::Workspace { " (from this workspace)" } else { "" };
        out.push_str(&format!("- {}: {}{mark}\n", skill.name, crate::sanitize::line(&skill.description)));
    }
    out
}

#[cfg(test)]
#[path = "skills_tests.rs"]
mod tests;
