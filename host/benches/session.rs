//! Long sessions, (j): one headless run of the release binary in which the scripted model
//! makes N `read_file` calls one turn after another (each on another file: identical calls
//! would trip loop detection), then answers. For N = 10, 100 and 1,000 (`AIRLOCK_BENCH_CALLS`
//! sets the largest) it reports the peak RSS, the wall time and the CPU time of the airlock
//! process (`/usr/bin/time`), each per call and between the sizes, so growth per call shows;
//! the session file's size against the bytes the process wrote into it (append-only: the
//! two are equal when nothing is rewritten); and the largest request the mock received.
//!
//! Then (k): `--resume` of a 10,000-message session (built from the 1,000-call session's
//! own lines, repeated), a plain answer, against the same run without `--resume`.
//!
//! `cargo bench -p airlock --bench session`; `AIRLOCK_BENCH_RUNS` sets the runs of each
//! size (3) and of the resume (20).

#![allow(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark is a test program: it prints its report and stops loudly on a broken setup"
)]

mod support;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use airlock_tests::{MockModel, Session, Turn, Wire, call};
use serde_json::{Value, json};
use support::{Summary, count_from_env, header, report};

const BINARY: &str = env!("CARGO_BIN_EXE_airlock");
const ANSWER: &str = "Done reading.";

fn main() {
    let largest = count_from_env("AIRLOCK_BENCH_CALLS", 1000);
    let runs = count_from_env("AIRLOCK_BENCH_RUNS", 3);
    header("long sessions (release binary, warm compile cache)", &format!("{runs} runs of each size"));
    let cache = tempfile::tempdir().expect("temp cache");
    let mock = MockModel::start(Wire::OpenAi);
    let mut sizes: Vec<usize> = [10, 100, 1000].into_iter().filter(|&n| n < largest).collect();
    sizes.push(largest);

    let mut rows = Vec::new();
    let mut last_session = None;
    for &calls in &sizes {
        let mut samples = Vec::new();
        for _ in 0..runs {
            let session = Session::new(BINARY, cache.path());
            write_workspace(&session, calls);
            samples.push(long_run(&session, &mock, calls));
            last_session = Some(session);
        }
        let (written, file) = appended(cache.path(), &mock, calls.min(100)).unwrap_or_default();
        let median = |f: fn(&Sample) -> f64| {
            let mut values: Vec<f64> = samples.iter().map(f).collect();
            values.sort_by(f64::total_cmp);
            values[(values.len() - 1) / 2]
        };
        let row = Row {
            calls,
            rss_mib: median(|s| s.rss_kib as f64 / 1024.0),
            wall_s: median(|s| s.wall_s),
            cpu_s: median(|s| s.cpu_s),
            file,
            written,
            request: samples[0].largest_request,
        };
        println!(
            "{:>5} calls: peak RSS {:>6.1} MiB  wall {:>7.3} s ({:>6.2} ms/call)  CPU {:>7.3} s ({:>6.2} ms/call)  \
             largest request {} B  (strace, {} calls: session file {} B, written to it {} B)",
            calls,
            row.rss_mib,
            row.wall_s,
            row.wall_s * 1000.0 / calls as f64,
            row.cpu_s,
            row.cpu_s * 1000.0 / calls as f64,
            row.request,
            calls.min(100),
            row.file,
            row.written,
        );
        rows.push(row);
    }
    for pair in rows.windows(2) {
        let (a, b) = (&pair[0], &pair[1]);
        let more = (b.calls - a.calls) as f64;
        println!(
            "from {:>4} to {:>4} calls: RSS {:+.1} MiB, each further call {:.2} ms wall, {:.2} ms CPU",
            a.calls,
            b.calls,
            b.rss_mib - a.rss_mib,
            (b.wall_s - a.wall_s) * 1000.0 / more,
            (b.cpu_s - a.cpu_s) * 1000.0 / more
        );
    }

    let session = last_session.expect("a long session ran");
    resume(&session, &mock, count_from_env("AIRLOCK_BENCH_RUNS", 20));
}

