//! Command lines read the way bash reads them, so that every command a line can run is checked on its own
//! against grants and rules (`ls && rm -rf x` is `ls` and `rm -rf x`).
//!
//! This module owns the reading, not the decision: [`parse`] lists every simple command a line can run,
//! flattened in source order, every file redirection, and every place where bash decides only at run
//! time what the line runs ([`Line::uncertain`]); callers judge them. [`effects`] knows which
//! arguments make a command write or run more than its name says, [`risk`] how much a command can
//! harm, and [`repo`] which programs a repository's git configuration names.
//!
//! Invariants:
//! - Every command bash would run is listed: those joined by `|`, `&&`, `||`, `;`, `&` and newlines; those
//!   inside subshells, groups, control structures, function bodies, command and process substitutions
//!   (anywhere: words, strings, redirect targets, assignments, subscripts, arithmetic, expanding heredocs);
//!   the scripts of `bash -c`, `sh -c`, `eval`, `watch`, `su -c`, parsed again; and the commands that
//!   wrappers run (`sudo rm x` lists `sudo rm x` and `rm x`, see `wrappers.rs` for the list).
//! - A word is [`Word::Literal`] only when its value is certain before the line runs; anything that
//!   expands (variables, substitutions, globs, braces, `~`) is [`Word::Dynamic`]. So is a literal that
//!   contains `$(`, `${` or a backtick, because builtins such as `printf -v` and `[[ -eq ]]` evaluate
//!   such text again (the scripts given to `bash -c` and `eval` excepted: they are parsed here).
//! - A variable assignment on its own (`PATH=/tmp; git status`) is listed as a command with no words and
//!   `assignments = true`: it changes what later commands do.
//! - What bash evaluates again at run time is never taken for plain text: a line with such a part
//!   (`${!ref}`, `${x@P}`, arithmetic on a variable, an array subscript given to `printf -v`,
//!   `read`, `declare`, `unset`, `[ -v ]`; `mapfile -C`, `hash -p`, `source`, a script or a program
//!   known only at run time, a variable that makes bash or git run code) is read, and the reason
//!   is kept in [`Line::uncertain`]: the caller asks a person about it, or refuses it.
//! - Each command carries the writing redirections that apply to it ([`Command::writes`]), those
//!   of the statements around it included, so a prefix that allows `git status` does not cover
//!   `git status > victim`.
//! - When the reading itself is uncertain the line is refused ([`ShellError`]) rather than guessed: syntax
//!   errors; input over 64 KiB; NUL bytes or carriage returns; nesting deeper than 64; reserved words
//!   where a command name is expected; backslash-newline inside a token; adjacent or malformed
//!   backticks; `$(` or a backtick tree-sitter did not read as a substitution; text evaluated as
//!   arithmetic (`[[ … -eq … ]]`, `(( ))`) that contains a substitution; wrappers with options whose
//!   arity is unknown.
//!
//! This crate uses `airlock-files` alone (for [`repo`]); the engine's policy and runtime
//! use it.

#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod effects;
mod evaluated;
pub mod git;
pub mod matching;
pub mod repo;
pub mod risk;
mod walk;
mod words;
mod wrappers;

/// One word of a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Word {
    /// Known before the line runs: its text after quote removal.
    Literal(String),
    /// Known only when the line runs (a variable, a substitution, a glob): its source text.
    Dynamic(String),
}

impl Word {
    /// The literal value, if the word is known before the line runs.
    pub fn literal(&self) -> Option<&str> {
        match self {
            Word::Literal(text) => Some(text),
            Word::Dynamic(_) => None,
        }
    }

    /// The word as a person reads it: a literal quoted where needed, a dynamic word as written.
    pub fn display(&self) -> String {
        match self {
            Word::Literal(text) => quote(text),
            Word::Dynamic(text) => text.clone(),
        }
    }
}

/// One simple command of a line, after wrappers (`sudo`, `env`, `timeout` …) were seen through.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Command {
    pub words: Vec<Word>,
    /// `NAME=value` before the command (or given to `env`/`sudo`), or an assignment on its own.
    pub assignments: bool,
    /// Its source text.
    pub text: String,
    /// The redirections that write a file for it (`> out.txt`, also those of a group or loop
    /// around it), as written.
    pub writes: Vec<String>,
}

/// A redirection to or from a file (not `2>&1`, heredocs or herestrings).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Redirect {
    pub target: Word,
    /// Whether it writes (`>`, `>>`, `>|`, `&>`, `&>>`, `<>`, `>&file`) rather than reads.
    pub writes: bool,
    pub text: String,
}

/// Everything a line runs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Line {
    pub commands: Vec<Command>,
    pub redirects: Vec<Redirect>,
    /// Why bash decides only when the line runs what some part of it runs, one reason per
    /// construct (`` `${!ref}` names a variable only when it runs ``); empty when every command
    /// is named.
    pub uncertain: Vec<String>,
    /// The variables the line sets, by name (`X=1`, `read X`, `for X in`, `export X`, `env X=1`).
    pub sets: Vec<String>,
    /// Commands that take variables away from what they run (`env -i`, `env -u X`, `exec -c`,
    /// `export -n X`), as written.
    pub clears_env: Vec<String>,
}

