//! Programs that run another command or a script, seen through so each command is checked on its own.
//!
//! A wrapper is listed itself and its inner command after it (`sudo rm x` → `sudo rm x`, `rm x`), so a rule
//! on either sees its own. Wrappers are recognised by their file name (`/usr/bin/env` is `env`):
//! - run their operands as a command: `sudo`, `doas`, `pkexec`, `env`, `nice`, `nohup`, `timeout`,
//!   `stdbuf`, `ionice`, `chrt`, `taskset`, `prlimit`, `setarch` and its architecture names (`linux64`,
//!   `i386`, …), `setpriv`, `unshare`, `nsenter`, `chroot`, `runcon`, `numactl`, `cgexec`, `firejail`,
//!   `systemd-run`, `bwrap`, `choom`, `uclampset`, `enosys`, `pipesz`, `setpgid`, `fakeroot`, `strace`,
//!   `valgrind`, `catchsegv`, `eatmydata`, `nocache`, `chronic`, `ifne`, `unbuffer`, `proxychains`,
//!   `torsocks`, `dbus-run-session`, `ssh-agent`, `setsid`, `exec`, `command`, `builtin`, `time`,
//!   `coproc`, `busybox`, `toybox`, `flock FILE cmd`, `watch -x`, `entr`, `git bisect run`, `xargs`
//!   (its inner command gets a dynamic last word: its arguments come from input),
//!   `find -exec/-execdir/-ok/-okdir … ;` (`{}` is dynamic; `-fprint*`/`-fls` files are write redirects);
//! - run a script, parsed again when it is literal: `bash|sh|dash|zsh|ksh|mksh|ash -c`, `eval`, `trap`,
//!   `su|runuser -c`, `sg`, `script -c`, `capsh --`, `flock FILE -c`, `watch` (its operands joined, run
//!   by `sh -c`), `entr -s`, `pee`, and what git runs ([`super::git`]). A script known only at run
//!   time makes the line uncertain.
//!
//! Options are read with each program's own option table ([`table`]); an option not in the table could
//! take an argument and hide the command, so it is refused. Programs that run code in other ways
//! (`python -c`, `ssh host cmd`, `make`, `awk`'s `system()`) are not seen through; `parallel` builds its
//! commands from its input, so a line with it is uncertain.

mod table;

use super::evaluated;
use super::git;
use super::walk::{parse_into, preview};
use super::words::risky;
use super::{Command, Line, MAX_DEPTH, Redirect, ShellError, Word, base_name};

/// A word and where it starts and ends in the source.
pub(super) type Span = (Word, std::ops::Range<usize>);

/// What a command runs besides itself.
pub(super) enum Runs {
    /// The words in `at..end` are a command: `assignments` when the wrapper set variables for it,
    /// `incomplete` when more arguments come at run time, and words containing `placeholder` are replaced
    /// at run time (`find -exec rm {} ;`).
    Command { at: usize, end: usize, assignments: bool, incomplete: bool, placeholder: Option<String> },
    /// A script: `at` is its word's index when it is a whole word of the command.
    Script { at: Option<usize>, script: Word },
    /// The words from this index, joined with spaces, are a script.
    Joined(usize),
    /// This shell gets the words from `at` as its own arguments (`capsh -- -c 'cmd'`).
    Shell { program: String, at: usize },
}

impl Runs {
    /// The command made of the words from `at`.
    pub(super) fn from(at: usize, all: usize) -> Self {
        Runs::Command { at, end: all, assignments: false, incomplete: false, placeholder: None }
    }

    /// The script in word `at`.
    pub(super) fn script_at(words: &[Word], at: usize) -> Option<Self> {
        words.get(at).map(|script| Runs::Script { at: Some(at), script: script.clone() })
    }
}

/// An option table in getopt's terms; every program here stops reading options at its first operand.
#[derive(Default)]
pub(super) struct Options {
    pub flags: &'static str,
    pub with_arg: &'static str,
    /// Short options whose argument, if any, is attached (`xargs -i{}`).
    pub optional: &'static str,
    pub long_flags: &'static [&'static str],
    pub long_with_arg: &'static [&'static str],
    /// Long options whose argument, if any, is attached (`--mount=FILE`).
    pub long_optional: &'static [&'static str],
    /// Long options that take the next two words (`bwrap --bind SRC DEST`).
    pub long_two: &'static [&'static str],
    /// Long options that take the next three words.
    pub long_three: &'static [&'static str],
    /// Every `--name` or `--name=value` is an option that never takes the next word.
    pub any_long: bool,
}

/// Options read, and the index of the first operand.
pub(super) struct Read {
    /// Each option, its value, and the value's word index when it is a word of its own.
    pub seen: Vec<(String, Option<Word>, Option<usize>)>,
    pub operand: usize,
}

