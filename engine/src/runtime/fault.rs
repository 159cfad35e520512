//! Why a call into a guest did not return normally, in words for the user and the model:
//! [`CallFault`], and [`classify`], which turns a wasmtime error into one. The limiter's
//! record of which cap was hit wins over the trap that followed it (a failed allocation
//! usually aborts), and a guest that called `exit` is told apart from one that crashed.

use std::time::Duration;

use wasmtime::Store;

use super::state::{CallState, Interrupt, LimitHit, MAX_INSTANCES, MAX_MEMORIES, MAX_TABLE_ELEMENTS, MAX_TABLES};

/// Why a call into a guest did not return normally.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CallFault {
    #[error("the plugin ran past its deadline of {0:?} and was stopped")]
    Timeout(Duration),
    #[error("the call was cancelled")]
    Cancelled,
    #[error("the plugin exceeded its memory limit of {} MiB and was stopped", .0 >> 20)]
    MemoryExhausted(usize),
    #[error("the plugin crashed: {0}")]
    Trap(String),
    #[error("the plugin called exit({0}) instead of returning")]
    Exited(i32),
    #[error("the plugin could not be started: {0}")]
    Instantiate(String),
    #[error(
        "the plugin could not start within {waited:?}: other plugin calls held the process's budget \
         ({budget_mib} MiB of plugin memory, {instances} instances at once); try again with fewer calls at once"
    )]
    Queued { waited: Duration, budget_mib: usize, instances: usize },
}

/// Turns a wasmtime error into the fault the user and the model are told about.
pub(super) fn classify(store: &Store<CallState>, deadline: Duration, error: &wasmtime::Error) -> CallFault {
    let state = store.data();
    match error.downcast_ref::<Interrupt>() {
        Some(Interrupt::Deadline) => return CallFault::Timeout(deadline),
        Some(Interrupt::Cancelled) => return CallFault::Cancelled,
        None => {}
    }
    if let Some(exit) = error.downcast_ref::<wasmtime_wasi::I32Exit>() {
        return CallFault::Exited(exit.0);
    }
    match state.limiter.hit {
        Some(LimitHit::Memory) => return CallFault::MemoryExhausted(state.limiter.limit),
        Some(LimitHit::TableElements) => {
            return CallFault::Trap(format!("it exceeded the limit of {MAX_TABLE_ELEMENTS} table elements"));
        }
        None => {}
    }
    // The trap itself, not the wasm backtrace wasmtime attaches (that goes to the log).
    tracing::info!("guest fault: {error:?}");
    let mut message = match error.downcast_ref::<wasmtime::Trap>() {
        // Rust guests put their own stack in linear memory: overflowing it shows up as an
        // access out of bounds.
        Some(trap @ wasmtime::Trap::MemoryOutOfBounds) => {
            format!("{trap} (a stack overflow or a memory bug in the plugin)")
        }
        Some(trap) => trap.to_string(),
        None => first_line(error),
    };
    if message.contains("resource limit exceeded") {
        message.push_str(&format!(
            " (a plugin may create at most {MAX_INSTANCES} instances, {MAX_MEMORIES} memories and {MAX_TABLES} tables)"
        ));
    }
    if let Some(reason) = panic_message(&state.stderr.contents().0) {
        message.push_str(&format!(" ({})", &reason[..reason.floor_char_boundary(500)]));
    }
    CallFault::Trap(message)
}

/// The first line of the error's outermost message that says something: wasmtime puts
/// "error while executing at wasm backtrace:" before the backtrace when there is no cause.
fn first_line(error: &wasmtime::Error) -> String {
    let line = error.to_string().lines().next().unwrap_or_default().to_string();
    if !line.starts_with("error while executing at wasm backtrace") {
        return line[..line.floor_char_boundary(500)].to_string();
    }
    let cause = error.chain().skip(1).find_map(|cause| cause.to_string().lines().next().map(str::to_string));
    let line = cause.unwrap_or(line);
    line[..line.floor_char_boundary(500)].to_string()
}

/// What a guest printed about its crash: a Rust panic's message, or the last line it wrote.
fn panic_message(stderr: &str) -> Option<String> {
    let lines: Vec<&str> = stderr.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
    if let Some(at) = lines.iter().rposition(|l| l.contains("panicked at")) {
        return Some(match lines.get(at + 1) {
            Some(reason) if !reason.starts_with("note: ") => format!("panicked: {reason}"),
            _ => lines[at].to_string(),
        });
    }
    lines.iter().rev().find(|l| !l.starts_with("note: run with")).map(|l| format!("last stderr line: {l}"))
}
