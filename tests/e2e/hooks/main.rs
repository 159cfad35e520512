//! Hooks end to end: command hooks run through the built binary's sandbox ([`command`]) and
//! in real sessions ([`command_session`]).

mod command;
mod command_session;
