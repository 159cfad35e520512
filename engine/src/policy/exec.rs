//! Approving a command line: each command of it is judged on its own, as the gate that
//! starts it will check it ([`airlock_shell`] reads the line as bash does).
//!
//! - a line that cannot be read is refused, as is one whose redirection writes outside the
//!   folders the call may write;
//! - any command a rule denies refuses the whole line;
//! - a line whose commands airlock cannot all name (bash evaluates part of it again when it
//!   runs, a program or script is known only at run time, git's configuration cannot be read
//!   whole) is asked about **in every mode, yolo included**, whatever the rules allow: the
//!   question says why, and where nobody can be asked the call is refused with that reason;
//! - when rules allow every command, the line runs without asking;
//! - otherwise an `ask` rule or the approval mode decides. The question shows every command,
//!   riskiest first ([`LineView`]), and "always" remembers each command no rule allows.
//!
//! A rule's command prefix that allows covers only a command written out whole (no
//! variables, no substitutions, no `NAME=value` before it, no redirection or argument that
//! writes or runs more than its name says); one that denies matches the program by its file
//! name and refuses on a word known only at run time.

use std::path::{Path, PathBuf};

use super::Policy;
use super::line_view::LineView;
use super::mode::{self, Basis, Verdict};
use super::rules::{self, CallFacts, RuleDecision};
use crate::contract::{Confirmation, ToolInfo};
use airlock_shell::{self as shell, repo};

/// The verdict on a command line, and what a question about it shows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecVerdict {
    pub verdict: Verdict,
    /// What the line runs, for the question (every command line that was read).
    pub view: Option<LineView>,
    /// What the verdict rests on.
    pub basis: Basis,
}

impl ExecVerdict {
    pub fn plain((verdict, basis): (Verdict, Basis)) -> Self {
        Self { verdict, view: None, basis }
    }
}

impl Policy {
    /// Judges the command line of an exec confirmation, to run in `directory` by a call that
    /// may write `writable`.
    pub fn exec_verdict(
        &self,
        tool: &ToolInfo,
        facts: &CallFacts<'_>,
        confirmation: &Confirmation,
        directory: &Path,
        writable: &[PathBuf],
    ) -> ExecVerdict {
        let mode = self.mode();
        let Confirmation::Exec { command: line, .. } = confirmation else {
            return ExecVerdict::plain(self.decide(tool, facts, Some(confirmation)));
        };
        if !mode.offers(tool.kind) {
            return ExecVerdict::plain((mode::by_mode(mode, tool.kind, Some(confirmation)), Basis::Mode(mode)));
        }
        let parsed = match shell::parse(line) {
            Ok(parsed) => parsed,
            Err(error) => {
                let why = format!("the command line cannot be checked ({error}); write it more plainly");
                return ExecVerdict::plain((Verdict::Deny(why.clone()), Basis::Host(why)));
            }
        };
        if let Some(redirect) = shell::matching::write_outside(&parsed, directory, writable) {
            let why = format!(
                "`{}` writes outside the folders this call may write; write inside the workspace",
                redirect.text
            );
            return ExecVerdict::plain((Verdict::Deny(why.clone()), Basis::Host(why)));
        }
        let mut decisions = Vec::with_capacity(parsed.commands.len());
        for command in &parsed.commands {
            let facts = CallFacts { command: Some(&command.text), parsed: Some(command), ..*facts };
            let decided = self.with_rules(|rules| {
                rules::deciding(rules, &facts).map(|rule| {
                    let whose = if rule.source == rules::RuleSource::System { "system" } else { "user's" };
                    (
                        rule.decision,
                        format!(
                            "the {whose} policy denies `{}` (rule at {} ({}))",
                            command.text,
                            rule.origin,
                            rule.scope()
                        ),
                        Basis::of_rule(rule),
                    )
                })
            });
            if let Some((RuleDecision::Deny, why, basis)) = &decided {
                return ExecVerdict::plain((Verdict::Deny(format!("{why}; do not retry it")), basis.clone()));
            }
            decisions.push(decided.map(|(decision, _, basis)| (decision, basis)));
        }
        let git = repo::inspect(&parsed, directory);
        let denied = self.denied_commands(facts.tool);
        let uncertain = parsed.uncertainty().or_else(|| git.unknown.clone()).map(|why| {
            if denied.is_empty() {
                why
            } else {
                let rules = denied.iter().map(|p| format!("`{p}`")).collect::<Vec<_>>().join(", ");
                format!("{why} (your rules deny {rules}, and airlock cannot tell whether this line runs it)")
            }
        });
        let allowed = |command: &shell::Command| {
            let at = parsed.commands.iter().position(|c| std::ptr::eq(c, command));
            at.and_then(|at| decisions[at].as_ref().map(|(decision, _)| *decision)) == Some(RuleDecision::Allow)
        };
        let view = LineView::build(line, &parsed, allowed, uncertain.clone(), git.programs.clone());
        let decided = |wanted: RuleDecision| {
            decisions.iter().flatten().find(|(decision, _)| *decision == wanted).map(|(_, basis)| basis.clone())
        };
        let all_allowed = decisions.iter().all(|d| matches!(d, Some((RuleDecision::Allow, _))));
        let (verdict, basis) = if let Some(why) = uncertain {
            (Verdict::Ask, Basis::Host(why))
        } else if all_allowed {
            let basis = decided(RuleDecision::Allow).unwrap_or_else(|| Basis::Host("the line runs no command".into()));
            (Verdict::Allow, basis)
        } else if let Some(basis) = decided(RuleDecision::Ask) {
            (Verdict::Ask, basis)
        } else {
            (mode::by_mode(mode, tool.kind, Some(confirmation)), Basis::Mode(mode))
        };
        ExecVerdict { verdict, view: Some(view), basis }
    }

    /// The command prefixes the rules deny for `tool` (in any source): the gate refuses them
    /// at every start, whatever was approved.
    pub fn denied_commands(&self, tool: &str) -> Vec<String> {
        self.with_rules(|rules| {
            rules
                .filter(|rule| rule.decision == RuleDecision::Deny && rule.tool.as_deref().is_none_or(|t| t == tool))
                .filter_map(|rule| rule.command.clone())
                .collect()
        })
    }
}

#[cfg(test)]
#[path = "exec_tests.rs"]
mod tests;