impl Read {
    fn has(&self, names: &[&str]) -> bool {
        self.seen.iter().any(|(name, _, _)| names.contains(&name.as_str()))
    }
}

/// Lists the command made of `spans` (and everything it runs) into `out`; `writes` are the
/// redirections that write for it.
pub(super) fn expand(
    spans: Vec<Span>,
    assignments: bool,
    text: &str,
    src: &str,
    depth: usize,
    writes: &[String],
    out: &mut Line,
) -> Result<(), ShellError> {
    if depth > MAX_DEPTH {
        return Err(ShellError(format!("the command line nests deeper than {MAX_DEPTH} levels")));
    }
    let words: Vec<Word> = spans.iter().map(|(w, _)| w.clone()).collect();
    let runs = runs(&words, src, &spans, text, out)?;
    // The scripts parsed again below are read here; they keep their `$(`.
    let scripts: Vec<usize> = runs
        .iter()
        .flat_map(|r| match r {
            Runs::Script { at: Some(at), .. } => *at..*at + 1,
            Runs::Joined(at) => *at..words.len(),
            _ => 0..0,
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
    let command = Command { words: listed, assignments, text: text.to_string(), writes: writes.to_vec() };
    evaluated::command(&command, out);
    out.commands.push(command);
    for run in runs {
        match run {
            Runs::Script { script, .. } => parse_script(&script, depth, writes, out)?,
            Runs::Joined(at) => {
                let parts = words.get(at..).unwrap_or_default();
                let joined: Option<Vec<&str>> = parts.iter().map(Word::literal).collect();
                match joined {
                    Some(parts) if parts.is_empty() => {}
                    Some(parts) => parse_script(&Word::Literal(parts.join(" ")), depth, writes, out)?,
                    None => parse_script(&Word::Dynamic(text.to_string()), depth, writes, out)?,
                }
            }
            Runs::Shell { program, at } => {
                let anchor = spans.get(at).map_or(src.len()..src.len(), |(_, range)| range.start..range.start);
                let mut inner: Vec<Span> = vec![(Word::Literal(program), anchor)];
                inner.extend(spans.get(at..).unwrap_or_default().iter().cloned());
                expand(inner, assignments, text, src, depth + 1, writes, out)?;
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
                expand(inner, assignments || set, &text, src, depth + 1, writes, out)?;
            }
        }
    }
    Ok(())
}

/// Parses a script a command runs, its commands writing where the command writes; a script known
/// only at run time makes the line uncertain.
fn parse_script(script: &Word, depth: usize, writes: &[String], out: &mut Line) -> Result<(), ShellError> {
    match script {
        Word::Literal(script) => {
            let first = out.commands.len();
            parse_into(script, depth + 1, out)?;
            for command in out.commands.iter_mut().skip(first) {
                command.writes.extend(writes.iter().cloned());
            }
        }
        Word::Dynamic(text) => {
            out.note_uncertain(format!("`{}` runs a script known only when it runs", preview(text)));
        }
    }
    Ok(())
}

/// What the command made of `words` runs besides itself, by its program's file name.
fn runs(words: &[Word], src: &str, spans: &[Span], text: &str, out: &mut Line) -> Result<Vec<Runs>, ShellError> {
    let Some(program) = words.first().and_then(Word::literal) else { return Ok(Vec::new()) };
    let name = base_name(program);
    let all = words.len();
    let command = |at: usize| Runs::from(at, all);
    let read = |options: Options| read_options(words, 1, &options, name);
    if let Some(spec) = table::spec(name) {
        return from_table(words, &spec, name, text, out);
    }
    let runs = match name {
        "bash" | "sh" | "dash" | "zsh" | "ksh" | "mksh" | "ash" => shell(words),
        "eval" => vec![Runs::Joined(if words.get(1).and_then(Word::literal) == Some("--") { 2 } else { 1 })],
        "trap" => {
            // `trap [--] ACTION SIGNAL…`; `trap -p`, `trap - SIGNAL` and `trap SIGNAL` set no action.
            let at = if words.get(1).and_then(Word::literal) == Some("--") { 2 } else { 1 };
            let action = words.get(at).is_some_and(|w| w.literal().is_none_or(|w| !w.starts_with('-')));
            if action && all > at + 1 { Runs::script_at(words, at).into_iter().collect() } else { Vec::new() }
        }
        "su" | "runuser" => {
            out.clears_env.push(text.to_string());
            su(words)
        }
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
            // sudo resets the environment of what it runs.
            out.clears_env.push(text.to_string());
            if options.has(&["e", "edit"]) { Vec::new() } else { after_assignments(words, options.operand, text, out) }
        }
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
            let mut cleared = false;
            while words.get(options.operand).and_then(Word::literal) == Some("-") {
                cleared = true;
                let more = read_options(words, options.operand + 1, &table, name)?;
                options.seen.extend(more.seen);
                options.operand = more.operand;
            }
            if options.has(&["S", "split-string"]) {
                return Err(refuse(program, "-S", "it splits one argument into a command"));
            }
            if cleared || options.has(&["i", "ignore-environment", "u", "unset"]) {
                out.clears_env.push(text.to_string());
            }
            after_assignments(words, options.operand, text, out)
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
        "runcon" => {
            let options = read(Options {
                flags: "c",
                with_arg: "utrl",
                long_flags: &["compute", "help", "version"],
                long_with_arg: &["user", "role", "type", "range"],
                ..Options::default()
            })?;
            // Without -u, -r, -t or -l, the first operand is the whole context.
            let context = options.seen.iter().all(|(o, _, _)| matches!(o.as_str(), "c" | "compute"));
            vec![command(options.operand + usize::from(context))]
        }
        "sg" => {
            // `sg [-] GROUP [[-c] COMMAND]`: the command is run by `/bin/sh -c`.
            let at = 1 + usize::from(words.get(1).and_then(Word::literal) == Some("-")) + 1;
            match words.get(at).and_then(Word::literal) {
                Some("-c") => Runs::script_at(words, at + 1).into_iter().collect(),
                _ if at < all => vec![Runs::Joined(at)],
                _ => Vec::new(),
            }
        }
        "capsh" => capsh(words, program)?,
        "entr" => {
            let options = read(Options { flags: "acdnprsz", ..Options::default() })?;
            if options.has(&["s"]) {
                Runs::script_at(words, options.operand).into_iter().collect()
            } else {
                vec![command(options.operand)]
            }
        }
        "pee" => (1..all).filter_map(|at| Runs::script_at(words, at)).collect(),
        "parallel" | "sem" => {
            out.note_uncertain(format!("`{}` builds the commands it runs from its input", preview(text)));
            Vec::new()
        }
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
                Some("-c" | "--command") => Runs::script_at(words, after_file + 1).into_iter().collect(),
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
            vec![if options.has(&["x", "exec"]) { command(options.operand) } else { Runs::Joined(options.operand) }]
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
                ..Options::default()
            })?;
            // `-I R`, `-i[R]` and `--replace[=R]` put each input item where R stands (`{}` by default).
            let placeholder = options.seen.iter().find_map(|(o, value, _)| match (o.as_str(), value) {
                ("I", value) => Some(value.as_ref().and_then(Word::literal).unwrap_or("").to_string()),
                ("i" | "replace", value) => Some(value.as_ref().and_then(Word::literal).unwrap_or("{}").to_string()),
                _ => None,
            });
            vec![Runs::Command { at: options.operand, end: all, assignments: false, incomplete: true, placeholder }]
        }
        "find" => find(words, spans, src, out),
        "git" => git::runs(words, text, out),
        _ => Vec::new(),
    };
    Ok(runs)
}

