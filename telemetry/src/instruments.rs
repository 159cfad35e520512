//! What a session records besides spans: the metric instruments, and log events. Names
//! follow the OpenTelemetry GenAI semantic conventions where they have one
//! (`gen_ai.client.token.usage`, `gen_ai.client.operation.duration`,
//! `gen_ai.execute_tool.duration`, the `gen_ai.user.message`, `gen_ai.choice` and
//! `gen_ai.tool.message` events); airlock's own measures are under `airlock.*`.
//!
//! Invariant: text a person or the model wrote (prompts, answers, arguments, results) goes
//! out only when `log_prompts` is on, and then at most [`TEXT_BOUND`] bytes of each.

use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::SystemTime;

use opentelemetry::KeyValue;
use opentelemetry::logs::{AnyValue, LogRecord, Logger, LoggerProvider, Severity};
use opentelemetry::metrics::{Counter, Histogram, Meter, MeterProvider};
use opentelemetry::trace::SpanContext;
use opentelemetry_sdk::logs::{SdkLogger, SdkLoggerProvider};
use opentelemetry_sdk::metrics::SdkMeterProvider;
use opentelemetry_sdk::trace::{SdkTracer, SdkTracerProvider};

use crate::export::Tally;

/// Most bytes of one text sent when `log_prompts` is on.
pub const TEXT_BOUND: usize = 4096;

/// The instrumentation scope's name.
const SCOPE: &str = "airlock";

/// Bucket bounds of `gen_ai.client.token.usage`, as the conventions advise.
const TOKEN_BOUNDS: [f64; 14] = [
    1.0, 4.0, 16.0, 64.0, 256.0, 1024.0, 4096.0, 16384.0, 65536.0, 262144.0, 1048576.0, 4194304.0, 16777216.0,
    67108864.0,
];
/// Bucket bounds of the durations in seconds, as the conventions advise.
const SECOND_BOUNDS: [f64; 14] =
    [0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92];

/// What every observer of a process shares: the tracer, the instruments, the logger.
pub struct Shared {
    pub tracer: SdkTracer,
    pub logger: SdkLogger,
    pub tokens: Histogram<u64>,
    pub operation: Histogram<f64>,
    pub tool_duration: Histogram<f64>,
    pub tool_memory: Histogram<u64>,
    pub tool_bytes: Counter<u64>,
    pub tool_requests: Counter<u64>,
    pub approvals: Counter<u64>,
    pub tally: Arc<Tally>,
    pub log_prompts: bool,
}

impl Shared {
    pub fn new(
        tracer: &SdkTracerProvider,
        meter: &SdkMeterProvider,
        logger: &SdkLoggerProvider,
        tally: Arc<Tally>,
        log_prompts: bool,
    ) -> Self {
        use opentelemetry::trace::TracerProvider as _;
        let meter: Meter = meter.meter(SCOPE);
        Self {
            tracer: tracer.tracer(SCOPE),
            logger: logger.logger(SCOPE),
            tokens: meter
                .u64_histogram("gen_ai.client.token.usage")
                .with_unit("{token}")
                .with_description("Tokens of each model request, by gen_ai.token.type")
                .with_boundaries(TOKEN_BOUNDS.to_vec())
                .build(),
            operation: meter
                .f64_histogram("gen_ai.client.operation.duration")
                .with_unit("s")
                .with_description("Duration of each model request")
                .with_boundaries(SECOND_BOUNDS.to_vec())
                .build(),
            tool_duration: meter
                .f64_histogram("gen_ai.execute_tool.duration")
                .with_unit("s")
                .with_description("Duration of each tool call, from validation to its end")
                .with_boundaries(SECOND_BOUNDS.to_vec())
                .build(),
            tool_memory: meter
                .u64_histogram("airlock.tool.memory")
                .with_unit("By")
                .with_description("Largest linear memory a tool call's instances reached")
                .build(),
            tool_bytes: meter
                .u64_counter("airlock.tool.io")
                .with_unit("By")
                .with_description("Bytes tool calls read and wrote through their preopens, by airlock.io.direction")
                .build(),
            tool_requests: meter
                .u64_counter("airlock.tool.requests")
                .with_unit("{request}")
                .with_description("HTTP requests tool calls sent")
                .build(),
            approvals: meter
                .u64_counter("airlock.tool.approvals")
                .with_unit("{call}")
                .with_description("Tool call approvals, by airlock.approval.decision")
                .build(),
            tally,
            log_prompts,
        }
    }

    /// Emits the log event `name` at `at`, tied to `span` when there is one, with `body`
    /// only when it may go out (see [`Shared::text`]).
    pub fn event(
        &self,
        name: &'static str,
        at: SystemTime,
        span: Option<&SpanContext>,
        attributes: Vec<KeyValue>,
        body: Option<String>,
    ) {
        let mut record = self.logger.create_log_record();
        record.set_event_name(name);
        record.set_timestamp(at);
        record.set_observed_timestamp(at);
        record.set_severity_number(Severity::Info);
        record.set_severity_text("INFO");
        if let Some(span) = span.filter(|s| s.is_valid()) {
            record.set_trace_context(span.trace_id(), span.span_id(), Some(span.trace_flags()));
        }
        record.add_attributes(attributes.into_iter().map(|kv| (kv.key, any(kv.value))));
        if let Some(body) = body {
            record.set_body(AnyValue::from(body));
        }
        self.tally.logs_emitted.fetch_add(1, Ordering::Relaxed);
        self.logger.emit(record);
    }

    /// Ends the span of `cx` at `at`, counted.
    pub fn end(&self, cx: &opentelemetry::Context, at: SystemTime) {
        use opentelemetry::trace::TraceContextExt as _;
        self.tally.spans_ended.fetch_add(1, Ordering::Relaxed);
        cx.span().end_with_timestamp(at);
    }

    /// `text` as it may go out: `None` unless `log_prompts`, then cut to [`TEXT_BOUND`].
    pub fn text(&self, text: &str) -> Option<String> {
        self.log_prompts.then(|| bounded(text))
    }
}

/// `text` cut to [`TEXT_BOUND`] bytes at a character boundary, marked when cut.
pub fn bounded(text: &str) -> String {
    if text.len() <= TEXT_BOUND {
        return text.to_string();
    }
    format!("{}…", &text[..text.floor_char_boundary(TEXT_BOUND)])
}

/// An attribute's value as a log record's.
fn any(value: opentelemetry::Value) -> AnyValue {
    match value {
        opentelemetry::Value::Bool(b) => AnyValue::Boolean(b),
        opentelemetry::Value::I64(i) => AnyValue::Int(i),
        opentelemetry::Value::F64(f) => AnyValue::Double(f),
        other => AnyValue::String(other.as_str().into_owned().into()),
    }
}
