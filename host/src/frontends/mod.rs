//! Front ends: they translate the engine's outputs for a person or a program, answer its
//! questions, and send it orders; they never drive the engine's internals, and nothing in
//! the engine uses them. Headless (`airlock -p`: [`exec`] drives, [`headless`] prints,
//! [`ask`] asks on the terminal) is here, and the TUI; the MCP server comes later over the
//! same [`airlock_engine::engine`] API. What they print or draw of the engine's values is the
//! protocol's (`airlock_protocol`), converted in [`protocol`].

pub mod ask;
mod ask_grant;
pub mod diff;
pub mod exec;
mod exit;
pub mod headless;
pub mod json;
mod live;
pub mod protocol;
pub mod sessions_list;
pub mod show_context;
pub mod tools_list;
pub mod tui;

pub use exit::ExitCode;
