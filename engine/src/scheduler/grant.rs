//! The grant prompt's step: a call that failed while its plugin lacked something it
//! requested (a folder, a destination, a variable) may be granted it by the person, on the
//! spot — for this call only, for the session, or always (the user's policy file) — and
//! then runs once more.
//!
//! The same question follows a command the OS sandbox blocked ([`Blocked`]): the network, or
//! a folder to read or write; the person may let that one call run again with it, or grant
//! it for the session or always — exactly the access named, within what the tool requested.
//! A secret or a local service is never offered.
//!
//! Invariants: only what the tool's own request names can be granted (its request is the
//! grant offered, never more); only the approver's answer — a person's key press in a front
//! end — grants; nothing is asked where nobody can answer (headless runs answer "no" and
//! stay as they were); a "no" is not asked again for the same plugin and requests in the
//! session; a cancelled call stops waiting.

use std::path::Path;

use super::Scheduler;
use super::call::Run;
use super::sandboxing::Access;
use crate::capability::net::NetRule;
use crate::capability::{FileGrant, Grant};
use crate::contract::Access as FileAccess;
use crate::events::Event;
use crate::policy::{GrantOutcome, GrantRequest};
use airlock_sandbox::explain::Blocked;

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
        self.ask_grant(run, access, (offered, lines, None), declined).await
    }

    /// Offers the access the OS sandbox blocked a call's command from (the first finding a
    /// grant within the tool's request would allow); the access to run it again with, or
    /// `None`.
    pub(super) async fn offer_sandbox_access(
        &self,
        run: &Run<'_>,
        access: &Access,
        blocked: &[Blocked],
    ) -> Option<Access> {
        let tool = run.tool;
        for finding in blocked {
            let Some((offered, line)) = offer_for(finding) else { continue };
            let (widened, _) = self.policy().access_with(&tool.plugin, &tool.info, self.limits(), &offered);
            // Outside the tool's request, a grant would change nothing.
            if widened.files == access.effective.files && widened.network == access.effective.network {
                continue;
            }
            let declined = format!("grant-declined:{}:{line}", tool.plugin.info.name);
            if self.seen(&declined) {
                continue;
            }
            return self.ask_grant(run, access, (offered, vec![line], Some(finding.describe())), declined).await;
        }
        None
    }

    /// Asks the person whether to grant `offered` (shown as `lines`, asked for `reason`) to
    /// `run`'s plugin, and applies the answer; `declined` marks a "no" for the session.
    async fn ask_grant(
        &self,
        run: &Run<'_>,
        access: &Access,
        (offered, lines, reason): (Grant, Vec<String>, Option<String>),
        declined: String,
    ) -> Option<Access> {
        let tool = run.tool;
        let plugin = &tool.plugin;
        let name = plugin.info.name.as_str();
        let request = GrantRequest {
            call_id: run.call.id.clone(),
            tool: tool.info.name.clone(),
            plugin: name.to_string(),
            missing: lines,
            policy_file: self.policy().grant_file(plugin).map(Path::to_path_buf).unwrap_or_default(),
            reason,
        };
        let outcome = tokio::select! {
            outcome = self.approver().ask_grant(request) => outcome,
            () = run.cancel.cancelled() => return None,
        };
        let events = run.events;
        let granted = offered_lines(&offered);
        match outcome {
            GrantOutcome::No => {
                self.first_warning(declined);
                return None;
            }
            GrantOutcome::ThisCall => {
                self.audit_grant("grant", name, &format!("for this call: {granted}"), events);
                events.send(Event::Notice { message: format!("granted to {name} for this call only") });
            }
            GrantOutcome::Session => {
                self.audit_grant("grant", name, &format!("for this session: {granted}"), events);
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
                self.audit_grant("grant", name, &format!("{granted}: {message}"), events);
                events.send(Event::Notice { message });
            }
        }
        let (effective, limits) = self.policy().access_with(plugin, &tool.info, self.limits(), &offered);
        Some(Access { effective, limits, meter: access.meter.clone() })
    }
}

/// What `grant` adds, on one line, for the audit trail.
fn offered_lines(grant: &Grant) -> String {
    let record = crate::audit::GrantRecord::of_grant(grant);
    let parts = [record.files, record.network, record.env, record.processes];
    parts.into_iter().flatten().collect::<Vec<_>>().join(", ")
}

/// The grant that would allow what `finding` names, and how the question shows it; `None`
/// for what no grant allows (a secret, a local service).
pub(super) fn offer_for(finding: &Blocked) -> Option<(Grant, String)> {
    let folder = |path: &Path, access: FileAccess| Grant {
        files: vec![FileGrant { path: path.to_string_lossy().into_owned(), access }],
        ..Grant::default()
    };
    match finding {
        Blocked::Network => {
            let rule = NetRule::parse("https://*:*").ok()?;
            let line = format!("net {rule}");
            Some((Grant { network: vec![rule], ..Grant::default() }, line))
        }
        Blocked::Unreadable(path) => Some((folder(path, FileAccess::Read), format!("read {}", path.display()))),
        Blocked::ReadOnly(path) => Some((folder(path, FileAccess::ReadWrite), format!("write {}", path.display()))),
        Blocked::Hidden(_) | Blocked::LocalService(_) => None,
    }
}

/// The lines a call's result gets for what the sandbox blocked: each finding, and the
/// command that would allow it for `plugin` (none for a secret or a local service).
pub(super) fn blocked_lines(plugin: &str, blocked: &[Blocked]) -> Vec<String> {
    let name = crate::sanitize::shell_word(plugin);
    blocked
        .iter()
        .map(|finding| {
            let how = match finding {
                Blocked::Network => format!("; to allow it: airlock plugins grant {name} --net 'https://*:*'"),
                Blocked::Unreadable(path) => {
                    let folder = crate::sanitize::shell_word(&path.to_string_lossy());
                    format!("; to allow it: /add-dir {folder} in the UI, or start airlock with --add-dir {folder}")
                }
                Blocked::ReadOnly(path) => {
                    let folder = crate::sanitize::shell_word(&format!("{}:read-write", path.to_string_lossy()));
                    format!("; to allow it: /add-dir {folder} in the UI, or start airlock with --add-dir {folder}")
                }
                Blocked::Hidden(_) => "; only `[commands] unhide` in config.toml changes that".into(),
                Blocked::LocalService(_) => "; run that command yourself".into(),
            };
            crate::sanitize::line(&format!("{}{how}", finding.describe()))
        })
        .collect()
}
