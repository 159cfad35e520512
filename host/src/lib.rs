//! airlock's binary crate: the command line ([`cli`]), which starts the engine and hands a
//! session's door to a front end (`airlock-frontends`: headless, the TUI), and the commands
//! that manage or list tools, plugins, trust and sessions without a session ([`commands`]).
//! Nothing here is imported by the engine or the front ends (neither depends on this crate,
//! so such an import does not compile). The crate graph is in the README's "Layout".
//!
//! The unit tests of `foo.rs` live in `foo_tests.rs` beside it, as in the engine crate.

#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod cli;
pub mod commands;
pub mod telemetry;
