//! The Landlock domain of a sandboxed program: which files it may read, run and write, and
//! whether it may use TCP, signal or reach abstract sockets outside its own domain.
//!
//! Invariants: everything not granted here is denied (all file-system rights are handled);
//! writes are granted only beneath the spec's `read_write` folders, and never the right to
//! make device nodes; no rule covers a hidden path ([`Spec::hidden`]): Landlock grants a
//! whole tree, so a folder that holds one is granted entry by entry instead, leaving the
//! hidden one (and links, which lead wherever their target's own rules say) out; `/etc` is
//! an allowlist of what programs need to start, look up users and names, and verify TLS, so
//! `shadow`, `ssh/` host keys, `ssl/private` and the like stay unreadable; `/proc` is
//! readable, but Landlock's ptrace rule keeps other domains' `environ`, `mem` and fds out
//! of reach.

use landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, LandlockStatus, Ruleset, RulesetAttr,
    RulesetCreatedAttr, RulesetError, RulesetStatus, Scope, path_beneath_rules,
};

use std::path::{Path, PathBuf};

use super::{Network, Spec};

/// The newest ABI this crate knows; `CompatLevel::BestEffort` drops what the kernel lacks.
const TARGET_ABI: ABI = ABI::V10;

/// Where the system keeps programs and their libraries: read and execute.
const SYSTEM_FOLDERS: &[&str] =
    &["/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt", "/nix/store", "/etc/alternatives"];

/// Entries of `/etc` that the dynamic loader, shells, git, python, cargo and TLS clients read.
/// Symbolic links are followed when the rule is made, so the rule lands on their target.
const ETC_ENTRIES: &[&str] = &[
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "passwd",
    "group",
    "nsswitch.conf",
    "host.conf",
    "hosts",
    "hostname",
    "resolv.conf",
    "gai.conf",
    "services",
    "protocols",
    "networks",
    "localtime",
    "timezone",
    "locale.alias",
    "locale.conf",
    "ssl/certs",
    "ssl/openssl.cnf",
    "ca-certificates",
    "ca-certificates.conf",
    "pki/tls/certs",
    "pki/ca-trust",
    "pki/tls/openssl.cnf",
    "crypto-policies",
    "gitconfig",
    "gitattributes",
    "bash.bashrc",
    "bashrc",
    "profile",
    "profile.d",
    "inputrc",
    "terminfo",
    "shells",
    "mime.types",
    "magic",
    "magic.mime",
    "os-release",
    "lsb-release",
    "debian_version",
    "mtab",
    "perl",
    "pip.conf",
    "npmrc",
    "python3",
    "vimrc",
    "vim",
    "nanorc",
    "maven",
    "mavenrc",
];

/// Kernel-provided information a program reads about the machine (CPU count, cgroup limits).
const SYSTEM_INFO: &[&str] = &["/proc", "/sys/devices/system/cpu", "/sys/fs/cgroup"];

/// Devices a program may read; `/dev/null` may also be written.
const READABLE_DEVICES: &[&str] = &["/dev/zero", "/dev/urandom", "/dev/random", "/dev/full"];

/// The kernel's Landlock ABI, or `None` without Landlock. `landlock` only reports it after a
/// restriction, so a short-lived thread restricts itself (Landlock and `no_new_privs` are
/// per thread) with an empty ruleset and reports what the kernel said.
pub(super) fn probe_abi() -> Option<i32> {
    let probe = std::thread::Builder::new().name("landlock-probe".into()).spawn(|| {
        let status = Ruleset::default()
            .set_compatibility(CompatLevel::BestEffort)
            .handle_access(AccessFs::Execute)
            .and_then(|ruleset| ruleset.create())
            .and_then(|ruleset| ruleset.restrict_self())
            .ok()?;
        match status.landlock {
            LandlockStatus::Available { effective_abi, kernel_abi } => Some(kernel_abi.unwrap_or(effective_abi as i32)),
            _ => None,
        }
    });
    probe.ok()?.join().ok().flatten()
}

/// Restricts this thread, and so the program it `exec`s, to what `spec` allows.
pub(super) fn restrict(spec: &Spec) -> Result<(), String> {
    let status = ruleset(spec).and_then(|ruleset| ruleset.restrict_self()).map_err(|error| error.to_string())?;
    let available = matches!(status.landlock, LandlockStatus::Available { .. });
    if available && status.ruleset == RulesetStatus::NotEnforced {
        return Err("the kernel has Landlock but enforced none of the rules".into());
    }
    Ok(())
}

