//! Recognises a command's failure that the sandbox caused, from what it printed and how it
//! ended, so the person and the model learn in one line that the sandbox blocked it and
//! what would allow it.
//!
//! The kernel does not tell a program *why* it got `EACCES`, `EPERM`, `EROFS` or
//! `ENETUNREACH`, so this reads the program's own words (the messages of the C library,
//! Python, Node, Rust, Go, Java, git, curl and the package managers) and checks each path
//! they name against the rules the command ran under: a path the rules allowed is a real
//! permission problem, not the sandbox's; a path they did not allow is named with the kind
//! of access it lacked. Invariants: nothing is reported for a command that succeeded; at
//! most [`MAX_FINDINGS`] findings, the network one first; every path reported is one the
//! command's own output named.

use std::path::{Path, PathBuf};

use super::{Network, Spec};

/// Most findings reported for one command.
pub const MAX_FINDINGS: usize = 3;
/// Most bytes of a command's output looked at (its end).
pub const TAIL: usize = 64 * 1024;

/// What the sandbox blocked.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Blocked {
    /// The network (which the command's call did not have).
    Network,
    /// A secret: a path hidden from every command.
    Hidden(PathBuf),
    /// A local service on a Unix socket (never reachable from a command).
    LocalService(PathBuf),
    /// A folder outside what commands may read.
    Unreadable(PathBuf),
    /// A folder commands may not write (and may or may not read).
    ReadOnly(PathBuf),
}

impl Blocked {
    /// The one line, without the way to allow it (the caller knows the grant syntax).
    pub fn describe(&self) -> String {
        match self {
            Blocked::Network => "blocked by the sandbox: commands have no network (not even the machine's own \
                                 servers on localhost)"
                .into(),
            Blocked::Hidden(path) => {
                format!("blocked by the sandbox: {} is hidden from commands (it holds secrets)", path.display())
            }
            Blocked::LocalService(path) => format!(
                "blocked by the sandbox: commands cannot connect to local services ({} is a Unix socket)",
                path.display()
            ),
            Blocked::Unreadable(path) => {
                format!("blocked by the sandbox: commands may not read {}", path.display())
            }
            Blocked::ReadOnly(path) => {
                format!("blocked by the sandbox: commands may not write {}", path.display())
            }
        }
    }
}

/// Phrases of a refused file access, lower-cased.
const FILE_REFUSALS: &[&str] = &[
    "permission denied",
    "operation not permitted",
    "read-only file system",
    "eacces",
    "eperm",
    "erofs",
    "os error 13",
    "os error 1)",
    "os error 30",
    "accessdeniedexception",
];

/// Phrases that mark a write (as opposed to a read) in a refusal line.
const WRITE_WORDS: &[&str] = &[
    "read-only",
    "erofs",
    "os error 30",
    "cannot create",
    "can't create",
    "cannot touch",
    "mkdir",
    "cannot remove",
    "unlink",
    "rename",
    "for writing",
    "open for write",
    "cannot move",
    "chmod",
    "changing permissions",
    "changing ownership",
    "setting times",
    "utime",
    "mkstemp",
    "write",
];

/// Phrases of a refused network access, lower-cased.
const NETWORK_REFUSALS: &[&str] = &[
    "could not resolve host",
    "couldn't resolve host",
    "temporary failure in name resolution",
    "name or service not known",
    "network is unreachable",
    "enetunreach",
    "eai_again",
    "enotfound",
    "getaddrinfo",
    "failed to lookup address",
    "dns error",
    "no route to host",
    "connection refused",
    "econnrefused",
    "couldn't connect to server",
    "failed to connect to",
    "could not connect",
    "unable to access 'http",
    "spurious network error",
    "failed to download",
    "network unreachable",
    "nodename nor servname",
    "socket: operation not permitted",
];

/// What a command ran under, as the explanation needs it.
#[derive(Debug, Clone, Copy)]
pub struct Rules<'a> {
    pub spec: &'a Spec,
}

