//! The approval step: a validated call's verdict, and the user's answer when the verdict is
//! to ask. The scheduler runs this step for the calls of a batch one at a time, in the
//! model's order, after all of them were validated — so questions come in that order
//! (answers piped by a script land on the calls they were meant for), an "allow always"
//! given to one call already covers the later ones, and a cancelled question asks no more.
//!
//! [`Scheduler::approve`] runs its steps in order: the `before_tool` hooks ([`super::hooked`]:
//! a refusal ends the call, a rewrite is validated again, an ask questions what the rules
//! allow); the rules' verdict ([`Scheduler::judge`]), applied after the hooks';
//! when they ask, the question ([`Scheduler::question`]) and what the person's answer does
//! ([`Scheduler::answer`]); then `scheduled`, with the command line that was approved
//! ([`Scheduler::schedule`]).

use std::path::{Path, PathBuf};

use super::call::{Approved, Prepared};
use super::finish::cancelled;
use super::sandboxing::Writes;
use super::validation::Validated;
use super::{Scheduler, audited};
use crate::cancel::Cancellation;
use crate::contract::{Confirmation, ErrorKind, ToolError};
use crate::events::{CallStatus, CallUpdate, Event, EventSink};
use crate::policy::rules::CallFacts;
use crate::policy::{ApprovalOutcome, ApprovalRequest, Basis, ExecVerdict, LineView, Verdict};
use crate::runtime::ApprovedLine;

/// What the rules made of a call, with what the later steps need of the judging.
struct Judged {
    verdict: Verdict,
    /// What the verdict rests on (for the audit trail).
    basis: Basis,
    /// The command line as the host read it, when the call's confirmation is one.
    view: Option<LineView>,
    /// The folder an exec confirmation's line runs in, canonical.
    exec_folder: Option<PathBuf>,
    /// The folders the call could write in.
    writable: Vec<PathBuf>,
}

/// Why an answer stops a call.
enum Stop {
    /// It ends with this error.
    Fail(ToolError),
    /// The person cancelled it, and with it the batch.
    CancelBatch,
}

/// The folder an exec confirmation names (absolute, or relative to the workspace), canonical;
/// the workspace when it is empty.
fn exec_directory(workspace: &Path, directory: &str) -> PathBuf {
    if directory.is_empty() {
        return workspace.to_path_buf();
    }
    airlock_files::canonical_lenient(&workspace.join(directory))
}

impl Scheduler {
    /// Takes a validated call to `scheduled` (or a terminal state).
    pub(super) async fn approve(&self, validated: Validated, events: &EventSink, cancel: &Cancellation) -> Approved {
        let prepared = match validated {
            Validated::Done(done) => return Approved::Done(*done),
            Validated::Pending(prepared) => *prepared,
            Validated::Mcp(mcp) => {
                return match self.approve_mcp(*mcp, events, cancel).await {
                    super::mcp::McpApproved::Ready(mcp) => Approved::ReadyMcp(Box::new(mcp)),
                    super::mcp::McpApproved::Done(done) => Approved::Done(done),
                    super::mcp::McpApproved::CancelBatch(done) => Approved::CancelBatch(done),
                };
            }
        };
        if cancel.is_cancelled() {
            return Approved::Done(prepared.fail(cancelled(), events));
        }
        let (mut prepared, hook_asks) = match self.before_tool(prepared, events, cancel).await {
            Ok(hooked) => hooked,
            Err(done) => return Approved::Done(done),
        };
        let Judged { verdict, basis, view, exec_folder, writable } = self.judge(&prepared);
        // Who decided: the verdict's basis, unless a person is asked.
        prepared.witness.approval = audited::by_basis(&basis);
        // The policy's verdict comes after the hooks': an ask only questions what it allows.
        let verdict = match verdict {
            Verdict::Allow if hook_asks => Verdict::Ask,
            verdict => verdict,
        };
        let asked = match verdict {
            Verdict::Allow => false,
            Verdict::Deny(message) => {
                return Approved::Done(prepared.fail(ToolError::new(ErrorKind::PolicyDenied, message), events));
            }
            Verdict::Ask => {
                let request = self.question(&mut prepared, view, writable, events);
                match self.answer(&mut prepared, request, events, cancel).await {
                    Ok(()) => true,
                    Err(Stop::Fail(error)) => return Approved::Done(prepared.fail(error, events)),
                    Err(Stop::CancelBatch) => {
                        let error = ToolError::new(ErrorKind::Cancelled, "the user cancelled this call");
                        return Approved::CancelBatch(prepared.fail(error, events));
                    }
                }
            }
        };
        self.schedule(prepared, exec_folder, asked, events)
    }

    /// The rules' verdict on `prepared`: allow, deny or ask.
    fn judge(&self, prepared: &Prepared) -> Judged {
        let Prepared { call, tool, confirmation, path, writes, access, .. } = prepared;
        // A command line is judged command by command, and runs in the folder it showed.
        let (exec_folder, command) = match confirmation {
            Some(Confirmation::Exec { directory, command, .. }) => {
                (Some(exec_directory(&self.workspace, directory)), Some(command.as_str()))
            }
            _ => (None, None),
        };
        let writable = access.writable(&tool.info, writes);
        // A workspace's rules approve only what stays inside it.
        let within_workspace =
            self.policy.within_workspace(&tool.plugin, path.as_deref(), exec_folder.as_deref(), &writable);
        let facts = CallFacts { tool: &call.name, command, path: path.as_deref(), parsed: None, within_workspace };
        // Read command by command when the tool may start what it shows; for a tool that
        // cannot, the command is only words to the person, judged whole.
        let starts_programs = !access.effective.processes.is_empty();
        let ExecVerdict { verdict, view, basis } = match (confirmation, &exec_folder) {
            (Some(exec), Some(folder)) if starts_programs => {
                self.policy.exec_verdict(&tool.info, &facts, exec, folder, &writable)
            }
            _ => ExecVerdict::plain(self.policy.decide(&tool.info, &facts, confirmation.as_ref())),
        };
        Judged { verdict, basis, view, exec_folder, writable }
    }