/// Why a line cannot be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct ShellError(pub String);

/// Longest line read, in bytes.
pub const MAX_LINE: usize = 64 * 1024;

/// Deepest nesting read (substitutions, subshells, groups, control structures, scripts of `bash -c`).
pub const MAX_DEPTH: usize = 64;

/// Parses a command line into every command it can run and every file it redirects.
pub fn parse(line: &str) -> Result<Line, ShellError> {
    let mut out = Line::default();
    walk::parse_into(line, 0, &mut out)?;
    Ok(out)
}

impl Command {
    /// The program, when it is known before the line runs.
    pub fn program(&self) -> Option<&str> {
        self.words.first().and_then(Word::literal)
    }

    /// The program's file name (`/bin/rm` → `rm`).
    pub fn base_name(&self) -> Option<&str> {
        self.program().map(base_name)
    }

    /// Whether every word is known before the line runs.
    pub fn is_literal(&self) -> bool {
        self.words.iter().all(|word| matches!(word, Word::Literal(_)))
    }

    /// The words joined with shell quoting where needed.
    pub fn display(&self) -> String {
        self.words.iter().map(Word::display).collect::<Vec<_>>().join(" ")
    }

    /// Whether a granted or ruled prefix (`git status`) covers the whole command: the command is fully
    /// literal, sets no variables, writes no file through a redirection, has no argument that makes
    /// it write or run more than its name says ([`Command::beyond_its_name`]), and starts with the
    /// prefix's words, word by word. `*` covers nothing here (approved lines are the caller's
    /// business), nor does an empty prefix.
    pub fn covered_by(&self, prefix: &str) -> bool {
        let wanted: Vec<&str> = prefix.split_whitespace().collect();
        if wanted.is_empty() || wanted == ["*"] || self.assignments || !self.is_literal() {
            return false;
        }
        let starts = wanted.len() <= self.words.len()
            && wanted.iter().zip(&self.words).all(|(w, word)| word.literal() == Some(*w));
        starts && self.beyond_its_name().is_none()
    }

    /// Why no prefix covers this command even when its words match: a redirection that writes, or
    /// an argument its program treats as writing a file or running a program (`find -delete`,
    /// `sed -n 'w x'`, `git log --output`). `None` when it does only what its name says.
    pub fn beyond_its_name(&self) -> Option<String> {
        if let Some(write) = self.writes.first() {
            return Some(format!("`{write}` writes a file"));
        }
        effects::beyond_its_name(self)
    }

    /// The rule prefix "always allow" saves for this command: the program, and its literal
    /// subcommand for programs that have them (`git status`, `cargo test`).
    pub fn rule_prefix(&self) -> Option<String> {
        let program = self.program()?;
        let subcommand = self.words.get(1).and_then(Word::literal).filter(|word| !word.starts_with('-'));
        match subcommand {
            Some(sub) if effects::has_subcommands(base_name(program)) => Some(format!("{program} {sub}")),
            _ => Some(program.to_string()),
        }
    }
}

impl Line {
    /// The program of the first command, as a person reads it.
    pub fn root_command(&self) -> Option<String> {
        self.commands.first().and_then(Command::program).map(str::to_string)
    }

    /// Why airlock cannot name every command of the line, when it cannot: its reasons joined.
    pub fn uncertainty(&self) -> Option<String> {
        const SHOWN: usize = 3;
        let (first, rest) = (self.uncertain.iter().take(SHOWN), self.uncertain.len().saturating_sub(SHOWN));
        let mut joined = first.cloned().collect::<Vec<_>>().join("; ");
        if rest > 0 {
            joined.push_str(&format!("; and {rest} more"));
        }
        (!joined.is_empty()).then_some(joined)
    }

    /// Records why a part of the line is decided only when it runs (each reason once).
    pub(crate) fn note_uncertain(&mut self, reason: String) {
        if !self.uncertain.contains(&reason) {
            self.uncertain.push(reason);
        }
    }
}

/// The last path component of a program (`/usr/bin/env` → `env`).
pub(crate) fn base_name(program: &str) -> &str {
    program.rsplit('/').next().unwrap_or(program)
}

/// Quotes a word for a POSIX shell, only when needed: `ls` stays `ls`, `a b` becomes `'a b'`, and a
/// single quote inside becomes `'\''`.
pub fn quote(word: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_./=:,+@%^".contains(c);
    if !word.is_empty() && word.chars().all(plain) {
        return word.to_string();
    }
    format!("'{}'", word.replace('\'', r"'\''"))
}

#[cfg(test)]
#[path = "lib_tests.rs"]
mod tests;
