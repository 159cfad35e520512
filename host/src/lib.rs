//! airlock: an AI agent for the terminal whose every tool is a sandboxed WebAssembly
//! component. This crate holds the engine — model clients, the agent loop, the tool
//! scheduler, the plugin registry, the policy and the sandboxed component runtime — and its
//! front ends, which only translate. The engine itself never prints.
//!
//! ## The pipeline
//!
//! ```text
//!  front ends (leaves)                 │ the engine
//!                                      │
//!  cli ─┬─ commands: tools, plugins,   │  engine::Session: owns all below, sends start-up events
//!       │  trust, sessions             │
//!       └─ frontends::exec ── Op ────▶ │  agent ──────▶ model: gemini, openai, anthropic wires
//!          (headless; a TUI  ◀─ Output │    │ the loop,         SSE, retries
//!          and an MCP server  events,  │    │ compression
//!          next), headless    questions│    ▼
//!          prints, ask        turn     │  scheduler ──▶ policy: grants, rules, approval mode,
//!          answers questions  reports  │    │ a state          trust, what an approval is
//!                                      │    │ machine per call
//!                                      │    ▼
//!                                      │  registry ───▶ runtime: wasmtime, compile cache,
//!                                      │  plugins,        │     sandboxed instances, limits
//!                                      │  descriptions    ▼
//!                                      │                capability: requested ∩ granted
//!                                      │  session: the recorder, resume
//!                                      │
//!  shared below: events, contract (the WIT types), paths, config, files, sanitize, cancel
//! ```
//!
//! A front end starts a session with [`engine::Session::start`] and from then on only sends
//! [`engine::Op`]s and reads [`engine::Output`]s: a user turn, an interrupt, the answer to a
//! question, a mode change, compress, resume. Approvals reach it as questions and come back
//! as orders, so a front end that is not a terminal can answer them whenever it likes.
//!
//! ## Tests
//!
//! The unit tests of `foo.rs` live in `foo_tests.rs` beside it (of `foo/mod.rs`, in
//! `foo/mod_tests.rs`), declared as the last item of `foo.rs`:
//! `#[cfg(test)] #[path = "foo_tests.rs"] mod tests;`. They stay the child module `tests`,
//! so they reach private items with `use super::*` and filter as `foo::tests::`, and the code
//! file holds only code. A test file that outgrows a module splits by topic into
//! `foo_tests/<topic>.rs`, declared from `foo_tests.rs`. Shared test helpers are modules of
//! their own (`testing`, `model::test_support`), not tests; `lib_tests.rs` holds the
//! crate's own rules (the module graph below). End-to-end tests drive the real
//! binary from `tests/e2e/`.
//!
//! ## Which module may use which
//!
//! A module uses another when its code (tests aside) names `crate::that`. Each line lists
//! all that one top-level module may use, and the uses form no circle. Front ends (marked,
//! and `main.rs`) may use the engine and each other; no engine module uses a front end.
//! `lib_tests.rs` reads this list and holds the crate to it.
//!
//! - `agent`: `cancel`, `events`, `files`, `model`, `scheduler`, `session`
//! - `cancel`: `runtime`
//! - `capability`: `contract`, `sanitize`
//! - `config`: `capability`, `model`, `paths`, `policy`, `sandbox`, `sanitize`
//! - `contract`: (none)
//! - `engine`: `agent`, `cancel`, `capability`, `contract`, `events`, `model`, `paths`, `policy`, `registry`, `runtime`, `sandbox`, `sanitize`, `scheduler`, `session`
//! - `events`: `contract`, `model`, `process`, `registry`
//! - `files`: (none)
//! - `model`: (none)
//! - `paths`: `files`
//! - `policy`: `capability`, `contract`, `files`, `paths`, `process`, `registry`, `sanitize`, `shell`
//! - `process`: `sandbox`
//! - `registry`: `capability`, `contract`, `files`, `runtime`, `sanitize`
//! - `runtime`: `capability`, `contract`, `files`, `paths`, `process`, `sandbox`, `sanitize`, `shell`
//! - `sandbox`: `files`
//! - `sanitize`: (none)
//! - `scheduler`: `cancel`, `capability`, `contract`, `events`, `files`, `model`, `policy`, `process`, `registry`, `runtime`, `sandbox`, `sanitize`
//! - `session`: `events`, `model`, `scheduler`
//! - `shell`: `files`
//! - `cli` (front end): `agent`, `commands`, `config`, `engine`, `files`, `frontends`, `paths`, `policy`, `process`, `sanitize`, `session`
//! - `commands` (front end): `capability`, `contract`, `files`, `frontends`, `paths`, `policy`, `registry`, `runtime`, `sanitize`
//! - `frontends` (front end): `agent`, `capability`, `contract`, `engine`, `events`, `files`, `model`, `policy`, `process`, `registry`, `sanitize`, `session`
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod agent;
pub mod cancel;
pub mod capability;
pub mod cli;
pub mod commands;
pub mod config;
pub mod contract;
pub mod engine;
pub mod events;
pub mod files;
pub mod frontends;
pub mod model;
pub mod paths;
pub mod policy;
pub mod process;
pub mod registry;
pub mod runtime;
pub mod sandbox;
pub mod sanitize;
pub mod scheduler;
pub mod session;
pub mod shell;
#[cfg(test)]
mod testing;

#[cfg(test)]
#[path = "lib_tests.rs"]
mod tests;
