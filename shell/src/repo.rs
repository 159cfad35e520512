//! The programs a repository makes git run, for the lines that run git: `core.fsmonitor`,
//! `diff.external`, `diff.<driver>.textconv`, `filter.<driver>.clean`, aliases, hooks… git reads
//! them from `.git/config` (and `config.worktree`, the common folder's, the submodules') in the
//! repositories it works in, so a plain `git status` in a prepared repository runs what it names.
//!
//! [`inspect`] reads those files (through no-follow, bounded, regular-file reads) for every folder
//! a line's git commands can work in — the line's folder, and the literal targets of `cd`,
//! `pushd`, `git -C`, `--git-dir`, `--work-tree` — and lists what they name. A command nobody was
//! asked about then runs with [`GitSettings::neutralising_env`]: command-scope settings
//! (`GIT_CONFIG_COUNT`/`KEY_n`/`VALUE_n`, which beat the repository's own) switch each named
//! program off (`core.fsmonitor=false`, `core.hooksPath=/dev/null`, textconv and filters `cat`,
//! the rest empty, which fails closed) and an empty alias for each git subcommand of the line.
//! The user's own configuration (`~/.gitconfig`: their name, their aliases) stays in force: a
//! command sees the real home, read-only, so nothing a repository runs can have changed it.
//!
//! When that cannot be complete, [`GitSettings::unknown`] says why and the line is asked about
//! (or refused): a folder known only at run time, a configuration that includes another file
//! (`include.path`) or that airlock cannot read (a link, too large, a syntax it does not read), a
//! line that clears the environment or writes into git's own files before git runs.

use std::path::{Path, PathBuf};

use super::git::{self, Key};
use super::{Line, Word};
use airlock_files as files;

/// Largest configuration file read.
const MAX_CONFIG: u64 = 1 << 20;
/// Most configuration files read for one line (submodules each have one).
const MAX_FILES: usize = 64;
/// Most settings switched off for one line.
const MAX_OVERRIDES: usize = 256;

/// What git's configuration makes it run, for one line.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct GitSettings {
    /// Each program-naming setting and hook found (`core.fsmonitor = touch x`, `hook pre-commit`),
    /// for the question.
    pub programs: Vec<String>,
    /// Why airlock cannot tell what git's configuration runs for this line.
    pub unknown: Option<String>,
    /// The settings that switch the found programs off.
    overrides: Vec<(String, String)>,
}

impl GitSettings {
    /// The variables a command nobody was asked about runs with: the settings every command gets
    /// (fsmonitor, hooks, the `ext::` transport) and those found for this line.
    pub fn neutralising_env(&self) -> Vec<(String, String)> {
        let always = [("core.fsmonitor", "false"), ("core.hooksPath", "/dev/null"), ("protocol.ext.allow", "never")];
        let all: Vec<(String, String)> =
            always.iter().map(|(k, v)| (k.to_string(), v.to_string())).chain(self.overrides.iter().cloned()).collect();
        let mut env = vec![("GIT_CONFIG_COUNT".to_string(), all.len().to_string())];
        for (index, (key, value)) in all.into_iter().enumerate() {
            env.push((format!("GIT_CONFIG_KEY_{index}"), key));
            env.push((format!("GIT_CONFIG_VALUE_{index}"), value));
        }
        env
    }

    fn unknown(&mut self, why: String) {
        self.unknown.get_or_insert(why);
    }
}

