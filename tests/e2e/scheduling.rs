//! The scheduler, `--ask` and the text front end through the real binary (issue 8): two
//! edits of one file never run at once whatever the plugin claims, `--ask` asks in the
//! model's order and gives way to Ctrl-C at once, a streaming tool's live output shows on
//! stderr in text mode (bounded), output over the cap is saved whole in the session folder,
//! and the model's text never runs into the tool lines on a terminal.

// Set-up helpers unwrap: a failed set-up step should fail the test loudly.
#![allow(clippy::unwrap_used)]

use std::ffi::OsStr;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use airlock_tests::{Finished, MockModel, Session, Turn, Wire, call, fixtures, function_responses, run_bounded};
use serde_json::{Value, json};

use crate::session;

/// A session with `sched_probe` installed and granted the workspace read-write.
fn probe_session() -> Session {
    let s = session();
    s.install_plugin(fixtures::SCHED_PROBE);
    std::fs::write(s.airlock_home().join("policy.toml"), "[grants.sched_probe]\nfiles = [\".:read-write\"]\n").unwrap();
    s
}

/// What a pipe of a running child carried so far, each piece with the time it arrived.
#[derive(Clone, Default)]
struct Collected(Arc<Mutex<Vec<(Instant, String)>>>);

impl Collected {
    fn start(pipe: Option<impl Read + Send + 'static>) -> (Self, std::thread::JoinHandle<()>) {
        let collected = Self::default();
        let store = collected.clone();
        let handle = std::thread::spawn(move || {
            let Some(mut pipe) = pipe else { return };
            let mut buffer = [0u8; 4096];
            while let Ok(n @ 1..) = pipe.read(&mut buffer) {
                let piece = String::from_utf8_lossy(&buffer[..n]).into_owned();
                store.0.lock().unwrap().push((Instant::now(), piece));
            }
        });
        (collected, handle)
    }

    fn text(&self) -> String {
        self.0.lock().unwrap().iter().map(|(_, piece)| piece.as_str()).collect()
    }

    /// When `needle` was first complete in what arrived.
    fn seen_at(&self, needle: &str) -> Option<Instant> {
        let mut text = String::new();
        for (at, piece) in self.0.lock().unwrap().iter() {
            text.push_str(piece);
            if text.contains(needle) {
                return Some(*at);
            }
        }
        None
    }

