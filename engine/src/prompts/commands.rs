//! Custom commands: prompts a person runs by name (`/review 42`). A command is a Markdown
//! file in Claude Code's format (front matter `description`, `argument-hint`; other keys
//! such as `allowed-tools` and `model` are read and ignored; the body is the prompt) or a
//! `.toml` file in Gemini CLI's (`prompt`, `description`), found in
//! `$AIRLOCK_HOME/commands/` and `<workspace>/.airlock/commands/`. A subfolder is a
//! namespace: `frontend/component.md` is `frontend:component`.
//!
//! Names: a user's command keeps its name; a workspace's command whose name a user's already
//! has is reachable as `workspace:NAME` (so a repository cannot replace a command the user
//! relies on); any other clash keeps the first found and reports the rest.
//!
//! Bounds: at most [`MAX_DEPTH`] folders deep, [`MAX_COMMANDS`] commands per folder tree,
//! [`MAX_FILE_BYTES`] per file. A file past them, with a bad name or unreadable, is left
//! out and said in [`Commands::problems`].

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use airlock_files::DirHandle;
use serde::Deserialize;

use super::{Origin, front_matter};

/// The most bytes of one command file.
pub const MAX_FILE_BYTES: u64 = 64 * 1024;
/// How many subfolders deep commands are looked for.
pub const MAX_DEPTH: usize = 3;
/// The most commands taken from one folder tree.
pub const MAX_COMMANDS: usize = 500;

/// Which placeholders a command's prompt uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Syntax {
    /// Claude Code's Markdown: `$ARGUMENTS`, `$1`…`$9`, `@path`, `` !`command` ``.
    Markdown,
    /// Gemini CLI's TOML: `{{args}}`, `@{path}`, `!{command}`.
    Toml,
}

/// A custom command that loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    /// The name typed after `/`.
    pub name: String,
    /// Its `description`, or the first line of its prompt (unsanitised: from a file).
    pub description: String,
    /// Its `argument-hint` (unsanitised).
    pub argument_hint: Option<String>,
    pub origin: Origin,
    /// The file it came from.
    pub path: PathBuf,
    /// The prompt, placeholders unfilled.
    pub template: String,
    pub syntax: Syntax,
}

/// The commands found, and what was left out.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Commands {
    /// The user's first, then the workspace's, each sorted by name.
    pub list: Vec<Command>,
    /// One line for each file or folder left out, and why.
    pub problems: Vec<String>,
}

impl Commands {
    /// The command named `name`.
    pub fn get(&self, name: &str) -> Option<&Command> {
        self.list.iter().find(|c| c.name == name)
    }
}

/// Why `/name` runs nothing: there is no such command, and which there are.
pub fn unknown(commands: &Commands, name: &str) -> String {
    let name = crate::sanitize::line_bounded(name, 64);
    if commands.list.is_empty() {
        return format!("no custom command `/{name}`: there are none");
    }
    let known: Vec<String> = commands.list.iter().take(20).map(|c| format!("/{}", c.name)).collect();
    let more = if commands.list.len() > known.len() { ", …" } else { "" };
    format!("no custom command `/{name}`; there are {}{more}", known.join(", "))
}

/// Finds the commands of `home` and of `workspace` (canonical).
pub fn load(home: &Path, workspace: &Path) -> Commands {
    let mut commands = Commands::default();
    for origin in [Origin::User, Origin::Workspace] {
        let mut found = Vec::new();
        match super::open_folder(origin, home, workspace, "commands") {
            Ok(Some(dir)) => {
                let root = PathBuf::from(super::folder_name(origin, home, workspace, "commands"));
                walk(&dir, &root, &[], origin, &mut found, &mut commands.problems);
            }
            Ok(None) => {}
            Err(problem) => commands.problems.push(problem),
        }
        found.sort_by(|a: &Command, b| a.name.cmp(&b.name));
        for mut command in found {
            if origin == Origin::Workspace && commands.get(&command.name).is_some_and(|c| c.origin == Origin::User) {
                command.name = format!("workspace:{}", command.name);
            }
            if commands.get(&command.name).is_some() {
                commands.problems.push(format!(
                    "{}: left out: a command named `{}` was found first",
                    command.path.display(),
                    command.name
                ));
                continue;
            }
            commands.list.push(command);
        }
    }
    commands
}

