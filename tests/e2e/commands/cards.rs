//! What a command's end looks like to the person and to a program (issue 24, item 4): the
//! process manager reports the command's CPU time and peak memory (from `wait4`, covering
//! the processes it waited for), and a headless run's tool line and JSON carry the exit code,
//! marking a call whose command failed as failed.

use std::path::Path;
use std::time::Duration;

use airlock_process::{Child, ChildEvent, ExitInfo, Request};
use airlock_sandbox::Spec;
use airlock_tests::{MockModel, Session, Turn, Wire, call, run_bounded};
use serde_json::{Value, json};

use super::session;

const BINARY: &str = env!("CARGO_BIN_EXE_airlock");
/// A python grandchild (below bash) that holds 256 MiB it wrote and spends 0.3 s of CPU time:
/// more than airlock's own peak, which the kernel counts for every child too.
const HUNGRY: &str = "python3 -c \"import time\nb = b'x' * (256 << 20)\nt = time.process_time()\n\
                      while time.process_time() - t < 0.3: pass\"; true";

async fn exit_of(script: &str, work: &Path) -> ExitInfo {
    let request = Request {
        spec: Spec {
            argv: vec!["bash".into(), "-c".into(), script.into()],
            cwd: work.to_path_buf(),
            read_write: vec![work.to_path_buf()],
            ..Spec::default()
        },
        timeout: Duration::from_secs(60),
        ..Request::default()
    };
    let mut child = Child::spawn_with_helper(Path::new(BINARY), request).unwrap_or_else(|e| panic!("spawn: {e}"));
    loop {
        if let ChildEvent::Exited(info) = child.next(Duration::from_secs(30)).await {
            return info;
        }
    }
}

#[test]
fn the_exit_reports_the_cpu_time_and_peak_memory_of_the_command_and_what_it_waited_for() {
    let work = tempfile::tempdir().unwrap_or_else(|e| panic!("temp dir: {e}"));
    let built = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build();
    let runtime = built.unwrap_or_else(|e| panic!("runtime: {e}"));
    runtime.block_on(async {
        let hungry = exit_of(HUNGRY, work.path()).await;
        assert_eq!(hungry.code, Some(0), "{hungry:?}");
        assert!(hungry.cpu >= Duration::from_millis(300), "the grandchild's CPU time is counted: {hungry:?}");
        assert!(hungry.peak_memory >= 256 << 20, "the grandchild's 256 MiB are counted: {hungry:?}");
        // A small command's own peak hides under what the kernel counts from its parents (this
        // process's peak, which is then not reported, or the sandbox helper's start).
        let quick = exit_of("exit 4", work.path()).await;
        assert_eq!(quick.code, Some(4));
        assert!(quick.peak_memory < 64 << 20, "{quick:?}");
        assert!(quick.cpu < hungry.cpu, "{quick:?} against {hungry:?}");
    });
}

/// One headless run in yolo mode: the model runs each of `commands` (one batch), then
/// answers. Returns the run and its JSON output.
fn headless(s: &Session, commands: &[&str], format: &str) -> (airlock_tests::Finished, String) {
    let mock = MockModel::start(Wire::OpenAi);
    let calls = commands.iter().map(|c| call("run_shell_command", json!({ "command": c }))).collect();
    mock.push_turn(Turn::calls(calls));
    mock.push_turn(Turn::text("done"));
    let mut command = s.command(&mock);
    command.args(["-p", "run them", "--approval-mode", "yolo", "-o", format]);
    let done = run_bounded(command, Some(""), Duration::from_secs(120));
    let stdout = done.stdout.clone();
    (done, stdout)
}

#[test]
fn a_failed_command_is_marked_failed_in_the_headless_line_with_its_exit_code() {
    let s = session();
    let commands = ["python3 -c 'import sys; sys.exit(3)'", "false", "echo 'test result: FAILED'; exit 101", "echo ok"];
    let (done, _) = headless(&s, &commands, "text");
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let lines: Vec<&str> = done
        .stderr
        .lines()
        .filter(|l| l.starts_with("✓ run_shell_command") || l.starts_with("✗ run_shell_command"))
        .collect();
    assert_eq!(lines.len(), 4, "{}", done.stderr);
    for (line, exit) in lines.iter().zip(["exit 3", "exit 1", "exit 101"]) {
        assert!(line.starts_with("✗ run_shell_command") && line.contains(&format!("— {exit} · cpu ")), "{line}");
    }
    assert!(
        lines[3].starts_with("✓ run_shell_command · echo ok") && lines[3].contains("— exit 0 · cpu"),
        "{}",
        lines[3]
    );
}

#[test]
fn the_json_output_adds_how_each_command_ended_and_what_it_used() {
    let s = session();
    let (done, stdout) = headless(&s, &[HUNGRY, "exit 7"], "json");
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let output: Value = serde_json::from_str(stdout.trim()).unwrap_or_else(|e| panic!("{e}: {stdout}"));
    let calls = output["tool_calls"].as_array().unwrap_or_else(|| panic!("{output}"));
    let (hungry, seven) = (&calls[0]["command"], &calls[1]["command"]);
    assert_eq!(hungry["exit_code"], 0, "{output}");
    assert!(hungry["cpu_ms"].as_u64().is_some_and(|ms| ms >= 300), "{output}");
    assert!(hungry["peak_memory_bytes"].as_u64().is_some_and(|b| b >= 256 << 20), "{output}");
    assert_eq!(seven["exit_code"], 7, "{output}");
    // The tool itself succeeded: its status is unchanged; the command's exit says the rest.
    assert_eq!(calls[1]["status"], "success", "{output}");
    assert!(calls[0]["run_ms"].as_f64().is_some_and(|ms| ms > 0.0), "{output}");
    // The same facts in stream-json's events.
    let (done, stdout) = headless(&s, &["exit 7"], "stream-json");
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let ended = stdout
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .find(|e| e["type"] == "tool_call" && e["status"] == "success")
        .unwrap_or_else(|| panic!("{stdout}"));
    assert_eq!(ended["command"]["exit_code"], 7, "{ended}");
    assert!(ended.get("shown").is_none() && ended.get("full_output").is_none(), "{ended}");
}