struct Row {
    calls: usize,
    rss_mib: f64,
    wall_s: f64,
    cpu_s: f64,
    file: u64,
    written: u64,
    request: usize,
}

struct Sample {
    rss_kib: u64,
    wall_s: f64,
    cpu_s: f64,
    largest_request: usize,
}

/// One file per call, so no two calls are the same.
fn write_workspace(session: &Session, calls: usize) {
    for i in 0..calls {
        session.write(&format!("notes/note_{i}.txt"), &format!("note {i}: {}\n", "lorem ipsum ".repeat(8)));
    }
}

/// Scripts `calls` reads, one per turn, then the answer; returns the long run's command,
/// wrapped in `wrapper` (`/usr/bin/time`, `strace`) with the wrapper's arguments already given.
fn scripted_run(session: &Session, mock: &MockModel, calls: usize, mut wrapper: Command) -> Command {
    for i in 0..calls {
        mock.push_turn(Turn::calls(vec![call("read_file", json!({ "file_path": format!("notes/note_{i}.txt") }))]));
    }
    mock.push_turn(Turn::text(ANSWER));
    let inner = session.command(mock);
    wrapper.arg(inner.get_program()).args(inner.get_args());
    wrapper.args(["-p", "Read every note", "--max-turns", &(calls + 10).to_string()]);
    wrapper.env_clear().envs(inner.get_envs().filter_map(|(k, v)| v.map(|v| (k, v)))).env_remove("AIRLOCK_LOG");
    wrapper.current_dir(&session.workspace).stdin(Stdio::null());
    wrapper
}

