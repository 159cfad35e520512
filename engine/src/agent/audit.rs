//! The agent's side of the audit trail ([`crate::audit`]): the trail is opened beside the
//! session file the agent records to, starts with a `start` record, ends with an `end`
//! record when the agent stops recording to that session, and its head is written into the
//! session file after each batch of calls — so the session file vouches for every record up
//! to that batch.

use std::sync::Arc;

use super::Agent;
use crate::audit::record::{End, GrantRecord, LoadedRecord, Start};
use crate::audit::{Body, Trail};
use crate::events::{Event, EventSink};

impl Agent {
    /// Keeps an audit trail beside the session file recorded to now (none: nothing to do),
    /// starting with `start`. A trail that cannot be opened is said, and the session goes on
    /// without one.
    pub fn open_audit(&mut self, mut start: Start, events: &EventSink) {
        self.end_audit();
        let Some(recorder) = &self.recorder else { return };
        start.hooks = self.hook_records();
        match Trail::open(recorder.path()) {
            Ok(trail) => {
                let trail = Arc::new(trail);
                trail.record(&Body::Start(Box::new(start)), events);
                self.scheduler.audit().set(Some(trail));
                self.write_audit_head(events);
            }
            Err(error) => {
                events.send(Event::Warning { message: format!("{error}; this session keeps no audit trail") });
            }
        }
    }

    /// The session's hooks, for the `start` record: each one's name, kind and scope with what
    /// it holds, and its digest (a component hook's grant is also in its plugin's record).
    fn hook_records(&self) -> Vec<LoadedRecord> {
        let Some(hooks) = &self.hooks else { return Vec::new() };
        let record = |spec: &crate::hooks::HookSpec| {
            let holds = if spec.grants.is_empty() { "nothing".to_owned() } else { spec.grants.join(", ") };
            LoadedRecord {
                name: spec.name.clone(),
                origin: format!("{} hook, {} ({holds})", spec.kind.as_str(), spec.scope.as_str()),
                digest: spec.digest.clone(),
                grant: GrantRecord::default(),
            }
        };
        hooks.hooks().iter().map(|hook| record(hook.spec())).collect()
    }

    /// Writes the trail's head into the session file, when it moved since the last one.
    pub(super) fn write_audit_head(&mut self, events: &EventSink) {
        let Some(head) = self.scheduler.audit().get().and_then(|trail| trail.head()) else { return };
        if self.audit_head == Some(head.seq) {
            return;
        }
        let Some(recorder) = &mut self.recorder else { return };
        match recorder.audit_head(head.seq, &head.hash) {
            Ok(()) => self.audit_head = Some(head.seq),
            Err(error) => self.recording_failed(error, events),
        }
    }

    /// Ends the trail of the session recorded to now: an `end` record and its head. Nobody
    /// may be listening any more (the agent is being dropped): failures go to the log.
    pub(super) fn end_audit(&mut self) {
        let Some(trail) = self.scheduler.audit().get() else { return };
        self.scheduler.audit().set(None);
        match trail.append(&Body::End(End {})) {
            Ok(head) => {
                if let Some(recorder) = &mut self.recorder
                    && let Err(error) = recorder.audit_head(head.seq, &head.hash)
                {
                    tracing::warn!("{error}");
                }
            }
            Err(error) => tracing::warn!("{error}"),
        }
        self.audit_head = None;
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        self.end_audit();
    }
}
