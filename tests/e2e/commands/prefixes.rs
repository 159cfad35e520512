//! An approved prefix runs only what it names (issue 23, item 3), through the real binary: a
//! rule allowing `git status` (or `find`, `sed -n`, `git log`) does not cover a redirection or
//! an argument that writes or runs; a repository whose `.git/config` names programs does not get
//! them run by a `git status` nobody was asked about; a person asked is shown them.

use std::process::Command;

use super::shell::{shell, yolo};
use super::{session, write_policy};

/// A git repository in the workspace with one commit, a changed file and `victim` to protect.
pub(super) fn repository(s: &airlock_tests::Session) {
    let git = |args: &[&str]| {
        let done = Command::new("git")
            .args(["-c", "user.name=t", "-c", "user.email=t@t", "-c", "core.hooksPath=/dev/null"])
            .args(args)
            .current_dir(&s.workspace)
            .env("HOME", &s.workspace)
            .output()
            .unwrap_or_else(|e| panic!("git: {e}"));
        assert!(done.status.success(), "git {args:?}: {}", String::from_utf8_lossy(&done.stderr));
    };
    s.write("notes.txt", "one\ntwo\n");
    s.write("victim", "keep me");
    git(&["init", "-q", "."]);
    git(&["add", "notes.txt", "victim"]);
    git(&["commit", "-qm", "first"]);
    s.write("notes.txt", "one\ntwo\nthree\n");
}

fn rules(prefixes: &[&str]) -> String {
    prefixes
        .iter()
        .map(|p| format!("[[rule]]\ntool = \"run_shell_command\"\ncommand = \"{p}\"\ndecision = \"allow\"\n\n"))
        .collect()
}

#[test]
fn a_prefix_rule_does_not_cover_what_writes_or_runs_beyond_its_name() {
    let s = session();
    repository(&s);
    write_policy(&s, &rules(&["git status", "git log", "git diff", "find", "sed -n", "sort", "rg"]));
    // What the rules cover runs without asking, in default mode with nobody to ask.
    let (done, sent) = shell(&s, &["git status --short", "find . -name notes.txt", "sed -n 1p notes.txt"], &[]);
    for text in &sent {
        assert!(text.contains("Exit Code: 0"), "{text}\n{}", done.stderr);
    }
    let beyond = [
        "git status > victim",
        "git status --short >> victim",
        "{ git status; } > victim",
        "git log --output=victim -1",
        "git log --out victim -1",
        "git diff --output=victim",
        "find . -name victim -delete",
        "find . -fprint victim",
        "find . -fls victim",
        "find . -name victim -exec rm {} +",
        "sed -n 'w victim' notes.txt",
        "sed -n '1W victim' notes.txt",
        "sed -n 's/one/x/w victim' notes.txt",
        "sed -n '1e rm -f victim' notes.txt",
        "sed -n 's/.*/rm -f victim/e' notes.txt",
        "sort -o victim notes.txt",
        "sort -uo victim notes.txt",
        "rg --pre ./victim one",
    ];
    let (done, sent) = shell(&s, &beyond, &[]);
    for (line, text) in beyond.iter().zip(&sent) {
        assert!(!text.contains("Exit Code"), "`{line}` ran: {text}");
    }
    assert_eq!(s.read("victim").as_deref(), Some("keep me"), "{}", done.stderr);
}

/// `.git/config` settings that make a plain `git status`, `git diff` or an alias run a program.
const HOSTILE_CONFIG: &str = "[core]\n\tfsmonitor = touch fsmonitor-ran\n\tpager = touch pager-ran\n\
    [diff]\n\texternal = touch external-ran\n[diff \"evil\"]\n\ttextconv = touch textconv-ran; cat\n\
    [filter \"evil\"]\n\tclean = touch clean-ran; cat\n[alias]\n\tst = !touch alias-ran\n";

pub(super) fn arm(s: &airlock_tests::Session) {
    let config = s.workspace.join(".git/config");
    let mut text = std::fs::read_to_string(&config).unwrap_or_else(|e| panic!("{e}"));
    text.push_str(HOSTILE_CONFIG);
    std::fs::write(&config, text).unwrap_or_else(|e| panic!("{e}"));
    s.write(".gitattributes", "*.txt diff=evil filter=evil\n");
    s.write(".git/hooks/pre-commit", "#!/bin/sh\ntouch hook-ran\n");
    let hook = s.workspace.join(".git/hooks/pre-commit");
    std::fs::set_permissions(&hook, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .unwrap_or_else(|e| panic!("{e}"));
}

pub(super) const MARKERS: &[&str] =
    &["fsmonitor-ran", "pager-ran", "external-ran", "textconv-ran", "clean-ran", "alias-ran", "hook-ran"];

#[test]
fn a_repositorys_programs_do_not_run_for_git_commands_nobody_was_asked_about() {
    let s = session();
    repository(&s);
    arm(&s);
    // Yolo: nobody is asked, so git runs with the repository's programs switched off.
    let lines = [
        "git status",
        "git diff",
        "git log -p -1",
        "git st",
        "git add notes.txt",
        "git -c user.name=t -c user.email=t@t commit -qm second",
    ];
    let (done, sent) = yolo(&s, &lines);
    assert!(sent[0].contains("Exit Code: 0") && sent[0].contains("notes.txt"), "{}\n{}", sent[0], done.stderr);
    for marker in MARKERS {
        assert!(s.read(marker).is_none(), "{marker} ran: {sent:?}");
    }
    // Allowed by a rule: the same.
    write_policy(&s, &rules(&["git status"]));
    let (_, sent) = shell(&s, &["git status"], &[]);
    assert!(sent[0].contains("Exit Code: 0"), "{}", sent[0]);
    assert!(s.read("fsmonitor-ran").is_none());
}

#[test]
fn a_person_asked_about_a_git_line_is_shown_what_the_repository_runs() {
    let s = session();
    repository(&s);
    arm(&s);
    let mock = airlock_tests::MockModel::start(airlock_tests::Wire::OpenAi);
    let call = airlock_tests::call("run_shell_command", serde_json::json!({ "command": "git status" }));
    mock.push_turn(airlock_tests::Turn::calls(vec![call]));
    mock.push_turn(airlock_tests::Turn::text("done"));
    let mut command = s.command(&mock);
    command.args(["-p", "go", "--ask"]);
    let done = airlock_tests::run_bounded(command, Some("y\n"), std::time::Duration::from_secs(120));
    assert!(done.stderr.contains("git here runs programs this repository names"), "{}", done.stderr);
    assert!(done.stderr.contains("core.fsmonitor = touch fsmonitor-ran"), "{}", done.stderr);
    assert!(done.stderr.contains("hook pre-commit"), "{}", done.stderr);
    // The person allowed the line having read that: git runs as the repository says.
    assert!(s.read("fsmonitor-ran").is_some(), "{}", done.stderr);
}