/// A wrapper read with its [`table::Spec`].
fn from_table(
    words: &[Word],
    spec: &table::Spec,
    name: &str,
    text: &str,
    out: &mut Line,
) -> Result<Vec<Runs>, ShellError> {
    let mut at = 1;
    // `setarch ARCH [options] [cmd]` (but `setarch --list`).
    if spec.leading_first && words.get(1).is_some_and(|w| w.literal().is_none_or(|w| !w.starts_with('-'))) {
        at += spec.leading;
    }
    let options = read_options(words, at, &spec.options, name)?;
    if spec.clears_env.contains(&"*") || options.has(spec.clears_env) {
        out.clears_env.push(text.to_string());
    }
    let mut runs: Vec<Runs> = options
        .seen
        .iter()
        .filter(|(option, _, _)| spec.script.contains(&option.as_str()))
        .filter_map(|(_, value, at)| value.clone().map(|script| Runs::Script { at: *at, script }))
        .collect();
    if options.has(spec.no_command) || spec.no_operand_command {
        return Ok(runs);
    }
    let mut operand = options.operand + if spec.leading_first { 0 } else { spec.leading };
    let number = |w: &str| !w.is_empty() && w.bytes().all(|b| b.is_ascii_digit());
    if spec.optional_number && words.get(operand).and_then(Word::literal).is_some_and(number) {
        operand += 1;
    }
    runs.push(Runs::from(operand, words.len()));
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
    if script { Runs::script_at(words, at).into_iter().collect() } else { Vec::new() }
}

