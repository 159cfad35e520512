//! How a rule's or a grant's command prefix meets a parsed command, where the two differ:
//! a prefix that *allows* must cover the command written out whole
//! ([`super::Command::covered_by`]); a prefix that *denies* matches the program by its file
//! name (`/bin/rm` is `rm`) and counts a word known only at run time as a match, so a deny
//! rule errs on refusing.

use std::path::{Path, PathBuf};

use super::{Command, Word};

/// Whether the deny prefix `prefix` (`rm`, `git push`) covers `command`.
pub fn denied_by(prefix: &str, command: &Command) -> bool {
    let mut wanted = prefix.split_whitespace();
    let Some(program) = wanted.next() else { return false };
    let program = Path::new(program).file_name().and_then(|n| n.to_str()).unwrap_or(program);
    let base = match command.words.first() {
        Some(Word::Literal(first)) => Path::new(first).file_name().and_then(|n| n.to_str()).unwrap_or(first),
        _ => return false,
    };
    if base != program {
        return false;
    }
    let mut words = command.words.iter().skip(1);
    for want in wanted {
        match words.next() {
            Some(Word::Literal(word)) if word == want => {}
            Some(Word::Dynamic(_)) => return true,
            _ => return false,
        }
    }
    true
}

/// Files every program may write, wherever its folders are.
const DEVICES: &[&str] = &["/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty"];

/// Whether a write to `target` (relative to `dir`) lands inside one of `writable`: resolved
/// as the kernel will (links followed as far as the path exists), so a link cannot lead the
/// write out unseen. Devices every program writes are always fine.
pub fn writes_inside(dir: &Path, target: &str, writable: &[PathBuf]) -> bool {
    if DEVICES.contains(&target) || target.starts_with("/dev/fd/") {
        return true;
    }
    let full = crate::files::canonical_lenient(&dir.join(target));
    writable.iter().any(|folder| full.starts_with(folder))
}
