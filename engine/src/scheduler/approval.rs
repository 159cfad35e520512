//! The approval step: a validated call's verdict, and the user's answer when the verdict is
//! to ask. The scheduler runs this step for the calls of a batch one at a time, in the
//! model's order, after all of them were validated — so questions come in that order
//! (answers piped by a script land on the calls they were meant for), an "allow always"
//! given to one call already covers the later ones, and a cancelled question asks no more.

use super::Scheduler;
use super::call::{Approved, Ready};
use super::finish::{cancelled, finish_metered};
use super::validation::{Pending, Validated};
use crate::cancel::Cancellation;
use crate::contract::{Confirmation, ErrorKind, ToolError};
use crate::events::{CallStatus, CallUpdate, Event, EventSink};
use crate::policy::rules::CallFacts;
use crate::policy::{ApprovalOutcome, ApprovalRequest, ExecVerdict, Verdict};
use crate::runtime::ApprovedLine;

/// The folder an exec confirmation names (absolute, or relative to the workspace), canonical;
/// the workspace when it is empty.
fn exec_directory(workspace: &std::path::Path, directory: &str) -> std::path::PathBuf {
    if directory.is_empty() {
        return workspace.to_path_buf();
    }
    airlock_files::canonical_lenient(&workspace.join(directory))
}

impl Scheduler {
    /// Takes a validated call to `scheduled` (or a terminal state).
    pub(super) async fn approve(&self, validated: Validated, events: &EventSink, cancel: &Cancellation) -> Approved {
        let pending = match validated {
            Validated::Done(done) => return Approved::Done(*done),
            Validated::Pending(pending) => *pending,
        };
        let Pending {
            call,
            tool,
            mut args,
            started,
            mut writes,
            access,
            description,
            confirmation,
            path,
            command,
            mut kept,
        } = pending;
        let meter = access.meter.clone();
        let fail = |error: ToolError| Approved::Done(finish_metered(&call, started, Err(error), events, Some(&meter)));
        if cancel.is_cancelled() {
            return fail(cancelled());
        }
        // A command line is judged command by command, and runs in the folder it showed.
        let exec_folder = match &confirmation {
            Some(Confirmation::Exec { directory, .. }) => Some(exec_directory(&self.workspace, directory)),
            _ => None,
        };
        let writable = access.writable(&tool.info, &writes);
        // A workspace's rules approve only what stays inside it.
        let within_workspace =
            self.policy.within_workspace(&tool.plugin, path.as_deref(), exec_folder.as_deref(), &writable);
        let facts = CallFacts {
            tool: &call.name,
            command: command.as_deref(),
            path: path.as_deref(),
            parsed: None,
            within_workspace,
        };
        let mut modified = false;
        // A proposal longer than a confirmation holds arrived cut: editing it would apply the cut.
        let proposal_cut = matches!(&confirmation, Some(Confirmation::Edit { proposed, .. })
            if proposed.len() > crate::runtime::MAX_EDIT_CONTENT);
        // Read command by command when the tool may start what it shows; for a tool that
        // cannot, the command is only words to the person, judged whole.
        let starts_programs = !access.effective.processes.is_empty();
        let verdict = match (&confirmation, &exec_folder) {
            (Some(exec), Some(folder)) if starts_programs => {
                self.policy.exec_verdict(&tool.info, &facts, exec, folder, &writable)
            }
            _ => ExecVerdict { verdict: self.policy.verdict(&tool.info, &facts, confirmation.as_ref()), view: None },
        };
        let mut asked = false;
        match verdict.verdict {
            Verdict::Allow => {}
            Verdict::Deny(message) => return fail(ToolError::new(ErrorKind::PolicyDenied, message)),
            Verdict::Ask => {
                let mut confirmation = confirmation.clone().unwrap_or_else(|| Confirmation::Info {
                    prompt: format!("Allow {} ({}): {description}?", tool.info.display_name, tool.info.kind.as_str()),
                    urls: Vec::new(),
                });
                // The host's reading names the riskiest command and the risk, not the plugin's guess.
                if let (Confirmation::Exec { root_command, risk, .. }, Some(view)) = (&mut confirmation, &verdict.view)
                {
                    *root_command = view.riskiest_program();
                    *risk = view.contract_risk();
                }
                // A person may take minutes to answer: no instance waits with them, holding room
                // in the budget (this call's check instance, nor any other call's).
                kept = None;
                self.runtime.release_parked();
                let mut update = CallUpdate::new(&call.id, &call.name, CallStatus::AwaitingApproval);
                update.description = Some(description.clone());
                update.confirmation = Some(confirmation.clone());
                events.send(Event::ToolCall(Box::new(update)));
                let request = ApprovalRequest {
                    call_id: call.id.clone(),
                    tool: call.name.clone(),
                    description: description.clone(),
                    confirmation,
                    path: path.clone(),
                    bound: matches!(writes, super::call::Writes::Bound(_)),
                    writable,
                    sandbox: access.held(&tool.info, &writes),
                    line: verdict.view.clone(),
                };
                let outcome = tokio::select! {
                    outcome = self.approver.ask(request) => outcome,
                    () = cancel.cancelled() => return fail(cancelled()),
                };
                asked = matches!(outcome, ApprovalOutcome::AllowOnce | ApprovalOutcome::AllowAlways { .. });
                match outcome {
                    ApprovalOutcome::AllowOnce => {}
                    ApprovalOutcome::AllowAlways { scope, save } => {
                        match self.policy.remember(&call.name, &scope, save) {
                            Ok(message) => events.send(Event::Notice { message }),
                            Err(error) => {
                                events.send(Event::Warning { message: format!("cannot save the rule: {error}") })
                            }
                        }
                    }
                    ApprovalOutcome::Modify { .. } if proposal_cut => {
                        let message = "the proposal was cut for display, so an edited version of it cannot be applied";
                        return fail(ToolError::new(ErrorKind::PolicyDenied, message));
                    }
                    ApprovalOutcome::Modify { proposed } => {
                        match self.modify(&tool, &call, &args, &proposed, &access, cancel).await {
                            Ok(new_args) => {
                                args = new_args;
                                modified = true;
                                // What the person wrote is what a bound edit may write.
                                if let super::call::Writes::Bound(bound) = &mut writes {
                                    bound.set_proposed(proposed);
                                }
                            }
                            Err(error) => return fail(error),
                        }
                    }
                    ApprovalOutcome::Refuse(message) => return fail(ToolError::new(ErrorKind::PolicyDenied, message)),
                    ApprovalOutcome::Cancel => {
                        let error = ToolError::new(ErrorKind::Cancelled, "the user cancelled this call");
                        return Approved::CancelBatch(finish_metered(&call, started, Err(error), events, Some(&meter)));
                    }
                }
            }
        }
        let mut update = CallUpdate::new(&call.id, &call.name, CallStatus::Scheduled);
        update.description = Some(description.clone());
        events.send(Event::ToolCall(Box::new(update)));
        // What was approved is the line shown, in its folder: the gate lets exactly that start,
        // and knows whether a person saw it.
        let approved_line = match (&confirmation, exec_folder) {
            (Some(Confirmation::Exec { command, .. }), Some(folder)) if !modified => {
                Some(ApprovedLine { line: command.clone(), folder, asked })
            }
            _ => None,
        };
        Approved::Ready(Ready { call, tool, args, started, description, writes, access, modified, approved_line, kept })
    }
}
