//! Asking the user, engine side. The scheduler hands an [`ApprovalRequest`] to the session's
//! [`Approver`]; in a session that is the engine's own approver (`engine::questions`), which
//! sends the request to the front end as an event and waits for the answer to come back as
//! an order. [`RefuseAll`] is the answer of a run nobody can be asked in (headless without
//! `--ask`). Showing a request to a person is a front end's job (`frontends::ask` for the
//! terminal): every field of it was written by a plugin or the model.

use std::future::Future;
use std::pin::Pin;

use super::ApprovalMode;
use crate::contract::Confirmation;
use crate::sanitize::line;

/// A call waiting for the user.
#[derive(Debug, Clone, PartialEq)]
pub struct ApprovalRequest {
    pub call_id: String,
    pub tool: String,
    pub description: String,
    pub confirmation: Confirmation,
    /// The path the call touches, workspace-relative when inside it (for "always" rules).
    pub path: Option<String>,
    /// Every folder the call will be able to write in if allowed — what the person really
    /// approves, whatever the confirmation claims.
    pub writable: Vec<std::path::PathBuf>,
    /// The call is a third-party plugin's edit bound to its confirmation: `writable` holds
    /// the one file that can change, and only to the content shown; whatever else the call
    /// writes is discarded.
    pub bound: bool,
    /// Everything the call's sandbox will hold if allowed (folders, network, environment,
    /// limits), for the dialog.
    pub sandbox: crate::capability::Held,
    /// For a command line: every command it runs, riskiest first, and what "always" saves.
    pub line: Option<super::LineView>,
}

/// What "allow always" covers.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AlwaysScope {
    /// Every call of the tool.
    Tool,
    /// Commands that start with one of these prefixes (`python3`, `git status`): one rule each,
    /// for the commands of the line the question showed.
    Commands(Vec<String>),
    /// Calls that touch this path.
    File(String),
    /// "Always" is not offered for this question; why.
    Unavailable(String),
}

impl AlwaysScope {
    pub fn describe(&self, tool: &str) -> String {
        match self {
            Self::Tool => format!("every `{}` call", line(tool)),
            Self::Commands(prefixes) => {
                let each: Vec<String> = prefixes.iter().map(|p| format!("`{} …`", line(p))).collect();
                format!("`{}` running {}", line(tool), each.join(" · "))
            }
            Self::File(path) => format!("`{}` on {}", line(tool), line(path)),
            Self::Unavailable(why) => format!("not offered ({})", line(why)),
        }
    }

    /// Whether "always" is offered at all.
    pub fn offered(&self) -> bool {
        !matches!(self, Self::Unavailable(_))
    }
}

/// The user's answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApprovalOutcome {
    /// Run it this once.
    AllowOnce,
    /// Run it, and calls like it without asking: for the session, or saved as a rule in
    /// the user's policy file.
    AllowAlways { scope: AlwaysScope, save: bool },
    /// Run it with the proposed content the user edited (edit confirmations only).
    Modify { proposed: String },
    /// Do not run it; the message says why (for the model).
    Refuse(String),
    /// Cancel this call and the rest of the batch.
    Cancel,
}

/// Who answers a call's approval request: in a session, the engine's questions to its front
/// end; [`RefuseAll`] where nobody can be asked.
pub trait Approver: Send + Sync {
    fn ask(&self, request: ApprovalRequest) -> Pin<Box<dyn Future<Output = ApprovalOutcome> + Send + '_>>;

    /// A call failed for want of what its plugin requested and was never granted: may the
    /// person grant it? Where nobody can be asked, no.
    fn ask_grant(&self, request: GrantRequest) -> Pin<Box<dyn Future<Output = GrantOutcome> + Send + '_>> {
        drop(request);
        Box::pin(async { GrantOutcome::No })
    }
}

/// A grant a failed call could use: only what its plugin requested.
#[derive(Debug, Clone, PartialEq)]
pub struct GrantRequest {
    pub call_id: String,
    pub tool: String,
    pub plugin: String,
    /// What would be granted, one line each.
    pub missing: Vec<String>,
    /// The policy file "always" writes.
    pub policy_file: std::path::PathBuf,
    /// Why it is asked when it is not the plugin's own failure: what the OS sandbox blocked a
    /// command of the call from (`blocked by the sandbox: …`); the call runs again with it.
    pub reason: Option<String>,
}

/// The person's answer to a [`GrantRequest`] (a front end sends it as `engine::GrantAnswer`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GrantOutcome {
    /// For this call only: it runs again with the grant, which reverts after it.
    ThisCall,
    /// For the plugin, for the rest of the session.
    Session,
    /// Written to the policy file, and for the session.
    Always,
    No,
}

/// Headless without `--ask`: nothing waits for input, so every question is answered "no".
#[derive(Debug, Clone, Copy)]
pub struct RefuseAll {
    pub mode: ApprovalMode,
}

impl RefuseAll {
    /// Why `request` is refused, for the model: what the user could do instead.
    pub fn message(&self, request: &ApprovalRequest) -> String {
        if let Some(why) = request.line.as_ref().and_then(|view| view.uncertain.as_deref()) {
            return format!(
                "airlock cannot tell which commands this line runs: {why}. Such a line runs only when a person \
                 allows it, and this non-interactive run cannot ask, so nothing was run. Write every command out \
                 plainly (no variables, substitutions or builtins that evaluate text again), or the user can \
                 re-run with --ask."
            );
        }
        let hint = match &request.confirmation {
            Confirmation::Edit { .. } => "--approval-mode auto-edit (or yolo), or --ask",
            _ => "--approval-mode yolo, or --ask",
        };
        format!(
            "`{}` needs the user's approval, which this non-interactive run (approval mode {}) cannot ask for, \
             so the call was refused and nothing was changed. Do not retry it; the user can re-run with {hint} to allow it.",
            request.tool,
            self.mode.as_str()
        )
    }
}

impl Approver for RefuseAll {
    fn ask(&self, request: ApprovalRequest) -> Pin<Box<dyn Future<Output = ApprovalOutcome> + Send + '_>> {
        let outcome = ApprovalOutcome::Refuse(self.message(&request));
        Box::pin(async move { outcome })
    }
}
