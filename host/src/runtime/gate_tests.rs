use std::path::PathBuf;

use super::*;

fn workspace() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let canonical = dir.path().canonicalize().unwrap_or_else(|e| panic!("{e}"));
    (dir, canonical)
}

fn granted(prefixes: &[&str]) -> Gate {
    Gate { prefixes: prefixes.iter().map(|p| p.to_string()).collect(), ..Gate::default() }
}

fn denied(result: Result<(), Refusal>) -> String {
    match result {
        Err(Refusal::Denied(message)) => message,
        other => panic!("not denied: {other:?}"),
    }
}

#[test]
fn a_granted_prefix_covers_only_commands_written_out_whole() {
    let (_dir, ws) = workspace();
    let mut gate = granted(&["echo", "git status"]);
    let writable = [ws.clone()];
    assert_eq!(gate.check("echo hi", &ws, &writable), Ok(()));
    assert_eq!(gate.check("git status --short | echo", &ws, &writable), Ok(()));
    for line in [
        "echo hi; touch x",
        "echo $(touch x)",
        "echo `touch x`",
        "FOO=1 echo hi",
        "git statusx",
        "git -C . status",
        "git push",
        "sh -c 'echo hi'",
        "$CMD hi",
        "echo <(touch x)",
    ] {
        denied(gate.check(line, &ws, &writable));
    }
}

#[test]
fn an_approval_runs_its_line_in_its_folder_once() {
    let (_dir, ws) = workspace();
    let sub = ws.join("sub");
    std::fs::create_dir(&sub).unwrap_or_else(|e| panic!("{e}"));
    let writable = [ws.clone()];
    let mut gate = Gate { approved: Some(("make test".into(), ws.clone())), ..granted(&["*"]) };
    denied(gate.check("make test", &sub, &writable));
    denied(gate.check("make test && rm -rf /", &ws, &writable));
    assert_eq!(gate.check("make test", &ws, &writable), Ok(()));
    let again = denied(gate.check("make test", &ws, &writable));
    assert!(again.contains("approved"), "{again}");
}

#[test]
fn deny_rules_win_over_approvals_and_see_through_paths_and_run_time_programs() {
    let (_dir, ws) = workspace();
    let writable = [ws.clone()];
    for line in ["rm -rf x", "/bin/rm x", "ls && rm x", "echo $(rm x)"] {
        let mut gate = Gate { approved: Some((line.into(), ws.clone())), denied: vec!["rm".into()], ..granted(&["*"]) };
        let message = denied(gate.check(line, &ws, &writable));
        assert!(message.contains("denies `rm`"), "{line}: {message}");
    }
    let mut gate =
        Gate { approved: Some(("$(printf rm) x".into(), ws.clone())), denied: vec!["rm".into()], ..granted(&["*"]) };
    let message = denied(gate.check("$(printf rm) x", &ws, &writable));
    assert!(message.contains("known only when it runs"), "{message}");
    // Without deny rules, the approved line runs.
    let mut gate = Gate { approved: Some(("$(printf ls) x".into(), ws.clone())), ..granted(&["*"]) };
    assert_eq!(gate.check("$(printf ls) x", &ws, &writable), Ok(()));
}

/// Found by the `shell_line` fuzz target: the question approved `b=~x` (it starts no
/// program) and the gate then refused it as "a program known only when it runs".
#[test]
fn an_assignment_on_its_own_passes_deny_rules_as_the_question_lets_it() {
    let (_dir, ws) = workspace();
    let writable = [ws.clone()];
    for line in ["b=~prh!Acin", "x=1; echo $x", "A=$(date) B=2"] {
        let mut gate = Gate { approved: Some((line.into(), ws.clone())), denied: vec!["rm".into()], ..granted(&["*"]) };
        assert_eq!(gate.check(line, &ws, &writable), Ok(()), "{line}");
    }
    for line in ["x=1; $x", "A=1 $(echo rm) x", "x=$(rm y)"] {
        let mut gate = Gate { approved: Some((line.into(), ws.clone())), denied: vec!["rm".into()], ..granted(&["*"]) };
        denied(gate.check(line, &ws, &writable));
    }
}

#[test]
fn redirections_may_write_only_inside_the_writable_folders() {
    let (_dir, ws) = workspace();
    let outside = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    std::os::unix::fs::symlink(outside.path(), ws.join("out")).unwrap_or_else(|e| panic!("{e}"));
    let writable = [ws.clone()];
    let mut gate = granted(&["echo", "cat"]);
    for line in ["echo hi > notes.txt", "echo hi >> sub/new.txt", "echo hi > /dev/null 2>&1", "cat < /etc/hostname"] {
        assert_eq!(gate.check(line, &ws, &writable), Ok(()), "{line}");
    }
    for line in [
        "echo hi > ../escaped",
        "echo hi > /tmp/escaped",
        "echo hi > out/through-link",
        "echo hi &> /etc/x",
        "echo hi > $TARGET",
        "echo hi > ~/x",
        "echo $(echo hi > /tmp/x)",
    ] {
        let message = denied(gate.check(line, &ws, &writable));
        assert!(message.contains("writes"), "{line}: {message}");
    }
    // Nothing is writable: every file redirection is refused.
    denied(gate.check("echo hi > notes.txt", &ws, &[]));
}

#[test]
fn a_line_that_cannot_be_read_is_refused() {
    let (_dir, ws) = workspace();
    let mut gate = granted(&["echo"]);
    for line in ["echo $(", "echo 'open", "echo hi &&"] {
        assert!(matches!(gate.check(line, &ws, std::slice::from_ref(&ws)), Err(Refusal::Unreadable(_))), "{line}");
    }
}