/// What git's configuration makes the git commands of `line`, run in `dir` (canonical), run.
pub fn inspect(line: &Line, dir: &Path) -> GitSettings {
    let mut settings = GitSettings::default();
    let gits: Vec<&super::Command> = line.commands.iter().filter(|c| c.base_name() == Some("git")).collect();
    if gits.is_empty() {
        return settings;
    }
    if let Some(clears) = line.clears_env.first() {
        settings.unknown(format!(
            "`{}` takes away the variables that keep git from running the repository's programs",
            cut(clears)
        ));
    }
    if let Some(word) = writes_git_files(line) {
        settings.unknown(format!("the line changes git's own files (`{}`) before git reads them", cut(&word)));
    }
    for git in &gits {
        let invocation = git::invocation(&git.words);
        if let Some(sub) = invocation.subcommand.and_then(|at| git.words[at].literal()) {
            // An alias never hides a git command, and an empty one stops: each subcommand of the
            // line gets one, whatever file could define it.
            settings.overrides.push((format!("alias.{sub}"), String::new()));
        }
    }
    let mut folders = vec![dir.to_path_buf()];
    let mut git_dirs = Vec::new();
    for command in &line.commands {
        let words = &command.words;
        // `cd DIR`, `pushd DIR` (not `cd -` or an option), `git -C DIR`, `--work-tree`, `--git-dir`.
        let targets: Vec<(Word, bool)> = match command.base_name() {
            Some("cd" | "pushd") => words
                .iter()
                .skip(1)
                .filter(|w| !w.literal().is_some_and(|w| w.starts_with('-')))
                .map(|w| (w.clone(), false))
                .collect(),
            Some("git") => git::invocation(words)
                .globals
                .into_iter()
                .filter(|(option, _, _)| matches!(option.as_str(), "-C" | "--work-tree" | "--git-dir"))
                .filter_map(|(option, value, _)| value.map(|v| (v, option == "--git-dir")))
                .collect(),
            _ => Vec::new(),
        };
        for (word, is_git_dir) in targets {
            let Some(target) = word.literal() else {
                settings.unknown(format!("`{}` works in a folder known only when it runs", cut(&command.text)));
                continue;
            };
            let bases = folders.clone();
            for base in bases {
                if let Ok(found) = base.join(target).canonicalize() {
                    if is_git_dir {
                        git_dirs.push(found)
                    } else if !folders.contains(&found) {
                        folders.push(found)
                    }
                }
            }
        }
    }
    let mut configs = Vec::new();
    for folder in &folders {
        match discover(folder) {
            Ok(Some(git_dir)) => git_dirs.push(git_dir),
            Ok(None) => {}
            Err(why) => settings.unknown(why),
        }
    }
    git_dirs.sort();
    git_dirs.dedup();
    for git_dir in &git_dirs {
        let common = common_dir(git_dir).unwrap_or_else(|why| {
            settings.unknown(why);
            git_dir.clone()
        });
        for dir in [git_dir, &common] {
            configs.push(dir.join("config"));
            configs.push(dir.join("config.worktree"));
        }
        submodule_configs(&common.join("modules"), &mut configs, 0);
        hooks(&common.join("hooks"), &mut settings.programs);
    }
    configs.sort();
    configs.dedup();
    if configs.len() > MAX_FILES {
        settings.unknown(format!("the repositories here have more than {MAX_FILES} configuration files"));
        configs.truncate(MAX_FILES);
    }
    for config in configs {
        match files::read_file(&config, MAX_CONFIG) {
            Ok(bytes) => scan(&String::from_utf8_lossy(&bytes), &config, &mut settings),
            Err(files::FileError::NotFound) => {}
            Err(error) => {
                settings.unknown(format!("git's configuration {} cannot be read here: {error}", config.display()))
            }
        }
    }
    settings.overrides.sort();
    settings.overrides.dedup();
    if settings.overrides.len() > MAX_OVERRIDES {
        settings.unknown(format!("the repositories here name more than {MAX_OVERRIDES} programs"));
        settings.overrides.truncate(MAX_OVERRIDES);
    }
    settings
}

/// A redirection target or an argument of a command other than git that names git's own files:
/// a `.git` folder, `.gitattributes`, `.gitmodules`, `.gitconfig`.
fn writes_git_files(line: &Line) -> Option<String> {
    let names = |word: &str| {
        std::path::Path::new(word)
            .components()
            .any(|c| matches!(c.as_os_str().to_str(), Some(".git" | ".gitattributes" | ".gitmodules" | ".gitconfig")))
    };
    let redirect = line.redirects.iter().filter(|r| r.writes).filter_map(|r| r.target.literal()).find(|t| names(t));
    let argument = line
        .commands
        .iter()
        .filter(|c| c.base_name() != Some("git"))
        .flat_map(|c| c.words.iter().skip(1).filter_map(Word::literal))
        .find(|w| names(w));
    redirect.or(argument).map(str::to_string)
}