    fn wait_for(&self, needle: &str, limit: Duration) {
        let started = Instant::now();
        while self.seen_at(needle).is_none() {
            assert!(started.elapsed() < limit, "{needle:?} did not show within {limit:?}:\n{}", self.text());
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

/// Waits for `child` to end, killing it (and failing) after `limit`.
fn wait_bounded(child: &mut Child, limit: Duration, stderr: &Collected) -> ExitStatus {
    let started = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            return status;
        }
        if started.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            panic!("airlock did not end within {limit:?}; stderr:\n{}", stderr.text());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Runs `command` with `input` on stdin (then closed), within two minutes.
fn run_with_input(command: Command, input: &str) -> Finished {
    run_bounded(command, Some(input), Duration::from_secs(120))
}

#[test]
fn two_appends_to_one_file_in_one_batch_both_survive_whatever_the_plugin_claims() {
    for spelling in ["notes.txt", "./notes.txt", "sub/../notes.txt", "link.txt", "absolute"] {
        let s = probe_session();
        let absolute = s.workspace.join("notes.txt").display().to_string();
        let spelling = if spelling == "absolute" { absolute.as_str() } else { spelling };
        s.write("notes.txt", "start\n");
        s.write("sub/keep", "");
        std::os::unix::fs::symlink("notes.txt", s.workspace.join("link.txt")).unwrap();
        let mock = MockModel::start(Wire::OpenAi);
        mock.push_turn(Turn::calls(vec![
            call("append", json!({"path": "notes.txt", "text": "A\n"})),
            call("append", json!({"path": spelling, "text": "B\n"})),
        ]));
        mock.push_turn(Turn::text("Done."));
        let done = s.airlock(&mock, &["-p", "append twice", "--approval-mode", "yolo"]);
        assert_eq!(done.code, Some(0), "{spelling}: {}", done.stderr);
        let sent = function_responses(&mock.requests()[1]);
        assert!(sent.iter().all(|(_, content)| content == "appended"), "{spelling}: {sent:?}");
        assert_eq!(s.read("notes.txt").as_deref(), Some("start\nA\nB\n"), "{spelling}: an append was lost");
    }
}

#[test]
fn two_appends_through_hard_links_in_different_folders_both_survive() {
    // `a/notes.txt` and `b/alias.txt` are one file: their folders are disjoint, the file is not.
    let s = probe_session();
    s.write("a/notes.txt", "start\n");
    s.write("b/keep", "");
    std::fs::hard_link(s.workspace.join("a/notes.txt"), s.workspace.join("b/alias.txt")).unwrap();
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![
        call("append", json!({"path": "a/notes.txt", "text": "A\n"})),
        call("append", json!({"path": "b/alias.txt", "text": "B\n"})),
    ]));
    mock.push_turn(Turn::text("Done."));
    let done = s.airlock(&mock, &["-p", "append twice", "--approval-mode", "yolo"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert_eq!(s.read("a/notes.txt").as_deref(), Some("start\nA\nB\n"), "an append was lost");
}

#[test]
fn ask_questions_come_in_the_model_order() {
    let s = session();
    let mock = MockModel::start(Wire::OpenAi);
    let names = ["f1.txt", "f2.txt", "f3.txt", "f4.txt"];
    let calls = names.iter().map(|name| call("write_file", json!({"file_path": name, "content": "x\n"}))).collect();
    mock.push_turn(Turn::calls(calls));
    mock.push_turn(Turn::text("Done."));
    let mut command = s.command(&mock);
    command.args(["-p", "write four files", "--ask"]);
    let done = run_with_input(command, "y\nn\ny\nn\n");
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let asked: Vec<usize> =
        names.iter().map(|name| done.stderr.find(name).unwrap_or_else(|| panic!("{}", done.stderr))).collect();
    assert!(asked.windows(2).all(|w| w[0] < w[1]), "asked out of order:\n{}", done.stderr);
    assert!(!done.stderr.contains("a//") && !done.stderr.contains("b//"), "{}", done.stderr);
    let written: Vec<bool> = names.iter().map(|name| s.read(name).is_some()).collect();
    assert_eq!(written, [true, false, true, false], "{}", done.stderr);
    let sent = function_responses(&mock.requests()[1]);
    let refused: Vec<bool> = sent.iter().map(|(_, c)| c.starts_with("Error") && c.contains("refused")).collect();
    assert_eq!(refused, [false, true, false, true], "{sent:?}");
}

#[test]
fn ctrl_c_or_sigterm_at_an_ask_question_cancels_the_batch_at_once() {
    for (signal, format) in [("-INT", "text"), ("-TERM", "text"), ("-INT", "json")] {
        let s = session();
        let mock = MockModel::start(Wire::OpenAi);
        mock.push_turn(Turn::calls(vec![call("write_file", json!({"file_path": "x.txt", "content": "x"}))]));
        let mut command = s.command(&mock);
        command.args(["-p", "write", "--ask", "-o", format]);
        command.stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
        let mut child = command.spawn().unwrap();
        // Held open and never written: the question waits on it.
        let stdin = child.stdin.take();
        let (stdout, out_thread) = Collected::start(child.stdout.take());
        let (stderr, err_thread) = Collected::start(child.stderr.take());
        stderr.wait_for("\n? ", Duration::from_secs(60));
        let signalled = Instant::now();
        let killed = Command::new("kill").args([signal, &child.id().to_string()]).status().unwrap();
        assert!(killed.success());
        let status = wait_bounded(&mut child, Duration::from_secs(20), &stderr);
        assert!(signalled.elapsed() < Duration::from_secs(5), "{signal}: took {:?}", signalled.elapsed());
        drop(stdin);
        let _ = (out_thread.join(), err_thread.join());
        let (stdout, stderr) = (stdout.text(), stderr.text());
        assert_eq!(status.code(), Some(130), "{signal} {format}: {stderr}");
        assert_eq!(s.read("x.txt"), None, "{signal} {format}");
        if format == "json" {
            let object: Value = serde_json::from_str(&stdout).unwrap();
            assert_eq!(object["status"], "cancelled");
            assert_eq!(object["tool_calls"][0]["status"], "cancelled");
        } else {
            assert!(stderr.contains("⊘ write_file"), "{signal}: {stderr}");
            assert!(stderr.contains("airlock: the run was cancelled"), "{signal}: {stderr}");
        }
        assert_eq!(mock.requests().len(), 1, "{signal} {format}: no model request after a cancel");
    }
}

/// `command` under a pseudo-terminal (`script`), stdout and stderr both on it.
fn on_a_terminal(command: &Command) -> Finished {
    let quote = |text: &OsStr| format!("'{}'", text.to_string_lossy().replace('\'', "'\\''"));
    let line: Vec<String> = std::iter::once(command.get_program()).chain(command.get_args()).map(quote).collect();
    let mut script = Command::new("script");
    script.args(["-qec", &line.join(" "), "/dev/null"]).env_clear().stdin(Stdio::null());
    for (key, value) in command.get_envs() {
        if let Some(value) = value {
            script.env(key, value);
        }
    }
    if let Some(dir) = command.get_current_dir() {
        script.current_dir(dir);
    }
    Session::run(script)
}

#[test]
fn model_text_without_a_newline_does_not_run_into_the_tool_lines() {
    let s = session();
    s.write("a.txt", "A\n");
    let script = |mock: &MockModel| {
        mock.push_turn(Turn::text_and_calls(
            "Calling 1 tool(s).",
            vec![call("read_file", json!({"file_path": "a.txt"}))],
        ));
        mock.push_turn(Turn::text("Done."));
    };
    let mock = MockModel::start(Wire::Anthropic);
    script(&mock);
    let mut command = s.command(&mock);
    command.args(["-p", "read a"]).env("ANTHROPIC_API_KEY", "k");
    let screen = on_a_terminal(&command);
    assert_eq!(screen.code, Some(0), "{}", screen.stdout);
    assert!(screen.stdout.contains("Calling 1 tool(s).\r\n✓ read_file"), "{:?}", screen.stdout);
    assert!(screen.stdout.contains("(ms)\r\nDone.\r\n") || screen.stdout.contains(" ms)\r\nDone.\r\n"));

    // Redirected, the answer on stdout gets no newline it did not need.
    let mock = MockModel::start(Wire::Anthropic);
    script(&mock);
    let mut command = s.command(&mock);
    command.args(["-p", "read a"]).env("ANTHROPIC_API_KEY", "k");
    let done = Session::run(command);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert_eq!(done.stdout, "Calling 1 tool(s).\nDone.\n");
    assert!(done.stderr.starts_with("✓ read_file"), "{:?}", done.stderr);
}

#[test]
fn a_streaming_tool_shows_its_live_output_on_stderr_while_it_runs() {
    let s = probe_session();
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![call("stream", json!({"lines": 3, "pause_ms": 800}))]));
    mock.push_turn(Turn::text("Done."));
    let mut command = s.command(&mock);
    command.args(["-p", "stream"]).stdin(Stdio::null()).stdout(Stdio::piped()).stderr(Stdio::piped());
    let mut child = command.spawn().unwrap();
    let (stdout, out_thread) = Collected::start(child.stdout.take());
    let (stderr, err_thread) = Collected::start(child.stderr.take());
    let status = wait_bounded(&mut child, Duration::from_secs(120), &stderr);
    let _ = (out_thread.join(), err_thread.join());
    assert_eq!(status.code(), Some(0), "{}", stderr.text());
    assert_eq!(stdout.text(), "Done.\n");
    let text = stderr.text();
    for n in 1..=3 {
        let shown = format!("stream │ line {n}\n");
        assert!(text.lines().any(|l| format!("{l}\n").ends_with(&shown)), "line {n} not shown:\n{text}");
    }
    let first = stderr.seen_at("line 1\n").unwrap();
    let finished = stderr.seen_at("✓ stream").unwrap();
    assert!(finished.duration_since(first) > Duration::from_millis(1200), "shown only at the end:\n{text}");
}

#[test]
fn live_output_shown_in_text_mode_is_bounded_per_call() {
    let s = session();
    s.install_plugin(fixtures::FLOOD);
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![call("flood_live", json!({}))]));
    mock.push_turn(Turn::text("Done."));
    let done = s.airlock(&mock, &["-p", "flood"]);
    assert_eq!(done.code, Some(0), "{}", &done.stderr[..done.stderr.len().min(2000)]);
    assert!(done.stderr.len() < 32 << 10, "{} bytes of live output on stderr", done.stderr.len());
    assert!(done.stderr.contains("flood_live │ l"), "{}", &done.stderr[..done.stderr.len().min(2000)]);
    assert!(done.stderr.contains("more live output not shown"), "{}", done.stderr);
    assert!(done.stderr.contains("✓ flood_live"), "{}", done.stderr);
}