impl Rules<'_> {
    fn hidden(&self, path: &Path) -> Option<PathBuf> {
        self.spec.hidden.iter().find(|h| path.starts_with(h)).cloned()
    }

    fn writable(&self, path: &Path) -> bool {
        self.spec.read_write.iter().any(|w| path.starts_with(w))
            || ["/dev/null", "/dev/shm"].iter().any(|d| path.starts_with(d))
    }

    fn readable(&self, path: &Path) -> bool {
        self.writable(path)
            || self.spec.read_only.iter().any(|r| path.starts_with(r))
            || super::filesystem::readable_by_the_system_rules(path)
    }
}

/// The findings for a command that printed `output` and ended `succeeded` (or not).
pub fn blocked(output: &[u8], succeeded: bool, rules: Rules<'_>) -> Vec<Blocked> {
    if succeeded {
        return Vec::new();
    }
    let tail = &output[output.len().saturating_sub(TAIL)..];
    let text = String::from_utf8_lossy(tail);
    let mut found: Vec<Blocked> = Vec::new();
    let network_off = rules.spec.network_mode() != Network::Full;
    for line in text.lines() {
        let lower = line.to_ascii_lowercase();
        if network_off && NETWORK_REFUSALS.iter().any(|phrase| lower.contains(phrase)) {
            found.push(Blocked::Network);
        }
        if !FILE_REFUSALS.iter().any(|phrase| lower.contains(phrase)) {
            continue;
        }
        let writes = WRITE_WORDS.iter().any(|word| lower.contains(word));
        found.extend(paths_in(line, rules.spec).into_iter().filter_map(|path| classify(&path, writes, rules)));
    }
    found.sort();
    found.dedup();
    found.truncate(MAX_FINDINGS);
    found
}

/// What blocked an access to `path` (canonical as far as it exists), or `None` when the
/// rules allowed it.
fn classify(path: &Path, writes: bool, rules: Rules<'_>) -> Option<Blocked> {
    if let Some(hidden) = rules.hidden(path) {
        return Some(Blocked::Hidden(hidden));
    }
    let socket = std::fs::metadata(path).is_ok_and(|m| std::os::unix::fs::FileTypeExt::is_socket(&m.file_type()));
    if socket {
        return Some(Blocked::LocalService(path.to_path_buf()));
    }
    let folder = existing_folder(path);
    // A write needs the folder writable, whether or not it could be read: say that.
    if writes && !rules.writable(path) {
        return Some(Blocked::ReadOnly(folder));
    }
    (!rules.readable(path)).then_some(Blocked::Unreadable(folder))
}

/// `path` itself when it is a folder, else its nearest existing folder.
fn existing_folder(path: &Path) -> PathBuf {
    path.ancestors().find(|p| p.is_dir()).unwrap_or(Path::new("/")).to_path_buf()
}

/// The absolute paths (and `~/…` ones, read against the command's `HOME`) a line names,
/// made canonical as far as they exist.
fn paths_in(line: &str, spec: &Spec) -> Vec<PathBuf> {
    let home = spec.env.iter().rev().find(|(k, _)| k == "HOME").map(|(_, v)| PathBuf::from(v));
    let is_separator = |c: char| c.is_whitespace() || "'\"`,;()[]{}<>=".contains(c);
    line.split(is_separator)
        .map(|word| word.trim_end_matches([':', '.', '!', '?']))
        .filter_map(|word| match word.strip_prefix("~/") {
            Some(rest) => home.as_ref().map(|home| home.join(rest)),
            None => word.starts_with('/').then(|| PathBuf::from(word)),
        })
        .filter(|path| path.as_os_str().len() > 1)
        .map(|path| airlock_files::canonical_lenient(&path))
        .collect()
}

#[cfg(test)]
#[path = "explain_tests.rs"]
mod tests;
