//! airlock's MCP client: the connection layer between the engine and an MCP server that is
//! a source of tools. A stdio server is started through the OS sandbox
//! ([`airlock_process::Child::spawn_interactive`], a [`Launch`] built by the engine from
//! the server's grant), initialised, asked for its tools, and called. A streamable-HTTP
//! server is reached by airlock itself ([`start_http`], only at its configured URL) and
//! used through the same [`Connection`].
//!
//! What this crate guarantees, whatever the server does:
//! - a stdio server is a sandboxed child: its process group dies with the [`Connection`]
//!   (and so with airlock);
//! - start-up (the process, the handshake, the first tool list) is bounded by the launch's
//!   timeout, and each call by its own; a call whose future is dropped tells the server
//!   (`notifications/cancelled`);
//! - a message longer than the launch's limit, or more bytes than the flood budget in a
//!   short time, ends the connection ([`flood`]); its stderr is kept to a bounded tail;
//! - the first reason the server stopped working (exit, crash, flood, hang) is kept once
//!   ([`Connection::failure`]) for the engine to report once.
//!
//! What is offered to the model and how a call is approved is the engine's (it checks
//! every tool's self-description before offering it); this crate hands over the server's
//! tools and results as plain data ([`ServerTool`], [`CallOutcome`]).

#![deny(clippy::print_stdout, clippy::print_stderr)]

mod client;
mod flood;
mod health;
mod http;
mod stdio;

pub use client::{CallOutcome, Connection, Part, ServerTool};
pub use flood::{FLOOD_BYTES, FLOOD_WINDOW, MAX_MESSAGE};
pub use health::STDERR_TAIL;
pub use http::{HttpLaunch, in_clear, start_http};
pub use stdio::{Launch, start_stdio};

/// Why a server could not be used.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum McpError {
    /// The process could not be started.
    #[error("cannot start the server: {0}")]
    Spawn(String),
    /// The handshake or the first tool list did not come within the start-up timeout.
    #[error("the server did not answer within {secs} s of its start{stderr}")]
    StartupTimeout { secs: u64, stderr: String },
    /// The server stopped working: it exited, crashed, flooded or broke the protocol.
    #[error("{0}")]
    Stopped(String),
    /// A call took longer than its timeout (it was cancelled).
    #[error("the call took longer than {secs} s; it was cancelled")]
    CallTimeout { secs: u64 },
    /// The server answered something that is not a tool result.
    #[error("the server answered with something other than a tool result: {0}")]
    Protocol(String),
}
