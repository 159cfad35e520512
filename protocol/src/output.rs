//! Outputs: what the engine tells its front end, in the order things happened, on one
//! stream: events, questions, withdrawn questions, and each user turn's end.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::event::Event;
use crate::question::{GrantQuestion, Question};
use crate::report::TurnReport;

/// One output of the engine, tagged by `output`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(tag = "output", rename_all = "snake_case")]
pub enum Output {
    /// Something happened.
    Event {
        /// What.
        event: Event,
    },
    /// A call waits for a person: answer with an `approve` order and this question's id.
    Question {
        /// The question, as shown.
        question: Question,
    },
    /// Question `id` no longer waits (its call was cancelled): close its dialog.
    Withdrawn {
        /// The question's id.
        id: u64,
    },
    /// A call failed for want of an ungranted request: answer with a `grant` order and this
    /// question's id (headless front ends answer `no`).
    Grant {
        /// The question, as shown.
        question: GrantQuestion,
    },
    /// A user turn ended: what it produced.
    TurnDone {
        /// The turn's report.
        report: TurnReport,
    },
}