/// `su [options] [-] [user]` runs `-c SCRIPT` (or `--command`, `--session-command`) with the user's shell.
fn su(words: &[Word]) -> Vec<Runs> {
    let mut runs = Vec::new();
    for (at, word) in words.iter().enumerate().skip(1) {
        match word.literal() {
            Some("-c" | "--command" | "--session-command") => runs.extend(Runs::script_at(words, at + 1)),
            Some(w) if w.starts_with("--command=") || w.starts_with("--session-command=") => {
                let script = w.split_once('=').map_or("", |(_, s)| s);
                runs.push(Runs::Script { at: Some(at), script: Word::Literal(script.to_string()) });
            }
            _ => {}
        }
    }
    runs
}

/// `capsh [--option[=value]…] -- ARGS`: after `--` (or `-+`) the arguments go to a shell, `/bin/bash`
/// unless `--shell=` names another; without it capsh runs nothing.
fn capsh(words: &[Word], program: &str) -> Result<Vec<Runs>, ShellError> {
    let mut shell = "/bin/bash".to_string();
    for (at, word) in words.iter().enumerate().skip(1) {
        match word.literal() {
            Some("--" | "-+") => return Ok(vec![Runs::Shell { program: shell, at: at + 1 }]),
            Some(w) if w.starts_with("--shell=") => shell = w["--shell=".len()..].to_string(),
            Some(w) if w.starts_with("--") => {}
            Some(w) => return Err(refuse(program, w, "airlock reads only its `--name=value` options")),
            None => return Err(refuse(program, &word.display(), "it is known only when the line runs")),
        }
    }
    Ok(Vec::new())
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
fn after_assignments(words: &[Word], mut at: usize, text: &str, out: &mut Line) -> Vec<Runs> {
    let mut assignments = false;
    while let Some(word) = words.get(at).and_then(Word::literal).filter(|w| is_assignment(w)) {
        evaluated::sets(word.split_once('=').map_or(word, |(name, _)| name), text, out);
        assignments = true;
        at += 1;
    }
    vec![Runs::Command { at, end: words.len(), assignments, incomplete: false, placeholder: None }]
}

/// `env` and `sudo` take every operand holding `=` before the command for a variable, whatever
/// its name (`env 'BASH_FUNC_ls%%=() { … }' bash` sets a function bash imports).
fn is_assignment(word: &str) -> bool {
    word.find('=').is_some_and(|at| at > 0)
}

fn is_old_niceness(word: &str) -> bool {
    let digits = word.strip_prefix("--").or_else(|| word.strip_prefix('-')).unwrap_or("");
    !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit())
}

/// Reads options from `at` until the first operand, `--`, or a word known only at run time.
pub(super) fn read_options(
    words: &[Word],
    mut at: usize,
    options: &Options,
    program: &str,
) -> Result<Read, ShellError> {
    let unknown = |word: &str| refuse(program, word, "airlock does not know whether it takes an argument");
    let mut seen = Vec::new();
    while let Some(word) = words.get(at).and_then(Word::literal) {
        if word == "--" {
            at += 1;
            break;
        }
        if let Some(long) = word.strip_prefix("--") {
            let (name, attached) = long.split_once('=').map_or((long, None), |(n, v)| (n, Some(v)));
            let attached_word = attached.map(|v| Word::Literal(v.to_string()));
            let takes = if options.long_with_arg.contains(&name) {
                1
            } else if options.long_two.contains(&name) {
                2
            } else if options.long_three.contains(&name) {
                3
            } else if options.long_flags.contains(&name) || options.long_optional.contains(&name) || options.any_long {
                0
            } else {
                return Err(unknown(word));
            };
            match (takes, attached_word) {
                (0, value) => seen.push((name.to_string(), value, None)),
                (1, Some(value)) => seen.push((name.to_string(), Some(value), None)),
                (n, attached) => {
                    // With `--name=v`, the first value is attached and the rest follow.
                    let follow = n - usize::from(attached.is_some());
                    let value = attached.or_else(|| words.get(at + 1).cloned());
                    let index = if follow > 0 { Some(at + 1) } else { None };
                    seen.push((name.to_string(), value, index));
                    at += follow;
                }
            }
        } else if let Some(cluster) = word.strip_prefix('-').filter(|c| !c.is_empty()) {
            for (offset, flag) in cluster.char_indices() {
                let rest = &cluster[offset + flag.len_utf8()..];
                if options.with_arg.contains(flag) {
                    if rest.is_empty() {
                        at += 1;
                        seen.push((flag.to_string(), words.get(at).cloned(), Some(at)));
                    } else {
                        seen.push((flag.to_string(), Some(Word::Literal(rest.to_string())), None));
                    }
                    break;
                }
                if options.optional.contains(flag) {
                    let value = Some(Word::Literal(rest.to_string())).filter(|_| !rest.is_empty());
                    seen.push((flag.to_string(), value, None));
                    break;
                }
                if !options.flags.contains(flag) {
                    return Err(unknown(word));
                }
                seen.push((flag.to_string(), None, None));
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
