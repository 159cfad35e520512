//! How much harm one command of a line can do, for the question a person answers: its commands are
//! shown riskiest first, so the `rm` at the end of a long line is the first thing read.
//!
//! The order: **high** — deletes or overwrites data (`rm`, `dd`, `mkfs`, `shred`, `truncate`,
//! `find -delete`, `git reset --hard`, `git clean`, `git push --force`), changes permissions or
//! owners, stops processes, runs as another user, reaches the network (`curl`, `ssh`, `git push`),
//! or names its program only when it runs; **medium** — writes files (`cp`, `mv`, a `>` redirection,
//! `sed -i`, `git commit`), runs the repository's code or a program airlock does not know (`make`,
//! `cargo test`, `npm install`, `python3 x.py`, `./build.sh`); **low** — reads and prints.

use super::effects;
use super::{Command, Word, base_name};

/// How much harm a command can do.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Risk {
    Low,
    Medium,
    High,
}

impl Risk {
    pub fn as_str(self) -> &'static str {
        match self {
            Risk::Low => "low",
            Risk::Medium => "medium",
            Risk::High => "high",
        }
    }
}

/// Programs that only read and print (or do nothing harmful).
const READS: &[&str] = &[
    "ls",
    "cat",
    "head",
    "tail",
    "grep",
    "egrep",
    "fgrep",
    "rg",
    "ag",
    "ack",
    "fd",
    "wc",
    "cut",
    "tr",
    "diff",
    "cmp",
    "stat",
    "file",
    "echo",
    "printf",
    "pwd",
    "which",
    "whereis",
    "type",
    "date",
    "uname",
    "id",
    "whoami",
    "groups",
    "du",
    "df",
    "tree",
    "less",
    "more",
    "jq",
    "yq",
    "sed",
    "awk",
    "gawk",
    "mawk",
    "test",
    "[",
    "true",
    "false",
    ":",
    "cd",
    "pushd",
    "popd",
    "sleep",
    "seq",
    "basename",
    "dirname",
    "realpath",
    "readlink",
    "md5sum",
    "sha1sum",
    "sha256sum",
    "sha512sum",
    "b2sum",
    "cksum",
    "xxd",
    "od",
    "hexdump",
    "column",
    "nl",
    "paste",
    "join",
    "comm",
    "tac",
    "rev",
    "fold",
    "fmt",
    "expand",
    "unexpand",
    "numfmt",
    "sort",
    "uniq",
    "find",
    "base64",
    "base32",
    "strings",
    "nproc",
    "free",
    "uptime",
    "ps",
    "pgrep",
    "lscpu",
    "lsblk",
    "locale",
    "printenv",
    "expr",
    "bc",
    "tput",
    "man",
    "help",
    "history",
    "jobs",
    "wait",
    "set",
    "shopt",
    "export",
    "declare",
    "local",
    "read",
    "return",
    "exit",
    "shift",
    "unset",
    "tee",
    "xargs",
    "env",
    "timeout",
    "nice",
    "nohup",
    "time",
    "command",
    "builtin",
    "exec",
    "stdbuf",
    "ionice",
    "setsid",
    "flock",
    "watch",
    "getconf",
    "cal",
    "tty",
    "git-lfs",
];

/// Programs that delete or overwrite data, change permissions or owners, stop processes or change
/// the system, and what they do.
const DESTROYS: &[(&str, &str)] = &[
    ("rm", "deletes files"),
    ("rmdir", "deletes folders"),
    ("unlink", "deletes a file"),
    ("shred", "destroys files"),
    ("dd", "overwrites data"),
    ("truncate", "cuts files"),
    ("wipefs", "erases disks"),
    ("mkfs", "formats a disk"),
    ("mke2fs", "formats a disk"),
    ("mkswap", "formats a disk"),
    ("fdisk", "partitions a disk"),
    ("sfdisk", "partitions a disk"),
    ("parted", "partitions a disk"),
    ("chmod", "changes permissions"),
    ("chown", "changes owners"),
    ("chgrp", "changes groups"),
    ("chattr", "changes file attributes"),
    ("setfacl", "changes permissions"),
    ("kill", "stops processes"),
    ("pkill", "stops processes"),
    ("killall", "stops processes"),
    ("reboot", "restarts the machine"),
    ("shutdown", "stops the machine"),
    ("halt", "stops the machine"),
    ("poweroff", "stops the machine"),
    ("crontab", "schedules commands"),
    ("at", "schedules commands"),
    ("mount", "mounts file systems"),
    ("umount", "unmounts file systems"),
    ("sudo", "runs as another user"),
    ("su", "runs as another user"),
    ("doas", "runs as another user"),
    ("pkexec", "runs as another user"),
    ("runuser", "runs as another user"),
    ("passwd", "changes passwords"),
];

