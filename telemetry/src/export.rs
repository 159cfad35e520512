//! The way out: OTLP over HTTP/protobuf through the workspace's reqwest client, the SDK's
//! batch span and log processors (bounded queues, their own threads) and a periodic metric
//! reader, and counters of what was handed to the exporters and what reached the collector.
//!
//! Invariants:
//! - Nothing here runs on the session's path: the processors queue in memory (a full queue
//!   drops, never waits) and export from their own threads.
//! - Every HTTP request runs on the process's tokio runtime with the export timeout, so a
//!   collector that never answers costs a background thread its timeout, nothing more.
//! - A failed export is not retried: its batch is lost and counted. Retries (the SDK's
//!   default: three, from 100 ms apart) would hold the end of a run against a collector that
//!   is down until the grace ran out.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use opentelemetry_http::{Bytes, HttpClient, HttpError, Request, Response};
use opentelemetry_otlp::{
    LogExporter, MetricExporter, Protocol, RetryPolicy, SpanExporter, WithExportConfig, WithHttpConfig,
};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::error::OTelSdkResult;
use opentelemetry_sdk::logs::{BatchLogProcessor, LogBatch, SdkLoggerProvider};
use opentelemetry_sdk::metrics::{PeriodicReader, SdkMeterProvider, Temporality};
use opentelemetry_sdk::trace::{BatchConfigBuilder, BatchSpanProcessor, SdkTracerProvider, SpanData};

use crate::config::Config;

/// Most spans waiting for export; past it a span is dropped (and counted as lost).
const SPAN_QUEUE: usize = 2048;
/// Most log events waiting for export.
const LOG_QUEUE: usize = 2048;
/// How often queued spans and log events are sent.
const BATCH_DELAY: Duration = Duration::from_secs(2);
/// How often metrics are sent (and once more at the end).
const METRIC_INTERVAL: Duration = Duration::from_secs(30);
/// Most bytes of a collector's answer read (an OTLP answer is a few bytes).
const MAX_ANSWER: usize = 64 << 10;