/// The git folder git would use when started in `folder`, as git looks for it: `.git` (a folder,
/// or a file saying `gitdir: …`) here or in a parent, or the folder itself when it is one.
fn discover(folder: &Path) -> Result<Option<PathBuf>, String> {
    for at in folder.ancestors() {
        let Ok(handle) = files::open_dir(at) else { continue };
        match handle.stat_entry(".git".as_ref()) {
            Ok(stat) => {
                let kind = rustix::fs::FileType::from_raw_mode(stat.st_mode);
                return match kind {
                    rustix::fs::FileType::Directory => Ok(Some(at.join(".git"))),
                    rustix::fs::FileType::RegularFile => gitfile(at).map(Some),
                    _ => Err(format!(
                        "{} is a link or a special file, which airlock does not follow",
                        at.join(".git").display()
                    )),
                };
            }
            Err(files::FileError::NotFound) => {}
            Err(error) => return Err(format!("{} cannot be read: {error}", at.join(".git").display())),
        }
        let is = |name: &str, dir: bool| {
            handle.stat_entry(name.as_ref()).is_ok_and(|s| {
                let kind = rustix::fs::FileType::from_raw_mode(s.st_mode);
                if dir { kind == rustix::fs::FileType::Directory } else { kind == rustix::fs::FileType::RegularFile }
            })
        };
        if is("HEAD", false) && is("objects", true) && is("refs", true) {
            return Ok(Some(at.to_path_buf()));
        }
    }
    Ok(None)
}

/// The folder a `.git` file in `at` points to (`gitdir: ../.git/worktrees/x`).
fn gitfile(at: &Path) -> Result<PathBuf, String> {
    let path = at.join(".git");
    let text = files::read_file(&path, 4096).map_err(|e| format!("{} cannot be read: {e}", path.display()))?;
    let text = String::from_utf8_lossy(&text);
    let target = text
        .trim()
        .strip_prefix("gitdir:")
        .map(str::trim)
        .ok_or_else(|| format!("{} is not a `gitdir:` file", path.display()))?;
    at.join(target)
        .canonicalize()
        .map_err(|e| format!("{} points to a folder that cannot be used: {e}", path.display()))
}

/// The common folder of a worktree's git folder (its `commondir` file), or the folder itself.
fn common_dir(git_dir: &Path) -> Result<PathBuf, String> {
    match files::read_file(&git_dir.join("commondir"), 4096) {
        Ok(text) => {
            let target = String::from_utf8_lossy(&text).trim().to_string();
            git_dir
                .join(target)
                .canonicalize()
                .map_err(|e| format!("{}'s commondir cannot be used: {e}", git_dir.display()))
        }
        Err(files::FileError::NotFound) => Ok(git_dir.to_path_buf()),
        Err(error) => Err(format!("{}/commondir cannot be read: {error}", git_dir.display())),
    }
}

/// The configuration files of the submodules' git folders below `modules`.
fn submodule_configs(modules: &Path, configs: &mut Vec<PathBuf>, depth: usize) {
    if depth > 8 || configs.len() > MAX_FILES {
        return;
    }
    let Ok(handle) = files::open_dir(modules) else { return };
    let Ok(names) = handle.entries() else { return };
    for name in names {
        let path = modules.join(&name);
        configs.push(path.join("config"));
        submodule_configs(&path.join("modules"), configs, depth + 1);
        submodule_configs(&path, configs, depth + 1);
    }
}

/// The hooks git would run from `folder` (every file but the samples).
fn hooks(folder: &Path, programs: &mut Vec<String>) {
    let Ok(handle) = files::open_dir(folder) else { return };
    let Ok(mut names) = handle.entries() else { return };
    names.sort();
    for name in names.iter().filter_map(|n| n.to_str()).filter(|n| !n.ends_with(".sample")).take(10) {
        programs.push(format!("hook {name} ({})", folder.display()));
    }
}

