//! Programs that run another command or a script, seen through so each command is checked on its own.
//!
//! A wrapper is listed itself and its inner command after it (`sudo rm x` → `sudo rm x`, `rm x`), so a rule
//! on either sees its own. Wrappers are recognised by their file name (`/usr/bin/env` is `env`):
//! - run their operands as a command: `sudo`, `doas`, `env`, `nice`, `nohup`, `timeout`, `stdbuf`,
//!   `ionice`, `setsid`, `exec`, `command`, `builtin`, `time`, `coproc`, `busybox`, `flock FILE cmd`,
//!   `watch -x`, `xargs` (its inner command gets a dynamic last word: its arguments come from input),
//!   `find -exec/-execdir/-ok/-okdir … ;` (`{}` is dynamic; `-fprint*`/`-fls` files are write redirects);
//! - run a script, parsed again when it is literal: `bash|sh|dash|zsh|ksh|mksh|ash -c`, `eval`, `trap`,
//!   `su|runuser -c`, `flock FILE -c`, `watch` (its operands joined, run by `sh -c`).
//!
//! Options are read with each program's own option table; an option not in the table could take an
//! argument and hide the command, so it is refused. Programs that run code in other ways (`python -c`,
//! `ssh host cmd`, `make`, `git` aliases, `awk`'s `system()`) are not seen through.

use super::walk::{parse_into, preview};
use super::words::risky;
use super::{Command, Line, MAX_DEPTH, Redirect, ShellError, Word, base_name};

/// A word and where it starts and ends in the source.
pub(super) type Span = (Word, std::ops::Range<usize>);

/// What a command runs besides itself.
enum Runs {
    /// The words in `at..end` are a command: `assignments` when the wrapper set variables for it,
    /// `incomplete` when more arguments come at run time, and words containing `placeholder` are replaced
    /// at run time (`find -exec rm {} ;`).
    Command { at: usize, end: usize, assignments: bool, incomplete: bool, placeholder: Option<String> },
    /// The word at this index is a script.
    Script(usize),
    /// The words from this index, joined with spaces, are a script.
    Joined(usize),
}

/// An option table in getopt's terms; every program here stops reading options at its first operand.
#[derive(Default)]
struct Options {
    flags: &'static str,
    with_arg: &'static str,
    /// Short options whose argument, if any, is attached (`xargs -i{}`).
    optional: &'static str,
    long_flags: &'static [&'static str],
    long_with_arg: &'static [&'static str],
}

/// Options read, and the index of the first operand.
struct Read {
    seen: Vec<(String, Option<Word>)>,
    operand: usize,
}