/// One run of `calls` calls under `/usr/bin/time`, checked: every call's result reached the
/// model.
fn long_run(session: &Session, mock: &MockModel, calls: usize) -> Sample {
    let before = mock.recorded().len();
    let time_out = tempfile::NamedTempFile::new().expect("temp file");
    let mut time = Command::new("/usr/bin/time");
    time.args(["-f", "%M %e %U %S", "-o"]).arg(time_out.path());
    let mut command = scripted_run(session, mock, calls, time);
    command.stdout(Stdio::piped()).stderr(Stdio::piped());
    let output = command.output().expect("run airlock");
    assert!(output.status.success(), "{calls} calls: {}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(String::from_utf8_lossy(&output.stdout).trim_end(), ANSWER);
    assert_eq!(mock.pending_turns(), 0, "the binary did not take every scripted turn");
    let recorded = mock.recorded();
    assert_eq!(recorded.len() - before, calls + 1, "one request per turn");
    let largest_request = recorded[before..].iter().map(|r| r.body.to_string().len()).max().unwrap_or_default();
    let last = &recorded[recorded.len() - 1].body;
    let results = last["messages"].as_array().expect("messages").iter().filter(|m| m["role"] == "tool").count();
    assert_eq!(results, calls, "every result is in the last request");

    let text = std::fs::read_to_string(time_out.path()).expect("time output");
    let fields: Vec<f64> = text.split_whitespace().map(|f| f.parse().expect("a number")).collect();
    Sample { rss_kib: fields[0] as u64, wall_s: fields[1], cpu_s: fields[2] + fields[3], largest_request }
}

/// The one session file of `session`'s home.
fn session_file(session: &Session) -> PathBuf {
    let dir = session.airlock_home().join("sessions");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("sessions folder")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    files.sort();
    files.pop().expect("a session file")
}

/// A run of `calls` calls on a fresh home under `strace`: the bytes the process wrote to its
/// session file, and the file's size at the end (equal when it only appended); `None` when
/// strace is not installed.
fn appended(cache: &Path, mock: &MockModel, calls: usize) -> Option<(u64, u64)> {
    let strace = ["/usr/bin/strace", "/bin/strace"].into_iter().find(|p| Path::new(p).exists())?;
    let session = Session::new(BINARY, cache);
    write_workspace(&session, calls);
    let log = tempfile::NamedTempFile::new().ok()?;
    let mut trace = Command::new(strace);
    trace.args(["-f", "-qq", "-e", "trace=openat,write,writev,pwrite64,pwritev,ftruncate,close", "-o"]).arg(log.path());
    let mut command = scripted_run(&session, mock, calls, trace);
    command.stdout(Stdio::null()).stderr(Stdio::null());
    assert!(command.status().expect("run strace").success());
    assert_eq!(mock.pending_turns(), 0, "the traced run did not take every scripted turn");
    let trace = std::fs::read_to_string(log.path()).expect("strace log");
    let file = std::fs::metadata(session_file(&session)).expect("session file").len();
    Some((bytes_written_to_sessions(&trace), file))
}

/// From an strace log: the bytes written to files under `sessions/` (a descriptor is followed
/// from its `openat` to its `close`, a call strace split around another thread's is joined
/// again); a `ftruncate` of one counts as a rewrite and panics.
fn bytes_written_to_sessions(trace: &str) -> u64 {
    let mut open: Vec<String> = Vec::new();
    let mut unfinished: Vec<(String, String)> = Vec::new();
    let mut total = 0;
    let returned = |call: &str| call.rsplit("= ").next().and_then(|n| n.trim().parse::<u64>().ok());
    for line in trace.lines() {
        let (pid, call) = line.split_once(' ').unwrap_or_default();
        let call = call.trim_start();
        if call.starts_with("openat(") && call.contains("/sessions/") && call.contains(".jsonl") {
            if let Some(fd) = call.rsplit("= ").next().filter(|fd| fd.parse::<u32>().is_ok()) {
                open.push(fd.to_string());
            }
        } else if let Some(rest) =
            ["write(", "writev(", "pwrite64(", "pwritev("].iter().find_map(|p| call.strip_prefix(p))
        {
            let fd = rest.split(',').next().unwrap_or_default().to_string();
            if open.contains(&fd) {
                if call.ends_with("<unfinished ...>") {
                    unfinished.push((pid.to_string(), fd));
                } else {
                    total += returned(call).unwrap_or_default();
                }
            }
        } else if call.starts_with("<... write") || call.starts_with("<... pwrite") {
            if let Some(at) = unfinished.iter().position(|(p, _)| p == pid) {
                unfinished.remove(at);
                total += returned(call).unwrap_or_default();
            }
        } else if let Some(rest) = call.strip_prefix("ftruncate(") {
            let fd = rest.split(',').next().unwrap_or_default();
            assert!(!open.iter().any(|f| f == fd), "the session file was truncated: {line}");
        } else if let Some(rest) = call.strip_prefix("close(") {
            let fd = rest.split(')').next().unwrap_or_default();
            open.retain(|f| f != fd);
        }
    }
    total
}

/// (k): a 10,000-message session, resumed for one plain answer.
fn resume(session: &Session, mock: &MockModel, runs: usize) {
    let source = std::fs::read_to_string(session_file(session)).expect("session file");
    let mut lines = source.lines();
    let header: Value = serde_json::from_str(lines.next().expect("header")).expect("header json");
    let body: Vec<Value> = lines.map(|l| serde_json::from_str(l).expect("record")).collect();
    // The prompt, then exchanges repeated with new turns: a call's message, the `calls` line
    // of its card, its result's message.
    let is_message = |record: &Value, role: &str| record["type"] == "message" && record["role"] == role;
    let exchanges: Vec<&[Value]> = (0..body.len())
        .filter(|&i| is_message(&body[i], "model"))
        .filter_map(|i| {
            let end = (i + 1..body.len()).find(|&j| body[j]["type"] == "message")?;
            is_message(&body[end], "user").then(|| &body[i..=end])
        })
        .collect();
    assert!(!exchanges.is_empty(), "the recorded session holds calls");
    let id = "bench10k0000";
    let mut out = Vec::new();
    let mut head = header.clone();
    head["id"] = json!(id);
    out.push(head.to_string());
    out.push(body[0].to_string());
    let mut messages = 1;
    let mut turn = 0;
    while messages < 10_000 {
        for exchange in &exchanges {
            turn += 1;
            for record in exchange.iter() {
                let mut record = record.clone();
                record["turn"] = json!(turn);
                messages += usize::from(record["type"] == "message");
                out.push(record.to_string());
            }
        }
    }
    let text = out.join("\n") + "\n";
    let started = header["started"].as_str().expect("started").replace(':', "-");
    let file = session.airlock_home().join("sessions").join(format!("{started}-{id}.jsonl"));
    println!("(k) resumed session: {messages} messages, {} bytes", text.len());
    // A window the whole conversation fits in: this measures the resume, not a compression.
    session.write_config(&format!("context_window_tokens = 100000000\n{}", airlock_tests::FAST_RETRIES));

    // Under `/usr/bin/time`, so airlock's own CPU time (user + system) is known apart from
    // the mock's, which runs in this process.
    let run = |resume: bool| {
        if resume {
            std::fs::write(&file, &text).expect("write session");
        }
        mock.push_turn(Turn::text(ANSWER));
        let time_out = tempfile::NamedTempFile::new().expect("temp file");
        let inner = session.command(mock);
        let mut command = Command::new("/usr/bin/time");
        command.args(["-f", "%U %S", "-o"]).arg(time_out.path()).arg(inner.get_program()).args(inner.get_args());
        command.env_clear().envs(inner.get_envs().filter_map(|(k, v)| v.map(|v| (k, v)))).env_remove("AIRLOCK_LOG");
        command.current_dir(&session.workspace);
        if resume {
            command.args(["--resume", id]);
        }
        command.args(["-p", "One more question"]);
        command.stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let started = std::time::Instant::now();
        let output = command.output().expect("run airlock");
        let elapsed = started.elapsed();
        assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
        assert_eq!(String::from_utf8_lossy(&output.stdout).trim_end(), ANSWER);
        let times = std::fs::read_to_string(time_out.path()).expect("time output");
        let cpu: f64 = times.split_whitespace().map(|f| f.parse::<f64>().expect("a number")).sum();
        (elapsed, Duration::from_secs_f64(cpu))
    };
    run(true);
    let last: Value = mock.last_request().expect("a request");
    let sent = last["messages"].as_array().map_or(0, Vec::len);
    assert!(sent > 10_000, "the resumed conversation reached the model: {sent} messages");
    // The mock's share of the wall time: it parses the whole request before it answers.
    let request = last.to_string();
    let parses: Vec<Duration> = (0..runs)
        .map(|_| {
            let started = std::time::Instant::now();
            let parsed: Value = serde_json::from_str(&request).expect("request json");
            std::hint::black_box(parsed);
            started.elapsed()
        })
        .collect();
    let fresh: Vec<(Duration, Duration)> = (0..runs).map(|_| run(false)).collect();
    let resumed: Vec<(Duration, Duration)> = (0..runs).map(|_| run(true)).collect();
    let wall = |samples: &[(Duration, Duration)]| Summary::of(&samples.iter().map(|s| s.0).collect::<Vec<_>>());
    let cpu = |samples: &[(Duration, Duration)]| Summary::of(&samples.iter().map(|s| s.1).collect::<Vec<_>>());
    report("(k) plain run, no --resume (wall)", &wall(&fresh));
    report("(k) plain run, no --resume (airlock CPU, 10 ms ticks)", &cpu(&fresh));
    report("(k) --resume of 10,000 messages + answer (wall)", &wall(&resumed));
    report("(k) --resume of 10,000 messages + answer (airlock CPU, 10 ms ticks)", &cpu(&resumed));
    report(&format!("(k) the mock parsing the {} B request (in the bench)", request.len()), &Summary::of(&parses));
}