/// Reads one configuration file: every setting that names a program is listed and switched off.
fn scan(text: &str, file: &Path, settings: &mut GitSettings) {
    let mut section: Option<String> = None;
    let mut lines = text.split('\n');
    while let Some(raw) = lines.next() {
        let mut rest = raw.trim_start().to_string();
        while rest.starts_with('[') {
            match header(&rest) {
                Some((name, after)) => {
                    section = Some(name);
                    rest = after.trim_start().to_string();
                }
                None => {
                    settings.unknown(format!("{} has a section header airlock cannot read", file.display()));
                    return;
                }
            }
        }
        if rest.is_empty() || rest.starts_with(['#', ';']) {
            continue;
        }
        let name_end = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '-')).unwrap_or(rest.len());
        let (name, after) = rest.split_at(name_end);
        let after = after.trim_start();
        let Some(section) = section.as_deref().filter(|_| !name.is_empty()) else {
            settings.unknown(format!("{} has a line airlock cannot read", file.display()));
            return;
        };
        let mut value = match after.strip_prefix('=') {
            Some(value) => value.to_string(),
            None if after.is_empty() || after.starts_with(['#', ';']) => String::new(),
            None => {
                settings.unknown(format!("{} has a line airlock cannot read", file.display()));
                return;
            }
        };
        // A value continues on the next line after a backslash.
        while value.trim_end().ends_with('\\') && !value.trim_end().ends_with("\\\\") {
            value = value.trim_end().trim_end_matches('\\').to_string();
            value.push_str(lines.next().unwrap_or_default());
        }
        let key = format!("{section}.{name}");
        let value = unquote(&value);
        match git::program_key(&key) {
            Some(Key::Runs) if !git::is_boolean(&value) || key.to_ascii_lowercase().starts_with("alias.") => {
                settings.programs.push(format!("{key} = {}", cut(&value)));
                settings.overrides.extend(neutral(&key));
            }
            Some(Key::Unread(why)) => settings.unknown(format!("{} sets `{key}`, which {why}", file.display())),
            _ => {}
        }
    }
}

/// `[section]`, `[section "subsection"]` or `[section.subsection]`: the key prefix
/// (`diff.evil`) and the rest of the line.
fn header(line: &str) -> Option<(String, &str)> {
    let inner = line.strip_prefix('[')?;
    let name_end = inner.find(|c: char| !(c.is_ascii_alphanumeric() || c == '-' || c == '.'))?;
    let name = &inner[..name_end];
    let after = inner[name_end..].trim_start();
    if let Some(after) = after.strip_prefix(']') {
        return (!name.is_empty()).then(|| (name.to_string(), after));
    }
    let quoted = after.strip_prefix('"')?;
    let mut sub = String::new();
    let mut chars = quoted.char_indices();
    while let Some((at, c)) = chars.next() {
        match c {
            '\\' => sub.push(chars.next()?.1),
            '"' => {
                let rest = quoted[at + 1..].trim_start().strip_prefix(']')?;
                return Some((format!("{name}.{sub}"), rest));
            }
            '\n' => return None,
            _ => sub.push(c),
        }
    }
    None
}

/// A value without its quotes, escapes and trailing comment.
fn unquote(raw: &str) -> String {
    let mut out = String::new();
    let mut quoted = false;
    let mut chars = raw.trim().chars();
    while let Some(c) = chars.next() {
        match c {
            '"' => quoted = !quoted,
            '\\' => match chars.next() {
                Some('n') => out.push('\n'),
                Some('t') => out.push('\t'),
                Some(other) => out.push(other),
                None => {}
            },
            '#' | ';' if !quoted => break,
            _ => out.push(c),
        }
    }
    out.trim().to_string()
}

/// The settings that switch off the program `key` names: a harmless program where git needs one
/// (`cat` for textconv and filters, `:` for editors), else an empty value, which fails closed.
fn neutral(key: &str) -> Vec<(String, String)> {
    let lower = key.to_ascii_lowercase();
    let (section, name) = (lower.split('.').next().unwrap_or(""), lower.rsplit('.').next().unwrap_or(""));
    let value = match (section, name) {
        ("core", "pager") => "cat",
        ("pager", _) => "false",
        ("core" | "sequence", "editor") => ":",
        ("core", "sshcommand") => "ssh",
        ("diff", "textconv") | ("filter", "clean" | "smudge") => "cat",
        ("submodule", "update") => "checkout",
        ("remote", "uploadpack") => "git-upload-pack",
        ("remote", "receivepack") => "git-receive-pack",
        _ => "",
    };
    let mut settings = vec![(key.to_string(), value.to_string())];
    if section == "filter"
        && let Some(driver) = key.rsplit_once('.').map(|(driver, _)| driver)
    {
        settings.push((format!("{driver}.required"), "false".to_string()));
    }
    settings
}

/// At most 80 characters of a text, for messages.
fn cut(text: &str) -> String {
    super::walk::preview(text)
}
