//! Front ends: they translate the engine's events for a person or a program and never
//! drive the engine's internals. Headless (`airlock -p`) is here; the TUI and the MCP server
//! come later over the same events.

pub mod headless;
pub mod json;
mod live;
pub mod sessions_list;
pub mod show_context;
pub mod tools_list;