fn ruleset(spec: &Spec) -> Result<landlock::RulesetCreated, RulesetError> {
    let all = AccessFs::from_all(TARGET_ABI);
    let read = AccessFs::from_read(TARGET_ABI);
    let devices: BitFlags<AccessFs> = AccessFs::MakeChar | AccessFs::MakeBlock;
    let mut ruleset = Ruleset::default().set_compatibility(CompatLevel::BestEffort).handle_access(all)?;
    if spec.network_mode() == Network::None {
        // Handled with no rule: every TCP bind and connect is denied.
        ruleset = ruleset.handle_access(AccessNet::from_all(TARGET_ABI))?;
    }
    let etc: Vec<PathBuf> =
        ETC_ENTRIES.iter().map(|entry| Path::new("/etc").join(entry)).chain(versioned_etc()).collect();
    let system: Vec<PathBuf> = SYSTEM_FOLDERS.iter().map(PathBuf::from).collect();
    let hidden = &spec.hidden;
    let read_only = Beneath::except(&spec.read_only, hidden);
    let read_write = Beneath::except(&spec.read_write, hidden);
    let writable_devices = [PathBuf::from("/dev/null")];
    // The view's own /dev/shm, not the machine's.
    let private_shm: &[PathBuf] = if spec.view { &[PathBuf::from("/dev/shm")] } else { &[] };
    let mut created = ruleset
        .scope(Scope::from_all(TARGET_ABI))?
        .create()?
        .add_rules(path_beneath_rules(Beneath::except(&system, hidden).covered, read))?
        .add_rules(path_beneath_rules(Beneath::except(&etc, hidden).covered, AccessFs::ReadFile | AccessFs::ReadDir))?
        .add_rules(path_beneath_rules(&read_only.covered, read))?
        .add_rules(path_beneath_rules(SYSTEM_INFO, AccessFs::ReadFile | AccessFs::ReadDir))?
        .add_rules(path_beneath_rules(READABLE_DEVICES, AccessFs::ReadFile))?
        .add_rules(path_beneath_rules(
            &writable_devices,
            AccessFs::ReadFile | AccessFs::WriteFile | AccessFs::Truncate,
        ))?
        .add_rules(path_beneath_rules(&read_write.covered, all & !devices))?
        .add_rules(path_beneath_rules(private_shm, all & !devices))?;
    if spec.view {
        // Listing a folder granted entry by entry; in the view its hidden folders are empty
        // and unreadable and its hidden files are /dev/null, so a listing shows names only.
        let listed: Vec<&PathBuf> = read_only.expanded.iter().chain(&read_write.expanded).collect();
        created = created.add_rules(path_beneath_rules(listed, AccessFs::ReadDir))?;
    }
    Ok(created)
}

/// Folders whose names carry a version: `/etc/python3.N` (Debian's `sitecustomize.py`) and
/// `/etc/java-N-openjdk` (where the JDK's `conf` links lead).
fn versioned_etc() -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir("/etc") else { return Vec::new() };
    entries
        .filter_map(Result::ok)
        .filter_map(|entry| entry.file_name().into_string().ok())
        .filter(|name| name.starts_with("python3.") || name.starts_with("java-"))
        .map(|name| Path::new("/etc").join(name))
        .collect()
}

/// What to grant so that everything beneath some roots is covered but the hidden paths.
#[derive(Debug, Default, PartialEq, Eq)]
pub(super) struct Beneath {
    /// Paths whose whole tree may be granted.
    pub covered: Vec<PathBuf>,
    /// Folders granted entry by entry because a hidden path lies below them.
    pub expanded: Vec<PathBuf>,
}

impl Beneath {
    /// `roots` minus `hidden` (both canonical): a root inside a hidden path is dropped, one
    /// holding a hidden path is replaced by its entries (recursively, down to the hidden
    /// path's level), links among those entries are left out.
    pub(super) fn except(roots: &[PathBuf], hidden: &[PathBuf]) -> Self {
        let mut out = Self::default();
        for root in roots {
            out.add(root, hidden, 0);
        }
        out
    }

    fn add(&mut self, root: &Path, hidden: &[PathBuf], depth: usize) {
        if hidden.iter().any(|h| root.starts_with(h)) || depth > MAX_EXPANSION_DEPTH {
            return;
        }
        if !hidden.iter().any(|h| h.starts_with(root)) {
            self.covered.push(root.to_path_buf());
            return;
        }
        self.expanded.push(root.to_path_buf());
        let Ok(entries) = std::fs::read_dir(root) else { return };
        for entry in entries.filter_map(Result::ok) {
            if entry.file_type().is_ok_and(|kind| !kind.is_symlink()) {
                self.add(&entry.path(), hidden, depth + 1);
            }
        }
    }
}

/// How deep a granted folder is split around a hidden path; what lies deeper is granted
/// nothing (32 levels is far below any real secret).
const MAX_EXPANSION_DEPTH: usize = 32;

/// Whether the rules every program gets (the system's folders, the `/etc` allowlist, the
/// kernel's information, the readable devices) let it read `path`.
pub(super) fn readable_by_the_system_rules(path: &Path) -> bool {
    SYSTEM_FOLDERS.iter().chain(SYSTEM_INFO).chain(READABLE_DEVICES).any(|root| path.starts_with(root))
        || ETC_ENTRIES.iter().any(|entry| path.starts_with(Path::new("/etc").join(entry)))
        || versioned_etc().iter().any(|folder| path.starts_with(folder))
}
