//! git, as far as the gate needs it: its global options and its subcommand, the configuration
//! keys that name a program ([`program_key`]), and what its options and subcommands run —
//! `-c core.pager=…`, `-c alias.x='!…'`, `rebase --exec`, `submodule foreach`, `bisect run`,
//! `filter-branch --tree-filter`, `--upload-pack` — listed as scripts of their own, so a deny rule
//! sees them. git takes any unique prefix of a subcommand's long option (`--exe` is `--exec`), so
//! every prefix of one is read as it, ambiguous ones included.

use super::wrappers::Runs;
use super::{Line, Word};

/// What a configuration key's value means.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Key {
    /// A program or a command line git runs (`core.fsmonitor`, `diff.<driver>.textconv`).
    Runs,
    /// Something git follows to more code or configuration that airlock does not read
    /// (`core.hooksPath`, `include.path`); the reason.
    Unread(&'static str),
}

/// Whether the configuration key `key` (`core.pager`, `diff.evil.textconv`) names a program.
/// Section and key names are compared without case, as git does.
pub fn program_key(key: &str) -> Option<Key> {
    let (section, rest) = key.split_once('.')?;
    let section = section.to_ascii_lowercase();
    let (sub, name) = match rest.rsplit_once('.') {
        Some((sub, name)) => (Some(sub), name.to_ascii_lowercase()),
        None => (None, rest.to_ascii_lowercase()),
    };
    let runs = match (section.as_str(), sub, name.as_str()) {
        ("core", None, "pager" | "editor" | "sshcommand" | "askpass" | "fsmonitor" | "gitproxy")
        | ("core", None, "alternaterefscommand")
        | ("sequence", None, "editor")
        | ("diff", None, "external")
        | ("diff", Some(_), "textconv" | "command")
        | ("merge", Some(_), "driver")
        | ("filter", Some(_), "clean" | "smudge" | "process")
        | ("credential", _, "helper")
        | ("gpg", _, "program")
        | ("alias", None, _)
        | ("pager", None, _)
        | ("interactive", None, "difffilter")
        | ("mergetool" | "difftool" | "man" | "browser", Some(_), "cmd" | "path")
        | ("trailer", Some(_), "command" | "cmd")
        | ("sendemail", _, "tocmd" | "cccmd" | "headercmd" | "sendmailcmd" | "smtpserver")
        | ("submodule", Some(_), "update")
        | ("remote", Some(_), "uploadpack" | "receivepack")
        | ("uploadpack", None, "packobjectshook")
        | ("instaweb", None, "httpd") => Key::Runs,
        ("core", None, "hookspath") => Key::Unread("runs the hooks of the folder it names"),
        ("include", None, "path") | ("includeif", Some(_), "path") => {
            Key::Unread("reads more configuration from a file airlock does not read")
        }
        ("init", None, "templatedir") => Key::Unread("copies hooks from the folder it names"),
        ("protocol", _, "allow") => Key::Unread("allows transports that run commands"),
        _ => return None,
    };
    Some(runs)
}

/// A value git reads as a boolean (`core.fsmonitor = false`), which names no program.
pub fn is_boolean(value: &str) -> bool {
    matches!(value.to_ascii_lowercase().as_str(), "" | "true" | "false" | "yes" | "no" | "on" | "off" | "1" | "0")
}

/// git's global options as read (the option, its value, the value's word index when it is a word
/// of its own), and the index of the subcommand.
pub struct Invocation {
    pub globals: Vec<(String, Option<Word>, Option<usize>)>,
    pub subcommand: Option<usize>,
}

/// Reads git's global options (`git.c`'s `handle_options`: no abbreviations there).
pub fn invocation(words: &[Word]) -> Invocation {
    const WITH_VALUE: &[&str] =
        &["-C", "-c", "--git-dir", "--work-tree", "--namespace", "--super-prefix", "--config-env", "--attr-source"];
    let mut globals = Vec::new();
    let mut at = 1;
    while let Some(word) = words.get(at) {
        let Some(word) = word.literal() else { break };
        if !word.starts_with('-') {
            break;
        }
        if WITH_VALUE.contains(&word) {
            globals.push((word.to_string(), words.get(at + 1).cloned(), Some(at + 1)));
            at += 2;
            continue;
        }
        // `-cKEY=VALUE` and `-CDIR`: git refuses them, read as the split forms all the same.
        if (word.starts_with("-c") || word.starts_with("-C")) && !word.starts_with("--") && word.len() > 2 {
            globals.push((word[..2].to_string(), Some(Word::Literal(word[2..].to_string())), None));
        } else if let Some((name, value)) = word.split_once('=') {
            globals.push((name.to_string(), Some(Word::Literal(value.to_string())), None));
        } else {
            globals.push((word.to_string(), None, None));
        }
        at += 1;
    }
    Invocation { globals, subcommand: (at < words.len()).then_some(at) }
}

