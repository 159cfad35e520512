//! airlock's OpenTelemetry export. Off by default; when `[telemetry]` or
//! `AIRLOCK_TELEMETRY` turns it on ([`config`]), each session is observed at its door
//! ([`airlock_door::observe`]) and its spans, metrics and log events go to an OTLP collector
//! over HTTP/protobuf ([`export`]). The engine knows nothing of it: this crate builds
//! everything from the orders and outputs every front end already exchanges, so the
//! headless run, the TUI, ACP and `mcp serve` are covered alike.
//!
//! Invariants:
//! - Export never slows the session: observers only record, the SDK's processors queue
//!   (bounded; a full queue drops) and send from their own threads.
//! - A collector that is down or slow costs a warning, never the session's time:
//!   [`Telemetry::shutdown`] waits at most [`GRACE`] for the last data to go out, then
//!   reports what was not delivered.
//! - Prompt, answer, argument and result text goes out only with `log_prompts = true`.
#![deny(clippy::print_stdout, clippy::print_stderr)]

mod calls;
pub mod config;
mod export;
mod instruments;
mod observer;

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use airlock_door::Session;
use airlock_door::observe::{Observed, Observer};
use opentelemetry::KeyValue;
use opentelemetry_sdk::Resource;

pub use config::{ConfigError, Settings};
pub use export::ExportError;
pub use observer::Plugins;

/// The longest a session's end waits for the last telemetry to reach the collector.
pub const GRACE: Duration = Duration::from_secs(1);

/// Telemetry turned on: the providers, and the sessions observed.
pub struct Telemetry {
    providers: export::Providers,
    shared: Arc<instruments::Shared>,
    tally: Arc<export::Tally>,
    /// Where the data goes, for warnings.
    endpoint: String,
    /// The observers' forwarding tasks, awaited (briefly) before the last export.
    observers: Mutex<Vec<tokio::task::JoinHandle<()>>>,
}

/// Why telemetry stays off although it was asked for.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    #[error(transparent)]
    Config(#[from] ConfigError),
    #[error(transparent)]
    Export(#[from] ExportError),
}

impl Telemetry {
    /// Telemetry as `settings` and the variables `env` reads ask: `Ok(None)` when off. Call
    /// within a tokio runtime (exports run on it).
    pub fn start(settings: &Settings, env: &dyn Fn(&str) -> Option<String>) -> Result<Option<Self>, StartError> {
        let Some(config) = config::resolve(settings, env)? else { return Ok(None) };
        let tally = Arc::new(export::Tally::default());
        let providers = export::providers(&config, resource(env), &tally)?;
        let shared = Arc::new(instruments::Shared::new(
            &providers.tracer,
            &providers.meter,
            &providers.logger,
            tally.clone(),
            config.log_prompts,
        ));
        let endpoint = config
            .signal_endpoint("traces")
            .or_else(|| env("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"))
            .or_else(|| env("OTEL_EXPORTER_OTLP_ENDPOINT"))
            .unwrap_or_else(|| "http://localhost:4318".into());
        Ok(Some(Self { providers, shared, tally, endpoint, observers: Mutex::new(Vec::new()) }))
    }

    /// Observes `session`: hand the returned session and outputs to the front end.
    pub fn observe(
        &self,
        session: Session,
        outputs: tokio::sync::mpsc::UnboundedReceiver<airlock_door::Output>,
    ) -> (Session, tokio::sync::mpsc::UnboundedReceiver<airlock_door::Output>) {
        let tools = session.tools();
        let observer = self.observer(Box::new(move |tool| tools.plugin_of(tool)));
        let Observed { session, outputs, done } = airlock_door::observe::observe(session, outputs, observer);
        if let Ok(mut observers) = self.observers.lock() {
            observers.retain(|task| !task.is_finished());
            observers.push(done);
        }
        (session, outputs)
    }

    /// An observer of one session that finds the plugin behind a tool with `plugins`
    /// ([`Telemetry::observe`] wires it to a session; a benchmark feeds it outputs itself).
    pub fn observer(&self, plugins: Plugins) -> Box<dyn Observer> {
        Box::new(observer::SessionObserver::new(self.shared.clone(), plugins))
    }

    /// Sends what is left, waiting at most [`GRACE`] in all; returns the warnings to show
    /// (nothing when everything was delivered).
    pub async fn shutdown(&self) -> Vec<String> {
        let deadline = Instant::now() + GRACE;
        let observers = self.observers.lock().map(|mut o| std::mem::take(&mut *o)).unwrap_or_default();
        for task in observers {
            let _ = tokio::time::timeout_at(deadline.into(), task).await;
        }
        let providers = self.providers.clone();
        let (sent, flushed) = tokio::sync::oneshot::channel();
        // The SDK's shutdown blocks until its threads have exported: off the runtime, and
        // abandoned (with the process) when the collector does not answer in time.
        let spawned = std::thread::Builder::new().name("telemetry-flush".into()).spawn(move || {
            let _ = providers.tracer.shutdown_with_timeout(GRACE);
            let _ = providers.logger.shutdown_with_timeout(GRACE);
            let _ = providers.meter.shutdown_with_timeout(GRACE);
            let _ = sent.send(());
        });
        let in_time =
            spawned.is_ok() && tokio::time::timeout_at(deadline.into(), flushed).await.is_ok_and(|r| r.is_ok());
        report(&self.tally, &self.endpoint, in_time)
    }
}

/// The warnings of an export that ended, `in_time` or cut at the grace.
fn report(tally: &export::Tally, endpoint: &str, in_time: bool) -> Vec<String> {
    let spans = tally.spans_ended.load(Ordering::Relaxed);
    let lost_spans = spans.saturating_sub(tally.spans_sent.load(Ordering::Relaxed));
    let logs = tally.logs_emitted.load(Ordering::Relaxed);
    let lost_logs = logs.saturating_sub(tally.logs_sent.load(Ordering::Relaxed));
    let metric_failures = tally.metric_failures.load(Ordering::Relaxed);
    let mut warnings = Vec::new();
    if !in_time {
        warnings.push(format!(
            "telemetry: the collector at {endpoint} did not take the last data within {} s; gave up",
            GRACE.as_secs_f64()
        ));
    }
    if lost_spans > 0 || lost_logs > 0 || (metric_failures > 0 && in_time) {
        warnings.push(format!(
            "telemetry: {lost_spans} of {spans} spans and {lost_logs} of {logs} log events were not delivered to \
             {endpoint}{}",
            if metric_failures > 0 { ", nor the metrics" } else { "" }
        ));
    }
    warnings
}

/// The resource every signal carries: the variables' (`OTEL_SERVICE_NAME`,
/// `OTEL_RESOURCE_ATTRIBUTES`), with `service.name = airlock` unless they name one.
fn resource(env: &dyn Fn(&str) -> Option<String>) -> Resource {
    let named = env("OTEL_SERVICE_NAME").is_some_and(|n| !n.trim().is_empty())
        || env("OTEL_RESOURCE_ATTRIBUTES")
            .is_some_and(|a| a.split(',').any(|kv| kv.trim().starts_with("service.name=")));
    let builder = Resource::builder().with_attribute(KeyValue::new("service.version", env!("CARGO_PKG_VERSION")));
    if named { builder.build() } else { builder.with_service_name("airlock").build() }
}

#[cfg(test)]
#[path = "lib_tests.rs"]
mod tests;
