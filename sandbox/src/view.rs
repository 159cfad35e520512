//! The read-only view of the system a sandboxed program runs in, built by the helper before
//! it starts the view's init ([`super::init`]).
//!
//! In order: new user, mount and PID namespaces (and a network namespace of its own without
//! the network); the user's own uid and gid mapped to themselves, so files keep their owners;
//! every mount made private, so nothing done here reaches the rest of the machine; a clone of
//! each writable folder taken while it is still writable; every mount of the system
//! remounted read-only (each keeping the flags the kernel locked); the clones attached back
//! over their folders; the hidden paths covered (a folder by an empty read-only tmpfs of mode
//! 000, anything else by `/dev/null`); a private `/dev/shm`; the loopback interface up.
//!
//! Invariants: every folder is reached through a descriptor opened without following any
//! link (`openat2` with `RESOLVE_NO_SYMLINKS`), and every mount lands on that descriptor
//! (`move_mount`), so a link swapped in after airlock checked a path cannot move a mount
//! elsewhere; a failure of any step fails the whole view (the program does not run).

use std::os::fd::OwnedFd;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use rustix::fs::{CWD, FileType, Mode, OFlags, ResolveFlags};
use rustix::io::Errno;
use rustix::mount::{
    FsMountFlags, FsOpenFlags, MountAttrFlags, MountFlags, MountPropagationFlags, MoveMountFlags, OpenTreeFlags,
};
use rustix::thread::{CapabilitySet, UnshareFlags};

use super::{Spec, mountinfo};

/// The size of the private `/dev/shm`.
const SHM_SIZE: &std::ffi::CStr = c"mode=1777,size=1073741824";
/// What the probe's program prints when it ran in a view.
const PROBE_MARK: &str = "airlock-sandbox-view";
/// How long the probe may take before it counts as failed.
const PROBE_LIMIT: Duration = Duration::from_secs(10);

/// Builds the view for `spec` around this (single-threaded) process.
pub(super) fn enter(spec: &Spec) -> Result<(), String> {
    let uid = rustix::process::getuid().as_raw();
    let gid = rustix::process::getgid().as_raw();
    let mut namespaces = UnshareFlags::NEWUSER | UnshareFlags::NEWNS | UnshareFlags::NEWPID;
    if !spec.network {
        namespaces |= UnshareFlags::NEWNET;
    }
    unshare(namespaces).map_err(|e| format!("cannot make the namespaces: {e}"))?;
    map_ids(uid, gid)?;
    keep_mount_rights_for_init().map_err(|e| format!("cannot keep the right to mount /proc: {e}"))?;
    rustix::mount::mount_change("/", MountPropagationFlags::PRIVATE | MountPropagationFlags::REC)
        .map_err(|e| format!("cannot make the mounts private: {e}"))?;
    let writable = spec
        .read_write
        .iter()
        .map(|folder| {
            let target = open_no_follow(folder)?;
            let flags =
                OpenTreeFlags::OPEN_TREE_CLONE | OpenTreeFlags::OPEN_TREE_CLOEXEC | OpenTreeFlags::AT_EMPTY_PATH;
            let clone = rustix::mount::open_tree(&target, "", flags)
                .map_err(|e| format!("cannot clone {}: {e}", folder.display()))?;
            Ok((folder, target, clone))
        })
        .collect::<Result<Vec<_>, String>>()?;
    read_only_everywhere()?;
    for (folder, target, clone) in writable {
        attach(&clone, &target).map_err(|e| format!("cannot make {} writable: {e}", folder.display()))?;
    }
    for path in &spec.hidden {
        hide(path).map_err(|e| format!("cannot hide {}: {e}", path.display()))?;
    }
    private_shm()?;
    if !spec.network {
        super::loopback::up()?;
    }
    Ok(())
}

/// `unshare(2)` for namespaces only.
#[allow(
    deprecated,
    reason = "rustix deprecated its safe `unshare` because CLONE_FILES and CLONE_FS can \
                              invalidate what other threads hold; these flags make namespaces only, in a \
                              process with one thread"
)]
fn unshare(flags: UnshareFlags) -> rustix::io::Result<()> {
    rustix::thread::unshare(flags)
}

/// Maps the user's uid and gid to themselves (`setgroups` must be denied first for the gid).
fn map_ids(uid: u32, gid: u32) -> Result<(), String> {
    let write = |file: &str, text: String| {
        std::fs::write(format!("/proc/self/{file}"), text).map_err(|e| format!("cannot write {file}: {e}"))
    };
    write("setgroups", "deny".into())?;
    write("uid_map", format!("{uid} {uid} 1"))?;
    write("gid_map", format!("{gid} {gid} 1"))
}

/// The init process mounts the PID namespace's `/proc`: `exec` drops the capabilities of a
/// user other than root, unless they are in the ambient set.
fn keep_mount_rights_for_init() -> rustix::io::Result<()> {
    let wanted = CapabilitySet::SYS_ADMIN | CapabilitySet::SETPCAP;
    let mut sets = rustix::thread::capabilities(None)?;
    sets.inheritable |= wanted;
    rustix::thread::set_capabilities(None, sets)?;
    for capability in [CapabilitySet::SYS_ADMIN, CapabilitySet::SETPCAP] {
        rustix::thread::configure_capability_in_ambient_set(capability, true)?;
    }
    Ok(())
}

