//! airlock's protocol: the plain serde types every front end speaks — `-o stream-json`,
//! `-o json`, the TUI, and the MCP and ACP front ends to come. A front end sends
//! [`Order`]s and reads [`Output`]s; the headless outputs print [`StampedEvent`],
//! [`ResultLine`] and [`JsonOutput`]. None of these is an engine type: the engine's values
//! are converted at each front end's edge.
//!
//! Text that a person reads is a [`Shown`] (module [`shown`]): the one sanitiser every
//! terminal text passes through, and a type that cannot hold a raw control character.
//!
//! The JSON Schema of the whole vocabulary ([`schema`]) is checked in at
//! `protocol/schema/protocol.json`; a test fails when the types drift from it.
//!
//! Invariant: a change to any JSON shape here raises [`VERSION`] and is noted in the README.

#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod event;
pub mod hook;
pub mod listing;
pub mod order;
pub mod output;
pub mod question;
pub mod report;
pub mod rewind;
pub mod shown;

pub use event::{
    CallCost, CallStatus, CardText, CommandRun, Confirmation, Display, ErrorKind, Event, PluginProblem, Risk, Todo,
    TodoStatus, ToolCall, ToolError, Usage, UsageKind,
};
// `listing::CommandRow` (a custom command) keeps its module path: the root's `CommandRow`
// is a command line of an approval question.
pub use hook::{HookAction, HookEvent, HookEventName, HookNote, HookReply, HookTool, HookVerdict};
pub use listing::{
    CallResult, CommandSource, ExpandedCommand, FolderRow, PluginOrigin, PluginRow, ServedTool, SessionRow, ToolRow,
};
pub use order::{Answer, ApprovalMode, Attachment, GrantAnswer, Order};
pub use output::Output;
pub use question::{CommandRow, Confirm, FileChange, Folder, GrantQuestion, Question, Sandbox};
pub use report::{
    CallCounts, CallSummary, ErrorBody, JsonOutput, ResultLine, ResultType, RunStatus, StampedEvent, Stats, Summary,
    Tokens, ToolCost, TurnReport, TurnTokens,
};
pub use rewind::{FileChangeKind, LeftOut, RestoreWhat, RewindFile, RewindPlan, RewindTarget, RewindTurn, Rewound};
pub use shown::Shown;

/// The protocol's version: its major part changes when a shape changes incompatibly.
pub const VERSION: &str = "1.3.0";

/// The JSON Schema (draft 2020-12) of every type of the protocol, under `$defs`; the
/// entry points are `Order`, `Output`, `StampedEvent`, `ResultLine` and `JsonOutput`.
pub fn schema() -> serde_json::Value {
    let mut generator = schemars::SchemaGenerator::default();
    let entries = [
        generator.subschema_for::<Order>(),
        generator.subschema_for::<Output>(),
        generator.subschema_for::<StampedEvent>(),
        generator.subschema_for::<ResultLine>(),
        generator.subschema_for::<JsonOutput>(),
    ];
    let definitions = generator.take_definitions(true);
    serde_json::json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "title": "airlock protocol",
        "description": "What airlock's front ends send (Order) and read (Output), and what its headless outputs print: StampedEvent lines then a ResultLine for -o stream-json, one JsonOutput for -o json.",
        "version": VERSION,
        "anyOf": entries,
        "$defs": definitions,
    })
}
