//! airlock's terminal widgets. Everything here turns plain view data ([`view`]) into ratatui
//! lines and widgets; nothing reads the terminal, the engine or the disk (but the composer's
//! history file and workspace file index, which say so). The host's `tui` front end keeps
//! the state, maps engine outputs to these views, and decides what is drawn when.
//!
//! Colours come from [`style::Theme`], which honours `NO_COLOR`.

pub mod approval;
mod dialog;
pub mod grant;
pub mod help;
pub mod picker;
pub mod style;
pub mod view;
