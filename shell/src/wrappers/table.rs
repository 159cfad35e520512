//! The option tables of the programs that run their operands as a command after options (and
//! sometimes a few operands of their own): `nohup`, `timeout`, `taskset`, `chroot`, `setarch`,
//! `unshare`… Each table follows the program's own `--help` (util-linux 2.38, coreutils 9.1,
//! systemd 252 here); an option missing from a table is refused by the reader, never guessed.

use super::Options;

/// How one wrapper reads its words.
#[derive(Default)]
pub(super) struct Spec {
    pub options: Options,
    /// Operands that come before the command (`timeout`'s duration, `chroot`'s new root).
    pub leading: usize,
    /// Whether those operands come before the options (`setarch ARCH -R cmd`).
    pub leading_first: bool,
    /// Whether a leading number is skipped when there is one (`chrt [priority] cmd`).
    pub optional_number: bool,
    /// Options after which the operands are not a command (`taskset -p`, `ionice -p`).
    pub no_command: &'static [&'static str],
    /// Options whose value is a script run by a shell (`script -c`).
    pub script: &'static [&'static str],
    /// Options that take the environment away from the command (`setpriv --reset-env`); `*`
    /// when the command never gets the caller's environment (`systemd-run`).
    pub clears_env: &'static [&'static str],
    /// Whether the operands are a command at all (`script FILE` names its log file).
    pub no_operand_command: bool,
}

/// `setarch`'s architecture names, each also a program of its own (`linux64 cmd`).
pub(super) const ARCHES: &[&str] = &[
    "linux32",
    "linux64",
    "i386",
    "i486",
    "i586",
    "i686",
    "athlon",
    "x86_64",
    "uname26",
    "ppc",
    "ppc32",
    "ppc64",
    "ppc64le",
    "s390",
    "s390x",
    "sparc",
    "sparc32",
    "sparc32bash",
    "sparc64",
    "mips",
    "mips32",
    "mips64",
    "parisc",
    "parisc32",
    "parisc64",
    "ia64",
    "arm",
    "armh",
    "armv7l",
    "armv8l",
    "arm64",
    "aarch64",
    "alpha",
    "loongarch64",
    "riscv64",
];

const SETARCH_FLAGS: &[&str] = &[
    "32bit",
    "fdpic-funcptrs",
    "short-inode",
    "addr-compat-layout",
    "addr-no-randomize",
    "whole-seconds",
    "sticky-timeouts",
    "read-implies-exec",
    "mmap-page-zero",
    "3gb",
    "4gb",
    "uname-2.6",
    "verbose",
    "list",
    "help",
    "version",
];

