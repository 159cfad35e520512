//! What the audit trail is told of each call ([`crate::audit`]): who the call was (tool,
//! plugin and its digest, the grant it held, its arguments' digest), who decided it, and how
//! it ended. A call carries its [`Witness`] from validation on; [`super::finish`] writes the
//! `call` record from it before the call's terminal event is sent, so the record exists
//! before anyone — the front end or the model — is told the call's outcome.

use std::sync::Arc;

use super::sandboxing::Access;
use crate::audit::record::{Call, GrantChange, GrantRecord};
use crate::audit::{Approval, Body, Trail};
use crate::contract::{Kind, ToolError};
use crate::events::{CallCost, CallStatus, EventSink};
use crate::policy::{ApprovalOutcome, Basis};
use crate::registry::RegisteredTool;
use airlock_model::FunctionCall;

/// A call's audit context: the trail it is recorded to and what is known of it so far.
#[derive(Debug, Clone, Default)]
pub(super) struct Witness {
    pub trail: Option<Arc<Trail>>,
    pub plugin: String,
    pub digest: String,
    pub grant: GrantRecord,
    /// The sha-256 of the arguments as validated; `None`: of the call's arguments as given.
    pub args_sha256: Option<String>,
    pub approval: Approval,
    /// What `before_tool` hooks did to the call (kept whether or not a trail is).
    pub hooks: Vec<airlock_protocol::hook::HookNote>,
}

impl Witness {
    /// A call of a plugin's `tool`, holding `access`.
    pub fn plugin(trail: Option<Arc<Trail>>, tool: &RegisteredTool, access: &Access) -> Self {
        // With the trail off, nothing is gathered: the call pays nothing for it.
        let Some(trail) = trail else { return Self::default() };
        Self {
            trail: Some(trail),
            plugin: tool.plugin.info.name.clone(),
            digest: tool.plugin.source.content_hash.clone(),
            grant: GrantRecord::of(&access.effective, &access.limits),
            ..Self::default()
        }
    }

    /// The arguments as validated (or as the person edited them).
    pub fn set_args(&mut self, args: &str) {
        if self.trail.is_some() {
            self.args_sha256 = Some(crate::audit::record::digest(args.as_bytes()));
        }
    }

    /// The grant a call holds after a person widened it.
    pub fn set_grant(&mut self, access: &Access) {
        if self.trail.is_some() {
            self.grant = GrantRecord::of(&access.effective, &access.limits);
        }
    }

    /// Writes the call's record, before its end is reported.
    pub fn record(
        &self,
        call: &FunctionCall,
        status: CallStatus,
        result: &Result<crate::contract::ToolOutput, ToolError>,
        cost: CallCost,
        events: &EventSink,
    ) {
        let Some(trail) = &self.trail else { return };
        let args_sha256 = match &self.args_sha256 {
            Some(digest) => digest.clone(),
            None => crate::audit::record::digest(call.arguments.as_bytes()),
        };
        let record = Call {
            id: call.id.clone(),
            tool: call.name.clone(),
            plugin: self.plugin.clone(),
            digest: self.digest.clone(),
            grant: self.grant.clone(),
            args_sha256,
            approval: self.approval.clone(),
            hooks: self.hooks.clone(),
            status,
            error: result.as_ref().err().map(|error| error.kind.as_str().to_owned()),
            cost,
        };
        trail.record(&Body::Call(Box::new(record)), events);
    }
}

/// Who decided, from what the policy's verdict rests on.
pub(super) fn by_basis(basis: &Basis) -> Approval {
    match basis {
        Basis::Rule { source, origin, scope, decision } => {
            // A rule read from a file says where as `file:line`.
            let (file, line) = match origin.rsplit_once(':').map(|(file, line)| (file, line.parse::<u64>())) {
                Some((file, Ok(line))) => (file.to_owned(), Some(line)),
                _ => (origin.clone(), None),
            };
            Approval::Rule {
                source: source.as_str().to_owned(),
                file,
                line,
                scope: scope.clone(),
                decision: decision.as_str().to_owned(),
            }
        }
        Basis::Mode(mode) => Approval::Mode { mode: mode.as_str().to_owned() },
        Basis::Default(kind) => Approval::Default { kind: kind_name(*kind) },
        Basis::Host(reason) => Approval::Host { reason: reason.clone() },
    }
}

fn kind_name(kind: Kind) -> String {
    kind.as_str().to_owned()
}

/// Who decided, from the notes of hooks that refused a call: the last hook that denied it or
/// whose failure refused it.
pub(super) fn by_hooks(notes: &[airlock_protocol::hook::HookNote]) -> Approval {
    use airlock_protocol::hook::HookAction;
    let decider = notes.iter().rev().find(|note| matches!(note.action, HookAction::Denied | HookAction::Failed));
    match decider {
        Some(note) => {
            let action = if note.action == HookAction::Denied { "denied" } else { "failed" };
            Approval::Hook { name: note.hook.clone(), action: action.to_owned() }
        }
        None => Approval::None,
    }
}

/// Who decided, from a person's answer.
pub(super) fn by_answer(outcome: &ApprovalOutcome) -> Approval {
    let answer = match outcome {
        ApprovalOutcome::AllowOnce => "once",
        ApprovalOutcome::AllowAlways { .. } => "always",
        ApprovalOutcome::Modify { .. } => "edited",
        ApprovalOutcome::Refuse(_) => "refused",
        ApprovalOutcome::Cancel => "cancelled",
    };
    Approval::User { answer: answer.to_owned() }
}

impl super::Scheduler {
    /// Records a grant or rule the person gave during the session (`what`: `rule` or
    /// `grant`) for `subject` (a tool or a plugin).
    pub(super) fn audit_grant(&self, what: &str, subject: &str, detail: &str, events: &EventSink) {
        let change = GrantChange { what: what.to_owned(), subject: subject.to_owned(), detail: detail.to_owned() };
        self.audit.record(&Body::Grant(change), events);
    }
}
