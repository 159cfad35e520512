//! Approval modes and what each decides when no rule does. The decision is the host's,
//! from the tool's kind: a tool that is not read-only always needs approval (or a mode that
//! grants it), even if its plugin claims nothing needs confirming, so a lying plugin cannot
//! skip the prompt.

use serde::{Deserialize, Serialize};

use super::rules::{RuleDecision, RuleSource};
use crate::contract::{Confirmation, Kind};

/// How much runs without asking, least to most permissive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum ApprovalMode {
    /// Read-only tools only; the others are not offered to the model.
    Plan,
    /// Read-only tools run; everything else asks.
    Default,
    /// File edits are approved too; other changes ask.
    AutoEdit,
    /// Everything is approved.
    Yolo,
}

impl ApprovalMode {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Plan => "plan",
            Self::Default => "default",
            Self::AutoEdit => "auto-edit",
            Self::Yolo => "yolo",
        }
    }

    /// Whether a tool of `kind` may be offered at all.
    pub fn offers(self, kind: Kind) -> bool {
        self != Self::Plan || kind.is_read_only()
    }
}

/// The policy's verdict on one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    Allow,
    Ask,
    /// Refused; the message says why and what would change it.
    Deny(String),
}

/// What a verdict rests on: the rule that decided, the mode, the kind's default, or
/// airlock's own check. It says why; it never changes what was decided.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Basis {
    /// `origin` is where the rule was written (`file:line`, or `this session`).
    Rule {
        source: RuleSource,
        origin: String,
        scope: String,
        decision: RuleDecision,
    },
    Mode(ApprovalMode),
    /// A read-only kind that shows nothing to confirm: allowed in every mode but plan's
    /// limits.
    Default(Kind),
    /// airlock's own reading of the call (a command line it cannot read or name whole, a
    /// write outside the call's folders).
    Host(String),
}

impl Basis {
    pub(super) fn of_rule(rule: &super::rules::Rule) -> Self {
        Self::Rule { source: rule.source, origin: rule.origin.clone(), scope: rule.scope(), decision: rule.decision }
    }
}

/// What [`by_mode`]'s decision rests on.
pub fn basis_by_mode(mode: ApprovalMode, kind: Kind, confirmation: Option<&Confirmation>) -> Basis {
    if mode != ApprovalMode::Yolo && mode.offers(kind) && kind.is_read_only() && confirmation.is_none() {
        return Basis::Default(kind);
    }
    Basis::Mode(mode)
}

/// The mode's decision for a call that no rule decided.
pub fn by_mode(mode: ApprovalMode, kind: Kind, confirmation: Option<&Confirmation>) -> Verdict {
    if !mode.offers(kind) {
        return Verdict::Deny(format!(
            "plan mode runs read-only tools only; this {} tool is not available until the user leaves plan mode",
            kind.as_str()
        ));
    }
    if mode == ApprovalMode::Yolo {
        return Verdict::Allow;
    }
    // Only an edit the user can see — a confirmation naming the file and its new content —
    // counts as one: the host then binds the execution to that file's folder. A tool of kind
    // `edit` that shows nothing is not approved by auto-edit.
    let is_edit = matches!(confirmation, Some(Confirmation::Edit { .. }));
    if kind.is_read_only() && confirmation.is_none() {
        return Verdict::Allow;
    }
    if mode == ApprovalMode::AutoEdit && (is_edit || kind.is_read_only()) {
        return Verdict::Allow;
    }
    Verdict::Ask
}

#[cfg(test)]
#[path = "mode_tests.rs"]
mod tests;
