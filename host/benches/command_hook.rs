//! What one command hook adds to a tool call: the hook run as a session runs it
//! ([`airlock_engine::hooks::command`]: the event in Claude Code's shape on stdin, the process
//! manager, the OS sandbox with the view, the `ulimit -v` line, the reply parsed) against the
//! same script started bare (`/bin/sh -c SCRIPT` with the same stdin, waited for), interleaved
//! so both see the same load. Two scripts: a shell one that reads its input and exits 0, and
//! a Python one that parses the event and answers `allow` in JSON (Claude Code's usual hook).
//!
//! `cargo bench -p airlock --bench command_hook`; `AIRLOCK_BENCH_RUNS` sets the runs (100).

#![allow(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark is a test program: it prints its report and stops loudly on a broken setup"
)]

mod support;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Instant;

use airlock_engine::config::hooks::{CommandHookSettings, HooksSettings, OnErrorSetting};
use airlock_engine::hooks::command::{Host, claude, load};
use airlock_engine::hooks::{HookEvent, HookEventName, HookScope, HookTool};
use airlock_sandbox::folders::{CommandView, HostEnv, Settings};
use support::{Summary, count_from_env, header, report};

/// The airlock built with this benchmark (same profile): the sandbox helper.
const BINARY: &str = env!("CARGO_BIN_EXE_airlock");

const SHELL: &str = "cat >/dev/null; exit 0";
const PYTHON: &str = "python3 -c 'import json, sys; d = json.load(sys.stdin); \
    print(json.dumps({\"hookSpecificOutput\": {\"permissionDecision\": \"allow\"}}))'";

fn main() {
    let runs = count_from_env("AIRLOCK_BENCH_RUNS", 100);
    header(
        "One command hook per tool call: hook vs the same script bare",
        &format!("5 warm-up + {runs} interleaved runs each"),
    );
    let scratch = tempfile::tempdir().expect("temp dir");
    let workspace = scratch.path().canonicalize().expect("canonical").join("ws");
    std::fs::create_dir(&workspace).expect("workspace");
    let protected: Vec<PathBuf> = Vec::new();
    let view = Arc::new(CommandView::detect(&HostEnv::current(), &Settings::default(), &protected, &workspace));
    let trust_file = scratch.path().join("trust.toml");
    let host =
        Host { workspace: &workspace, view, protected: &protected, helper: Path::new(BINARY), trust_file: &trust_file };
    let event = Arc::new(HookEvent {
        event: HookEventName::BeforeTool,
        session_id: "bench".into(),
        transcript_path: None,
        workspace: workspace.display().to_string(),
        approval_mode: "default".into(),
        tool: Some(HookTool {
            call_id: "call-1".into(),
            name: "run_shell_command".into(),
            plugin: "run-shell-command".into(),
            kind: "execute".into(),
            arguments: serde_json::json!({"command": "cargo test --offline"}),
            status: None,
            output: None,
        }),
        prompt: None,
        message: None,
        reason: None,
    });
    let stdin = serde_json::to_vec(&claude::stdin(&event)).expect("stdin");
    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    for (label, script) in [("sh (reads stdin, exits 0)", SHELL), ("python3 (parses, answers allow)", PYTHON)] {
        let setting = CommandHookSettings {
            name: Some("bench".into()),
            events: vec!["before_tool".into()],
            tools: None,
            command: Some(script.into()),
            timeout_secs: Some(30),
            on_error: OnErrorSetting::Deny,
            memory_mib: None,
            writes: Vec::new(),
            network: false,
            scope: HookScope::User,
            origin: PathBuf::from("config.toml"),
        };
        let (hooks, problems) = load(&HooksSettings { command: vec![setting], ..Default::default() }, &host);
        assert!(problems.is_empty(), "{problems:?}");
        let hook = Arc::clone(&hooks[0]);
        let mut bare = Vec::new();
        let mut hooked = Vec::new();
        for round in 0..runs + 5 {
            let started = Instant::now();
            run_bare(script, &workspace, &stdin);
            let bare_time = started.elapsed();
            let started = Instant::now();
            runtime.block_on(hook.run(Arc::clone(&event))).expect("the hook answers");
            let hooked_time = started.elapsed();
            if round >= 5 {
                bare.push(bare_time);
                hooked.push(hooked_time);
            }
        }
        let (bare, hooked) = (Summary::of(&bare), Summary::of(&hooked));
        report(&format!("{label}: bare"), &bare);
        report(&format!("{label}: as a hook"), &hooked);
        let added = hooked.median.saturating_sub(bare.median);
        println!("{label}: added per tool call (median) {}", support::human(added));
    }
}

/// The script as `/bin/sh -c` with `stdin`, waited for.
fn run_bare(script: &str, workspace: &Path, stdin: &[u8]) {
    let mut child = Command::new("/bin/sh")
        .args(["-c", script])
        .current_dir(workspace)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("sh");
    child.stdin.take().expect("stdin").write_all(stdin).expect("write");
    let output = child.wait_with_output().expect("wait");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
}
