//! Test support for airlock: a scripted mock model server ([`MockModel`]) that end-to-end
//! tests point the real binary at, helpers to read what the model was sent, and network
//! targets for the sandbox tests ([`http_server`]).

pub mod fixtures;
pub mod http_server;
pub mod images;
pub mod kits;
pub mod mcp;
pub mod mock_model;
pub mod otel;
pub mod pty;
pub mod registry;
pub mod session;
pub mod trees;
pub mod variants;

pub use mock_model::{
    MockCall, MockModel, NO_MORE_TURNS, RecordedRequest, Turn, Wire, call, declared_tools, function_responses,
};
pub use session::{FAST_RETRIES, Finished, Session, climbing, run_bounded};
