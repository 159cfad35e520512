//! The command gate on arbitrary lines: bash's reading of the line (`shell::parse`, on
//! tree-sitter's bash grammar), the spawn gate and the question's verdict.
//!
//! Checks: reading is deterministic; the two judges agree on refusing a line under the same
//! deny rules (the question must not approve a line the gate will refuse at its start, nor
//! pass one on that the gate lets through).

use airlock_engine::policy::{ApprovalMode, Verdict};
use airlock_shell as shell;

use crate::judge;

/// The deny rules both judges get.
const DENIED: [&str; 2] = ["rm", "git push"];

pub fn run(data: &[u8]) {
    let line = String::from_utf8_lossy(data);
    let first = shell::parse(&line);
    assert_eq!(first, shell::parse(&line), "the same line read twice reads differently");
    if let Ok(parsed) = &first {
        for command in &parsed.commands {
            let _ = command.display();
            let _ = command.covered_by("git status");
        }
        let _ = parsed.root_command();
    }
    judge::in_workspace(|workspace| {
        let gate = judge::gate(workspace, &line, &DENIED, &[], true);
        let rules = DENIED.map(|prefix| (prefix, "deny"));
        let judged = judge::verdict(workspace, &line, ApprovalMode::Yolo, &rules);
        // The gate of a line nobody was asked about refuses what the question refuses, and
        // what it can only ask a person about (a line airlock cannot name whole).
        let uncertain = judged.view.as_ref().is_some_and(|view| view.uncertain.is_some());
        let verdict = judged.verdict;
        let question_refuses = matches!(verdict, Verdict::Deny(_)) || uncertain;
        assert_eq!(gate.is_err(), question_refuses, "the gate says {gate:?} and the question {verdict:?} for {line:?}");
        let _ = judge::gate(workspace, &line, &[], &["ls", "git status"], false);
        let _ = judge::verdict(workspace, &line, ApprovalMode::Default, &[("ls", "allow"), ("git", "ask")]);
    });
}
