use std::path::PathBuf;

use super::*;
use crate::capability::Roots;
use crate::contract::{Capabilities, Kind, Risk};
use crate::policy::ApprovalMode;
use crate::policy::file::parse;
use crate::policy::rules::RuleSource;

fn tool() -> ToolInfo {
    ToolInfo {
        name: "run_shell_command".into(),
        display_name: "Shell".into(),
        description: String::new(),
        parameters: serde_json::json!({"type": "object"}),
        kind: Kind::Execute,
        streams_output: true,
        parallel_safe: false,
        capabilities: Capabilities::default(),
    }
}

fn policy(mode: ApprovalMode, rules: &str) -> (tempfile::TempDir, PathBuf, Policy) {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let ws = dir.path().canonicalize().unwrap_or_else(|e| panic!("{e}"));
    let file =
        parse(&ws.join("policy.toml"), rules.as_bytes().to_vec(), RuleSource::User).unwrap_or_else(|e| panic!("{e}"));
    let roots = Roots { workspace: ws.clone(), home: None, memory: None };
    (dir, ws, Policy::new(mode, roots, file))
}

fn judge(policy: &Policy, ws: &PathBuf, line: &str) -> ExecVerdict {
    let exec = Confirmation::Exec {
        command: line.into(),
        root_command: String::new(),
        directory: ws.display().to_string(),
        risk: Risk::Low,
    };
    let facts = CallFacts { tool: "run_shell_command", command: Some(line), ..CallFacts::default() };
    policy.exec_verdict(&tool(), &facts, &exec, ws, std::slice::from_ref(ws))
}

fn rule(command: &str, decision: &str) -> String {
    format!("[[rule]]\ntool = \"run_shell_command\"\ncommand = \"{command}\"\ndecision = \"{decision}\"\n\n")
}

const ALLOW_LS_DENY_RM: &str = "[[rule]]\ntool = \"run_shell_command\"\ncommand = \"ls\"\ndecision = \"allow\"\n\n\
    [[rule]]\ntool = \"run_shell_command\"\ncommand = \"rm\"\ndecision = \"deny\"\n";

#[test]
fn every_command_allowed_by_a_rule_runs_and_the_riskiest_is_named_first() {
    let (_dir, ws, policy) = policy(ApprovalMode::Default, &rule("ls", "allow"));
    assert_eq!(judge(&policy, &ws, "ls -la && ls src").verdict, Verdict::Allow);
    let asked = judge(&policy, &ws, "ls && rm -rf x");
    assert_eq!(asked.verdict, Verdict::Ask);
    let view = asked.view.unwrap_or_default();
    assert_eq!(view.commands[0].text, "rm -rf x");
    assert!(view.commands[1].allowed);
    assert_eq!(view.always, ["rm"]);
    assert_eq!(view.riskiest_program(), "rm");
}

#[test]
fn a_denied_command_anywhere_in_the_line_refuses_it_in_every_mode() {
    for mode in [ApprovalMode::Default, ApprovalMode::Yolo] {
        let (_dir, ws, policy) = policy(mode, ALLOW_LS_DENY_RM);
        for line in [
            "ls && rm -rf x",
            "echo $(rm x)",
            "bash -c 'rm x'",
            "sudo rm x",
            "/bin/rm x",
            "(cd x; rm y)",
            "taskset 1 rm x",
            "prlimit --nofile=64 rm x",
            "chrt -o 0 rm x",
            "setarch x86_64 -R rm x",
            "linux64 rm x",
            "setpriv --reset-env rm x",
            "script -qc 'rm x' /dev/null",
            "git -c core.fsmonitor='rm x' status",
            "git config diff.evil.textconv 'rm x'",
        ] {
            assert!(matches!(judge(&policy, &ws, line).verdict, Verdict::Deny(_)), "{mode:?} {line}");
        }
        assert!(!matches!(judge(&policy, &ws, "ls").verdict, Verdict::Deny(_)));
    }
}

