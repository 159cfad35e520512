//! Approving a command line: each command of it is judged on its own, as the gate that
//! starts it will check it ([`crate::shell`] reads the line as bash does).
//!
//! - a line that cannot be read is refused, as is one whose redirection writes outside the
//!   folders the call may write;
//! - any command a rule denies refuses the whole line;
//! - when rules allow every command, the line runs without asking;
//! - otherwise an `ask` rule or the approval mode decides, and the person is asked about the
//!   first command no rule allows (`ls && rm -rf x` with `ls` allowed asks about `rm`), so
//!   "always" remembers that command's program.
//!
//! A rule's command prefix that allows covers only a command written out whole (no
//! variables, no substitutions, no `NAME=value` before it); one that denies matches the
//! program by its file name and refuses on a word known only at run time.

use std::path::{Path, PathBuf};

use super::Policy;
use super::mode::{self, Verdict};
use super::rules::{self, CallFacts, RuleDecision};
use crate::contract::{Confirmation, ToolInfo};
use crate::shell;

/// The verdict on a command line, and what a question is about.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecVerdict {
    pub verdict: Verdict,
    /// The program of the first command no rule allows: what "always" would remember.
    pub ask_about: Option<String>,
    /// That command's text, to show.
    pub ask_command: Option<String>,
}

impl ExecVerdict {
    fn plain(verdict: Verdict) -> Self {
        Self { verdict, ask_about: None, ask_command: None }
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
            return ExecVerdict::plain(self.verdict(tool, facts, Some(confirmation)));
        };
        if !mode.offers(tool.kind) {
            return ExecVerdict::plain(mode::by_mode(mode, tool.kind, Some(confirmation)));
        }
        let parsed = match shell::parse(line) {
            Ok(parsed) => parsed,
            Err(error) => {
                return ExecVerdict::plain(Verdict::Deny(format!(
                    "the command line cannot be checked ({error}); write it more plainly"
                )));
            }
        };
        if let Some(redirect) = shell::matching::write_outside(&parsed, directory, writable) {
            return ExecVerdict::plain(Verdict::Deny(format!(
                "`{}` writes outside the folders this call may write; write inside the workspace",
                redirect.text
            )));
        }
        let mut undecided: Option<&shell::Command> = None;
        let mut ask_rule = false;
        let has_deny_rules = !self.denied_commands(facts.tool).is_empty();
        for command in &parsed.commands {
            // A deny rule cannot see a program named only when the line runs: refuse it.
            if has_deny_rules && command.program().is_none() && !command.words.is_empty() {
                return ExecVerdict::plain(Verdict::Deny(format!(
                    "`{}` starts a program known only when it runs, and the user's policy denies some \
                     commands of this tool; name the program",
                    command.text
                )));
            }
            let facts = CallFacts { command: Some(&command.text), parsed: Some(command), ..*facts };
            let decided = self.with_rules(|rules| {
                rules::deciding(rules, &facts)
                    .map(|rule| (rule.decision, format!("{} ({})", rule.origin, rule.scope())))
            });
            match decided {
                Some((RuleDecision::Deny, rule)) => {
                    return ExecVerdict::plain(Verdict::Deny(format!(
                        "the user's policy denies `{}` (rule at {rule}); do not retry it",
                        command.text
                    )));
                }
                Some((RuleDecision::Allow, _)) => {}
                Some((RuleDecision::Ask, _)) => {
                    ask_rule = true;
                    undecided.get_or_insert(command);
                }
                None => {
                    undecided.get_or_insert(command);
                }
            }
        }
        let Some(first) = undecided else {
            return ExecVerdict::plain(Verdict::Allow);
        };
        let verdict = if ask_rule { Verdict::Ask } else { mode::by_mode(mode, tool.kind, Some(confirmation)) };
        ExecVerdict { verdict, ask_about: first.program().map(str::to_string), ask_command: Some(first.text.clone()) }
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
