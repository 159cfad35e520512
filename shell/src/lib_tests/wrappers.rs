//! Programs that run their operands as a command, and what git runs: each is listed, so a deny
//! rule on `rm` sees the `rm` behind them.

use super::super::*;
use super::{commands, refused};

/// The last command a line lists (the innermost wrapped one).
fn innermost(line: &str) -> String {
    commands(line).pop().unwrap_or_default()
}

#[test]
fn the_util_linux_and_coreutils_family_is_seen_through() {
    for line in [
        "taskset 1 rm x",
        "taskset -a 0x3 rm x",
        "taskset -c 0-2 rm x",
        "taskset --cpu-list 0 rm x",
        "prlimit rm x",
        "prlimit --nofile=100 --nproc=10 rm x",
        "prlimit -n100 -u rm x",
        "prlimit --as -- rm x",
        "chrt 5 rm x",
        "chrt -o 0 rm x",
        "chrt --batch 0 rm x",
        "chrt -i rm x",
        "chrt -d -T 10 -P 20 -D 20 0 rm x",
        "setarch x86_64 rm x",
        "setarch i686 -R --addr-compat-layout rm x",
        "setarch linux32 -3 rm x",
        "linux64 rm x",
        "linux32 -R rm x",
        "i386 rm x",
        "x86_64 --verbose rm x",
        "setpriv --nnp rm x",
        "setpriv --reset-env --ruid 0 rm x",
        "unshare rm x",
        "unshare -rm --fork rm x",
        "unshare --mount=/tmp/ns --pid rm x",
        "unshare -w /tmp -R / rm x",
        "nsenter -t 1 -a rm x",
        "nsenter --target=1 --mount --uts rm x",
        "chroot / rm x",
        "chroot --userspec=1:1 --skip-chdir / rm x",
        "runcon system_u:system_r:x_t:s0 rm x",
        "runcon -t x_t -u u rm x",
        "stdbuf -oL -e0 rm x",
        "numactl -a -l rm x",
        "numactl --physcpubind=0 rm x",
        "cgexec -g cpu,memory:/a rm x",
        "cgexec --sticky -g cpu:/ rm x",
        "firejail --noprofile --private=/tmp rm x",
        "systemd-run --user --scope -p MemoryMax=1G rm x",
        "bwrap --ro-bind / / --setenv A B --tmpfs /tmp rm x",
        "bwrap --overlay a b c --chdir / rm x",
        "pkexec rm x",
        "pkexec --user root rm x",
        "doas -u root rm x",
        "catchsegv rm x",
        "choom -n 10 rm x",
        "uclampset -m 0 -M 512 rm x",
        "enosys -s write rm x",
        "pipesz -s 1M rm x",
        "setpgid -f rm x",
        "fakeroot -u -- rm x",
        "strace -f -e trace=file -s 100 rm x",
        "strace --output=/dev/null rm x",
        "valgrind --leak-check=full -q rm x",
        "eatmydata rm x",
        "nocache rm x",
        "chronic -e rm x",
        "ifne -n rm x",
        "unbuffer -p rm x",
        "proxychains4 -q -f p.conf rm x",
        "torsocks -i rm x",
        "dbus-run-session --config-file=x -- rm x",
        "ssh-agent -t 10 rm x",
        "entr rm x",
        "toybox rm x",
    ] {
        assert_eq!(innermost(line), "rm x", "{line}: {:?}", commands(line));
    }
}

#[test]
fn scripts_they_run_are_parsed_again() {
    for line in [
        "script -qc 'rm x' /dev/null",
        "script -c 'rm x'",
        "script --command 'rm x' log",
        "script --command='rm x'",
        "capsh -- -c 'rm x'",
        "capsh --caps=cap_net_raw+p --shell=/bin/sh -- -c 'rm x'",
        "sg users -c 'rm x'",
        "sg - users 'rm x'",
        "su --command='rm x' me",
        "entr -s 'rm x'",
        "pee 'rm x' cat",
    ] {
        assert!(commands(line).iter().any(|c| c == "rm x"), "{line}: {:?}", commands(line));
    }
}

