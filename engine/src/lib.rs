//! airlock's engine: the agent loop, the tool scheduler, the plugin registry, the policy and
//! the sandboxed component runtime, behind one handle ([`engine::Session`]). It never
//! prints: the front ends (the `airlock` crate) translate what it emits.
//!
//! ## The crates
//!
//! ```text
//!  airlock (the binary: cli, the commands that manage without a session)
//!     │                     airlock-frontends (headless, the TUI)
//!     │                        │ names only the door, the protocol and the UI
//!     │                     airlock-door: engine::Session wrapped, protocol orders in,
//!     │                        │ the values of Output re-exported by name, queries
//!     ▼                        ▼
//!  airlock-engine (this crate)
//!     │
//!     ├──▶ airlock-model: providers, the neutral conversation format
//!     ├──▶ airlock-shell: command lines read the way bash reads them
//!     ├──▶ airlock-process ──▶ airlock-sandbox: the programs plugins start, in the OS sandbox
//!     ├──▶ airlock-files: handle-based, no-follow file access (under shell and sandbox too)
//!     └──▶ airlock-protocol: the front ends' vocabulary and the one sanitiser (`sanitize`)
//! ```
//!
//! Each arrow is a dependency in a `Cargo.toml`, so a use against it does not compile: no
//! crate below names the engine, and the engine names no front end.
//!
//! ## The pipeline
//!
//! ```text
//!  front end ── Op ────▶ engine::Session: owns all below, sends start-up events
//!            ◀─ Output    │
//!    events, questions,   agent ──────▶ airlock-model: gemini, openai, anthropic wires
//!    turn reports         │ the loop,
//!                         │ compression
//!                         ▼
//!                         scheduler ──▶ policy: grants, rules, approval mode,
//!                         │ a state          trust, what an approval is
//!                         │ machine per call
//!                         ▼
//!                         registry ───▶ runtime: wasmtime, compile cache,
//!                         plugins,        │     sandboxed instances, limits
//!                         descriptions    ▼
//!                                       capability: requested ∩ granted
//!                         session: the recorder, resume
//!
//!  shared below: events, contract (the WIT types), paths, config, sanitize, cancel
//! ```
//!
//! The binary starts a session with [`engine::Session::start`] and hands a front end its
//! door (`airlock-door`), through which the front end only sends the protocol's orders
//! (turned into [`engine::Op`]s there) and reads [`engine::Output`]s: a user turn, an
//! interrupt, the answer to a question, a mode change, compress, resume. Approvals reach it as questions and come back
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
//! their own (`testing` here, `airlock_model::test_support` behind the model crate's
//! `test-support` feature), not tests; `lib_tests.rs` holds the crate's own rules (the
//! module graph below). End-to-end tests drive the real binary from `tests/e2e/`.
//!
//! ## Which module may use which
//!
//! The crate graph is the compiler's to hold; inside this crate, the modules keep a graph of
//! their own, which no `Cargo.toml` sees. A module uses another when its code (tests aside)
//! names `crate::that`, and a crate below when it names `airlock_that`. Each line lists all
//! that one top-level module may use, and the uses form no circle. `lib_tests.rs` reads
//! this list and holds the crate to it.
//!
//! - `agent`: `audit`, `cancel`, `checkpoints`, `events`, `hooks`, `media`, `rewind`, `scheduler`, `session`, `airlock_files`, `airlock_model`
//! - `audit`: `capability`, `contract`, `events`, `paths`, `policy`, `registry`, `airlock_files`, `airlock_protocol`
//! - `cancel`: `runtime`
//! - `checkpoints`: `config`, `events`, `sanitize`, `airlock_checkpoint`
//! - `capability`: `contract`, `sanitize`
//! - `config`: `capability`, `media`, `paths`, `policy`, `sanitize`, `airlock_checkpoint`, `airlock_files`, `airlock_model`, `airlock_protocol`, `airlock_sandbox`
//! - `contract`: `airlock_protocol`
//! - `engine`: `agent`, `audit`, `cancel`, `capability`, `checkpoints`, `config`, `contract`, `events`, `hooks`, `mcp`, `media`, `paths`, `policy`, `prompts`, `registry`, `rewind`, `runtime`, `sanitize`, `scheduler`, `session`, `airlock_checkpoint`, `airlock_model`, `airlock_protocol`, `airlock_sandbox`
//! - `events`: `contract`, `registry`, `airlock_model`, `airlock_process`, `airlock_protocol`
//! - `hooks`: `capability`, `config`, `contract`, `events`, `policy`, `registry`, `runtime`, `sanitize`, `airlock_files`, `airlock_process`, `airlock_protocol`, `airlock_sandbox`
//! - `mcp`: `config`, `events`, `paths`, `policy`, `registry`, `sanitize`, `airlock_files`, `airlock_mcp`, `airlock_process`, `airlock_sandbox`
//! - `media`: `airlock_model`
//! - `paths`: `airlock_files`
//! - `policy`: `capability`, `contract`, `paths`, `registry`, `sanitize`, `airlock_files`, `airlock_process`, `airlock_shell`, `airlock_signing`
//! - `prompts`: `sanitize`, `airlock_files`
//! - `registry`: `capability`, `contract`, `runtime`, `sanitize`, `airlock_files`
//! - `rewind`: `audit`, `checkpoints`, `config`, `session`, `airlock_checkpoint`, `airlock_model`, `airlock_protocol`
//! - `runtime`: `capability`, `contract`, `paths`, `sanitize`, `airlock_files`, `airlock_process`, `airlock_protocol`, `airlock_sandbox`, `airlock_shell`
//! - `sanitize`: `airlock_protocol`
//! - `scheduler`: `audit`, `cancel`, `capability`, `checkpoints`, `contract`, `events`, `hooks`, `mcp`, `policy`, `prompts`, `registry`, `runtime`, `sanitize`, `airlock_files`, `airlock_mcp`, `airlock_model`, `airlock_process`, `airlock_protocol`, `airlock_sandbox`
//! - `session`: `checkpoints`, `events`, `scheduler`, `airlock_model`, `airlock_protocol`
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod agent;
pub mod audit;
pub(crate) mod cancel;
pub mod capability;
pub mod checkpoints;
pub mod config;
pub mod contract;
pub mod engine;
pub mod events;
pub mod hooks;
pub mod mcp;
pub mod media;
pub mod paths;
pub mod policy;
pub mod prompts;
pub mod registry;
pub mod rewind;
pub mod runtime;
pub mod sanitize;
pub(crate) mod scheduler;
pub mod session;
#[cfg(test)]
mod testing;
// The build script's check of a packaged crate's built-ins, tested as a module of its own.
#[cfg(test)]
#[path = "../build/packaged.rs"]
mod build_packaged;

#[cfg(test)]
#[path = "lib_tests.rs"]
mod tests;
