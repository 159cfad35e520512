//! The one sanitiser for untrusted text shown to a person on a terminal lives in the protocol
//! crate (`airlock_protocol::shown`, whose module doc is the contract: [`line`], [`block`],
//! [`stream`], [`is_hidden`]); the host's callers reach it through this module. Whatever a
//! plugin, the model or a repository wrote (names, descriptions, errors, confirmations, paths,
//! load problems, `AIRLOCK.md`) passes through it before it reaches stdout or stderr as text.
//! JSON outputs (`-o json`, `-o stream-json`, `--json`) are data, not terminal text: JSON
//! escaping already covers control characters there, so they are not passed through here.
//!
//! What is the host's own here is quoting for a command printed for a person to paste:
//! [`shell_word`] returns one argument as is only when made of characters no POSIX shell
//! treats specially (`A-Za-z0-9` and `_-./:,=+@%`), else single-quoted with `'` written as
//! `'\''`; the shell then hands airlock exactly the original string as one argument.
//! [`grant_flag`] builds `--flag VALUE` for a suggested `airlock plugins grant` command, using
//! `--flag=VALUE` when the value starts with `-` so it can never be read as a flag.

pub use airlock_protocol::shown::{
    MAX_BLOCK_LINES, MAX_LINE_CHARS, block, block_bounded, is_hidden, line, line_bounded, stream,
};

/// One argument of a printed shell command, quoted when needed (see the module's contract).
pub fn shell_word(arg: &str) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_-./:,=+@%".contains(c);
    if !arg.is_empty() && arg.chars().all(plain) {
        return arg.to_string();
    }
    format!("'{}'", arg.replace('\'', r"'\''"))
}

/// `--flag VALUE` for a printed command, `VALUE` quoted; `--flag=VALUE` when the value
/// starts with `-`.
pub fn grant_flag(flag: &str, value: &str) -> String {
    let word = shell_word(value);
    if value.starts_with('-') { format!("{flag}={word}") } else { format!("{flag} {word}") }
}

#[cfg(test)]
#[path = "sanitize_tests.rs"]
mod tests;
