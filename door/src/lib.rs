//! airlock's door: what a front end may hold of the engine. The `airlock-frontends` crate
//! names this crate and the protocol, never `airlock-engine`, so a front end that reaches
//! for the engine's policy, registry, runtime or scheduler does not compile. The binary
//! (`airlock`, crate `host`) starts the engine and hands each front end a [`Session`].
//!
//! What crosses, in and out:
//! - in: the protocol's orders ([`airlock_protocol::Order`]) through [`Session::submit`]
//!   and [`Orders::submit`];
//! - out: the session's stream of [`Output`]s, whose values are re-exported below by name
//!   (events, questions, turn reports, the replay of a resumed session) and which [`edge`]
//!   converts to the protocol's;
//! - queries: the session's tools, plugins and added folders ([`Tools`]), the recorded
//!   sessions, an attached file, the background commands ([`queries`]), all in plain or
//!   protocol values.
//!
//! Invariant: this crate re-exports items, never a whole engine module, and no item that
//! holds the engine's state (`Registry`, `Policy`, `Runtime`, the scheduler) or can build
//! an order the protocol cannot say.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod edge;
mod handle;
pub mod observe;
pub mod queries;

pub use airlock_engine::engine::{GrantQuestion, GrantRequest, Info, Output, Question, Replay};
pub use handle::{Call, Cancellation, CustomCommands, Orders, Session, ToolPlugin, Tools};

/// What happened in a session: the values of [`Output::Event`].
pub mod events {
    pub use airlock_engine::events::{CallCost, CallStatus, CallUpdate, CommandRun, Event, Shown, Todo, TodoStatus};
}

/// How a user turn ended: the value of [`Output::TurnDone`](crate::Output::TurnDone).
pub mod agent {
    pub use airlock_engine::agent::{Outcome, Report, Unusable};
}

/// The plugin contract's values a question or a card carries.
pub mod contract {
    pub use airlock_engine::contract::{Confirmation, Display};
}

/// What an approval question's request holds: what "always" covers and the host's reading
/// of a command line.
pub mod policy {
    pub use airlock_engine::policy::line_view::shown as shown_command;
    pub use airlock_engine::policy::{AlwaysScope, LineView};
}

/// What a resumed session replays: its recorded cards, and the conversation's messages.
pub mod session {
    pub use airlock_engine::session::RecordedCall;
    pub use airlock_model::{FunctionCall, FunctionResponse, Message, Part, Role};
}

/// The model's values a report carries: its error and its token counts.
pub mod model {
    pub use airlock_model::{ModelError, Usage, UsageKind};
}
