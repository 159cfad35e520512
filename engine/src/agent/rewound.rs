//! The agent's side of a rewind ([`crate::rewind`]): the session file it records to, and
//! what a rewind carried out changes — its `rewound` record, the audit trail's `rewind`
//! record with its head, and, when the conversation was rewound, the history and the prompt
//! counter (the next prompt takes the number of the first one dropped).

use std::path::Path;

use super::Agent;
use crate::events::EventSink;
use crate::rewind::Applied;

impl Agent {
    /// The session file recorded to now and its id (`None`: the session is not recorded).
    pub fn session_file(&self) -> Option<(&Path, &str)> {
        self.recorder.as_ref().map(|recorder| (recorder.path(), recorder.id()))
    }

    /// The session's checkpoints, when it takes them.
    pub fn checkpoints(&self) -> Option<&std::sync::Arc<crate::checkpoints::Checkpointer>> {
        self.scheduler.checkpoints()
    }

    /// Records `applied` (the `rewound` record, then the audit record), then continues the
    /// conversation from what it kept, when it rewound the conversation.
    pub fn rewound(&mut self, applied: &Applied, events: &EventSink) {
        if let Some(recorder) = &mut self.recorder
            && let Err(error) = recorder.rewound(&applied.record)
        {
            self.recording_failed(error, events);
        }
        self.scheduler.audit().record(&crate::rewind::audit_body(applied), events);
        self.write_audit_head(events);
        if let Some(history) = applied.history() {
            self.history.replace(history.to_vec());
            self.anchor = None;
            self.todos.clear();
            self.continue_prompts(applied.record.prompts);
        }
    }
}
