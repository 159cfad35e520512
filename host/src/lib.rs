//! airlock's engine: model clients, the agent loop, the tool scheduler, the plugin
//! registry and the sandboxed component runtime. Front ends (the headless printer, later
//! the TUI and the MCP server) consume its events; the engine itself never prints.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod model;
pub mod contract;
pub mod runtime;
pub mod registry;
pub mod capability;
pub mod events;
pub mod policy;
pub mod cancel;
pub mod scheduler;
pub mod agent;
pub mod config;
pub mod cli;
pub mod frontends;
#[cfg(test)]
mod testing;
