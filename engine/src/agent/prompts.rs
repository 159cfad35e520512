//! The session's user prompts, numbered from 1 (rewind speaks of prompts; the session
//! file's `turn` counts model responses): the counter, the `prompt` record written when a
//! prompt starts (before its message), and the prompt the checkpoints' labels name.
//!
//! Invariants: a new session starts at 0; a resumed one continues from the count its file
//! records ([`crate::session::Resumed::prompts`]), so its numbering — and with it the
//! checkpoints its earlier prompts took — carries on; a prompt a hook dropped is not one.

use super::Agent;
use crate::events::EventSink;
use crate::session::{PromptLine, Stamp};

/// Most characters of a prompt's first line the record keeps.
const TEXT_CHARS: usize = 200;

impl Agent {
    /// The number of prompts the conversation holds.
    pub fn prompts(&self) -> u32 {
        self.prompts
    }

    /// Continues the numbering of a resumed session, which held `prompts` prompts.
    pub fn continue_prompts(&mut self, prompts: u32) {
        self.prompts = prompts;
        if let Some(checkpoints) = self.scheduler.checkpoints() {
            checkpoints.set_prompt(prompts);
        }
    }

    /// A user prompt starts: counts it, records it and names it in the checkpoints' labels.
    pub(super) fn prompt_started(&mut self, text: &str, events: &EventSink) {
        self.prompts += 1;
        if let Some(checkpoints) = self.scheduler.checkpoints() {
            checkpoints.set_prompt(self.prompts);
        }
        let Some(recorder) = &mut self.recorder else { return };
        let line = PromptLine {
            prompt: self.prompts,
            at: Stamp::now().iso(),
            text: first_line(text),
            history: self.history.len(),
        };
        if let Err(error) = recorder.prompt(&line) {
            self.recording_failed(error, events);
        }
    }
}

/// The first line of `text` that holds something, cut to [`TEXT_CHARS`] characters.
fn first_line(text: &str) -> String {
    let line = text.lines().map(str::trim).find(|line| !line.is_empty()).unwrap_or_default();
    line.chars().take(TEXT_CHARS).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_record_keeps_the_first_line_that_says_something_cut_to_200_characters() {
        assert_eq!(first_line("\n  fix the test  \nand more"), "fix the test");
        assert_eq!(first_line(&"é".repeat(300)).chars().count(), 200);
        assert_eq!(first_line(""), "");
    }
}
