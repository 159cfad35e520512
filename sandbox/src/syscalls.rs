//! The seccomp filter of a sandboxed program: the system calls Landlock does not govern.
//!
//! Denied calls fail with `EPERM` (the program prints "Operation not permitted" instead of
//! dying), except `clone3`, which fails with `ENOSYS` so the C library falls back to `clone`,
//! whose flags the filter can read. Invariants: Unix sockets on a path are never reachable
//! (`socket(AF_UNIX)` is denied; only connected stream and sequenced-packet `socketpair`s
//! exist, which cargo, libuv and Python's multiprocessing use), only IPv4 and IPv6 sockets
//! in a network namespace of the program's own ([`Network::Loopback`]) and no socket at all
//! without one ([`Network::None`]); without the view the program cannot leave its process
//! group (`setsid`, `setpgid`), so killing the group reaches every descendant (in the view the
//! PID namespace does); a foreign architecture's calls kill the
//! process and x32 calls are denied, so no second syscall table bypasses the filter.

use std::collections::BTreeMap;

use super::Network;
use seccompiler::{
    BpfProgram, SeccompAction, SeccompCmpArgLen, SeccompCmpOp, SeccompCondition, SeccompFilter, SeccompRule,
    TargetArch, sock_filter,
};

const EPERM: u32 = 1;
const ENOSYS: u32 = 38;
const AF_UNIX: u64 = 1;
const AF_INET: u64 = 2;
const AF_INET6: u64 = 10;
const TIOCSTI: u64 = 0x5412;
const TIOCLINUX: u64 = 0x541c;
/// `socketpair` types that are not connection-oriented (`SOCK_DGRAM`, `SOCK_RAW`, `SOCK_RDM`,
/// `SOCK_DCCP`, `SOCK_PACKET`): such a pair can be re-addressed with `sendto` to any Unix
/// socket on a path. `SOCK_STREAM` (1) and `SOCK_SEQPACKET` (5) stay connected.
const UNCONNECTED_TYPES: &[u64] = &[2, 3, 4, 6, 10];
const SOCKET_TYPE_MASK: u64 = 0xf;
/// `CLONE_NEWNS`, `NEWCGROUP`, `NEWUTS`, `NEWIPC`, `NEWUSER`, `NEWPID`, `NEWNET`.
const NAMESPACE_FLAGS: &[u64] =
    &[0x0002_0000, 0x0200_0000, 0x0400_0000, 0x0800_0000, 0x1000_0000, 0x2000_0000, 0x4000_0000];

/// System call numbers of the running architecture.
#[allow(dead_code, reason = "the table of the architectures this build is not for")]
mod nr {
    macro_rules! table {
        ($($name:ident = $x86_64:literal, $aarch64:literal;)*) => {
            $(
                #[cfg(target_arch = "x86_64")]
                pub(super) const $name: i64 = $x86_64;
                #[cfg(target_arch = "aarch64")]
                pub(super) const $name: i64 = $aarch64;
            )*
        };
    }
    table! {
        PTRACE = 101, 117;
        PROCESS_VM_READV = 310, 270;
        PROCESS_VM_WRITEV = 311, 271;
        PROCESS_MADVISE = 440, 440;
        PIDFD_GETFD = 438, 438;
        IO_URING_SETUP = 425, 425;
        IO_URING_ENTER = 426, 426;
        IO_URING_REGISTER = 427, 427;
        BPF = 321, 280;
        PERF_EVENT_OPEN = 298, 241;
        USERFAULTFD = 323, 282;
        KEYCTL = 250, 219;
        ADD_KEY = 248, 217;
        REQUEST_KEY = 249, 218;
        SETSID = 112, 157;
        SETPGID = 109, 154;
        MOUNT = 165, 40;
        UMOUNT2 = 166, 39;
        PIVOT_ROOT = 155, 41;
        CHROOT = 161, 51;
        FSOPEN = 430, 430;
        FSCONFIG = 431, 431;
        FSMOUNT = 432, 432;
        FSPICK = 433, 433;
        MOVE_MOUNT = 429, 429;
        OPEN_TREE = 428, 428;
        MOUNT_SETATTR = 442, 442;
        UNSHARE = 272, 97;
        SETNS = 308, 268;
        NAME_TO_HANDLE_AT = 303, 264;
        OPEN_BY_HANDLE_AT = 304, 265;
        KEXEC_LOAD = 246, 104;
        KEXEC_FILE_LOAD = 320, 294;
        INIT_MODULE = 175, 105;
        FINIT_MODULE = 313, 273;
        DELETE_MODULE = 176, 106;
        ACCT = 163, 89;
        SWAPON = 167, 224;
        SWAPOFF = 168, 225;
        REBOOT = 169, 142;
        SOCKET = 41, 198;
        SOCKETPAIR = 53, 199;
        IOCTL = 16, 29;
        CLONE = 56, 220;
        CLONE3 = 435, 435;
    }
}

