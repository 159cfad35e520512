//! A folder the user grants, as written in a policy file (`PATH`, `PATH:read`,
//! `PATH:read-write`) or built from `--read` / `--write`.
//!
//! Invariant: a parsed grant names a folder in one of the forms airlock resolves (`.`, a
//! workspace-relative path, `~`, `~/…`, or an absolute path), holds no `..`, no glob and no
//! control, bidi or invisible character, and its access is one of the two modes. Text that
//! cannot have been meant as a folder — a misspelt mode (`.:rw`, `src:write`, `.:rwx`), a
//! mode written first (`read-write:.`), an empty path — is refused with what to write
//! instead, never read as a folder of that literal name.

use std::path::{Component, Path};

use serde::Serialize;

use crate::contract::Access;

/// A folder the user grants.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FileGrant {
    /// As written: `.`, `src`, `~/notes`, or an absolute path.
    pub path: String,
    pub access: Access,
}

/// Words people write for an access mode, and the mode they mean.
const MODE_WORDS: &[(&str, &str)] = &[
    ("r", "read"),
    ("ro", "read"),
    ("read-only", "read"),
    ("readonly", "read"),
    ("read_only", "read"),
    ("w", "read-write"),
    ("rw", "read-write"),
    ("wr", "read-write"),
    ("rwx", "read-write"),
    ("write", "read-write"),
    ("readwrite", "read-write"),
    ("read_write", "read-write"),
    ("read+write", "read-write"),
];

/// The mode `word` was probably meant as, for a hint.
fn meant_mode(word: &str) -> Option<&'static str> {
    let lower = word.to_ascii_lowercase();
    if lower == "read" || lower == "read-write" {
        return Some(if lower == "read" { "read" } else { "read-write" });
    }
    MODE_WORDS.iter().find(|(w, _)| *w == lower).map(|(_, mode)| *mode)
}

/// The mode `word` means when it is a whole word for one (`rw`, `read-only`, not a lone
/// letter, which may well be a folder's name).
fn mode_word(word: &str) -> Option<&'static str> {
    if word.len() < 2 { None } else { meant_mode(word) }
}

impl FileGrant {
    /// Parses `PATH`, `PATH:read` or `PATH:read-write`; the error says what to write.
    pub fn parse(text: &str) -> Result<Self, String> {
        if let Some((first, rest)) = text.split_once(':')
            && let Some(meant) = mode_word(first)
            && !rest.is_empty()
            && mode_word(rest).is_none()
        {
            let rest = rest.rsplit_once(':').map_or(rest, |(path, _)| path);
            return Err(format!("file grant {text:?}: the mode goes after the path: write `{rest}:{meant}`"));
        }
        let (path, access) = match text.rsplit_once(':') {
            Some((path, "read")) => (path, Access::Read),
            Some((path, "read-write")) => (path, Access::ReadWrite),
            // A suffix with a `/` is part of a path (`/mnt/a:b/c`); anything else after the
            // last `:` was meant as a mode.
            Some((path, mode)) if !mode.contains('/') => {
                let path = if path.is_empty() { "PATH" } else { path };
                let hint = match meant_mode(mode) {
                    Some(meant) => format!("write `{path}:{meant}`"),
                    None => format!("write `{path}:read` or `{path}:read-write`"),
                };
                return Err(format!(
                    "file grant {text:?}: `{mode}` is not an access mode; {hint} (a folder whose name holds `:` \
                     must end with its mode, e.g. `a:b:read`)"
                ));
            }
            _ => (text, Access::Read),
        };
        if path.is_empty() {
            return Err(format!("file grant {text:?} has no path: write PATH, PATH:read or PATH:read-write"));
        }
        if path.chars().any(crate::sanitize::is_hidden) {
            return Err(format!("file grant {text:?}: a path may not hold control, bidi or invisible characters"));
        }
        if path != path.trim() {
            return Err(format!("file grant {text:?}: the path has spaces around it"));
        }
        if let Some(meant) = mode_word(path) {
            return Err(format!(
                "file grant {text:?} names no folder, only a mode: write PATH:{meant}, e.g. `.:{meant}`"
            ));
        }
        if path.contains('*') {
            return Err(format!("file grant {text:?}: a grant names a folder, not a glob"));
        }
        if path.starts_with('~') && path != "~" && !path.starts_with("~/") {
            return Err(format!("file grant {text:?}: only your own home can be named with `~`: write `~/…`"));
        }
        if Path::new(path).components().any(|c| c == Component::ParentDir) {
            return Err(format!("file grant {text:?} contains `..`: name the folder directly"));
        }
        Ok(Self { path: path.to_string(), access })
    }

    /// The grant as written in a policy file.
    pub fn to_text(&self) -> String {
        match self.access {
            Access::Read => format!("{}:read", self.path),
            Access::ReadWrite => format!("{}:read-write", self.path),
        }
    }
}

#[cfg(test)]
#[path = "file_grant_tests.rs"]
mod tests;
