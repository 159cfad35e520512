//! OpenTelemetry for the sessions this binary starts: turned on by `[telemetry]` (never a
//! workspace's) or the `OTEL_*` / `AIRLOCK_TELEMETRY` variables, each session observed at
//! its door, and what was not delivered said on stderr at the end (`airlock-telemetry`).
//!
//! Invariant: telemetry never changes a run's outcome: a setting it cannot use, or a
//! collector that is down, is a warning on stderr, and the exit code stays the run's.

use std::io::Write;
use std::sync::Arc;

use airlock_engine::config::TelemetrySettings;
use airlock_engine::engine;
use airlock_telemetry::{Settings, Telemetry};

/// A session's door and outputs, observed when telemetry is on.
pub type Observed = (airlock_door::Session, tokio::sync::mpsc::UnboundedReceiver<airlock_door::Output>);

/// Telemetry as the settings and the environment ask, or `None` (off, or a warning said why
/// not). Call within the runtime.
pub fn start(settings: &TelemetrySettings) -> Option<Arc<Telemetry>> {
    let settings = Settings {
        enabled: settings.enabled,
        endpoint: settings.endpoint.clone(),
        protocol: settings.protocol.clone(),
        log_prompts: settings.log_prompts,
    };
    match Telemetry::start(&settings, &|name| std::env::var(name).ok()) {
        Ok(telemetry) => telemetry.map(Arc::new),
        Err(error) => {
            warn(&error.to_string());
            None
        }
    }
}

/// The door of `session`, observed by `telemetry` when there is one.
pub fn observe(
    telemetry: Option<&Telemetry>,
    session: engine::Session,
    outputs: tokio::sync::mpsc::UnboundedReceiver<engine::Output>,
) -> Observed {
    let session = airlock_door::Session::from(session);
    match telemetry {
        Some(telemetry) => telemetry.observe(session, outputs),
        None => (session, outputs),
    }
}

/// Sends what is left (within `airlock_telemetry::GRACE`) and says what was not delivered.
pub async fn finish(telemetry: Option<Arc<Telemetry>>) {
    if let Some(telemetry) = telemetry {
        for warning in telemetry.shutdown().await {
            warn(&warning);
        }
    }
}

fn warn(message: &str) {
    let _ = writeln!(std::io::stderr(), "airlock: {}", airlock_engine::sanitize::line(message));
}
