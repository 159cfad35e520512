//! What telemetry adds to a tool call: an observer with OpenTelemetry on (exporting to a
//! real OTLP receiver on 127.0.0.1, `tests/otel/receiver.py`) is fed the four outputs of
//! one call (`validating`, `scheduled`, `executing`, `success` with its cost), as the door
//! would give them, and the time it takes to record them is the call's added time. Calls
//! are paced (one a millisecond) so the span queue drains as in a real session; the time
//! between calls is not measured. With telemetry off nothing observes a session, so this is
//! the whole difference besides the door's forwarding hop (one channel send per output).
//!
//! Then whole headless runs of the release binary (one `read_file` call, then an answer)
//! with telemetry off, on with the receiver up, on with nothing listening, and on with a
//! receiver that never answers: what the end's flush costs, and that a dead or stalled
//! collector is bounded by the grace (`airlock_telemetry::GRACE`).
//!
//! `cargo bench -p airlock --bench telemetry`; `AIRLOCK_BENCH_RUNS` sets the calls (2000),
//! `AIRLOCK_BENCH_WHOLE_RUNS` the runs of each whole-run case (10).

#![allow(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark is a test program: it prints its report and stops loudly on a broken setup"
)]

mod support;

use std::time::{Duration, Instant, SystemTime};

use airlock_door::Output;
use airlock_door::events::{CallCost, CallStatus, CallUpdate, Event};
use airlock_door::model::{Usage, UsageKind};
use airlock_protocol::{Order, PluginOrigin};
use airlock_telemetry::{Settings, Telemetry};
use airlock_tests::otel::{Mode, Receiver};
use airlock_tests::{MockModel, Session, Turn, Wire, call};
use support::{Summary, count_from_env, header, report, sample};

const BINARY: &str = env!("CARGO_BIN_EXE_airlock");

fn main() {
    per_call();
    whole_runs();
}

/// Whole runs under each collector's state.
fn whole_runs() {
    let runs = count_from_env("AIRLOCK_BENCH_WHOLE_RUNS", 10);
    header("telemetry: whole headless runs, one read_file call", &format!("2 warm-up + {runs} runs"));
    let cache = tempfile::tempdir().expect("temp cache");
    let up = Receiver::start(Mode::Answer);
    let stalled = Receiver::start(Mode::Stall);
    let dead = format!(
        "http://127.0.0.1:{}",
        std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
    );
    let cases: [(&str, Option<&str>); 4] = [
        ("telemetry off", None),
        ("on, receiver up", Some(&up.endpoint)),
        ("on, nothing listening", Some(&dead)),
        ("on, receiver never answers", Some(&stalled.endpoint)),
    ];
    for (label, endpoint) in cases {
        let session = Session::new(BINARY, cache.path());
        session.write("a.txt", "hello\n");
        if let Some(endpoint) = endpoint {
            session.write_config(&format!("[telemetry]\nenabled = true\nendpoint = \"{endpoint}\"\n"));
        }
        let mut stderr = String::new();
        let samples = sample(2, runs, || {
            let mock = MockModel::start(Wire::OpenAi);
            mock.push_turn(Turn::calls(vec![call("read_file", serde_json::json!({"file_path": "a.txt"}))]));
            mock.push_turn(Turn::text("done"));
            let done = session.airlock(&mock, &["-p", "read a.txt"]);
            assert_eq!(done.code, Some(0), "{}", done.stderr);
            stderr = done.stderr;
        });
        report(label, &Summary::of(&samples));
        if let Some(warning) = stderr.lines().find(|l| l.contains("telemetry")) {
            println!("  {warning}");
        }
    }
}

/// The observer's time per call.
fn per_call() {
    let calls = count_from_env("AIRLOCK_BENCH_RUNS", 2000);
    header("telemetry: added time per tool call (in process, receiver up)", &format!("{calls} calls after 200"));
    let receiver = Receiver::start(Mode::Answer);
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_all().build().unwrap();
    runtime.block_on(async {
        let settings =
            Settings { enabled: Some(true), endpoint: Some(receiver.endpoint.clone()), ..Settings::default() };
        let telemetry = Telemetry::start(&settings, &|_| None).unwrap().unwrap();
        let plugin = airlock_door::ToolPlugin {
            name: "read-file".into(),
            origin: PluginOrigin::Builtin,
            digest: "0".repeat(64),
        };
        let mut observer = telemetry.observer(Box::new(move |_| Some(plugin.clone())));
        let init = Event::Init {
            session_id: "bench".into(),
            provider: "openai".into(),
            model: "test-model".into(),
            workspace: "/tmp".into(),
            tools: vec!["read_file".into()],
        };
        observer.output(SystemTime::now(), &Output::Event(init));
        observer.order(SystemTime::now(), &Order::UserTurn { text: "bench".into(), attachments: Vec::new() });
        let mut samples = Vec::with_capacity(calls);
        for i in 0..calls + 200 {
            if i % 8 == 0 {
                let turn = (i / 8 + 1) as u32;
                observer.output(SystemTime::now(), &Output::Event(Event::TurnStarted { turn }));
                let usage = Usage { input_tokens: 100, output_tokens: 10 };
                observer
                    .output(SystemTime::now(), &Output::Event(Event::Usage { turn, kind: UsageKind::Answer, usage }));
            }
            let id = format!("call-{i}");
            let outputs = states(&id);
            let started = Instant::now();
            for output in &outputs {
                observer.output(SystemTime::now(), output);
            }
            if i >= 200 {
                samples.push(started.elapsed());
            }
            tokio::time::sleep(Duration::from_millis(1)).await;
        }
        report("one call's four outputs, observed", &Summary::of(&samples));
        observer.ended(SystemTime::now());
        let started = Instant::now();
        let warnings = telemetry.shutdown().await;
        println!("shutdown flush: {:.1} ms; warnings: {warnings:?}", started.elapsed().as_secs_f64() * 1000.0);
    });
    let spans = receiver.spans().len();
    println!("the receiver took {spans} spans");
}

/// The outputs of one successful `read_file` call.
fn states(id: &str) -> Vec<Output> {
    let mut validating = CallUpdate::new(id, "read_file", CallStatus::Validating);
    validating.args = Some(serde_json::json!({"file_path": "src/main.rs"}));
    let mut success = CallUpdate::new(id, "read_file", CallStatus::Success);
    success.output = Some("fn main() {}\n".into());
    success.duration = Some(Duration::from_micros(800));
    success.cost = Some(CallCost {
        wall_ms: 1,
        peak_memory_bytes: 1 << 20,
        bytes_read: 4096,
        bytes_written: 0,
        network_requests: 0,
    });
    [
        validating,
        CallUpdate::new(id, "read_file", CallStatus::Scheduled),
        CallUpdate::new(id, "read_file", CallStatus::Executing),
        success,
    ]
    .into_iter()
    .map(|update| Output::Event(Event::ToolCall(Box::new(update))))
    .collect()
}
