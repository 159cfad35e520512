//! Command lines read the way bash reads them, so that every command a line can run is checked on its own
//! against grants and rules (`ls && rm -rf x` is `ls` and `rm -rf x`).
//!
//! This module owns the reading, not the decision: [`parse`] lists every simple command a line can run,
//! flattened in source order, and every file redirection; callers judge them.
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
//! - When the reading is uncertain the line is refused ([`ShellError`]) rather than guessed: syntax
//!   errors; input over 64 KiB; NUL bytes or carriage returns; nesting deeper than 64; reserved words
//!   where a command name is expected; backslash-newline inside a token; adjacent or malformed
//!   backticks; `$(` or a backtick tree-sitter did not read as a substitution; text evaluated as
//!   arithmetic (`[[ … -eq … ]]`, `(( ))`) that contains a substitution; wrappers with options whose
//!   arity is unknown.

pub mod matching;
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
    /// literal, sets no variables, and starts with the prefix's words, word by word. `*` covers nothing
    /// here (approved lines are the caller's business), nor does an empty prefix.
    pub fn covered_by(&self, prefix: &str) -> bool {
        let wanted: Vec<&str> = prefix.split_whitespace().collect();
        if wanted.is_empty() || wanted == ["*"] || self.assignments || !self.is_literal() {
            return false;
        }
        wanted.len() <= self.words.len() && wanted.iter().zip(&self.words).all(|(w, word)| word.literal() == Some(*w))
    }
}

impl Line {
    /// The program of the first command, as a person reads it.
    pub fn root_command(&self) -> Option<String> {
        self.commands.first().and_then(Command::program).map(str::to_string)
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
#[path = "mod_tests.rs"]
mod tests;
