//! airlock's terminal widgets. Everything here turns plain view data ([`view`]) into ratatui
//! lines and widgets; nothing reads the terminal, the engine or the disk (but the composer's
//! history file and workspace file index, which say so). The host's `tui` front end keeps
//! the state, maps engine outputs to these views, and decides what is drawn when.
//!
//! Colours come from [`style::Theme`], which honours `NO_COLOR`.

pub mod approval;
pub mod card;
pub mod composer;
mod dialog;
pub mod diff;
pub mod grant;
pub mod help;
pub mod highlight;
pub mod markdown;
pub mod pager;
pub mod picker;
pub mod plan;
pub mod rewind;
pub mod status;
pub mod style;
pub mod transcript;
pub mod view;
