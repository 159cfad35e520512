//! airlock's engine: model clients, the agent loop, the tool scheduler, the plugin
//! registry and the sandboxed component runtime. Front ends (the headless printer, later
//! the TUI and the MCP server) consume its events; the engine itself never prints.
//!
//! ## Tests
//!
//! The unit tests of `foo.rs` live in `foo_tests.rs` beside it (of `foo/mod.rs`, in
//! `foo/mod_tests.rs`), declared as the last item of `foo.rs`:
//! `#[cfg(test)] #[path = "foo_tests.rs"] mod tests;`. They stay the child module `tests`,
//! so they reach private items with `use super::*` and filter as `foo::tests::`, and the code
//! file holds only code. A test file that outgrows a module splits by topic into
//! `foo_tests/<topic>.rs`, declared from `foo_tests.rs`. Shared test helpers are modules of
//! their own (`testing`, `model::test_support`), not tests. End-to-end tests drive the real
//! binary from `tests/e2e/`.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod agent;
pub mod cancel;
pub mod capability;
pub mod cli;
pub mod commands;
pub mod config;
pub mod contract;
pub mod events;
pub mod files;
pub mod frontends;
pub mod model;
pub mod policy;
pub mod registry;
pub mod runtime;
pub mod sanitize;
pub mod scheduler;
pub mod session;
#[cfg(test)]
mod testing;