/// Why the exporters could not be built.
#[derive(Debug, thiserror::Error)]
pub enum ExportError {
    #[error("cannot build the telemetry HTTP client: {0}")]
    Client(#[from] reqwest::Error),
    #[error("telemetry exporter: {0}")]
    Exporter(#[from] opentelemetry_otlp::ExporterBuildError),
}

/// What was handed to the exporters and what the collector took.
#[derive(Debug, Default)]
pub struct Tally {
    pub spans_ended: AtomicU64,
    pub spans_sent: AtomicU64,
    pub logs_emitted: AtomicU64,
    pub logs_sent: AtomicU64,
    pub metric_failures: AtomicU64,
}

/// The three providers, built (clones share them).
#[derive(Clone)]
pub struct Providers {
    pub tracer: SdkTracerProvider,
    pub meter: SdkMeterProvider,
    pub logger: SdkLoggerProvider,
}

/// Builds the providers exporting to `config`'s collector. Call within a tokio runtime:
/// requests run on it.
pub fn providers(config: &Config, resource: Resource, tally: &Arc<Tally>) -> Result<Providers, ExportError> {
    let client = Client {
        client: reqwest::Client::builder().timeout(config.timeout).build()?,
        runtime: tokio::runtime::Handle::current(),
    };
    let spans = SpanExporter::builder()
        .with_http()
        .with_http_client(client.clone())
        .with_retry_policy(RetryPolicy::disabled())
        .with_protocol(Protocol::HttpBinary)
        .with_timeout(config.timeout);
    let spans = match config.signal_endpoint("traces") {
        Some(endpoint) => spans.with_endpoint(endpoint),
        None => spans,
    };
    let metrics = MetricExporter::builder()
        .with_http()
        .with_http_client(client.clone())
        .with_retry_policy(RetryPolicy::disabled())
        .with_protocol(Protocol::HttpBinary)
        .with_timeout(config.timeout)
        .with_temporality(Temporality::Cumulative);
    let metrics = match config.signal_endpoint("metrics") {
        Some(endpoint) => metrics.with_endpoint(endpoint),
        None => metrics,
    };
    let logs = LogExporter::builder()
        .with_http()
        .with_http_client(client)
        .with_retry_policy(RetryPolicy::disabled())
        .with_protocol(Protocol::HttpBinary)
        .with_timeout(config.timeout);
    let logs = match config.signal_endpoint("logs") {
        Some(endpoint) => logs.with_endpoint(endpoint),
        None => logs,
    };
    let spans = Counted { inner: spans.build()?, tally: tally.clone() };
    let metrics = Counted { inner: metrics.build()?, tally: tally.clone() };
    let logs = Counted { inner: logs.build()?, tally: tally.clone() };

    let batch = BatchConfigBuilder::default().with_max_queue_size(SPAN_QUEUE).with_scheduled_delay(BATCH_DELAY).build();
    let tracer = SdkTracerProvider::builder()
        .with_span_processor(BatchSpanProcessor::builder(spans).with_batch_config(batch).build())
        .with_resource(resource.clone())
        .build();
    let meter = SdkMeterProvider::builder()
        .with_reader(PeriodicReader::builder(metrics).with_interval(METRIC_INTERVAL).build())
        .with_resource(resource.clone())
        .build();
    let log_batch = opentelemetry_sdk::logs::BatchConfigBuilder::default()
        .with_max_queue_size(LOG_QUEUE)
        .with_scheduled_delay(BATCH_DELAY)
        .build();
    let logger = SdkLoggerProvider::builder()
        .with_log_processor(BatchLogProcessor::builder(logs).with_batch_config(log_batch).build())
        .with_resource(resource)
        .build();
    Ok(Providers { tracer, meter, logger })
}

/// The exporters' HTTP client: the workspace's reqwest, each request spawned on the
/// process's runtime (the batch processors' threads have none) and awaited from there.
#[derive(Debug, Clone)]
struct Client {
    client: reqwest::Client,
    runtime: tokio::runtime::Handle,
}

#[async_trait::async_trait]
impl HttpClient for Client {
    async fn send_bytes(&self, request: Request<Bytes>) -> Result<Response<Bytes>, HttpError> {
        let client = self.client.clone();
        let sent = self.runtime.spawn(async move {
            let request = reqwest::Request::try_from(request)?;
            let mut answer = client.execute(request).await?;
            let mut response = Response::builder().status(answer.status());
            if let Some(headers) = response.headers_mut() {
                *headers = answer.headers().clone();
            }
            let mut body = Vec::new();
            while let Some(chunk) = answer.chunk().await? {
                let room = MAX_ANSWER.saturating_sub(body.len());
                body.extend_from_slice(&chunk[..chunk.len().min(room)]);
            }
            Ok::<_, HttpError>(response.body(Bytes::from(body))?)
        });
        sent.await?
    }
}

/// An exporter that counts what the collector took.
#[derive(Debug)]
struct Counted<E> {
    inner: E,
    tally: Arc<Tally>,
}

impl<E: opentelemetry_sdk::trace::SpanExporter> opentelemetry_sdk::trace::SpanExporter for Counted<E> {
    async fn export(&self, batch: Vec<SpanData>) -> OTelSdkResult {
        let count = batch.len() as u64;
        let result = self.inner.export(batch).await;
        if result.is_ok() {
            self.tally.spans_sent.fetch_add(count, Ordering::Relaxed);
        }
        result
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        self.inner.shutdown_with_timeout(timeout)
    }

    fn force_flush(&self) -> OTelSdkResult {
        self.inner.force_flush()
    }

    fn set_resource(&mut self, resource: &Resource) {
        self.inner.set_resource(resource);
    }
}

impl<E: opentelemetry_sdk::logs::LogExporter> opentelemetry_sdk::logs::LogExporter for Counted<E> {
    async fn export(&self, batch: LogBatch<'_>) -> OTelSdkResult {
        let count = batch.iter().count() as u64;
        let result = self.inner.export(batch).await;
        if result.is_ok() {
            self.tally.logs_sent.fetch_add(count, Ordering::Relaxed);
        }
        result
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        self.inner.shutdown_with_timeout(timeout)
    }

    fn set_resource(&mut self, resource: &Resource) {
        self.inner.set_resource(resource);
    }
}

impl<E: opentelemetry_sdk::metrics::exporter::PushMetricExporter>
    opentelemetry_sdk::metrics::exporter::PushMetricExporter for Counted<E>
{
    async fn export(&self, metrics: &opentelemetry_sdk::metrics::data::ResourceMetrics) -> OTelSdkResult {
        let result = self.inner.export(metrics).await;
        if result.is_err() {
            self.tally.metric_failures.fetch_add(1, Ordering::Relaxed);
        }
        result
    }

    fn force_flush(&self) -> OTelSdkResult {
        self.inner.force_flush()
    }

    fn shutdown_with_timeout(&self, timeout: Duration) -> OTelSdkResult {
        self.inner.shutdown_with_timeout(timeout)
    }

    fn temporality(&self) -> Temporality {
        self.inner.temporality()
    }
}