#[test]
fn a_line_airlock_cannot_name_whole_is_asked_about_in_every_mode_whatever_the_rules() {
    // A rule allowing every command of the tool, and one denying `rm`: neither is passed silently.
    let rules = format!("[[rule]]\ntool = \"run_shell_command\"\ndecision = \"allow\"\n\n{}", rule("rm", "deny"));
    for mode in [ApprovalMode::Default, ApprovalMode::AutoEdit, ApprovalMode::Yolo] {
        let (_dir, ws, policy) = policy(mode, &rules);
        for line in [
            "printf -v 'a[$(rm -f x)]' 1",
            "declare 'a[$(rm -f x)]=1'",
            "let 'a[$(rm -f x)]=1'",
            "read 'a[$(rm -f x)]' <<< 1",
            "unset 'a[$(rm -f x)]'",
            "x='a[$(rm -f x)]'; [ -v \"$x\" ]",
            "test -v 'a[$(rm -f x)]'",
            "declare x='a[$(rm -f x)]'; echo $((x))",
            "read x <<< 'a[$(rm -f x)]'; echo $((x))",
            "ref='a[$(rm -f x)]'; echo ${!ref}",
            "x='$(rm -f x)'; echo ${x@P}",
            "PS4='$(rm -f x)'; set -x; true",
            "mapfile -C 'rm -f' -c 1 a <<< x",
            "hash -p /bin/rm ls; ls -f x",
            "R=rm; $R -f x",
            "eval \"$C\"",
        ] {
            let verdict = judge(&policy, &ws, line);
            assert_eq!(verdict.verdict, Verdict::Ask, "{mode:?} {line}");
            let view = verdict.view.unwrap_or_default();
            let why = view.uncertain.unwrap_or_default();
            assert!(why.contains("`rm`"), "the question names the deny rule: {line}: {why}");
            assert!(view.always.is_empty(), "{line}");
        }
    }
}

#[test]
fn assignments_paths_and_run_time_programs_do_not_get_past_the_rules() {
    let (_dir, ws, policy) = policy(ApprovalMode::Default, &rule("git status", "allow"));
    assert_eq!(judge(&policy, &ws, "git status").verdict, Verdict::Allow);
    for line in [
        "GIT_CONFIG_KEY_0=core.fsmonitor git status",
        "git status $(touch x)",
        "$GIT status",
        "git \"status\" ; touch x",
        "git status > victim",
        "git status && git log --output=victim",
    ] {
        assert_eq!(judge(&policy, &ws, line).verdict, Verdict::Ask, "{line}");
    }
}

#[test]
fn a_prefix_rule_covers_the_command_not_what_writes_or_runs_beyond_its_name() {
    let rules = ["find", "sed -n", "git log", "git diff", "rg", "sort"].map(|p| rule(p, "allow")).concat();
    let (_dir, ws, policy) = policy(ApprovalMode::Default, &rules);
    for line in ["find . -name '*.rs'", "sed -n 1,5p f", "git log -p -1", "git diff --stat", "rg -n x src", "sort -u f"]
    {
        assert_eq!(judge(&policy, &ws, line).verdict, Verdict::Allow, "{line}");
    }
    for line in [
        "find . -delete",
        "find . -name x -fprint out",
        "find . -exec touch {} +",
        "sed -n 'e touch x' f",
        "sed -n 'w out' f",
        "sed -n '1W out' f",
        "sed -n 's/a/b/e' f",
        "git log --output=out",
        "git diff --ext-diff",
        "rg --pre ./x y",
        "sort -o out f",
        "find . > out",
    ] {
        let verdict = judge(&policy, &ws, line);
        assert_eq!(verdict.verdict, Verdict::Ask, "{line}");
        assert!(verdict.view.unwrap_or_default().always.is_empty(), "{line}");
    }
}

#[test]
fn yolo_runs_what_no_rule_decides_and_a_write_outside_is_refused_first() {
    let (_dir, ws, policy) = policy(ApprovalMode::Yolo, "");
    assert_eq!(judge(&policy, &ws, "make && make test").verdict, Verdict::Allow);
    for line in ["echo x > /etc/passwd-x", "echo x > ../up", "echo x >> $F"] {
        assert!(matches!(judge(&policy, &ws, line).verdict, Verdict::Deny(_)), "{line}");
    }
    assert!(matches!(judge(&policy, &ws, "echo $(").verdict, Verdict::Deny(_)));
}

#[test]
fn the_question_warns_of_what_the_repositorys_git_configuration_runs() {
    let (_dir, ws, policy) = policy(ApprovalMode::Default, "");
    std::fs::create_dir_all(ws.join(".git")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(ws.join(".git/config"), "[core]\n\tfsmonitor = \"touch ran\"\n").unwrap_or_else(|e| panic!("{e}"));
    let view = judge(&policy, &ws, "git status").view.unwrap_or_default();
    assert_eq!(view.repo_programs, ["core.fsmonitor = touch ran"]);
    // Not a line that runs git: nothing to say.
    assert!(judge(&policy, &ws, "ls").view.unwrap_or_default().repo_programs.is_empty());
}

#[test]
fn an_ask_rule_is_not_dodged_by_a_path_or_a_run_time_word() {
    let (_dir, ws, policy) = policy(ApprovalMode::Yolo, &rule("git push", "ask"));
    for line in ["git push", "/usr/bin/git push", "git push $(echo origin)", "git $(echo push)"] {
        assert_eq!(judge(&policy, &ws, line).verdict, Verdict::Ask, "{line}");
    }
    assert_eq!(judge(&policy, &ws, "git status").verdict, Verdict::Allow);
}
