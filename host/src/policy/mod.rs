//! Approval policy: whether a call runs at once, needs the user's approval, or is refused.
//! The decision is the host's, from the tool's kind and the approval mode; a plugin's own
//! `confirm()` only supplies what the user is shown. A tool that is not read-only always
//! needs approval (or a mode that grants it), even if its plugin claims nothing needs
//! confirming: a lying plugin cannot skip the prompt.

use std::future::Future;
use std::pin::Pin;

use serde::{Deserialize, Serialize};

use crate::contract::{Confirmation, Kind};

/// How much runs without asking, least to most permissive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum ApprovalMode {
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
            Self::Default => "default",
            Self::AutoEdit => "auto-edit",
            Self::Yolo => "yolo",
        }
    }
}

/// The policy's verdict on one call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    Allow,
    Ask,
}

/// Decides a call from its kind, the plugin's confirmation (if any) and the mode.
pub fn decide(mode: ApprovalMode, kind: Kind, confirmation: Option<&Confirmation>) -> Decision {
    if mode == ApprovalMode::Yolo {
        return Decision::Allow;
    }
    let is_edit = kind == Kind::Edit || matches!(confirmation, Some(Confirmation::Edit { .. }));
    if kind.is_read_only() && confirmation.is_none() {
        return Decision::Allow;
    }
    if mode == ApprovalMode::AutoEdit && (is_edit || kind.is_read_only()) {
        return Decision::Allow;
    }
    Decision::Ask
}

/// A call waiting for the user.
#[derive(Debug, Clone)]
pub struct ApprovalRequest {
    pub call_id: String,
    pub tool: String,
    pub description: String,
    pub confirmation: Confirmation,
}

/// The user's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApprovalOutcome {
    /// Run it this once.
    AllowOnce,
    /// Do not run it; the message says why (for the model).
    Refuse(String),
    /// Cancel this call and the rest of the batch.
    Cancel,
}

/// The front end that asks the user. Headless refuses; the TUI shows a dialog.
pub trait Approver: Send + Sync {
    fn ask(&self, request: ApprovalRequest) -> Pin<Box<dyn Future<Output = ApprovalOutcome> + Send + '_>>;
}

/// Headless: nothing waits for input, so every question is answered "no" at once.
#[derive(Debug, Clone, Copy)]
pub struct RefuseAll {
    pub mode: ApprovalMode,
}

impl Approver for RefuseAll {
    fn ask(&self, request: ApprovalRequest) -> Pin<Box<dyn Future<Output = ApprovalOutcome> + Send + '_>> {
        let hint = match &request.confirmation {
            Confirmation::Edit { .. } => "--approval-mode auto-edit (or yolo)",
            _ => "--approval-mode yolo",
        };
        let message = format!(
            "`{}` needs the user's approval, which this non-interactive run (approval mode {}) cannot ask for, \
             so the call was refused and nothing was changed. Do not retry it; the user can re-run with {hint} to allow it.",
            request.tool,
            self.mode.as_str()
        );
        Box::pin(async move { ApprovalOutcome::Refuse(message) })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit() -> Confirmation {
        Confirmation::Edit { path: "/w/a".into(), original: String::new(), proposed: "x".into(), is_new_file: true }
    }

    #[test]
    fn read_only_tools_run_in_every_mode() {
        for mode in [ApprovalMode::Default, ApprovalMode::AutoEdit, ApprovalMode::Yolo] {
            assert_eq!(decide(mode, Kind::Read, None), Decision::Allow);
            assert_eq!(decide(mode, Kind::Search, None), Decision::Allow);
        }
    }

    #[test]
    fn edits_ask_in_default_and_run_in_auto_edit() {
        assert_eq!(decide(ApprovalMode::Default, Kind::Edit, Some(&edit())), Decision::Ask);
        assert_eq!(decide(ApprovalMode::AutoEdit, Kind::Edit, Some(&edit())), Decision::Allow);
        assert_eq!(decide(ApprovalMode::Yolo, Kind::Edit, Some(&edit())), Decision::Allow);
    }

    #[test]
    fn a_mutating_tool_that_claims_no_confirmation_still_asks() {
        assert_eq!(decide(ApprovalMode::Default, Kind::Edit, None), Decision::Ask);
        assert_eq!(decide(ApprovalMode::Default, Kind::Execute, None), Decision::Ask);
        assert_eq!(decide(ApprovalMode::AutoEdit, Kind::Execute, None), Decision::Ask);
        assert_eq!(decide(ApprovalMode::Yolo, Kind::Execute, None), Decision::Allow);
    }
}
