//! The command-safety corpus (`gate_corpus.toml`): lines from OpenAI Codex's and Gemini CLI's
//! command-safety tests, and the review's, each judged by the approval verdict airlock reaches
//! (`Policy::exec_verdict`, in the case's approval mode, under its allow and deny rules) and by the
//! spawn gate of a plugin granted the allow list as prefixes (`runtime::Gate`, nobody asked).
//! Every mismatch is listed with its line and where it came from.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use airlock_engine::capability::Roots;
use airlock_engine::contract::{Capabilities, Confirmation, Kind, Risk, ToolInfo};
use airlock_engine::policy::rules::{CallFacts, RuleSource};
use airlock_engine::policy::{ApprovalMode, Policy, Verdict};
use airlock_engine::runtime::Gate;
use serde::Deserialize;

#[derive(Deserialize)]
struct Corpus {
    rules: BTreeMap<String, RuleSet>,
    case: Vec<Case>,
}

#[derive(Deserialize, Default)]
struct RuleSet {
    #[serde(default)]
    allow: Vec<String>,
    #[serde(default)]
    deny: Vec<String>,
}

#[derive(Deserialize)]
struct Case {
    line: String,
    source: String,
    rules: String,
    #[serde(default)]
    mode: Option<String>,
    expect: String,
    #[serde(default)]
    gate: Option<String>,
}

const TOOL: &str = "run_shell_command";

fn policy_text(rules: &RuleSet) -> String {
    let rule = |command: &String, decision: &str| {
        format!("[[rule]]\ntool = \"{TOOL}\"\ncommand = {command:?}\ndecision = \"{decision}\"\n\n")
    };
    rules.allow.iter().map(|c| rule(c, "allow")).chain(rules.deny.iter().map(|c| rule(c, "deny"))).collect()
}

fn tool() -> ToolInfo {
    ToolInfo {
        name: TOOL.into(),
        display_name: "Shell".into(),
        description: String::new(),
        parameters: serde_json::json!({"type": "object"}),
        kind: Kind::Execute,
        streams_output: true,
        parallel_safe: false,
        capabilities: Capabilities::default(),
    }
}

/// The approval verdict on `line`, as `allow`, `ask` or `deny`.
fn verdict(ws: &Path, rules: &RuleSet, mode: ApprovalMode, line: &str) -> String {
    let text = policy_text(rules);
    let file = airlock_engine::policy::file::parse(&ws.join("policy.toml"), text.into_bytes(), RuleSource::User)
        .unwrap_or_else(|e| panic!("the corpus's rules: {e}"));
    let roots = Roots { workspace: ws.to_path_buf(), home: None, memory: None };
    let policy = Policy::new(mode, roots, file);
    let exec = Confirmation::Exec {
        command: line.into(),
        root_command: String::new(),
        directory: ws.display().to_string(),
        risk: Risk::Low,
    };
    let facts = CallFacts { tool: TOOL, command: Some(line), ..CallFacts::default() };
    match policy.exec_verdict(&tool(), &facts, &exec, ws, &[ws.to_path_buf()]).verdict {
        Verdict::Allow => "allow".into(),
        Verdict::Ask => "ask".into(),
        Verdict::Deny(_) => "deny".into(),
    }
}

/// Whether a plugin granted the allow list as prefixes may start `line`.
fn gate(ws: &Path, rules: &RuleSet, line: &str) -> String {
    let mut gate = Gate { prefixes: rules.allow.clone(), approved: None, denied: rules.deny.clone() };
    match gate.check(line, ws, &[ws.to_path_buf()], false) {
        Ok(_) => "runs".into(),
        Err(_) => "refused".into(),
    }
}

#[test]
fn every_line_of_the_command_safety_corpus_gets_its_decision() {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/e2e/commands/gate_corpus.toml");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let corpus: Corpus = toml::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    assert!(corpus.case.len() >= 100, "the corpus holds {} lines", corpus.case.len());
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let ws = dir.path().canonicalize().unwrap_or_else(|e| panic!("{e}"));
    let mut mismatches = Vec::new();
    for case in &corpus.case {
        let rules = corpus.rules.get(&case.rules).unwrap_or_else(|| panic!("no rule set `{}`", case.rules));
        let mode = match case.mode.as_deref() {
            None | Some("default") => ApprovalMode::Default,
            Some("yolo") => ApprovalMode::Yolo,
            Some(other) => panic!("unknown mode {other}"),
        };
        let got = verdict(&ws, rules, mode, &case.line);
        if got != case.expect {
            mismatches.push(format!(
                "{:?} ({}, rules {}): expected {}, got {got}",
                case.line, case.source, case.rules, case.expect
            ));
        }
        let wanted = case.gate.clone().or_else(|| {
            (mode == ApprovalMode::Default).then(|| if case.expect == "allow" { "runs" } else { "refused" }.to_string())
        });
        if let Some(wanted) = wanted {
            let got = gate(&ws, rules, &case.line);
            if got != wanted {
                mismatches.push(format!(
                    "{:?} ({}, granted {:?}): the spawn gate {got}, expected {wanted}",
                    case.line, case.source, rules.allow
                ));
            }
        }
    }
    assert!(
        mismatches.is_empty(),
        "{} of {} lines decided otherwise:\n{}",
        mismatches.len(),
        corpus.case.len(),
        mismatches.join("\n")
    );
}