/// The files in the session outputs folders of `home`.
fn saved_outputs(home: &Path) -> Vec<PathBuf> {
    let sessions = home.join("sessions");
    let mut found = Vec::new();
    for entry in std::fs::read_dir(&sessions).unwrap().flatten() {
        if entry.path().is_dir() {
            found.extend(std::fs::read_dir(entry.path()).unwrap().flatten().map(|e| e.path()));
        }
    }
    found
}

#[test]
fn output_over_the_cap_is_saved_whole_in_the_session_folder_and_the_model_is_told_where() {
    let s = probe_session();
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![call("big", json!({"lines": 20_000}))]));
    mock.push_turn(Turn::text("Done."));
    let done = s.airlock(&mock, &["-p", "big"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let sent = function_responses(&mock.requests()[1]);
    let told = &sent[0].1;
    assert!(told.starts_with("row 0000000\nrow 0000001\n"), "{}", &told[..100]);
    assert!(told.len() < 101_000, "{} bytes sent", told.len());
    let saved = saved_outputs(&s.airlock_home());
    assert_eq!(saved.len(), 1, "{saved:?}");
    let whole: String = (0..20_000).map(|i| format!("row {i:07}\n")).collect();
    assert_eq!(std::fs::read_to_string(&saved[0]).unwrap(), whole);
    let note = &told[told.len() - 600..];
    assert!(told.contains(saved[0].to_str().unwrap()), "the path is not given: {note}");
    assert!(note.contains("240000"), "the size is not given: {note}");
    use std::os::unix::fs::PermissionsExt;
    assert_eq!(std::fs::metadata(&saved[0]).unwrap().permissions().mode() & 0o777, 0o600);
}

#[test]
fn the_last_live_output_of_a_call_shows_before_its_line() {
    let s = probe_session();
    let mock = MockModel::start(Wire::OpenAi);
    // A tool that emits and returns at once: its last output is still in flight when it ends.
    for _ in 0..3 {
        mock.push_turn(Turn::calls(vec![call("stream", json!({"lines": 3, "pause_ms": 0}))]));
    }
    mock.push_turn(Turn::text("Done."));
    let done = s.airlock(&mock, &["-p", "stream"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let mut rest = done.stderr.as_str();
    for _ in 0..3 {
        let shown = rest.find("stream │ line 3\n").unwrap_or_else(|| panic!("{}", done.stderr));
        let finished = rest.find("✓ stream").unwrap_or_else(|| panic!("{}", done.stderr));
        assert!(shown < finished, "live output after the call's line:\n{}", done.stderr);
        rest = &rest[finished + "✓ stream".len()..];
    }
    // Waiting for the last output does not hold the call up.
    for line in done.stderr.lines().filter(|l| l.starts_with("✓ stream")) {
        let millis: f64 = line.rsplit_once('(').and_then(|(_, t)| t.strip_suffix(" ms)")).unwrap().parse().unwrap();
        assert!(millis < 900.0, "{line}");
    }
}
