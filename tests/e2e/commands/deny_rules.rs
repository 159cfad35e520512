//! Deny rules fail closed (issue 23, item 2), through the real binary and the shell tool: with
//! `command = "rm" decision = "deny"`, no line runs `rm` through what bash evaluates again or
//! through a program that runs its operands as a command — in yolo too. A line airlock cannot
//! name whole is asked about; where nobody can be asked it is refused with the reason; a person
//! who was asked may still run it.

use super::shell::{shell, yolo};
use super::{session, write_policy};

const DENY_RM: &str = "[[rule]]\ntool = \"run_shell_command\"\ncommand = \"rm\"\ndecision = \"deny\"\n";

/// A workspace with `x/file` to protect, and the rule denying `rm`.
fn guarded() -> airlock_tests::Session {
    let s = session();
    std::fs::create_dir(s.workspace.join("x")).unwrap_or_else(|e| panic!("{e}"));
    s.write("x/file", "keep me");
    write_policy(&s, DENY_RM);
    s
}

/// The thirteen constructs and variants of each, every one running `rm -f x/file` when
/// bash runs it (`bash 5.2`).
const EVALUATED_AGAIN: &[&str] = &[
    "printf -v 'a[$(rm -f x/file)]' 1",
    "printf -v'a[$(rm -f x/file)]' 1",
    "declare 'a[$(rm -f x/file)]=1'",
    "typeset 'a[$(rm -f x/file)]=1'",
    "let 'a[$(rm -f x/file)]=1'",
    "read 'a[$(rm -f x/file)]' <<< 1",
    "read -r -a 'a[$(rm -f x/file)]' <<< 1",
    "a=(1); unset 'a[$(rm -f x/file)]'",
    "x='a[$(rm -f x/file)]'; [ -v \"$x\" ]",
    "test -v 'a[$(rm -f x/file)]'",
    "declare x='a[$(rm -f x/file)]'; echo $((x))",
    "declare x='a[$(rm -f x/file)]'; (( x ))",
    "read x <<< 'a[$(rm -f x/file)]'; echo $((x))",
    "read x <<< 'a[$(rm -f x/file)]'; [[ $x -eq 0 ]]",
    "x='a[$(rm -f x/file)]'; echo ${arr[x]}",
    "ref='a[$(rm -f x/file)]'; echo ${!ref}",
    "ref='a[$(rm -f x/file)]'; echo \"${!ref}\"",
    "x='$(rm -f x/file)'; echo ${x@P}",
    "x='`rm -f x/file`'; echo \"${x@P}\"",
    "PS4='$(rm -f x/file)'; set -x; true",
    "for PS4 in '$(rm -f x/file)'; do set -x; true; done",
    "export PS4='$(rm -f x/file)'; bash -xc true",
    "mapfile -C 'rm -f x/file' -c 1 arr <<< x",
    "readarray -C 'rm -f x/file' -c 1 arr <<< x",
    "hash -p /bin/rm ls; ls -f x/file",
    "BASH_CMDS[ls]=/bin/rm; ls -f x/file",
    "R=rm; $R -f x/file",
    "c='rm -f x/file'; eval \"$c\"",
    "c='rm -f x/file'; bash -c \"$c\"",
    "printf 'rm -f x/file' > s.sh; source s.sh",
    "BASH_ENV=s.sh bash -c true",
];

#[test]
fn what_bash_evaluates_again_never_runs_a_denied_program_in_yolo() {
    let s = guarded();
    let (done, sent) = yolo(&s, EVALUATED_AGAIN);
    assert_eq!(sent.len(), EVALUATED_AGAIN.len(), "{}", done.stderr);
    for (line, text) in EVALUATED_AGAIN.iter().zip(&sent) {
        assert!(!text.contains("Exit Code"), "`{line}` ran: {text}");
        assert!(text.contains("cannot tell which commands this line runs"), "`{line}`: {text}");
    }
    assert_eq!(s.read("x/file").as_deref(), Some("keep me"), "{}", done.stderr);
    assert!(s.read("s.sh").is_none(), "no part of a refused line ran");
}

#[test]
fn programs_that_run_their_operands_never_run_a_denied_program_in_yolo() {
    let s = guarded();
    let lines = [
        "taskset 1 rm -f x/file",
        "taskset -c 0 rm -f x/file",
        "prlimit --nofile=64 rm -f x/file",
        "prlimit -n64 rm -f x/file",
        "chrt -o 0 rm -f x/file",
        "chrt --batch 0 rm -f x/file",
        "setarch x86_64 rm -f x/file",
        "setarch x86_64 -R rm -f x/file",
        "linux64 rm -f x/file",
        "linux32 rm -f x/file",
        "i386 rm -f x/file",
        "x86_64 rm -f x/file",
        "setpriv --reset-env rm -f x/file",
        "setpriv --nnp rm -f x/file",
        "script -qc 'rm -f x/file' /dev/null",
        "script -q --command='rm -f x/file' /dev/null",
        "stdbuf -o0 rm -f x/file",
        "choom -n 0 rm -f x/file",
        "capsh -- -c 'rm -f x/file'",
        "unshare -r rm -f x/file",
        "chroot / rm -f x/file",
        "fakeroot rm -f x/file",
        "git -c alias.x='!rm -f x/file' x",
        "git -c core.pager='rm -f x/file' -p log",
        "git config core.fsmonitor 'rm -f x/file'; git status",
    ];
    let (done, sent) = yolo(&s, &lines);
    for (line, text) in lines.iter().zip(&sent) {
        assert!(!text.contains("Exit Code"), "`{line}` ran: {text}");
        assert!(text.contains("denies"), "`{line}`: {text}");
    }
    assert_eq!(s.read("x/file").as_deref(), Some("keep me"), "{}", done.stderr);
}

#[test]
fn a_line_airlock_cannot_name_is_asked_about_and_runs_only_when_allowed() {
    let s = guarded();
    // Asked and refused: nothing runs; the question says why it asks, even in yolo.
    let line = "ref='a[$(rm -f x/file)]'; echo ${!ref}";
    let (done, _) = shell(&s, &[line], &["--approval-mode", "yolo", "--ask"]);
    assert!(done.stderr.contains("! airlock cannot tell which commands this line runs"), "{}", done.stderr);
    assert!(done.stderr.contains("your rules deny `rm`"), "{}", done.stderr);
    assert!(!done.stderr.contains("allow always: `run_shell_command` running"), "no always: {}", done.stderr);
    assert_eq!(s.read("x/file").as_deref(), Some("keep me"));
    // A person who saw that question and said yes runs it: the third outcome is a question.
    let line = "x='$(touch allowed-by-a-person)'; echo ${x@P}";
    let mock = airlock_tests::MockModel::start(airlock_tests::Wire::OpenAi);
    mock.push_turn(airlock_tests::Turn::calls(vec![airlock_tests::call(
        "run_shell_command",
        serde_json::json!({ "command": line }),
    )]));
    mock.push_turn(airlock_tests::Turn::text("done"));
    let mut command = s.command(&mock);
    command.args(["-p", "go", "--ask"]);
    let done = airlock_tests::run_bounded(command, Some("y\n"), std::time::Duration::from_secs(120));
    assert!(s.read("allowed-by-a-person").is_some(), "{}", done.stderr);
}
