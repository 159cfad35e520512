//! The interactive UI's figures (BENCHMARKS.md, issue 10), measured on the real binary in a
//! pseudo-terminal against the scripted mock model:
//! - frame time with a resumed 5,000-message transcript (the UI logs each frame's time at
//!   debug level; p50 and p99 over every frame of the run);
//! - keypress-to-screen latency: from a byte written to the terminal until the emulator
//!   shows it in the composer;
//! - idle: bytes the UI writes and CPU it uses over 5 s with nothing happening;
//! - memory (RSS) after 10 and after 1,000 tool calls in one session.
//!
//! Run: `cargo bench --workspace --bench tui`. It prints figures and asserts nothing on time.
//! `AIRLOCK_BENCH_OPEN_ONLY=1` stops after the resumed session opened.

#![allow(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark is a test program: it prints its report and stops loudly on a broken setup"
)]

mod support;

use std::time::{Duration, Instant};

use airlock_engine::session::{Header, Recorder};
use airlock_model::{FunctionCall, FunctionResponse, Message, Part, Role};
use airlock_tests::pty::Pty;
use airlock_tests::{MockModel, Session, Turn, Wire, call};
use serde_json::json;
use support::Summary;

const LIMIT: Duration = Duration::from_secs(300);

fn main() {
    let cache = std::env::temp_dir().join("airlock-bench-tui-cache");
    let session = Session::new(env!("CARGO_BIN_EXE_airlock"), &cache);
    session.write("notes.txt", "a line of notes\n");
    let mock = MockModel::start(Wire::Gemini);
    support::header("tui", "the interactive UI in a pseudo-terminal, scripted mock model");

    // A first start fills the compile cache (the first-run cost is issue 14's, not the UI's).
    let mut warm = Pty::spawn(&session.command(&mock), 120, 40);
    warm.wait_text("test-model", LIMIT);
    warm.send("\x03\x03");
    warm.wait_exit(LIMIT);

    record_long_session(&session, 5_000);
    let mut command = session.command(&mock);
    command
        .args(["--resume", "--approval-mode", "yolo"])
        .env("AIRLOCK_LOG", "warn,airlock_frontends::tui=debug,airlock_engine::session=info");
    let started = Instant::now();
    let mut pty = Pty::spawn(&command, 120, 40);
    // The notice the replay ends with: the whole transcript is on the terminal by then.
    pty.wait_text("── resumed ──", LIMIT);
    let open = started.elapsed();
    let pid = pty.pid().unwrap_or_else(|| panic!("no pid"));
    // airlock's own CPU to this point, apart from the emulator's parsing in this process.
    println!(
        "open with a 5,000-message transcript: {:.1} ms wall, {} ms airlock CPU (10 ms ticks), {} bytes written",
        open.as_secs_f64() * 1e3,
        cpu_ticks(pid) * 10,
        pty.raw_output().len()
    );

    if std::env::var_os("AIRLOCK_BENCH_OPEN_ONLY").is_some() {
        pty.send("\x03\x03");
        pty.wait_exit(LIMIT);
        // The session's reading and the replay's card building, as the UI logged them.
        for line in session.log().lines().filter(|l| l.contains("replayed")) {
            println!("{line}");
        }
        return;
    }
    keypress_latency(&mut pty);
    idle(&pty);
    streamed_answer(&mut pty, &mock);
    memory(&mut pty, &mock, &session);

    pty.send("\x03\x03");
    pty.wait_exit(LIMIT);
    frames(&session.log());
}

/// Writes a session of `messages` messages (a user turn, a model call, its response, the
/// model's text: four per exchange) in the session's home.
fn record_long_session(session: &Session, messages: usize) {
    let workspace = session.workspace.canonicalize().unwrap_or_else(|e| panic!("workspace: {e}"));
    let header = Header::new(
        airlock_engine::session::new_id(),
        "2026-11-23T00:00:00Z".into(),
        workspace.display().to_string(),
        "gemini".into(),
        "test-model".into(),
    );
    let dir = airlock_engine::session::dir(&session.airlock_home());
    let mut recorder = Recorder::create(&dir, &header).unwrap_or_else(|e| panic!("session: {e}"));
    for n in 0..messages / 4 {
        let id = format!("call-{n}");
        let exchange = [
            Message {
                role: Role::User,
                parts: vec![Part::Text { text: format!("question {n}: what is in notes.txt?") }],
            },
            Message {
                role: Role::Model,
                parts: vec![Part::FunctionCall(FunctionCall {
                    id: id.clone(),
                    name: "read_file".into(),
                    arguments: json!({"file_path": "notes.txt"}).to_string(),
                    signature: None,
                })],
            },
            Message {
                role: Role::User,
                parts: vec![Part::FunctionResponse(FunctionResponse {
                    id,
                    name: "read_file".into(),
                    content: "a line of notes".into(),
                    is_error: false,
                    media: Vec::new(),
                })],
            },
            Message {
                role: Role::Model,
                parts: vec![Part::Text { text: format!("Answer {n}: it holds **a line of notes**.\n\n- one\n- two") }],
            },
        ];
        for message in &exchange {
            recorder.message(message).unwrap_or_else(|e| panic!("record: {e}"));
        }
    }
}

