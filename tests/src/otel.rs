//! A real OTLP receiver for the telemetry tests: `tests/otel/receiver.py`, an HTTP server on
//! 127.0.0.1 that decodes what it receives with OpenTelemetry's own protobuf definitions
//! (PyPI `opentelemetry-proto`, pinned in `tests/otel/requirements.txt`, installed once per
//! checkout into `target/kits/otel/` as the MCP toolchain is) and writes each request as a
//! JSON line. The tests read those lines: spans, metrics and log records as a collector saw
//! them.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::kits::{digest, ensure, kits_dir, lock, root, run};

/// The venv's `python`, with the OTLP protobuf definitions importable.
fn python() -> &'static PathBuf {
    static PYTHON: OnceLock<PathBuf> = OnceLock::new();
    PYTHON.get_or_init(|| {
        let _locked = lock();
        let requirements = [root().join("tests/otel/requirements.txt")];
        let venv = kits_dir().join("otel").join("venv");
        ensure(&venv.join(".installed"), &digest(&requirements), || {
            let _ = std::fs::remove_dir_all(&venv);
            run("python3 -m venv", Command::new("python3").args(["-m", "venv"]).arg(&venv));
            let mut pip = Command::new(venv.join("bin/pip"));
            pip.args(["install", "--quiet", "--disable-pip-version-check", "-r"]).arg(&requirements[0]);
            run("pip install (the OTLP protobuf definitions)", &mut pip);
        });
        venv.join("bin/python")
    })
}

/// How the receiver behaves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Decodes and answers every request.
    Answer,
    /// Accepts every connection, reads the request and never answers.
    Stall,
}

/// A running receiver; killed when dropped.
pub struct Receiver {
    child: Child,
    dir: tempfile::TempDir,
    /// Its base URL (`http://127.0.0.1:PORT`).
    pub endpoint: String,
}

impl Receiver {
    /// Starts a receiver and waits until it listens.
    pub fn start(mode: Mode) -> Self {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("temp dir: {e}"));
        let port_file = dir.path().join("port");
        let mode_arg = match mode {
            Mode::Answer => "answer",
            Mode::Stall => "stall",
        };
        let child = Command::new(python())
            .arg(root().join("tests/otel/receiver.py"))
            .arg(&port_file)
            .arg(dir.path())
            .arg(mode_arg)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot start the OTLP receiver: {e}"));
        let started = Instant::now();
        let port = loop {
            if let Ok(port) = std::fs::read_to_string(&port_file) {
                break port;
            }
            assert!(started.elapsed() < Duration::from_secs(30), "the OTLP receiver did not start");
            std::thread::sleep(Duration::from_millis(20));
        };
        Self { child, dir, endpoint: format!("http://127.0.0.1:{}", port.trim()) }
    }

    /// Every request of `signal` (`traces`, `metrics`, `logs`) received so far, decoded.
    pub fn requests(&self, signal: &str) -> Vec<Value> {
        let text = std::fs::read_to_string(self.dir.path().join(format!("{signal}.jsonl"))).unwrap_or_default();
        text.lines().map(|line| serde_json::from_str(line).unwrap_or_else(|e| panic!("{signal}: {e}"))).collect()
    }

    /// Every span received, flattened out of its resource and scope.
    pub fn spans(&self) -> Vec<Value> {
        self.flattened("traces", "resource_spans", "scope_spans", "spans")
    }

    /// Every metric received (each export holds the cumulative values so far).
    pub fn metrics(&self) -> Vec<Value> {
        self.flattened("metrics", "resource_metrics", "scope_metrics", "metrics")
    }

    /// Every log record received.
    pub fn logs(&self) -> Vec<Value> {
        self.flattened("logs", "resource_logs", "scope_logs", "log_records")
    }

    /// The `service.name` of the first resource that sent spans.
    pub fn service_name(&self) -> Option<String> {
        let requests = self.requests("traces");
        let attributes = requests.first()?["resource_spans"][0]["resource"]["attributes"].as_array()?.clone();
        attributes.iter().find(|a| a["key"] == "service.name").map(|a| a["value"]["string_value"].to_string())
    }

    fn flattened(&self, signal: &str, resources: &str, scopes: &str, items: &str) -> Vec<Value> {
        let mut out = Vec::new();
        for request in self.requests(signal) {
            for resource in request[resources].as_array().into_iter().flatten() {
                for scope in resource[scopes].as_array().into_iter().flatten() {
                    out.extend(scope[items].as_array().into_iter().flatten().cloned());
                }
            }
        }
        out
    }
}

impl Drop for Receiver {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The value of attribute `key` of a span, metric point or log record (`attributes` as
/// OTLP's JSON mapping has them), as plain JSON: a string, number or bool.
pub fn attribute(item: &Value, key: &str) -> Option<Value> {
    let found = item["attributes"].as_array()?.iter().find(|a| a["key"] == key)?;
    let value = &found["value"];
    for kind in ["string_value", "bool_value", "double_value"] {
        if let Some(v) = value.get(kind) {
            return Some(v.clone());
        }
    }
    if let Some(v) = value.get("int_value") {
        // 64-bit integers are strings in protobuf's JSON mapping.
        return v.as_str().and_then(|s| s.parse::<i64>().ok()).map(Value::from).or_else(|| Some(v.clone()));
    }
    if let Some(values) = value.get("array_value") {
        return Some(values.clone());
    }
    None
}
