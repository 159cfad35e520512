//! Front ends: they translate the engine's outputs for a person or a program, answer its
//! questions, and send it orders; they never drive the engine's internals, and nothing in
//! the engine uses them. Headless (`airlock -p`: [`exec`] drives, [`headless`] prints,
//! [`ask`] asks on the terminal) is here; the TUI and the MCP server come later over the
//! same [`airlock_engine::engine`] API.

pub mod ask;
mod ask_grant;
pub mod diff;
pub mod exec;
mod exit;
pub mod headless;
pub mod json;
mod live;
pub mod sessions_list;
pub mod show_context;
pub mod tools_list;
pub mod tui;

pub use exit::ExitCode;