    /// The question for the person, announced (`awaiting_approval`). The call's check
    /// instance goes first: a person may take minutes to answer, and no instance waits with
    /// them holding room in the budget (this call's, nor any other call's).
    fn question(
        &self,
        prepared: &mut Prepared,
        view: Option<LineView>,
        writable: Vec<PathBuf>,
        events: &EventSink,
    ) -> ApprovalRequest {
        let Prepared { call, tool, description, .. } = &*prepared;
        let mut confirmation = prepared.confirmation.clone().unwrap_or_else(|| Confirmation::Info {
            prompt: format!("Allow {} ({}): {description}?", tool.info.display_name, tool.info.kind.as_str()),
            urls: Vec::new(),
        });
        // The host's reading names the riskiest command and the risk, not the plugin's guess.
        if let (Confirmation::Exec { root_command, risk, .. }, Some(view)) = (&mut confirmation, &view) {
            *root_command = view.riskiest_program();
            *risk = view.contract_risk();
        }
        let mut update = CallUpdate::new(&call.id, &call.name, CallStatus::AwaitingApproval);
        update.description = Some(description.clone());
        update.confirmation = Some(confirmation.clone());
        let request = ApprovalRequest {
            call_id: call.id.clone(),
            tool: call.name.clone(),
            description: description.clone(),
            confirmation,
            path: prepared.path.clone(),
            bound: matches!(prepared.writes, Writes::Bound(_)),
            writable,
            sandbox: prepared.access.held(&tool.info, &prepared.writes),
            line: view,
        };
        prepared.kept = None;
        self.runtime.release_parked();
        events.send(Event::ToolCall(Box::new(update)));
        request
    }

    /// Waits for the person's answer to `request` and applies it to `prepared`: a rule
    /// remembered, or the person's edit of the proposal taken as the call's arguments.
    async fn answer(
        &self,
        prepared: &mut Prepared,
        request: ApprovalRequest,
        events: &EventSink,
        cancel: &Cancellation,
    ) -> Result<(), Stop> {
        self.notify_question(&prepared.call.name, &prepared.description, events);
        let outcome = tokio::select! {
            outcome = self.approver.ask(request) => outcome,
            () = cancel.cancelled() => return Err(Stop::Fail(cancelled())),
        };
        prepared.witness.approval = audited::by_answer(&outcome);
        // A proposal longer than a confirmation holds arrived cut: editing it would apply the cut.
        let proposal_cut = matches!(&prepared.confirmation, Some(Confirmation::Edit { proposed, .. })
            if proposed.len() > crate::runtime::MAX_EDIT_CONTENT);
        match outcome {
            ApprovalOutcome::AllowOnce => {}
            ApprovalOutcome::AllowAlways { scope, save } => {
                match self.policy.remember(&prepared.call.name, &scope, save) {
                    Ok(message) => {
                        self.audit_grant("rule", &prepared.call.name, &message, events);
                        events.send(Event::Notice { message });
                    }
                    Err(error) => events.send(Event::Warning { message: format!("cannot save the rule: {error}") }),
                }
            }
            ApprovalOutcome::Modify { .. } if proposal_cut => {
                let message = "the proposal was cut for display, so an edited version of it cannot be applied";
                return Err(Stop::Fail(ToolError::new(ErrorKind::PolicyDenied, message)));
            }
            ApprovalOutcome::Modify { proposed } => {
                let Prepared { call, tool, args, access, .. } = &*prepared;
                let args = self.modify(tool, call, args, &proposed, access, cancel).await.map_err(Stop::Fail)?;
                prepared.args = args;
                prepared.modified = true;
                // What the person wrote is what a bound edit may write.
                if let Writes::Bound(bound) = &mut prepared.writes {
                    bound.set_proposed(proposed);
                }
            }
            ApprovalOutcome::Refuse(message) => {
                return Err(Stop::Fail(ToolError::new(ErrorKind::PolicyDenied, message)));
            }
            ApprovalOutcome::Cancel => return Err(Stop::CancelBatch),
        }
        Ok(())
    }

    /// Takes an approved call to `scheduled`. What was approved is the line shown, in its
    /// folder: the gate lets exactly that start, and knows whether a person saw it.
    fn schedule(
        &self,
        mut prepared: Prepared,
        exec_folder: Option<PathBuf>,
        asked: bool,
        events: &EventSink,
    ) -> Approved {
        let mut update = CallUpdate::new(&prepared.call.id, &prepared.call.name, CallStatus::Scheduled);
        update.description = Some(prepared.description.clone());
        events.send(Event::ToolCall(Box::new(update)));
        prepared.approved_line = match (&prepared.confirmation, exec_folder) {
            (Some(Confirmation::Exec { command, .. }), Some(folder)) if !prepared.modified => {
                Some(ApprovedLine { line: command.clone(), folder, asked })
            }
            _ => None,
        };
        Approved::Ready(Box::new(prepared))
    }
}
