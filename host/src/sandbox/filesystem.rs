//! The Landlock domain of a sandboxed program: which files it may read, run and write, and
//! whether it may use TCP, signal or reach abstract sockets outside its own domain.
//!
//! Invariants: everything not granted here is denied (all file-system rights are handled);
//! writes are granted only beneath the spec's `read_write` folders, and never the right to
//! make device nodes; `/etc` is an allowlist of what programs need to start, look up users
//! and names, and verify TLS, so `shadow`, `ssh/` host keys, `ssl/private` and the like stay
//! unreadable; `/proc` is readable, but Landlock's ptrace rule keeps other domains'
//! `environ`, `mem` and fds out of reach.

use landlock::{
    ABI, Access, AccessFs, AccessNet, BitFlags, CompatLevel, Compatible, LandlockStatus, Ruleset, RulesetAttr,
    RulesetCreatedAttr, RulesetError, RulesetStatus, Scope, path_beneath_rules,
};

use super::Spec;

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
    if !spec.network {
        // Handled with no rule: every TCP bind and connect is denied.
        ruleset = ruleset.handle_access(AccessNet::from_all(TARGET_ABI))?;
    }
    let etc: Vec<String> = ETC_ENTRIES.iter().map(|entry| format!("/etc/{entry}")).chain(python_etc()).collect();
    ruleset
        .scope(Scope::from_all(TARGET_ABI))?
        .create()?
        .add_rules(path_beneath_rules(SYSTEM_FOLDERS, read))?
        .add_rules(path_beneath_rules(&etc, AccessFs::ReadFile | AccessFs::ReadDir))?
        .add_rules(path_beneath_rules(&spec.read_only, read))?
        .add_rules(path_beneath_rules(SYSTEM_INFO, AccessFs::ReadFile | AccessFs::ReadDir))?
        .add_rules(path_beneath_rules(READABLE_DEVICES, AccessFs::ReadFile))?
        .add_rules(path_beneath_rules(["/dev/null"], AccessFs::ReadFile | AccessFs::WriteFile | AccessFs::Truncate))?
        .add_rules(path_beneath_rules(&spec.read_write, all & !devices))
}

/// `/etc/python3.N` folders (Debian's `sitecustomize.py`), whose names depend on the version.
fn python_etc() -> Vec<String> {
    let Ok(entries) = std::fs::read_dir("/etc") else { return Vec::new() };
    entries
        .filter_map(Result::ok)
        .filter_map(|entry| entry.file_name().into_string().ok())
        .filter(|name| name.starts_with("python3."))
        .map(|name| format!("/etc/{name}"))
        .collect()
}