/// Denied whatever their arguments.
const ALWAYS_DENIED: &[i64] = &[
    nr::PTRACE,
    nr::PROCESS_VM_READV,
    nr::PROCESS_VM_WRITEV,
    nr::PROCESS_MADVISE,
    nr::PIDFD_GETFD,
    nr::IO_URING_SETUP,
    nr::IO_URING_ENTER,
    nr::IO_URING_REGISTER,
    nr::BPF,
    nr::PERF_EVENT_OPEN,
    nr::USERFAULTFD,
    nr::KEYCTL,
    nr::ADD_KEY,
    nr::REQUEST_KEY,
    nr::SETSID,
    nr::SETPGID,
    nr::MOUNT,
    nr::UMOUNT2,
    nr::PIVOT_ROOT,
    nr::CHROOT,
    nr::FSOPEN,
    nr::FSCONFIG,
    nr::FSMOUNT,
    nr::FSPICK,
    nr::MOVE_MOUNT,
    nr::OPEN_TREE,
    nr::MOUNT_SETATTR,
    nr::UNSHARE,
    nr::SETNS,
    nr::NAME_TO_HANDLE_AT,
    nr::OPEN_BY_HANDLE_AT,
    nr::KEXEC_LOAD,
    nr::KEXEC_FILE_LOAD,
    nr::INIT_MODULE,
    nr::FINIT_MODULE,
    nr::DELETE_MODULE,
    nr::ACCT,
    nr::SWAPON,
    nr::SWAPOFF,
    nr::REBOOT,
];

#[cfg(target_arch = "x86_64")]
const ARCH: Option<TargetArch> = Some(TargetArch::x86_64);
#[cfg(target_arch = "aarch64")]
const ARCH: Option<TargetArch> = Some(TargetArch::aarch64);
#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
const ARCH: Option<TargetArch> = None;

/// Whether this build and kernel can filter system calls.
pub(super) fn available() -> bool {
    ARCH.is_some()
        && std::fs::read_to_string("/proc/self/status")
            .is_ok_and(|status| status.lines().any(|l| l.starts_with("Seccomp:")))
}

/// Installs the filters on this thread; the program `exec`ed next inherits them.
pub(super) fn install(network: Network, view: bool) -> Result<(), String> {
    if !available() {
        return Ok(());
    }
    for program in programs(network, view).map_err(|error| error.to_string())? {
        seccompiler::apply_filter(&program).map_err(|error| error.to_string())?;
    }
    Ok(())
}