/// The table of `name`, if it is one of these wrappers.
pub(super) fn spec(name: &str) -> Option<Spec> {
    let plain = |flags: &'static str| Spec { options: Options { flags, ..Options::default() }, ..Spec::default() };
    let spec = match name {
        "nohup" | "builtin" | "coproc" | "busybox" | "toybox" | "catchsegv" | "eatmydata" | "nocache" => plain(""),
        "chronic" => plain("ev"),
        "ifne" => plain("n"),
        "unbuffer" => plain("p"),
        "doas" => Spec { options: Options { flags: "nsL", with_arg: "uC", ..Options::default() }, ..Spec::default() },
        "stdbuf" => Spec {
            options: Options { with_arg: "ioe", long_with_arg: &["input", "output", "error"], ..Options::default() },
            ..Spec::default()
        },
        "setsid" => Spec {
            options: Options { flags: "cfw", long_flags: &["ctty", "fork", "wait"], ..Options::default() },
            ..Spec::default()
        },
        "exec" => Spec {
            options: Options { flags: "cl", with_arg: "a", ..Options::default() },
            clears_env: &["c"],
            ..Spec::default()
        },
        "command" => plain("pvV"),
        "time" => Spec {
            options: Options {
                flags: "pavq",
                with_arg: "of",
                long_flags: &["append", "verbose", "quiet", "portability"],
                long_with_arg: &["output", "format"],
                ..Options::default()
            },
            ..Spec::default()
        },
        "timeout" => Spec {
            options: Options {
                flags: "v",
                with_arg: "ks",
                long_flags: &["preserve-status", "foreground", "verbose"],
                long_with_arg: &["kill-after", "signal"],
                ..Options::default()
            },
            leading: 1,
            ..Spec::default()
        },
        "ionice" => Spec {
            options: Options {
                flags: "t",
                with_arg: "cnpPu",
                long_flags: &["ignore"],
                long_with_arg: &["class", "classdata", "pid", "pgid", "uid"],
                ..Options::default()
            },
            // With -p, -P or -u the operands are process ids, not a command.
            no_command: &["p", "P", "u", "pid", "pgid", "uid"],
            ..Spec::default()
        },
        "taskset" => Spec {
            options: Options {
                flags: "acphV",
                long_flags: &["all-tasks", "pid", "cpu-list", "help", "version"],
                ..Options::default()
            },
            leading: 1,
            no_command: &["p", "pid", "h", "help", "V", "version"],
            ..Spec::default()
        },
        "prlimit" => Spec {
            options: Options {
                flags: "hV",
                with_arg: "po",
                optional: "cdefilmnqrstuvxy",
                long_flags: &["noheadings", "raw", "verbose", "help", "version"],
                long_with_arg: &["pid", "output"],
                long_optional: &[
                    "as",
                    "core",
                    "cpu",
                    "data",
                    "fsize",
                    "locks",
                    "memlock",
                    "msgqueue",
                    "nice",
                    "nofile",
                    "nproc",
                    "rss",
                    "rtprio",
                    "rttime",
                    "sigpending",
                    "stack",
                ],
                ..Options::default()
            },
            ..Spec::default()
        },
        "chrt" => Spec {
            options: Options {
                flags: "bdfiorRampvhVe",
                with_arg: "TPD",
                long_flags: &[
                    "batch",
                    "deadline",
                    "fifo",
                    "idle",
                    "other",
                    "rr",
                    "ext",
                    "reset-on-fork",
                    "all-tasks",
                    "max",
                    "pid",
                    "verbose",
                    "help",
                    "version",
                ],
                long_with_arg: &["sched-runtime", "sched-period", "sched-deadline"],
                ..Options::default()
            },
            optional_number: true,
            no_command: &["p", "pid", "m", "max", "h", "help", "V", "version"],
            ..Spec::default()
        },
        "setarch" => Spec {
            options: Options { flags: "BFILRSTXZ3vhV", long_flags: SETARCH_FLAGS, ..Options::default() },
            leading: 1,
            leading_first: true,
            no_command: &["list", "h", "help", "V", "version"],
            ..Spec::default()
        },
        _ if ARCHES.contains(&name) => Spec {
            options: Options { flags: "BFILRSTXZ3vhV", long_flags: SETARCH_FLAGS, ..Options::default() },
            no_command: &["list", "h", "help", "V", "version"],
            ..Spec::default()
        },
        "setpriv" => Spec {
            options: Options {
                flags: "dhV",
                long_flags: &[
                    "dump",
                    "nnp",
                    "no-new-privs",
                    "clear-groups",
                    "keep-groups",
                    "init-groups",
                    "reset-env",
                    "help",
                    "version",
                ],
                long_with_arg: &[
                    "ambient-caps",
                    "inh-caps",
                    "bounding-set",
                    "ruid",
                    "euid",
                    "rgid",
                    "egid",
                    "reuid",
                    "regid",
                    "groups",
                    "securebits",
                    "pdeathsig",
                    "selinux-label",
                    "apparmor-profile",
                    "landlock-access",
                    "landlock-rule",
                    "seccomp-filter",
                    "ptracer",
                ],
                ..Options::default()
            },
            no_command: &["d", "dump", "h", "help", "V", "version"],
            clears_env: &["reset-env"],
            ..Spec::default()
        },
        "script" => Spec {
            options: Options {
                flags: "aefqhV",
                with_arg: "IOBTmcEo",
                optional: "t",
                long_flags: &["append", "return", "flush", "force", "quiet", "help", "version"],
                long_with_arg: &[
                    "log-in",
                    "log-out",
                    "log-io",
                    "log-timing",
                    "logging-format",
                    "command",
                    "echo",
                    "output-limit",
                ],
                long_optional: &["timing"],
                ..Options::default()
            },
            script: &["c", "command"],
            no_operand_command: true,
            ..Spec::default()
        },
        "unshare" => Spec {
            options: Options {
                flags: "frchV",
                optional: "muinpUCT",
                with_arg: "RwSG",
                long_flags: &["fork", "map-root-user", "map-current-user", "map-auto", "keep-caps", "help", "version"],
                long_optional: &[
                    "mount",
                    "uts",
                    "ipc",
                    "net",
                    "pid",
                    "user",
                    "cgroup",
                    "time",
                    "kill-child",
                    "mount-proc",
                    "mount-binfmt",
                ],
                long_with_arg: &[
                    "setgroups",
                    "propagation",
                    "map-user",
                    "map-group",
                    "map-users",
                    "map-groups",
                    "root",
                    "wd",
                    "setuid",
                    "setgid",
                    "monotonic",
                    "boottime",
                    "load-interp",
                ],
                ..Options::default()
            },
            ..Spec::default()
        },
        "nsenter" => Spec {
            options: Options {
                flags: "aFZehcV",
                optional: "muinpCUTrw",
                with_arg: "tSGW",
                long_flags: &[
                    "all",
                    "preserve-credentials",
                    "no-fork",
                    "follow-context",
                    "env",
                    "join-cgroup",
                    "keep-caps",
                    "user-parent",
                    "help",
                    "version",
                ],
                long_optional: &["mount", "uts", "ipc", "net", "pid", "cgroup", "user", "time", "root", "wd"],
                long_with_arg: &["target", "setuid", "setgid", "wdns"],
                ..Options::default()
            },
            ..Spec::default()
        },
        "chroot" => Spec {
            options: Options {
                long_flags: &["skip-chdir", "help", "version"],
                long_with_arg: &["groups", "userspec"],
                ..Options::default()
            },
            leading: 1,
            ..Spec::default()
        },
        "numactl" => Spec {
            options: Options {
                flags: "alsHbtTVyh",
                with_arg: "iwpPmCNSfLoIM",
                long_flags: &[
                    "all",
                    "localalloc",
                    "show",
                    "hardware",
                    "balancing",
                    "huge",
                    "touch",
                    "verify",
                    "strict",
                    "help",
                ],
                long_with_arg: &[
                    "interleave",
                    "weighted-interleave",
                    "preferred",
                    "preferred-many",
                    "membind",
                    "physcpubind",
                    "cpunodebind",
                    "shm",
                    "file",
                    "length",
                    "offset",
                    "shmid",
                    "shmmode",
                ],
                ..Options::default()
            },
            no_command: &["s", "show", "H", "hardware", "S", "shm", "f", "file"],
            ..Spec::default()
        },
        "cgexec" => Spec {
            options: Options { flags: "h", with_arg: "g", long_flags: &["sticky"], ..Options::default() },
            ..Spec::default()
        },
        // Every option of these is `--name` or `--name=value`, never a value in the next word.
        "firejail" | "valgrind" => {
            Spec { options: Options { flags: "qvhd", any_long: true, ..Options::default() }, ..Spec::default() }
        }
        "systemd-run" => Spec {
            options: Options {
                flags: "hrdtPqGS",
                with_arg: "HMupE",
                long_flags: &[
                    "help",
                    "version",
                    "no-ask-password",
                    "user",
                    "system",
                    "scope",
                    "slice-inherit",
                    "no-block",
                    "remain-after-exit",
                    "wait",
                    "send-sighup",
                    "same-dir",
                    "pty",
                    "pipe",
                    "quiet",
                    "collect",
                    "shell",
                    "on-timezone-change",
                    "on-clock-change",
                ],
                long_with_arg: &[
                    "host",
                    "machine",
                    "unit",
                    "property",
                    "description",
                    "slice",
                    "service-type",
                    "uid",
                    "gid",
                    "nice",
                    "working-directory",
                    "setenv",
                    "path-property",
                    "socket-property",
                    "on-active",
                    "on-boot",
                    "on-startup",
                    "on-unit-active",
                    "on-unit-inactive",
                    "on-calendar",
                    "timer-property",
                    "expand-environment",
                ],
                ..Options::default()
            },
            clears_env: &["*"],
            ..Spec::default()
        },
        "bwrap" => Spec {
            options: Options {
                long_flags: &[
                    "help",
                    "version",
                    "unshare-all",
                    "share-net",
                    "unshare-user",
                    "unshare-user-try",
                    "unshare-ipc",
                    "unshare-pid",
                    "unshare-net",
                    "unshare-uts",
                    "unshare-cgroup",
                    "unshare-cgroup-try",
                    "die-with-parent",
                    "new-session",
                    "as-pid-1",
                    "clearenv",
                    "disable-userns",
                    "assert-userns-disabled",
                    "level-prefix",
                ],
                long_with_arg: &[
                    "args",
                    "argv0",
                    "userns",
                    "userns2",
                    "pidns",
                    "uid",
                    "gid",
                    "hostname",
                    "chdir",
                    "unsetenv",
                    "lock-file",
                    "sync-fd",
                    "remount-ro",
                    "exec-label",
                    "file-label",
                    "proc",
                    "dev",
                    "tmpfs",
                    "mqueue",
                    "dir",
                    "seccomp",
                    "add-seccomp-fd",
                    "block-fd",
                    "userns-block-fd",
                    "info-fd",
                    "json-status-fd",
                    "cap-add",
                    "cap-drop",
                    "perms",
                    "size",
                    "overlay-src",
                    "tmp-overlay",
                    "ro-overlay",
                ],
                long_two: &[
                    "setenv",
                    "bind",
                    "bind-try",
                    "dev-bind",
                    "dev-bind-try",
                    "ro-bind",
                    "ro-bind-try",
                    "bind-fd",
                    "ro-bind-fd",
                    "file",
                    "bind-data",
                    "ro-bind-data",
                    "symlink",
                    "chmod",
                ],
                long_three: &["overlay"],
                ..Options::default()
            },
            clears_env: &["clearenv", "unsetenv"],
            ..Spec::default()
        },
        "pkexec" => Spec {
            options: Options {
                long_flags: &["keep-cwd", "disable-internal-agent", "help", "version"],
                long_with_arg: &["user"],
                ..Options::default()
            },
            clears_env: &["*"],
            ..Spec::default()
        },
        "choom" => Spec {
            options: Options {
                flags: "hV",
                with_arg: "np",
                long_with_arg: &["adjust", "pid"],
                long_flags: &["help", "version"],
                ..Options::default()
            },
            no_command: &["p", "pid"],
            ..Spec::default()
        },
        "uclampset" => Spec {
            options: Options {
                flags: "aRsvhV",
                with_arg: "mMp",
                long_flags: &["all-tasks", "reset-on-fork", "system", "verbose", "help", "version"],
                long_with_arg: &["pid"],
                ..Options::default()
            },
            no_command: &["p", "pid", "s", "system"],
            ..Spec::default()
        },
        "enosys" => Spec {
            options: Options {
                flags: "lmdhV",
                with_arg: "si",
                long_flags: &["list", "list-ioctl", "dump", "help", "version"],
                long_with_arg: &["syscall", "ioctl"],
                ..Options::default()
            },
            no_command: &["l", "m", "list", "list-ioctl"],
            ..Spec::default()
        },
        "pipesz" => Spec {
            options: Options {
                flags: "gioecqvhV",
                with_arg: "sfn",
                long_flags: &["get", "stdin", "stdout", "stderr", "check", "quiet", "verbose", "help", "version"],
                long_with_arg: &["set", "file", "fd"],
                ..Options::default()
            },
            no_command: &["g", "get"],
            ..Spec::default()
        },
        "setpgid" => Spec {
            options: Options { flags: "fhV", long_flags: &["fork", "help", "version"], ..Options::default() },
            ..Spec::default()
        },
        "fakeroot" => Spec {
            options: Options {
                flags: "uhv",
                with_arg: "lfisb",
                long_flags: &["unknown-is-real", "help", "version"],
                long_with_arg: &["lib", "faked", "fd-base"],
                ..Options::default()
            },
            ..Spec::default()
        },
        "dbus-run-session" => Spec {
            options: Options {
                long_flags: &["help", "version"],
                long_with_arg: &["config-file", "dbus-daemon"],
                ..Options::default()
            },
            ..Spec::default()
        },
        "ssh-agent" => Spec {
            options: Options { flags: "csDdk", with_arg: "aEOPt", ..Options::default() },
            no_command: &["k"],
            ..Spec::default()
        },
        "proxychains" | "proxychains4" => {
            Spec { options: Options { flags: "q", with_arg: "f", ..Options::default() }, ..Spec::default() }
        }
        "torsocks" => Spec {
            options: Options {
                flags: "6idqhV",
                with_arg: "uapP",
                long_flags: &["isolate", "quiet", "help", "version"],
                long_with_arg: &["user", "pass", "address", "port"],
                ..Options::default()
            },
            ..Spec::default()
        },
        "strace" => Spec {
            options: Options {
                flags: "DfzZiknAqrtTvxyYcCwdhV",
                with_arg: "eEpubIPasoXOSU",
                long_flags: &[
                    "follow-forks",
                    "output-separately",
                    "successful-only",
                    "failed-only",
                    "instruction-pointer",
                    "stack-traces",
                    "syscall-number",
                    "output-append-mode",
                    "no-abbrev",
                    "summary-only",
                    "summary",
                    "summary-wall-clock",
                    "debug",
                    "help",
                    "seccomp-bpf",
                    "version",
                ],
                long_with_arg: &[
                    "env",
                    "attach",
                    "user",
                    "detach-on",
                    "interruptible",
                    "trace",
                    "signal",
                    "status",
                    "trace-path",
                    "columns",
                    "abbrev",
                    "verbose",
                    "raw",
                    "read",
                    "write",
                    "kvm",
                    "decode-fds",
                    "output",
                    "string-limit",
                    "const-print-style",
                    "summary-syscall-overhead",
                    "summary-sort-by",
                    "summary-columns",
                    "inject",
                    "fault",
                ],
                long_optional: &[
                    "daemonize",
                    "relative-timestamps",
                    "absolute-timestamps",
                    "syscall-times",
                    "strings-in-hex",
                    "decode-pids",
                    "tips",
                    "quiet",
                ],
                ..Options::default()
            },
            ..Spec::default()
        },
        _ => return None,
    };
    Some(spec)
}