/// Types 40 characters one at a time; each sample is the time until the screen shows it.
fn keypress_latency(pty: &mut Pty) {
    let mut samples = Vec::new();
    let mut typed = String::new();
    for n in 0..40 {
        let c = char::from(b'a' + (n % 26) as u8);
        typed.push(c);
        let started = Instant::now();
        pty.send(&c.to_string());
        pty.wait_text(&format!("› {typed}"), LIMIT);
        samples.push(started.elapsed());
        std::thread::sleep(Duration::from_millis(20));
    }
    println!("keypress to screen: {}", Summary::of(&samples));
    // Clear the composer (Ctrl-U) for what follows.
    pty.send("\x15");
}

/// Bytes written and CPU used over 5 s with the UI open and nothing happening.
fn idle(pty: &Pty) {
    std::thread::sleep(Duration::from_secs(1));
    let pid = pty.pid().unwrap_or_else(|| panic!("no pid"));
    let (bytes, cpu) = (pty.raw_output().len(), cpu_ticks(pid));
    let window = Duration::from_secs(5);
    std::thread::sleep(window);
    let written = pty.raw_output().len() - bytes;
    let ticks = cpu_ticks(pid) - cpu;
    // Clock ticks are 10 ms here (`getconf CLK_TCK` = 100).
    let cpu_ms = ticks * 10;
    println!(
        "idle for {} s: {written} bytes written, {cpu_ms} ms CPU ({:.2} %)",
        window.as_secs(),
        cpu_ms as f64 / window.as_millis() as f64 * 100.0
    );
}

/// A long streamed answer, for frames while text arrives.
fn streamed_answer(pty: &mut Pty, mock: &MockModel) {
    // Varied lines: the loop detector stops an answer that repeats itself.
    const WORDS: [&str; 16] = [
        "parser",
        "buffer",
        "`window`",
        "**frame**",
        "token",
        "socket",
        "cache",
        "record",
        "schema",
        "plugin",
        "thread",
        "`grant`",
        "policy",
        "stream",
        "*cursor*",
        "screen",
    ];
    let mut seed: u64 = 0x2545_f491_4f6c_dd1d;
    let mut word = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        WORDS[(seed % 16) as usize]
    };
    let text: String =
        (1..=300).map(|n| format!("{n}. {} {} {} {} {}\n", word(), word(), word(), word(), word())).collect();
    mock.push_turn(Turn::text(format!("{text}\nEnd of the long answer.")));
    let started = Instant::now();
    pty.send("a long answer please\r");
    pty.wait_text("End of the long answer.", LIMIT);
    println!("300-line streamed answer on screen: {:.1} ms", started.elapsed().as_secs_f64() * 1e3);
}

/// RSS after 10 calls and after 1,000 calls of one session (100 turns of 10 parallel reads,
/// each of another file: the loop detector stops a model that repeats a call).
fn memory(pty: &mut Pty, mock: &MockModel, session: &Session) {
    for n in 0..1_000 {
        session.write(&format!("files/f{n:04}.txt"), &format!("file {n}\n"));
    }
    let pid = pty.pid().unwrap_or_else(|| panic!("no pid"));
    let reads = |turn: usize| {
        Turn::calls(
            (0..10)
                .map(|i| call("read_file", json!({"file_path": format!("files/f{:04}.txt", turn * 10 + i)})))
                .collect(),
        )
    };
    mock.push_turn(reads(0));
    mock.push_turn(Turn::text("ten calls done"));
    pty.send("read ten files\r");
    pty.wait_text("ten calls done", LIMIT);
    let after_10 = rss_kib(pid);
    for turn in 1..100 {
        mock.push_turn(reads(turn));
    }
    mock.push_turn(Turn::text("a thousand calls done"));
    let started = Instant::now();
    pty.send("now read the other 990\r");
    pty.wait_text("a thousand calls done", LIMIT);
    let took = started.elapsed();
    let after_1000 = rss_kib(pid);
    println!(
        "RSS after 10 calls: {:.1} MiB; after 1,000 calls: {:.1} MiB (+{:.1} MiB); 990 calls took {:.2} s",
        after_10 as f64 / 1024.0,
        after_1000 as f64 / 1024.0,
        (after_1000 as f64 - after_10 as f64) / 1024.0,
        took.as_secs_f64()
    );
}

/// Frame times the UI logged: median and p99.
fn frames(log: &str) {
    let mut samples: Vec<Duration> = log
        .lines()
        .filter_map(|l| l.split("frame_us=").nth(1))
        .filter_map(|v| v.split_whitespace().next()?.parse::<u64>().ok())
        .map(Duration::from_micros)
        .collect();
    if samples.is_empty() {
        println!("no frame times in the log");
        return;
    }
    samples.sort_unstable();
    let p99 = samples[((samples.len() - 1) as f64 * 0.99).round() as usize];
    println!("frame time: {} · p99 {}", Summary::of(&samples), support::human(p99));
}

fn cpu_ticks(pid: u32) -> u64 {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    // Fields after the command name (which may hold spaces): utime is 14th, stime 15th.
    let after = stat.rsplit_once(')').map(|(_, rest)| rest).unwrap_or_default();
    let fields: Vec<&str> = after.split_whitespace().collect();
    let field = |i: usize| fields.get(i).and_then(|v| v.parse::<u64>().ok()).unwrap_or(0);
    field(11) + field(12)
}

fn rss_kib(pid: u32) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmRSS:"))
        .and_then(|v| v.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}
