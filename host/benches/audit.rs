//! The audit trail's cost per tool call: what the scheduler adds to each call with
//! `[audit] enabled = true` — the sha-256 of the arguments, building the `call` record,
//! serialising it, hashing its line and appending it with one `write` under the trail's
//! lock — timed call by call on a real file in a temporary folder. Then the head the agent
//! appends to the session file once per batch, and, for the record, what an `fsync` after
//! each record would add (the trail does not do it).
//!
//! `cargo bench -p airlock --bench audit`; `AIRLOCK_BENCH_RUNS` sets the calls timed
//! (20,000).

#![allow(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark is a test program: it prints its report and stops loudly on a broken setup"
)]

mod support;

use std::io::Write;

use airlock_engine::audit::record::{Call, GrantRecord, digest};
use airlock_engine::audit::{Approval, Body, Trail};
use airlock_engine::events::{CallCost, CallStatus};
use airlock_engine::session::{Header, Recorder};
use support::{Summary, count_from_env, header, report, sample};

fn main() {
    let runs = count_from_env("AIRLOCK_BENCH_RUNS", 20_000);
    header("audit trail (one record per tool call)", &format!("{runs} calls"));
    let dir = tempfile::tempdir().expect("temp dir");
    let sessions = dir.path().join("sessions");
    let header_line =
        Header::new("0123456789abcdef".into(), "2026-01-01T00:00:00.000Z".into(), "/w".into(), "p".into(), "m".into());
    let mut recorder = Recorder::create(&sessions, &header_line).expect("session file");
    let trail = Trail::open(recorder.path()).expect("trail");
    let arguments = r#"{"file_path":"src/scheduler/call.rs","offset":120,"limit":400}"#;
    let grant = GrantRecord {
        files: vec!["rw /home/user/project".into(), "ro /home/user/.airlock/memory".into()],
        network: vec!["https://api.example.com".into()],
        env: vec!["LANG".into()],
        processes: Vec::new(),
        memory_bytes: 256 << 20,
    };
    let approval = Approval::Rule {
        source: "user".into(),
        file: "/home/user/.airlock/policy.toml".into(),
        line: Some(12),
        scope: "tool read_file, path src/**".into(),
        decision: "allow".into(),
    };
    let mut id = 0u64;
    let record = || {
        id += 1;
        let call = Call {
            id: format!("call_{id}"),
            tool: "read_file".into(),
            plugin: "read-file".into(),
            digest: "9f2c0c7e5d1b4a3f8e6d2c1b0a9f8e7d6c5b4a3f2e1d0c9b8a7f6e5d4c3b2a19".into(),
            grant: grant.clone(),
            args_sha256: digest(arguments.as_bytes()),
            approval: approval.clone(),
            hooks: Vec::new(),
            status: CallStatus::Success,
            error: None,
            cost: CallCost {
                wall_ms: 3,
                peak_memory_bytes: 1_245_184,
                bytes_read: 4096,
                bytes_written: 0,
                network_requests: 0,
            },
        };
        trail.append(&Body::Call(Box::new(call))).expect("append");
    };
    let per_call = Summary::of(&sample(1000, runs, record));
    report("call record (args digest, encode, hash, one write)", &per_call);

    let heads = Summary::of(&sample(100, runs / 10, || {
        let head = trail.head().expect("a head");
        recorder.audit_head(head.seq, &head.hash).expect("head");
    }));
    report("head into the session file (once per batch)", &heads);

    let size = std::fs::metadata(trail.path()).map(|m| m.len()).unwrap_or(0);
    println!("trail: {size} bytes, {} bytes per record", size / (runs as u64 + 1001));
    let mut file = std::fs::OpenOptions::new().append(true).open(trail.path()).expect("trail file");
    let synced = Summary::of(&sample(10, 200, || {
        file.write_all(b"{}\n").expect("write");
        file.sync_data().expect("fsync");
    }));
    report("a write + fsync, had the trail synced each record", &synced);
}
