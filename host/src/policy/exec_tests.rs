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

const ALLOW_LS_DENY_RM: &str = "[[rule]]\ntool = \"run_shell_command\"\ncommand = \"ls\"\ndecision = \"allow\"\n\n\
    [[rule]]\ntool = \"run_shell_command\"\ncommand = \"rm\"\ndecision = \"deny\"\n";

#[test]
fn every_command_allowed_by_a_rule_runs_and_the_first_other_one_is_asked_about() {
    let (_dir, ws, policy) = policy(
        ApprovalMode::Default,
        "[[rule]]\ntool = \"run_shell_command\"\ncommand = \"ls\"\ndecision = \"allow\"\n",
    );
    assert_eq!(judge(&policy, &ws, "ls -la && ls src").verdict, Verdict::Allow);
    let asked = judge(&policy, &ws, "ls && rm -rf x");
    assert_eq!(asked.verdict, Verdict::Ask);
    assert_eq!(asked.ask_about.as_deref(), Some("rm"));
    assert_eq!(asked.ask_command.as_deref(), Some("rm -rf x"));
}

#[test]
fn a_denied_command_anywhere_in_the_line_refuses_it_in_every_mode() {
    for mode in [ApprovalMode::Default, ApprovalMode::Yolo] {
        let (_dir, ws, policy) = policy(mode, ALLOW_LS_DENY_RM);
        for line in ["ls && rm -rf x", "echo $(rm x)", "bash -c 'rm x'", "sudo rm x", "/bin/rm x", "(cd x; rm y)"] {
            assert!(matches!(judge(&policy, &ws, line).verdict, Verdict::Deny(_)), "{mode:?} {line}");
        }
        assert!(!matches!(judge(&policy, &ws, "ls").verdict, Verdict::Deny(_)));
    }
}

#[test]
fn assignments_paths_and_run_time_programs_do_not_get_past_the_rules() {
    let (_dir, ws, policy) = policy(
        ApprovalMode::Default,
        "[[rule]]\ntool = \"run_shell_command\"\ncommand = \"git status\"\ndecision = \"allow\"\n",
    );
    assert_eq!(judge(&policy, &ws, "git status").verdict, Verdict::Allow);
    for line in [
        "GIT_CONFIG_KEY_0=core.fsmonitor git status",
        "git status $(touch x)",
        "$GIT status",
        "git \"status\" ; touch x",
    ] {
        assert_eq!(judge(&policy, &ws, line).verdict, Verdict::Ask, "{line}");
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
fn an_ask_rule_is_not_dodged_by_a_path_or_a_run_time_word() {
    let rules = "[[rule]]\ntool = \"run_shell_command\"\ncommand = \"git push\"\ndecision = \"ask\"\n";
    let (_dir, ws, policy) = policy(ApprovalMode::Yolo, rules);
    for line in ["git push", "/usr/bin/git push", "git push $(echo origin)", "git $(echo push)"] {
        assert_eq!(judge(&policy, &ws, line).verdict, Verdict::Ask, "{line}");
    }
    assert_eq!(judge(&policy, &ws, "git status").verdict, Verdict::Allow);
}
