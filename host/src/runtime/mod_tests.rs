//! Tests of the runtime against real components, one file per topic: the store limiter and
//! the process budget ([`limits`]), the network and environment of a sandbox ([`net`]), and
//! what a plugin hands back ([`output`]).

#[path = "mod_tests/limits.rs"]
mod limits;
#[path = "mod_tests/net.rs"]
mod net;
#[path = "mod_tests/output.rs"]
mod output;
