//! airlock's front ends: they translate a session's outputs for a person or a program,
//! answer its questions, and send it orders. Headless (`airlock -p`: [`exec`] drives,
//! [`headless`] prints, [`ask`] asks on the terminal) and the interactive UI ([`tui`]) are
//! here, and so are the MCP server ([`mcp`]) and the ACP agent ([`acp`]), over the same door.
//!
//! The crate graph holds the layering: this crate names `airlock-door` (a session's handle,
//! taking the protocol's orders, and the values of its outputs), `airlock-protocol` and
//! `airlock-ui`, never `airlock-engine` nor a crate below it, so a front end that reaches
//! for the engine's policy, registry or runtime does not compile. What a front end prints
//! or draws of the engine's values is the protocol's, converted by `airlock_door::edge`.
//!
//! The unit tests of `foo.rs` live in `foo_tests.rs` beside it, as in the engine crate.
#![deny(clippy::print_stdout, clippy::print_stderr)]

pub mod acp;
pub mod ask;
mod ask_grant;
pub mod attachments;
pub mod diff;
pub mod exec;
mod exit;
pub mod headless;
pub mod hook_note;
pub mod json;
mod live;
pub mod mcp;
pub mod output_schema;
pub mod slash;
pub mod tui;

pub use exit::ExitCode;
