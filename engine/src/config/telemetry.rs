//! `[telemetry]`: whether a session's spans, metrics and log events go to an OpenTelemetry
//! collector (the `airlock-telemetry` crate sends them). Plain values only: the engine does
//! not carry the OpenTelemetry crates.
//!
//! Invariant: a workspace's settings file may not set any of these keys
//! ([`super::merge::workspace_refusal`]): a repository must not be able to send the user's
//! prompts to a collector of its own.

use serde::Deserialize;

/// `[telemetry]` as written; what is missing comes from the `OTEL_*` variables, then the
/// defaults (off, `http/protobuf`, no prompt text).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TelemetrySettings {
    /// Export at all (default off; `AIRLOCK_TELEMETRY=1` also turns it on).
    pub enabled: Option<bool>,
    /// The collector's base URL (`/v1/traces`, `/v1/metrics`, `/v1/logs` are added).
    pub endpoint: Option<String>,
    /// The OTLP protocol; only `http/protobuf` is built in.
    pub protocol: Option<String>,
    /// Whether prompt, answer and tool-argument text is sent (cut to a bound).
    pub log_prompts: Option<bool>,
}
