//! Tests of the runtime against real components, one file per topic: the store limiter and
//! the process budget ([`limits`]), the network and environment of a sandbox ([`net`]),
//! what a plugin hands back ([`output`]), instances kept for a later call ([`parking`]), and
//! what a fresh instance finds of the ones before it: nothing ([`fresh`]).

#[path = "mod_tests/fresh.rs"]
mod fresh;
#[path = "mod_tests/limits.rs"]
mod limits;
#[path = "mod_tests/net.rs"]
mod net;
#[path = "mod_tests/output.rs"]
mod output;
#[path = "mod_tests/parking.rs"]
mod parking;
