//! airlock's engine: model clients, the agent loop, the tool scheduler, the plugin
//! registry and the sandboxed component runtime. Front ends (the headless printer, later
//! the TUI and the MCP server) consume its events; the engine itself never prints.
//!
//! ## Which module may use which
//!
//! A module uses another when its code (tests aside) names `crate::that`. Each line lists
//! all that one top-level module may use, and the uses form no circle. Front ends (marked,
//! and `main.rs`) may use the engine and each other; no engine module uses a front end.
//! `module_graph_tests.rs` reads this list and holds the crate to it.
//!
//! - `agent`: `cancel`, `events`, `files`, `model`, `scheduler`, `session`
//! - `cancel`: `runtime`
//! - `capability`: `contract`, `sanitize`
//! - `config`: `capability`, `model`, `paths`, `policy`, `sanitize`
//! - `contract`: (none)
//! - `events`: `contract`, `model`, `registry`
//! - `files`: (none)
//! - `model`: (none)
//! - `paths`: (none)
//! - `policy`: `capability`, `contract`, `files`, `paths`, `registry`, `sanitize`
//! - `registry`: `capability`, `contract`, `files`, `runtime`, `sanitize`
//! - `runtime`: `capability`, `contract`, `files`
//! - `sanitize`: (none)
//! - `scheduler`: `cancel`, `capability`, `contract`, `events`, `files`, `model`, `policy`, `registry`, `runtime`, `sanitize`
//! - `session`: `model`
//! - `cli` (front end): `agent`, `cancel`, `capability`, `commands`, `config`, `events`, `frontends`, `model`, `paths`, `policy`, `registry`, `runtime`, `sanitize`, `scheduler`, `session`
//! - `commands` (front end): `capability`, `contract`, `paths`, `policy`, `registry`, `runtime`, `sanitize`
//! - `frontends` (front end): `agent`, `contract`, `events`, `model`, `policy`, `registry`, `runtime`, `sanitize`, `session`
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
#[cfg(test)]
mod module_graph_tests;
pub mod paths;
pub mod policy;
pub mod registry;
pub mod runtime;
pub mod sanitize;
pub mod scheduler;
pub mod session;
#[cfg(test)]
mod testing;