#[test]
fn operands_that_are_not_a_command_are_not_listed_as_one() {
    assert_eq!(commands("taskset -p 0x1 1234"), ["taskset -p 0x1 1234"]);
    assert_eq!(commands("chrt -p 1234"), ["chrt -p 1234"]);
    assert_eq!(commands("chrt --max"), ["chrt --max"]);
    assert_eq!(commands("prlimit --pid 1 --nofile=10"), ["prlimit --pid 1 --nofile=10"]);
    assert_eq!(commands("setarch --list"), ["setarch --list"]);
    assert_eq!(commands("setpriv -d"), ["setpriv -d"]);
    assert_eq!(commands("ionice -p 1 -c 3"), ["ionice -p 1 -c 3"]);
    assert_eq!(commands("script out.log"), ["script out.log"]);
    assert_eq!(commands("choom -p 1"), ["choom -p 1"]);
    assert_eq!(commands("capsh --print"), ["capsh --print"]);
}

#[test]
fn unknown_options_of_a_wrapper_are_refused() {
    for (line, option) in [
        ("taskset --bogus 1 rm x", "--bogus"),
        ("prlimit -Z rm x", "-Z"),
        ("chrt -Q 1 rm x", "-Q"),
        ("setarch x86_64 -Q rm x", "-Q"),
        ("linux64 --nope rm x", "--nope"),
        ("setpriv --weird rm x", "--weird"),
        ("unshare --nope rm x", "--nope"),
        ("chroot --nope / rm x", "--nope"),
        ("strace --nope rm x", "--nope"),
        ("capsh -c 'rm x'", "-c"),
        ("bwrap --nope rm x", "--nope"),
    ] {
        assert!(refused(line).contains(option), "{line}");
    }
}

#[test]
fn what_git_runs_is_listed() {
    for line in [
        "git -c core.pager='rm x' log",
        "git -c core.fsmonitor='rm x' status",
        "git -c core.sshCommand='rm x' fetch",
        "git -c diff.external='rm x' diff",
        "git -c diff.evil.textconv='rm x' diff",
        "git -c filter.f.clean='rm x' add .",
        "git -c alias.st='!rm x' st",
        "git -c credential.helper='!rm x' fetch",
        "git -c CORE.PAGER='rm x' log",
        "git -ccore.editor='rm x' commit",
        "git rebase --exec 'rm x' HEAD~1",
        "git rebase --exe='rm x' HEAD~1",
        "git rebase -x 'rm x' HEAD~1",
        "git rebase -i -x'rm x' HEAD~1",
        "git submodule foreach rm x",
        "git submodule --quiet foreach --recursive 'rm x'",
        "git bisect run rm x",
        "git filter-branch --tree-filter 'rm x' HEAD",
        "git difftool -x 'rm x'",
        "git clone --upload-pack='rm x; git-upload-pack' . y",
        "git clone -u 'rm x' . y",
        "git fetch --upload-pack 'rm x' .",
        "git push --receive-pack='rm x' .",
        "git grep --open-files-in-pager='rm x' y",
        "git grep -O'rm x' y",
        "git config core.fsmonitor 'rm x'",
        "git config --global diff.evil.textconv 'rm x'",
        "git config set alias.st '!rm x'",
        "git -C sub config --local core.pager 'rm x'",
    ] {
        assert!(commands(line).iter().any(|c| c == "rm x"), "{line}: {:?}", commands(line));
    }
    // Settings that name no program, and booleans, run nothing.
    assert_eq!(
        commands("git -c user.name=me -c core.fsmonitor=false status"),
        ["git -c user.name=me -c core.fsmonitor=false status"]
    );
    assert_eq!(commands("git config user.email me@x"), ["git config user.email me@x"]);
    for line in [
        "git -c include.path=../x status",
        "git -c core.hooksPath=./h commit",
        "git -c \"$S\" status",
        "git --config-env=core.pager=P log",
        "git --exec-path=./bin status",
        "git $SUB",
        "git config \"$K\" x",
        "git config core.pager \"$P\"",
    ] {
        let parsed = parse(line).unwrap_or_else(|e| panic!("{line}: {e}"));
        assert!(parsed.uncertainty().is_some(), "{line}");
    }
}