/// What a git command runs besides itself.
pub(super) fn runs(words: &[Word], text: &str, out: &mut Line) -> Vec<Runs> {
    let invocation = invocation(words);
    let mut runs = Vec::new();
    for (option, value, _) in &invocation.globals {
        match (option.as_str(), value) {
            ("-c", Some(Word::Literal(setting))) => {
                let (key, value) = setting.split_once('=').unwrap_or((setting, ""));
                match program_key(key) {
                    Some(Key::Runs) if !is_boolean(value) => {
                        let script = value.strip_prefix('!').unwrap_or(value);
                        runs.push(Runs::Script { at: None, script: Word::Literal(script.to_string()) });
                    }
                    Some(Key::Unread(why)) => out.note_uncertain(format!("`git -c {key}=…` {why}")),
                    _ => {}
                }
            }
            ("-c", _) => out.note_uncertain(format!("`{}` sets a git setting known only when it runs", preview(text))),
            ("--config-env", Some(value)) => {
                let key = value.literal().and_then(|v| v.split_once('=')).map_or("", |(key, _)| key);
                if key.is_empty() || program_key(key).is_some() {
                    out.note_uncertain(format!("`{}` takes a git setting from a variable", preview(text)));
                }
            }
            ("--exec-path", Some(_)) => {
                out.note_uncertain(format!("`{}` runs git's own programs from a folder it names", preview(text)))
            }
            _ => {}
        }
    }
    let Some(at) = invocation.subcommand else { return runs };
    let Some(subcommand) = words[at].literal() else {
        out.note_uncertain(format!("`{}` names its git subcommand only when it runs", preview(text)));
        return runs;
    };
    let args = at + 1..words.len();
    let script_options: &[&str] = match subcommand {
        "rebase" => &["--exec"],
        "filter-branch" => &[
            "--env-filter",
            "--tree-filter",
            "--index-filter",
            "--parent-filter",
            "--msg-filter",
            "--commit-filter",
            "--tag-name-filter",
        ],
        "difftool" => &["--extcmd"],
        "send-email" => &["--to-cmd", "--cc-cmd", "--header-cmd", "--sendmail-cmd"],
        "grep" => &["--open-files-in-pager"],
        "clone" | "fetch" | "pull" | "ls-remote" | "archive" | "push" | "remote" | "submodule" => {
            &["--upload-pack", "--receive-pack", "--exec"]
        }
        _ => &[],
    };
    let short: &[char] = match subcommand {
        "rebase" | "difftool" => &['x'],
        "grep" => &['O'],
        "clone" => &['u'],
        _ => &[],
    };
    let mut index = args.start;
    while index < args.end {
        let word = &words[index];
        let Some(literal) = word.literal() else {
            index += 1;
            continue;
        };
        if literal == "--" {
            break;
        }
        if let Some((full, attached)) =
            script_options.iter().find_map(|full| long_option(literal, full).map(|a| (full, a)))
        {
            match attached {
                Some(value) => runs.push(Runs::Script { at: None, script: Word::Literal(value.to_string()) }),
                // `grep --open-files-in-pager` alone uses the configured pager.
                None if *full == "--open-files-in-pager" => {}
                None => {
                    runs.extend(Runs::script_at(words, index + 1));
                    index += 1;
                }
            }
        } else if let Some(flag) =
            short.iter().find(|flag| literal.strip_prefix('-').is_some_and(|rest| rest.starts_with(**flag)))
        {
            let rest = &literal[1 + flag.len_utf8()..];
            if !rest.is_empty() {
                runs.push(Runs::Script { at: None, script: Word::Literal(rest.to_string()) });
            } else if *flag != 'O' {
                runs.extend(Runs::script_at(words, index + 1));
                index += 1;
            }
        }
        index += 1;
    }
    match subcommand {
        "submodule" => {
            let foreach = (args.start..args.end).find(|&i| words[i].literal() == Some("foreach"));
            if let Some(foreach) = foreach {
                let mut first = foreach + 1;
                while words.get(first).and_then(Word::literal).is_some_and(|w| w.starts_with("--")) {
                    first += 1;
                }
                runs.push(Runs::Joined(first));
            }
        }
        "bisect" if words.get(at + 1).and_then(Word::literal) == Some("run") => {
            runs.push(Runs::from(at + 2, words.len()));
        }
        "config" => config(words, at + 1, text, &mut runs, out),
        _ => {}
    }
    runs
}

/// `git config [--global…] KEY VALUE` (or `git config set KEY VALUE`): a program-naming key's value
/// is a script git runs later, listed like `-c`'s.
fn config(words: &[Word], from: usize, text: &str, runs: &mut Vec<Runs>, out: &mut Line) {
    const WITH_VALUE: &[&str] = &["-f", "--file", "--blob", "--type", "--default", "--comment", "--value"];
    let mut operands = Vec::new();
    let mut at = from;
    while let Some(word) = words.get(at) {
        match word.literal() {
            Some(option) if WITH_VALUE.contains(&option) => at += 1,
            Some(option) if option.starts_with('-') => {}
            _ => operands.push(word),
        }
        at += 1;
    }
    if operands.first().and_then(|w| w.literal()).is_some_and(|w| matches!(w, "set" | "add" | "replace-all")) {
        operands.remove(0);
    }
    let (Some(key), Some(value)) = (operands.first(), operands.get(1)) else { return };
    let Some(key) = key.literal() else {
        out.note_uncertain(format!("`{}` sets a git setting named only when it runs", preview(text)));
        return;
    };
    match (program_key(key), value) {
        (Some(Key::Runs), Word::Literal(value)) if !is_boolean(value) => {
            let script = value.strip_prefix('!').unwrap_or(value);
            runs.push(Runs::Script { at: None, script: Word::Literal(script.to_string()) });
        }
        (Some(Key::Runs), Word::Dynamic(_)) => {
            out.note_uncertain(format!("`{}` sets a program for git known only when it runs", preview(text)))
        }
        (Some(Key::Unread(why)), _) => out.note_uncertain(format!("`git config {key}` {why}")),
        _ => {}
    }
}

/// Whether `word` is the long option `full` or a prefix of it git accepts (`--exe` for `--exec`),
/// and its attached value.
pub fn long_option<'w>(word: &'w str, full: &str) -> Option<Option<&'w str>> {
    let (name, value) = word.split_once('=').map_or((word, None), |(n, v)| (n, Some(v)));
    (name.len() > 2 && name.starts_with("--") && full.starts_with(name)).then_some(value)
}

/// The start of a text, for messages.
fn preview(text: &str) -> String {
    super::walk::preview(text)
}
