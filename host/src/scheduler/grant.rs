//! The grant prompt's step: a call that failed while its plugin lacked something it
//! requested (a folder, a destination, a variable) may be granted it by the person, on the
//! spot — for this call only, for the session, or always (the user's policy file) — and
//! then runs once more.
//!
//! Invariants: only what the tool's own request names can be granted (its request is the
//! grant offered, never more); only the approver's answer — a person's key press in a front
//! end — grants; nothing is asked where nobody can answer (headless runs answer "no" and
//! stay as they were); a "no" is not asked again for the same plugin and requests in the
//! session; a cancelled call stops waiting.

use std::path::Path;

use super::Scheduler;
use super::call::{Access, Run};
use crate::capability::Grant;
use crate::capability::net::NetRule;
use crate::events::Event;
use crate::policy::{GrantOutcome, GrantRequest};

impl Scheduler {
    /// Asks whether to grant what `run`'s plugin requested and lacks; the access to run it
    /// again with, or `None` (nothing to offer, or the answer was no).
    pub(super) async fn offer_grant(&self, run: &Run<'_>, access: &Access, denied: &[NetRule]) -> Option<Access> {
        let tool = run.tool;
        let missing: Vec<String> =
            access.effective.missing.iter().map(|flag| flag.trim_start_matches('-').to_string()).collect();
        if missing.is_empty() && denied.is_empty() {
            return None;
        }
        let plugin = &tool.plugin;
        let name = plugin.info.name.as_str();
        let declined = format!("grant-declined:{name}:{}", missing.join(" "));
        if self.seen(&declined) {
            return None;
        }
        // What the tool requested and lacks; when it lacks nothing, exactly the destinations
        // it was refused (within its request: a private address its wildcard never reaches).
        let offered = if missing.is_empty() {
            Grant { network: denied.to_vec(), ..Grant::default() }
        } else {
            Grant::requested_by([&tool.info])
        };
        let mut lines = missing;
        if lines.is_empty() {
            lines = offered.network.iter().map(|rule| format!("net {rule}")).collect();
        }
        let request = GrantRequest {
            call_id: run.call.id.clone(),
            tool: tool.info.name.clone(),
            plugin: name.to_string(),
            missing: lines,
            policy_file: self.policy().grant_file(plugin).map(Path::to_path_buf).unwrap_or_default(),
        };
        let outcome = tokio::select! {
            outcome = self.approver().ask_grant(request) => outcome,
            () = run.cancel.cancelled() => return None,
        };
        let events = run.events;
        match outcome {
            GrantOutcome::No => {
                self.first_warning(declined);
                return None;
            }
            GrantOutcome::ThisCall => {
                events.send(Event::Notice { message: format!("granted to {name} for this call only") });
            }
            GrantOutcome::Session => {
                self.policy().grant_for_session(name, &offered);
                events.send(Event::Notice { message: format!("granted to {name} for this session") });
            }
            GrantOutcome::Always => {
                self.policy().grant_for_session(name, &offered);
                let message = match self.policy().save_grant(plugin, &offered) {
                    Ok(path) => {
                        format!("granted to {name}, saved in {}", crate::sanitize::line(&path.display().to_string()))
                    }
                    Err(error) => format!("granted to {name} for this session only: cannot save the grant: {error}"),
                };
                events.send(Event::Notice { message });
            }
        }
        let (effective, limits) = self.policy().access_with(plugin, &tool.info, self.limits(), &offered);
        Some(Access { effective, limits, meter: access.meter.clone() })
    }
}
