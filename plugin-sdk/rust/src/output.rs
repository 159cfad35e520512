//! Live output while a tool runs, through `airlock:host/output`. The host shows chunks only
//! for tools whose [`crate::Tool::STREAMS_OUTPUT`] is true, and throttles and caps them.

/// Sends one chunk of live output to the user interface.
pub fn emit(chunk: &str) {
    crate::bindings::airlock::host::output::emit(chunk);
}
