//! How a call ends, whatever state it ends in: the errors of a cancelled or faulting guest,
//! the audit record, the terminal event (always after the record), and the completed call
//! with its cost, who decided it and what a person is shown.

use std::sync::Arc;
use std::time::{Duration, Instant};

use super::CompletedCall;
use super::audited::Witness;
use crate::contract::{Display, ErrorKind, ToolError, ToolOutput};
use crate::events::{CallCost, CallStatus, CallUpdate, Event, EventSink, MAX_FULL_OUTPUT, Shown};
use crate::registry::RegisteredTool;
use crate::runtime::{CallFault, UsageMeter};
use airlock_model::FunctionCall;

pub(super) fn cancelled() -> ToolError {
    ToolError::new(ErrorKind::Cancelled, "the run was cancelled")
}

/// The error the model gets when a guest did not return normally.
pub(super) fn fault_error(tool: &RegisteredTool, fault: CallFault) -> ToolError {
    let kind = match fault {
        CallFault::Timeout(_) | CallFault::Queued { .. } => ErrorKind::Timeout,
        CallFault::Cancelled => ErrorKind::Cancelled,
        CallFault::MemoryExhausted(_) | CallFault::Trap(_) | CallFault::Exited(_) | CallFault::Instantiate(_) => {
            ErrorKind::PluginFault
        }
    };
    tracing::warn!(tool = tool.info.name, plugin = tool.plugin.label(), "{fault}");
    ToolError::new(kind, format!("`{}` failed: {fault}", tool.info.name))
}

/// Emits the terminal event and builds the completed call (a call that never got an
/// instance: its cost is its time).
pub(super) fn finish(
    call: &FunctionCall,
    started: Instant,
    result: Result<ToolOutput, ToolError>,
    events: &EventSink,
    witness: Witness,
) -> CompletedCall {
    finish_with(call, result, events, Ending { started: Some(started), witness, ..Ending::default() })
}

/// [`finish`] with what the call's instances used.
pub(super) fn finish_metered(
    call: &FunctionCall,
    started: Instant,
    result: Result<ToolOutput, ToolError>,
    events: &EventSink,
    meter: Option<&UsageMeter>,
    witness: Witness,
) -> CompletedCall {
    let ending = Ending { started: Some(started), meter, witness, ..Ending::default() };
    finish_with(call, result, events, ending)
}

/// How a call ended besides its result: for the terminal event and its card.
#[derive(Default)]
pub(super) struct Ending<'a> {
    /// When it entered `validating`.
    pub started: Option<Instant>,
    /// When it started executing (`None`: it never did).
    pub executing: Option<Instant>,
    /// What its instances used.
    pub meter: Option<&'a UsageMeter>,
    /// The plugin's description of the call.
    pub description: Option<String>,
    /// The end of what it streamed live.
    pub live: Option<String>,
    /// What the audit trail records of it, and who decided it.
    pub witness: Witness,
    /// A checkpoint was taken before it ran, so it can be undone ([`CallUpdate::undoable`]).
    pub undoable: bool,
}

/// Emits the terminal event and builds the completed call.
pub(super) fn finish_with(
    call: &FunctionCall,
    result: Result<ToolOutput, ToolError>,
    events: &EventSink,
    ending: Ending<'_>,
) -> CompletedCall {
    let Ending { started, executing, meter, description, live, witness, undoable } = ending;
    let status = match &result {
        Ok(_) => CallStatus::Success,
        Err(error) if error.kind == ErrorKind::Cancelled => CallStatus::Cancelled,
        Err(_) => CallStatus::Error,
    };
    let duration = started.map_or(Duration::ZERO, |started| started.elapsed());
    let run = executing.map(|executing| executing.elapsed());
    let cost = CallCost {
        wall_ms: duration.as_millis().try_into().unwrap_or(u64::MAX),
        peak_memory_bytes: meter.map_or(0, UsageMeter::peak_memory),
        network_requests: meter.map_or(0, UsageMeter::network_requests),
        bytes_read: meter.map_or(0, UsageMeter::bytes_read),
        bytes_written: meter.map_or(0, UsageMeter::bytes_written),
    };
    let command = meter.and_then(UsageMeter::commands);
    let mut update = CallUpdate::new(&call.id, &call.name, status);
    update.undoable = undoable;
    update.duration = Some(duration);
    update.cost = Some(cost);
    update.run = run;
    update.command = command;
    // What a person reads: the tool's summary, and the end of its output — what it streamed,
    // else what the model is told, else the error.
    let told = match &result {
        Ok(output) => output.llm_text(),
        Err(error) => error.message.clone(),
    };
    let summary = match &result {
        Ok(ToolOutput { display: Some(Display::Markdown { text }), .. }) => Some(text.as_str()),
        _ => None,
    };
    let full: Arc<str> = match (live, &result) {
        (Some(live), Ok(_)) => live.into(),
        _ => told[..told.floor_char_boundary(MAX_FULL_OUTPUT)].into(),
    };
    let shown = Shown::new(summary, &full);
    update.shown = Some(shown.clone());
    update.full_output = Some(full);
    match &result {
        Ok(output) => {
            update.output = Some(told);
            update.display = output.display.clone();
        }
        Err(error) => update.error = Some(error.clone()),
    }
    // Recorded before anyone is told how the call ended.
    witness.record(call, status, &result, cost, events);
    events.send(Event::ToolCall(Box::new(update)));
    let Witness { approval, hooks, .. } = witness;
    CompletedCall {
        call: call.clone(),
        status,
        result,
        duration,
        cost,
        run,
        command,
        shown,
        description,
        approval,
        hooks,
        checkpoint: None,
    }
}
