//! airlock's engine: model clients, the agent loop, the tool scheduler, the plugin
//! registry and the sandboxed component runtime. Front ends (the headless printer, later
//! the TUI and the MCP server) consume its events; the engine itself never prints.
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
pub mod paths;
pub mod policy;
pub mod registry;
pub mod runtime;
pub mod sanitize;
pub mod scheduler;
pub mod session;
#[cfg(test)]
mod testing;
