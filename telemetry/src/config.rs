//! Whether to export, and where: `[telemetry]` from `config.toml` with the standard
//! `OTEL_*` variables and `AIRLOCK_TELEMETRY`. The exporters read the variables the
//! OpenTelemetry specification gives them (`OTEL_EXPORTER_OTLP_*_ENDPOINT`, `_HEADERS`,
//! `_TIMEOUT`; the resource's `OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`); this module
//! decides what they cannot: on or off, the protocol, a base endpoint from the file, the
//! export timeout our HTTP client applies, and whether prompt text goes out.
//!
//! Invariant: off unless asked for, and `OTEL_SDK_DISABLED=true` always wins.

use std::time::Duration;

/// `[telemetry]` as written in `config.toml` (the engine's `TelemetrySettings`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Settings {
    pub enabled: Option<bool>,
    pub endpoint: Option<String>,
    pub protocol: Option<String>,
    pub log_prompts: Option<bool>,
}

/// Telemetry turned on, with what the exporters need beyond the variables they read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// The collector's base URL from `config.toml`; `None`: the `OTEL_*` variables (else
    /// `http://localhost:4318`).
    pub endpoint: Option<String>,
    /// Each export request's limit (`OTEL_EXPORTER_OTLP_TIMEOUT`, milliseconds; default 10 s).
    pub timeout: Duration,
    /// Whether prompt, answer and tool-argument text is sent.
    pub log_prompts: bool,
}

impl Config {
    /// The endpoint for `signal` (`traces`, `metrics`, `logs`) when the file gave a base URL.
    pub fn signal_endpoint(&self, signal: &str) -> Option<String> {
        self.endpoint.as_ref().map(|base| format!("{}/v1/{signal}", base.trim_end_matches('/')))
    }
}

/// Why telemetry stays off although it was asked for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ConfigError {
    #[error(
        "telemetry is off: protocol \"{0}\" (from {1}) is not supported; airlock sends OTLP over HTTP/protobuf: \
         set \"http/protobuf\" and point the endpoint at the collector's HTTP port (4318)"
    )]
    Protocol(String, &'static str),
    #[error("telemetry is off: endpoint \"{0}\" is not an http:// or https:// URL")]
    Endpoint(String),
}

/// The default export timeout of the OTLP specification.
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(10);

/// What `settings` and the variables `env` reads say: `Ok(None)` when telemetry is off.
pub fn resolve(settings: &Settings, env: &dyn Fn(&str) -> Option<String>) -> Result<Option<Config>, ConfigError> {
    let flag = |name: &str| env(name).map(|v| v.trim().to_ascii_lowercase());
    if flag("OTEL_SDK_DISABLED").is_some_and(|v| v == "true") {
        return Ok(None);
    }
    let enabled = match flag("AIRLOCK_TELEMETRY").as_deref() {
        Some("1" | "true" | "on" | "yes") => true,
        Some("0" | "false" | "off" | "no") => false,
        _ => settings.enabled.unwrap_or(false),
    };
    if !enabled {
        return Ok(None);
    }
    let protocols = [
        ("[telemetry] protocol", settings.protocol.clone()),
        ("OTEL_EXPORTER_OTLP_PROTOCOL", env("OTEL_EXPORTER_OTLP_PROTOCOL")),
        ("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", env("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")),
        ("OTEL_EXPORTER_OTLP_METRICS_PROTOCOL", env("OTEL_EXPORTER_OTLP_METRICS_PROTOCOL")),
        ("OTEL_EXPORTER_OTLP_LOGS_PROTOCOL", env("OTEL_EXPORTER_OTLP_LOGS_PROTOCOL")),
    ];
    for (source, protocol) in protocols {
        if let Some(protocol) = protocol.map(|p| p.trim().to_string()).filter(|p| !p.is_empty())
            && protocol != "http/protobuf"
        {
            return Err(ConfigError::Protocol(protocol, source));
        }
    }
    let endpoint = settings.endpoint.as_deref().map(str::trim).filter(|e| !e.is_empty());
    if let Some(endpoint) = endpoint
        && !(endpoint.starts_with("http://") || endpoint.starts_with("https://"))
    {
        return Err(ConfigError::Endpoint(endpoint.to_string()));
    }
    let millis = |name: &str| env(name).and_then(|v| v.trim().parse::<u64>().ok()).filter(|ms| *ms > 0);
    let timeout = millis("OTEL_EXPORTER_OTLP_TIMEOUT").map_or(DEFAULT_TIMEOUT, Duration::from_millis);
    Ok(Some(Config {
        endpoint: endpoint.map(str::to_string),
        timeout,
        log_prompts: settings.log_prompts.unwrap_or(false),
    }))
}

#[cfg(test)]
#[path = "config_tests.rs"]
mod tests;