/// Lists the command made of `spans` (and everything it runs) into `out`.
pub(super) fn expand(
    spans: Vec<Span>,
    assignments: bool,
    text: &str,
    src: &str,
    depth: usize,
    out: &mut Line,
) -> Result<(), ShellError> {
    if depth > MAX_DEPTH {
        return Err(ShellError(format!("the command line nests deeper than {MAX_DEPTH} levels")));
    }
    let words: Vec<Word> = spans.iter().map(|(w, _)| w.clone()).collect();
    let runs = runs(&words, src, &spans, out)?;
    // The scripts parsed again below are read here; they keep their `$(`.
    let scripts: Vec<usize> = runs
        .iter()
        .flat_map(|r| match r {
            Runs::Script(at) => *at..*at + 1,
            Runs::Joined(at) => *at..words.len(),
            Runs::Command { .. } => 0..0,
        })
        .collect();
    let mut listed = words.clone();
    for (index, word) in listed.iter_mut().enumerate() {
        if let Word::Literal(value) = word
            && risky(value)
            && !scripts.contains(&index)
        {
            *word = Word::Dynamic(value.clone());
        }
    }
    out.commands.push(Command { words: listed, assignments, text: text.to_string() });
    for run in runs {
        match run {
            Runs::Script(at) => match words.get(at) {
                Some(Word::Literal(script)) => parse_into(script, depth + 1, out)?,
                Some(Word::Dynamic(_)) => unknown_script(spans.get(at..=at), src, out),
                None => {}
            },
            Runs::Joined(at) => {
                let parts: Option<Vec<&str>> = words.get(at..).unwrap_or_default().iter().map(Word::literal).collect();
                match parts {
                    Some(parts) if !parts.is_empty() => parse_into(&parts.join(" "), depth + 1, out)?,
                    Some(_) => {}
                    None => unknown_script(spans.get(at..), src, out),
                }
            }
            Runs::Command { at, end, assignments: set, incomplete, placeholder } => {
                let mut inner: Vec<Span> = spans.get(at..end).unwrap_or_default().to_vec();
                if let Some(placeholder) = placeholder {
                    // An empty placeholder stands for one known only at run time: it could be anywhere.
                    for (word, _) in &mut inner {
                        if let Word::Literal(value) = word
                            && (placeholder.is_empty() || value.contains(&placeholder))
                        {
                            *word = Word::Dynamic(value.clone());
                        }
                    }
                }
                let (Some(first), Some(last)) = (inner.first(), inner.last()) else { continue };
                let text = src.get(first.1.start..last.1.end).unwrap_or_default().to_string();
                if incomplete {
                    inner.push((Word::Dynamic("…".into()), last.1.end..last.1.end));
                }
                expand(inner, assignments || set, &text, src, depth + 1, out)?;
            }
        }
    }
    Ok(())
}

/// Lists a script known only when the line runs (`eval "rm x" *.rs`, `bash -c "$CMD"`) as a command
/// whose program nobody can name: a deny rule then refuses the line, and no prefix covers it.
fn unknown_script(spans: Option<&[Span]>, src: &str, out: &mut Line) {
    let Some((first, last)) = spans.and_then(|spans| spans.first().zip(spans.last())) else { return };
    let text = src.get(first.1.start..last.1.end).unwrap_or_default().to_string();
    out.commands.push(Command { words: vec![Word::Dynamic(text.clone())], assignments: false, text });
}

