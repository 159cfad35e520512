//! airlock's front ends: the command line ([`cli`]), the subcommands that manage tools,
//! plugins, trust and sessions ([`commands`]), and the headless printer, the TUI and the MCP
//! server ([`frontends`]). They only translate: a session is driven through
//! `airlock_engine::engine::Session` with `Op`s in and `Output`s out, and nothing here is
//! imported by the engine (`airlock-engine` does not depend on this crate, so such an
//! import does not compile). The crate graph is in the README's "Layout".
//!
//! The unit tests of `foo.rs` live in `foo_tests.rs` beside it, as in the engine crate.

#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod cli;
pub mod commands;
pub mod frontends;