/// Programs that reach the network.
const NETWORK: &[&str] = &[
    "curl", "wget", "ssh", "scp", "sftp", "rsync", "nc", "ncat", "netcat", "socat", "telnet", "ftp", "aria2c", "http",
    "https", "xh", "ping", "dig", "nslookup", "host",
];

/// Programs that write files as their job.
const WRITES: &[&str] = &[
    "cp", "mv", "mkdir", "touch", "ln", "install", "patch", "mktemp", "zip", "unzip", "gzip", "gunzip", "bzip2", "xz",
    "zstd", "tar", "split", "csplit",
];

/// How much harm `command` can do, and why, in a few words.
pub fn assess(command: &Command) -> (Risk, String) {
    if command.words.is_empty() {
        return (Risk::Low, "sets variables".into());
    }
    let Some(program) = command.program() else {
        return (Risk::High, "its program is known only when it runs".into());
    };
    let name = base_name(program);
    let beyond =
        effects::beyond_its_name(command).or_else(|| command.writes.first().map(|w| format!("`{w}` writes a file")));
    if let Some((_, what)) = DESTROYS.iter().find(|(n, _)| *n == name || (name.starts_with("mkfs.") && *n == "mkfs")) {
        return (Risk::High, (*what).to_string());
    }
    if NETWORK.contains(&name) {
        return (Risk::High, "reaches the network".into());
    }
    if name == "git" {
        let (risk, why) = git(command).unwrap_or((Risk::Low, "reads the repository".into()));
        return match beyond {
            Some(beyond) if risk < Risk::High => (Risk::Medium, beyond),
            _ => (risk, why),
        };
    }
    if let Some(why) = beyond {
        let risk = if why.contains("deletes") { Risk::High } else { Risk::Medium };
        return (risk, why);
    }
    if WRITES.contains(&name) {
        return (Risk::Medium, "writes files".into());
    }
    if READS.contains(&name) {
        return (Risk::Low, "reads".into());
    }
    (Risk::Medium, runs_what(name, program))
}

/// What an unlisted program runs: the repository's code for build tools and interpreters.
fn runs_what(name: &str, program: &str) -> String {
    const BUILDS: &[&str] = &[
        "make", "gmake", "cargo", "npm", "npx", "pnpm", "yarn", "bun", "deno", "go", "mvn", "gradle", "gradlew",
        "pytest", "tox", "nox", "just", "rake", "bundle", "composer", "python", "python3", "node", "ruby", "perl",
        "php", "bash", "sh", "zsh", "dash", "uv", "poetry", "pip", "pip3", "cmake", "ninja", "meson", "dotnet",
    ];
    if BUILDS.contains(&name) || program.contains('/') {
        "runs the repository's code".into()
    } else {
        "runs a program airlock does not know".into()
    }
}

/// git's subcommands that change or reach beyond the repository.
fn git(command: &Command) -> Option<(Risk, String)> {
    let words = &command.words;
    let at = super::git::invocation(words).subcommand?;
    let subcommand = words[at].literal()?;
    let args: Vec<&str> = words.iter().skip(at + 1).filter_map(Word::literal).collect();
    let has = |flags: &[&str]| args.iter().any(|a| flags.contains(a));
    let high = |why: &str| Some((Risk::High, why.to_string()));
    match subcommand {
        "push"
            if has(&["-f", "--force", "--force-with-lease", "--mirror", "--delete", "-d"])
                || args.iter().any(|a| a.starts_with('+') || a.starts_with("--force")) =>
        {
            high("rewrites or deletes remote branches")
        }
        "push" | "fetch" | "pull" | "clone" | "ls-remote" | "send-email" => high("reaches the network"),
        "reset" if has(&["--hard", "--merge", "--keep"]) => high("discards changes"),
        "clean" => high("deletes untracked files"),
        "checkout" | "restore" if has(&["--", ".", "-f", "--force", "--worktree"]) => high("discards changes"),
        "branch" if has(&["-D", "-d", "--delete", "-M", "-f", "--force"]) => high("deletes or overwrites branches"),
        "stash" if has(&["drop", "clear"]) => high("discards stashed changes"),
        "filter-branch" | "filter-repo" | "gc" | "prune" | "reflog" | "update-ref" => high("rewrites history"),
        "rebase" => Some((Risk::Medium, "rewrites history".into())),
        "status" | "log" | "diff" | "show" | "blame" | "describe" | "rev-parse" | "ls-files" | "ls-tree"
        | "cat-file" | "shortlog" | "grep" | "remote" | "tag" | "branch" | "config" | "rev-list" | "whatchanged"
        | "show-ref" | "for-each-ref" | "name-rev" | "merge-base" | "version" | "help" => {
            Some((Risk::Low, "reads the repository".into()))
        }
        _ => Some((Risk::Medium, "changes the repository".into())),
    }
}