/// What the command made of `words` runs besides itself, by its program's file name.
fn runs(words: &[Word], src: &str, spans: &[Span], out: &mut Line) -> Result<Vec<Runs>, ShellError> {
    let Some(program) = words.first().and_then(Word::literal) else { return Ok(Vec::new()) };
    let name = base_name(program);
    let all = words.len();
    let command = |at: usize| Runs::Command { at, end: all, assignments: false, incomplete: false, placeholder: None };
    let read = |options: Options| read_options(words, 1, &options, name);
    let runs = match name {
        "bash" | "sh" | "dash" | "zsh" | "ksh" | "mksh" | "ash" => shell(words),
        "eval" => vec![Runs::Joined(if words.get(1).and_then(Word::literal) == Some("--") { 2 } else { 1 })],
        "trap" => {
            // `trap [--] ACTION SIGNAL…`; `trap -p`, `trap - SIGNAL` and `trap SIGNAL` set no action.
            let at = if words.get(1).and_then(Word::literal) == Some("--") { 2 } else { 1 };
            // An action known only at run time may be any script.
            let action = words.get(at).is_some_and(|w| w.literal().is_none_or(|w| !w.starts_with('-')));
            if action && all > at + 1 { vec![Runs::Script(at)] } else { Vec::new() }
        }
        "su" | "runuser" => su(words),
        "nohup" | "builtin" | "coproc" | "busybox" => vec![command(1)],
        "sudo" => {
            let options = read(Options {
                flags: "AbBEeHiKklNnPSsVv",
                with_arg: "CDghpRrTtUu",
                long_flags: &[
                    "askpass",
                    "background",
                    "bell",
                    "preserve-env",
                    "edit",
                    "set-home",
                    "login",
                    "remove-timestamp",
                    "reset-timestamp",
                    "list",
                    "non-interactive",
                    "preserve-groups",
                    "stdin",
                    "shell",
                    "validate",
                ],
                long_with_arg: &[
                    "close-from",
                    "chdir",
                    "group",
                    "host",
                    "prompt",
                    "chroot",
                    "role",
                    "type",
                    "command-timeout",
                    "other-user",
                    "user",
                ],
                ..Options::default()
            })?;
            let edits = options.seen.iter().any(|(o, _)| o == "e" || o == "edit");
            if edits { Vec::new() } else { after_assignments(words, options.operand) }
        }
        "doas" => vec![command(read(Options { flags: "nsL", with_arg: "uC", ..Options::default() })?.operand)],
        "env" => {
            // `-` alone is `-i`, and may come between options.
            let table = Options {
                flags: "i0v",
                with_arg: "uCS",
                long_flags: &[
                    "ignore-environment",
                    "null",
                    "debug",
                    "list-signal-handling",
                    "default-signal",
                    "ignore-signal",
                    "block-signal",
                ],
                long_with_arg: &["unset", "chdir", "split-string"],
                ..Options::default()
            };
            let mut options = read_options(words, 1, &table, name)?;
            while words.get(options.operand).and_then(Word::literal) == Some("-") {
                let more = read_options(words, options.operand + 1, &table, name)?;
                options.seen.extend(more.seen);
                options.operand = more.operand;
            }
            if options.seen.iter().any(|(o, _)| o == "S" || o == "split-string") {
                return Err(refuse(program, "-S", "it splits one argument into a command"));
            }
            after_assignments(words, options.operand)
        }
        "nice" => {
            // `nice -5 cmd` is the old spelling of `nice -n 5 cmd`.
            let skip = usize::from(words.get(1).and_then(Word::literal).is_some_and(is_old_niceness));
            let options = read_options(
                words,
                1 + skip,
                &Options { with_arg: "n", long_with_arg: &["adjustment"], ..Options::default() },
                name,
            )?;
            vec![command(options.operand)]
        }
        "timeout" => {
            let options = read(Options {
                flags: "v",
                with_arg: "ks",
                long_flags: &["preserve-status", "foreground", "verbose"],
                long_with_arg: &["kill-after", "signal"],
                ..Options::default()
            })?;
            vec![command(options.operand + 1)]
        }
        "stdbuf" => vec![command(
            read(Options { with_arg: "ioe", long_with_arg: &["input", "output", "error"], ..Options::default() })?
                .operand,
        )],
        "ionice" => {
            let options = read(Options {
                flags: "t",
                with_arg: "cnpPu",
                long_flags: &["ignore"],
                long_with_arg: &["class", "classdata", "pid", "pgid", "uid"],
                ..Options::default()
            })?;
            // With -p, -P or -u the operands are process ids, not a command.
            let ids = options.seen.iter().any(|(o, _)| matches!(o.as_str(), "p" | "P" | "u" | "pid" | "pgid" | "uid"));
            if ids { Vec::new() } else { vec![command(options.operand)] }
        }
        "setsid" => vec![command(
            read(Options { flags: "cfw", long_flags: &["ctty", "fork", "wait"], ..Options::default() })?.operand,
        )],
        "exec" => vec![command(read(Options { flags: "cl", with_arg: "a", ..Options::default() })?.operand)],
        "command" => vec![command(read(Options { flags: "pvV", ..Options::default() })?.operand)],
        "time" => vec![command(
            read(Options {
                flags: "pavq",
                with_arg: "of",
                long_flags: &["append", "verbose", "quiet", "portability"],
                long_with_arg: &["output", "format"],
                ..Options::default()
            })?
            .operand,
        )],
        "flock" => {
            let options = read(Options {
                flags: "sxeunoFh",
                with_arg: "wE",
                long_flags: &["shared", "exclusive", "unlock", "nonblock", "close", "no-fork", "verbose"],
                long_with_arg: &["wait", "timeout", "conflict-exit-code"],
                ..Options::default()
            })?;
            let after_file = options.operand + 1;
            match words.get(after_file).and_then(Word::literal) {
                Some("-c" | "--command") => vec![Runs::Script(after_file + 1)],
                _ => vec![command(after_file)],
            }
        }
        "watch" => {
            let options = read(Options {
                flags: "bcCdegprtwx",
                with_arg: "nq",
                long_flags: &[
                    "beep",
                    "color",
                    "no-color",
                    "differences",
                    "errexit",
                    "chgexit",
                    "precise",
                    "no-rerun",
                    "no-title",
                    "no-wrap",
                    "exec",
                ],
                long_with_arg: &["interval", "equexit"],
                ..Options::default()
            })?;
            let exec = options.seen.iter().any(|(o, _)| o == "x" || o == "exec");
            vec![if exec { command(options.operand) } else { Runs::Joined(options.operand) }]
        }
        "xargs" => {
            let options = read(Options {
                flags: "0oprtx",
                optional: "eil",
                with_arg: "adEILnPs",
                long_flags: &[
                    "null",
                    "open-tty",
                    "interactive",
                    "no-run-if-empty",
                    "verbose",
                    "exit",
                    "show-limits",
                    "max-lines",
                    "replace",
                    "eof",
                ],
                long_with_arg: &["arg-file", "delimiter", "max-args", "max-procs", "max-chars", "process-slot-var"],
            })?;
            // `-I R`, `-i[R]` and `--replace[=R]` put each input item where R stands (`{}` by default).
            let placeholder = options.seen.iter().find_map(|(o, value)| match (o.as_str(), value) {
                ("I", value) => Some(value.as_ref().and_then(Word::literal).unwrap_or("").to_string()),
                ("i" | "replace", value) => Some(value.as_ref().and_then(Word::literal).unwrap_or("{}").to_string()),
                _ => None,
            });
            vec![Runs::Command { at: options.operand, end: all, assignments: false, incomplete: true, placeholder }]
        }
        "find" => find(words, spans, src, out),
        _ => Vec::new(),
    };
    Ok(runs)
}

