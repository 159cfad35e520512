//! How a rule's or a grant's command prefix meets a parsed command, where the two differ:
//! a prefix that *allows* must cover the command written out whole
//! ([`super::Command::covered_by`]); a prefix that *denies* (or asks) matches the program by
//! its file name (`/bin/rm` is `rm`) and counts a word known only at run time as a match, so
//! such a rule errs on stopping. And where a line's redirections write.

use std::path::{Path, PathBuf};

use super::{Command, Line, Redirect, Word, base_name};

/// Whether the deny prefix `prefix` (`rm`, `git push`) covers `command`.
pub fn denied_by(prefix: &str, command: &Command) -> bool {
    let mut wanted = prefix.split_whitespace();
    let Some(program) = wanted.next() else { return false };
    if command.base_name() != Some(base_name(program)) {
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

/// Whether writing `target` writes no file: a device every program may write, or a descriptor.
pub fn is_device(target: &str) -> bool {
    DEVICES.contains(&target) || target.starts_with("/dev/fd/")
}

/// Whether a write to `target` (relative to `dir`) lands inside one of `writable`: resolved
/// as the kernel will (links followed as far as the path exists), so a link cannot lead the
/// write out unseen. Devices every program writes are always fine.
pub fn writes_inside(dir: &Path, target: &str, writable: &[PathBuf]) -> bool {
    if is_device(target) {
        return true;
    }
    let full = airlock_files::canonical_lenient(&dir.join(target));
    writable.iter().any(|folder| full.starts_with(folder))
}

/// The first redirection of `line`, run in `dir`, that writes outside `writable` — or to a
/// file known only when the line runs, which cannot be checked.
pub fn write_outside<'a>(line: &'a Line, dir: &Path, writable: &[PathBuf]) -> Option<&'a Redirect> {
    line.redirects.iter().filter(|redirect| redirect.writes).find(|redirect| match &redirect.target {
        Word::Literal(target) => !writes_inside(dir, target, writable),
        Word::Dynamic(_) => true,
    })
}