/// Opens `path` as an `O_PATH` descriptor without following any link on the way.
fn open_no_follow(path: &Path) -> Result<OwnedFd, String> {
    let flags = OFlags::PATH | OFlags::CLOEXEC | OFlags::NOFOLLOW;
    let resolve = ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS;
    rustix::fs::openat2(CWD, path, flags, Mode::empty(), resolve)
        .map_err(|e| format!("cannot open {} without following links: {e}", path.display()))
}

/// Every mount read-only, keeping its other flags. A mount point this process cannot reach
/// (gone, or behind a folder it may not enter) is not reachable by the program either.
fn read_only_everywhere() -> Result<(), String> {
    let text =
        std::fs::read_to_string("/proc/self/mountinfo").map_err(|e| format!("cannot read the mount table: {e}"))?;
    for mount in mountinfo::parse(&text) {
        let flags = MountFlags::BIND | MountFlags::RDONLY | mount.flags;
        match rustix::mount::mount_remount(&mount.point, flags, "") {
            Ok(()) | Err(Errno::NOENT | Errno::ACCESS) => {}
            Err(error) => return Err(format!("cannot make {} read-only: {error}", mount.point.display())),
        }
    }
    Ok(())
}

/// Attaches the detached mount `tree` over the folder `target` refers to.
fn attach(tree: &OwnedFd, target: &OwnedFd) -> rustix::io::Result<()> {
    let flags = MoveMountFlags::MOVE_MOUNT_F_EMPTY_PATH | MoveMountFlags::MOVE_MOUNT_T_EMPTY_PATH;
    rustix::mount::move_mount(tree, "", target, "", flags)
}

/// Covers `path`: a folder with an empty tmpfs nobody may enter, anything else with
/// `/dev/null` (taken from the read-only `/dev`).
fn hide(path: &Path) -> Result<(), String> {
    let target = open_no_follow(path)?;
    let stat = rustix::fs::fstat(&target).map_err(|e| e.to_string())?;
    let cover = if FileType::from_raw_mode(stat.st_mode) == FileType::Directory {
        let fs = rustix::mount::fsopen("tmpfs", FsOpenFlags::FSOPEN_CLOEXEC).map_err(|e| e.to_string())?;
        rustix::mount::fsconfig_set_string(&fs, "mode", "000").map_err(|e| e.to_string())?;
        rustix::mount::fsconfig_set_string(&fs, "size", "4096").map_err(|e| e.to_string())?;
        rustix::mount::fsconfig_create(&fs).map_err(|e| e.to_string())?;
        let attributes = MountAttrFlags::MOUNT_ATTR_RDONLY
            | MountAttrFlags::MOUNT_ATTR_NOSUID
            | MountAttrFlags::MOUNT_ATTR_NODEV
            | MountAttrFlags::MOUNT_ATTR_NOEXEC;
        rustix::mount::fsmount(&fs, FsMountFlags::FSMOUNT_CLOEXEC, attributes).map_err(|e| e.to_string())?
    } else {
        let flags = OpenTreeFlags::OPEN_TREE_CLONE | OpenTreeFlags::OPEN_TREE_CLOEXEC;
        rustix::mount::open_tree(CWD, "/dev/null", flags).map_err(|e| e.to_string())?
    };
    attach(&cover, &target).map_err(|e| e.to_string())
}

/// A `/dev/shm` of the program's own (POSIX shared memory, semaphores of Python's
/// multiprocessing), not the machine's.
fn private_shm() -> Result<(), String> {
    if !Path::new("/dev/shm").is_dir() {
        return Ok(());
    }
    rustix::mount::mount("tmpfs", "/dev/shm", "tmpfs", MountFlags::NOSUID | MountFlags::NODEV, SHM_SIZE)
        .map_err(|e| format!("cannot make a private /dev/shm: {e}"))
}

/// Runs `echo` through `helper` in a view; `Ok` when it printed what it was given.
pub(super) fn probe(helper: &Path) -> Result<(), String> {
    let scratch = tempfile::Builder::new()
        .prefix("airlock-probe-")
        .tempdir()
        .map_err(|e| format!("cannot make a folder for the probe: {e}"))?;
    let folder = scratch.path().canonicalize().map_err(|e| e.to_string())?;
    let spec = Spec {
        argv: vec!["echo".into(), PROBE_MARK.into()],
        cwd: folder.clone(),
        env: vec![("PATH".into(), super::SYSTEM_PATH.into())],
        read_write: vec![folder],
        view: true,
        ..Spec::default()
    };
    let json = serde_json::to_string(&spec).map_err(|e| e.to_string())?;
    let mut child = Command::new(helper)
        .arg(super::HELPER_ARG)
        .arg(super::SPEC_FROM_ENV)
        .arg(std::process::id().to_string())
        .env_clear()
        .env(super::SPEC_VAR, json)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", helper.display()))?;
    let started = Instant::now();
    while child.try_wait().map_err(|e| e.to_string())?.is_none() {
        if started.elapsed() > PROBE_LIMIT {
            let _ = child.kill();
            let _ = child.wait();
            return Err("the probe did not finish".into());
        }
        std::thread::sleep(Duration::from_millis(1));
    }
    let output = child.wait_with_output().map_err(|e| e.to_string())?;
    if String::from_utf8_lossy(&output.stdout).trim_end() == PROBE_MARK {
        return Ok(());
    }
    let said = String::from_utf8_lossy(&output.stderr);
    let reason = said.lines().next().map_or("", |line| line.trim_start_matches("airlock sandbox: "));
    Err(if reason.is_empty() { format!("the probe ended with {}", output.status) } else { reason.to_owned() })
}