/// `bash [options] -c SCRIPT [name [args…]]`: the first operand after the options is the script.
fn shell(words: &[Word]) -> Vec<Runs> {
    let mut script = false;
    let mut at = 1;
    while let Some(word) = words.get(at).and_then(Word::literal) {
        match word {
            "--" | "-" => {
                at += 1;
                break;
            }
            "--rcfile" | "--init-file" => at += 1,
            _ if word.starts_with("--") => {}
            _ if (word.starts_with('-') || word.starts_with('+')) && word.len() > 1 => {
                script |= word.contains('c');
                // `-o name` and `-O name` take the next word.
                at += word[1..].chars().filter(|c| matches!(c, 'o' | 'O')).count();
            }
            _ => break,
        }
        at += 1;
    }
    if script { vec![Runs::Script(at)] } else { Vec::new() }
}

/// `su [options] [-] [user]` runs `-c SCRIPT` (or `--command`, `--session-command`) with the user's shell.
fn su(words: &[Word]) -> Vec<Runs> {
    let mut runs = Vec::new();
    for (at, word) in words.iter().enumerate().skip(1) {
        match word.literal() {
            Some("-c" | "--command" | "--session-command") => runs.push(Runs::Script(at + 1)),
            Some(w) if w.starts_with("--command=") || w.starts_with("--session-command=") => {
                runs.push(Runs::Script(at))
            }
            _ => {}
        }
    }
    runs
}

