//! Hooks end to end: command hooks ([`command`]) run through the built binary's sandbox.

mod command;
