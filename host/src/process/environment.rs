//! The environment of a child: built from scratch, never inherited, so the host's own
//! variables (API keys) cannot reach it.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use super::SpawnFailure;

pub use crate::sandbox::SYSTEM_PATH;

/// The locale when the host's `LANG` is unset or not a plain locale name.
const DEFAULT_LANG: &str = "C.UTF-8";

/// Names the caller may not set: the ones that decide which programs and libraries load and
/// where the private folders are.
pub fn is_reserved(name: &str) -> bool {
    matches!(name, "PATH" | "HOME" | "TMPDIR") || name.starts_with("LD_") || name.starts_with("GLIBC_")
}

/// The folders of a child's private home and temp folder.
#[derive(Debug, Clone, Copy)]
pub(super) struct Private<'a> {
    pub home: &'a Path,
    pub tmp: &'a Path,
}

/// The complete environment: `PATH` (the system's folders, then `path_extra`), `HOME`,
/// `TMPDIR`, `LANG`, `TERM=dumb` (the output goes to a pipe, not a terminal), then the
/// caller's `extra` variables, which may replace `LANG` and `TERM` but nothing else of ours,
/// then the host's own `host` variables, which may also use reserved names.
pub(super) fn build(
    extra: &[(String, String)],
    host: &[(String, String)],
    path_extra: &[PathBuf],
    private: Private<'_>,
    host_lang: Option<&OsStr>,
) -> Result<Vec<(String, String)>, SpawnFailure> {
    let mut path = SYSTEM_PATH.to_owned();
    for folder in path_extra {
        let text = folder.to_str().filter(|text| folder.is_absolute() && !text.contains(':')).ok_or_else(|| {
            SpawnFailure(format!("cannot add {} to PATH: it must be an absolute path without ':'", folder.display()))
        })?;
        path.push(':');
        path.push_str(text);
    }
    let mut env = vec![
        ("PATH".to_owned(), path),
        ("HOME".to_owned(), utf8(private.home)?),
        ("TMPDIR".to_owned(), utf8(private.tmp)?),
        (
            "LANG".to_owned(),
            host_lang.and_then(OsStr::to_str).filter(|lang| is_plain_locale(lang)).unwrap_or(DEFAULT_LANG).to_owned(),
        ),
        ("TERM".to_owned(), "dumb".to_owned()),
    ];
    for (name, value) in extra {
        let valid_name = !name.is_empty() && !name.contains(['=', '\0']);
        if !valid_name || value.contains('\0') {
            return Err(SpawnFailure(format!("invalid environment variable {name:?}")));
        }
        if is_reserved(name) {
            return Err(SpawnFailure(format!("a command may not set {name}: airlock sets it")));
        }
        set(&mut env, name, value);
    }
    for (name, value) in host {
        if matches!(name.as_str(), "PATH" | "HOME" | "TMPDIR") || name.contains(['=', '\0']) || value.contains('\0') {
            return Err(SpawnFailure(format!("the host may not set {name:?} for a command")));
        }
        set(&mut env, name, value);
    }
    Ok(env)
}

fn set(env: &mut Vec<(String, String)>, name: &str, value: &str) {
    match env.iter_mut().find(|(ours, _)| ours == name) {
        Some((_, ours)) => value.clone_into(ours),
        None => env.push((name.to_owned(), value.to_owned())),
    }
}

fn utf8(path: &Path) -> Result<String, SpawnFailure> {
    path.to_str()
        .map(str::to_owned)
        .ok_or_else(|| SpawnFailure(format!("the temp folder {} is not valid UTF-8", path.display())))
}

/// `en_US.UTF-8`, `C`, `de_DE@euro`: letters, digits and `_.-@` only, so nothing odd (a
/// path, a control character) travels in through it.
fn is_plain_locale(lang: &str) -> bool {
    !lang.is_empty() && lang.len() <= 64 && lang.chars().all(|c| c.is_ascii_alphanumeric() || "_.-@".contains(c))
}