/// The two filters: `EPERM` for the escapes, `ENOSYS` for `clone3`.
pub(super) fn programs(network: Network, view: bool) -> Result<Vec<BpfProgram>, seccompiler::BackendError> {
    let Some(arch) = ARCH else { return Ok(Vec::new()) };
    let mut denied: BTreeMap<i64, Vec<SeccompRule>> = ALWAYS_DENIED.iter().map(|&nr| (nr, Vec::new())).collect();
    if view {
        // In the view a PID namespace holds every descendant, so a program may start a
        // session or group of its own (git's detached gc, Python's `start_new_session`).
        denied.remove(&nr::SETSID);
        denied.remove(&nr::SETPGID);
    }
    // An empty rule list matches every call of that number; a rule's conditions all hold
    // for it to match.
    let socket = match network {
        Network::None => Vec::new(),
        Network::Loopback => vec![rule(&[(0, SeccompCmpOp::Ne, AF_INET), (0, SeccompCmpOp::Ne, AF_INET6)])?],
        Network::Full => vec![rule(&[(0, SeccompCmpOp::Eq, AF_UNIX)])?],
    };
    denied.insert(nr::SOCKET, socket);
    let socketpair = UNCONNECTED_TYPES
        .iter()
        .map(|&kind| rule(&[(1, SeccompCmpOp::MaskedEq(SOCKET_TYPE_MASK), kind)]))
        .collect::<Result<_, _>>()?;
    denied.insert(nr::SOCKETPAIR, socketpair);
    denied
        .insert(nr::IOCTL, vec![rule(&[(1, SeccompCmpOp::Eq, TIOCSTI)])?, rule(&[(1, SeccompCmpOp::Eq, TIOCLINUX)])?]);
    let clone = NAMESPACE_FLAGS
        .iter()
        .map(|&flag| rule(&[(0, SeccompCmpOp::MaskedEq(flag), flag)]))
        .collect::<Result<_, _>>()?;
    denied.insert(nr::CLONE, clone);

    let mut escapes: BpfProgram =
        SeccompFilter::new(denied, SeccompAction::Allow, SeccompAction::Errno(EPERM), arch)?.try_into()?;
    deny_x32(&mut escapes, arch);
    let clone3 = SeccompFilter::new(
        BTreeMap::from([(nr::CLONE3, Vec::new())]),
        SeccompAction::Allow,
        SeccompAction::Errno(ENOSYS),
        arch,
    )?
    .try_into()?;
    Ok(vec![escapes, clone3])
}

fn rule(conditions: &[(u8, SeccompCmpOp, u64)]) -> Result<SeccompRule, seccompiler::BackendError> {
    let conditions = conditions
        .iter()
        .map(|(arg, op, value)| SeccompCondition::new(*arg, SeccompCmpArgLen::Dword, op.clone(), *value))
        .collect::<Result<_, _>>()?;
    SeccompRule::new(conditions)
}

/// Number of instructions seccompiler puts first: load the arch, compare, kill on mismatch.
const ARCH_CHECK_LEN: usize = 3;
/// x32 system calls share `AUDIT_ARCH_X86_64` and are numbered from this bit.
const X32_SYSCALL_BIT: u32 = 0x4000_0000;

/// On x86_64, inserts "x32 system call → EPERM" right after the architecture check, where
/// no jump crosses (each rule chain starts by loading the number again).
fn deny_x32(program: &mut BpfProgram, arch: TargetArch) {
    if arch != TargetArch::x86_64 || program.len() < ARCH_CHECK_LEN {
        return;
    }
    const LOAD_NR: u16 = 0x20; // BPF_LD | BPF_W | BPF_ABS
    const JGE: u16 = 0x35; // BPF_JMP | BPF_JGE | BPF_K
    const RET: u16 = 0x06; // BPF_RET | BPF_K
    const SECCOMP_RET_ERRNO: u32 = 0x0005_0000;
    let guard = [
        sock_filter { code: LOAD_NR, jt: 0, jf: 0, k: 0 },
        sock_filter { code: JGE, jt: 0, jf: 1, k: X32_SYSCALL_BIT },
        sock_filter { code: RET, jt: 0, jf: 0, k: SECCOMP_RET_ERRNO | EPERM },
    ];
    program.splice(ARCH_CHECK_LEN..ARCH_CHECK_LEN, guard);
}