fn walk(
    dir: &DirHandle,
    path: &Path,
    namespace: &[String],
    origin: Origin,
    found: &mut Vec<Command>,
    problems: &mut Vec<String>,
) {
    let mut names = match dir.entries() {
        Ok(names) => names,
        Err(error) => {
            problems.push(format!("{}: {error}", path.display()));
            return;
        }
    };
    names.sort();
    for name in names {
        let entry = path.join(&name);
        let Ok(stat) = dir.stat_entry(&name) else { continue };
        let kind = rustix::fs::FileType::from_raw_mode(stat.st_mode);
        let text_name = name.to_string_lossy();
        if kind == rustix::fs::FileType::Directory {
            if text_name.starts_with('.') {
                continue;
            }
            if namespace.len() >= MAX_DEPTH || !super::is_name_segment(&text_name) {
                problems.push(format!(
                    "{}: left out: a namespace is a plain name at most {MAX_DEPTH} deep",
                    entry.display()
                ));
                continue;
            }
            match airlock_files::open_dir_in(dir, Path::new(&name)) {
                Ok(sub) => {
                    let mut inner = namespace.to_vec();
                    inner.push(text_name.into_owned());
                    walk(&sub, &entry, &inner, origin, found, problems);
                }
                Err(error) => problems.push(format!("{}: {error}", entry.display())),
            }
            continue;
        }
        let (stem, syntax) = match (text_name.strip_suffix(".md"), text_name.strip_suffix(".toml")) {
            (Some(stem), _) => (stem, Syntax::Markdown),
            (_, Some(stem)) => (stem, Syntax::Toml),
            _ => continue,
        };
        if found.len() >= MAX_COMMANDS {
            problems.push(format!("{}: left out: at most {MAX_COMMANDS} commands are read", entry.display()));
            return;
        }
        if !super::is_name_segment(stem) {
            problems.push(format!(
                "{}: left out: a command's name is letters, digits, `-`, `_` and `.`, at most 64",
                entry.display()
            ));
            continue;
        }
        let mut full = namespace.to_vec();
        full.push(stem.to_owned());
        match read(dir, &name, syntax) {
            Ok((description, argument_hint, template)) => found.push(Command {
                name: full.join(":"),
                description,
                argument_hint,
                origin,
                path: entry,
                template,
                syntax,
            }),
            Err(reason) => problems.push(format!("{}: left out: {reason}", entry.display())),
        }
    }
}

/// Gemini CLI's command file.
#[derive(Deserialize)]
struct TomlCommand {
    prompt: String,
    #[serde(default)]
    description: Option<String>,
}

/// The description, argument hint and prompt of the file `name` in `dir`.
fn read(dir: &DirHandle, name: &OsStr, syntax: Syntax) -> Result<(String, Option<String>, String), String> {
    let (file, stat) = dir.open_regular(name).map_err(|e| format!("it {e}"))?;
    let bytes = airlock_files::read_bounded(file, stat, MAX_FILE_BYTES).map_err(|e| format!("it {e}"))?;
    let text = String::from_utf8(bytes).map_err(|_| "it is not UTF-8 text".to_string())?;
    match syntax {
        Syntax::Markdown => {
            let parsed = front_matter::parse(&text);
            let description = parsed.get("description").map_or_else(|| first_line(&parsed.body), str::to_owned);
            Ok((description, parsed.get("argument-hint").map(str::to_owned), parsed.body))
        }
        Syntax::Toml => {
            let command: TomlCommand =
                toml::from_str(&text).map_err(|e| format!("it is not a command file: {}", e.message()))?;
            let description =
                command.description.filter(|d| !d.trim().is_empty()).unwrap_or_else(|| first_line(&command.prompt));
            Ok((description, None, command.prompt))
        }
    }
}

/// The first line of `text` with words, Markdown heading marks removed.
fn first_line(text: &str) -> String {
    text.lines().map(|l| l.trim().trim_start_matches('#').trim()).find(|l| !l.is_empty()).unwrap_or_default().to_owned()
}

#[cfg(test)]
#[path = "commands_tests.rs"]
mod tests;