/// `find … -exec cmd … ;` (or `{} +`): each action runs a command; `-fprint FILE` and kin write a file.
fn find(words: &[Word], spans: &[Span], src: &str, out: &mut Line) -> Vec<Runs> {
    let mut runs = Vec::new();
    let mut at = 1;
    while at < words.len() {
        match words[at].literal() {
            Some("-exec" | "-execdir" | "-ok" | "-okdir") => {
                let start = at + 1;
                let mut end = start;
                while end < words.len() {
                    match words[end].literal() {
                        Some(";") => break,
                        Some("+") if end > start && words[end - 1].literal() == Some("{}") => break,
                        _ => end += 1,
                    }
                }
                let placeholder = Some("{}".to_string());
                runs.push(Runs::Command { at: start, end, assignments: false, incomplete: false, placeholder });
                at = end;
            }
            Some("-fprint" | "-fprint0" | "-fls" | "-fprintf") => {
                if let Some((target, range)) = spans.get(at + 1) {
                    let text = src.get(spans[at].1.start..range.end).unwrap_or_default().to_string();
                    out.redirects.push(Redirect { target: target.clone(), writes: true, text });
                }
                at += 1;
            }
            _ => {}
        }
        at += 1;
    }
    runs
}

/// After `env`'s or `sudo`'s options, `NAME=value` words set variables for the command that follows.
fn after_assignments(words: &[Word], mut at: usize) -> Vec<Runs> {
    let mut assignments = false;
    while words.get(at).and_then(Word::literal).is_some_and(is_assignment) {
        assignments = true;
        at += 1;
    }
    vec![Runs::Command { at, end: words.len(), assignments, incomplete: false, placeholder: None }]
}

fn is_assignment(word: &str) -> bool {
    word.split_once('=').is_some_and(|(name, _)| {
        !name.is_empty()
            && !name.starts_with(|c: char| c.is_ascii_digit())
            && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
    })
}

fn is_old_niceness(word: &str) -> bool {
    let digits = word.strip_prefix("--").or_else(|| word.strip_prefix('-')).unwrap_or("");
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// Reads options from `at` until the first operand, `--`, or a word known only at run time.
fn read_options(words: &[Word], mut at: usize, options: &Options, program: &str) -> Result<Read, ShellError> {
    let unknown = |word: &str| refuse(program, word, "airlock does not know whether it takes an argument");
    let mut seen = Vec::new();
    while let Some(word) = words.get(at).and_then(Word::literal) {
        if word == "--" {
            at += 1;
            break;
        }
        if let Some(long) = word.strip_prefix("--") {
            let (name, attached) = long.split_once('=').map_or((long, None), |(n, v)| (n, Some(v)));
            if options.long_with_arg.contains(&name) {
                let value = match attached {
                    Some(value) => Some(Word::Literal(value.to_string())),
                    None => {
                        at += 1;
                        words.get(at).cloned()
                    }
                };
                seen.push((name.to_string(), value));
            } else if options.long_flags.contains(&name) {
                seen.push((name.to_string(), attached.map(|v| Word::Literal(v.to_string()))));
            } else {
                return Err(unknown(word));
            }
        } else if let Some(cluster) = word.strip_prefix('-').filter(|c| !c.is_empty()) {
            for (offset, flag) in cluster.char_indices() {
                let rest = &cluster[offset + flag.len_utf8()..];
                if options.with_arg.contains(flag) {
                    let value = if rest.is_empty() {
                        at += 1;
                        words.get(at).cloned()
                    } else {
                        Some(Word::Literal(rest.to_string()))
                    };
                    seen.push((flag.to_string(), value));
                    break;
                }
                if options.optional.contains(flag) {
                    seen.push((flag.to_string(), Some(Word::Literal(rest.to_string())).filter(|_| !rest.is_empty())));
                    break;
                }
                if !options.flags.contains(flag) {
                    return Err(unknown(word));
                }
                seen.push((flag.to_string(), None));
            }
        } else {
            break;
        }
        at += 1;
    }
    Ok(Read { seen, operand: at })
}

fn refuse(program: &str, option: &str, why: &str) -> ShellError {
    ShellError(format!(
        "cannot tell which command `{}` runs: option `{}` is not understood ({why}); write the command without it",
        preview(program),
        preview(option)
    ))
}
