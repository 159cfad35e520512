//! Structured logging into the host's log through `airlock:host/log`. Lines never reach
//! the terminal; the host tags them with the plugin, tool and call.

use crate::bindings::airlock::host::log::{Level, log};

/// Logs a trace line.
pub fn trace(message: &str) {
    log(Level::Trace, message);
}

/// Logs a debug line.
pub fn debug(message: &str) {
    log(Level::Debug, message);
}

/// Logs an info line.
pub fn info(message: &str) {
    log(Level::Info, message);
}

/// Logs a warning.
pub fn warn(message: &str) {
    log(Level::Warn, message);
}

/// Logs an error.
pub fn error(message: &str) {
    log(Level::Error, message);
}
