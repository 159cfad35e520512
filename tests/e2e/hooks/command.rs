//! Command hooks run for real: scripts (sh, python3) written into a temporary workspace, run
//! by [`airlock_engine::hooks::command`] through the built `airlock` binary as the sandbox
//! helper, answering in Claude Code's protocol. Each attack checks that nothing happened (a
//! file absent, a secret not read, a process gone), not only that the hook failed.

#![allow(clippy::expect_used, reason = "a test stops loudly on a broken setup")]

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use airlock_engine::config::hooks::{CommandHookSettings, HooksSettings, OnErrorSetting};
use airlock_engine::hooks::command::{Host, MAX_OUTPUT, load};
use airlock_engine::hooks::{Hook, HookEvent, HookEventName, HookFailure, HookReply, HookScope, HookTool, HookVerdict};
use airlock_sandbox::folders::{CommandView, HostEnv, Settings};
use serde_json::json;

const BINARY: &str = env!("CARGO_BIN_EXE_airlock");
const SECRET: &str = "hunter2-do-not-leak";

/// A workspace, a home with a secret, and a folder outside both.
struct Scene {
    _root: tempfile::TempDir,
    workspace: PathBuf,
    home: PathBuf,
    outside: PathBuf,
    trust_file: PathBuf,
    protected: Vec<PathBuf>,
    view: Arc<CommandView>,
}

impl Scene {
    fn new() -> Self {
        let root = tempfile::tempdir().expect("temp dir");
        let base = root.path().canonicalize().expect("canonical");
        let (workspace, home, outside) = (base.join("ws"), base.join("home"), base.join("outside"));
        for folder in [&workspace, &home.join(".ssh"), &outside, &home.join(".airlock")] {
            std::fs::create_dir_all(folder).expect("folder");
        }
        std::fs::write(home.join(".ssh/id_ed25519"), SECRET).expect("key");
        let protected = vec![home.join(".airlock")];
        let host = HostEnv::from_pairs(&[
            ("HOME", &home.to_string_lossy()),
            ("PATH", "/usr/local/bin:/usr/bin:/bin"),
            ("AIRLOCK_TEST_SECRET", SECRET),
        ]);
        let view = Arc::new(CommandView::detect(&host, &Settings::default(), &protected, &workspace));
        let trust_file = home.join(".airlock/trust.toml");
        Self { _root: root, workspace, home, outside, trust_file, protected, view }
    }

    fn host(&self) -> Host<'_> {
        Host {
            workspace: &self.workspace,
            view: Arc::clone(&self.view),
            protected: &self.protected,
            helper: Path::new(BINARY),
            trust_file: &self.trust_file,
        }
    }

    /// Writes `script` as `name` in the workspace.
    fn script(&self, name: &str, text: &str) {
        std::fs::write(self.workspace.join(name), text).expect("script");
    }

    /// The one hook `setting` loads to.
    fn hook(&self, setting: CommandHookSettings) -> Arc<dyn Hook> {
        let (mut hooks, problems) = load(&HooksSettings { command: vec![setting], ..Default::default() }, &self.host());
        assert!(problems.is_empty(), "{problems:?}");
        hooks.pop().expect("one hook")
    }

    fn event(&self, name: HookEventName) -> HookEvent {
        HookEvent {
            event: name,
            session_id: "2026-11-28T09-00-00.000Z-ab12".into(),
            transcript_path: None,
            workspace: self.workspace.display().to_string(),
            approval_mode: "default".into(),
            tool: None,
            prompt: None,
            message: None,
            reason: None,
        }
    }

    fn shell_call(&self, command: &str) -> HookEvent {
        HookEvent {
            tool: Some(HookTool {
                call_id: "call-1".into(),
                name: "run_shell_command".into(),
                plugin: "run-shell-command".into(),
                kind: "execute".into(),
                arguments: json!({"command": command}),
                status: None,
                output: None,
            }),
            ..self.event(HookEventName::BeforeTool)
        }
    }
}

fn setting(command: &str, events: &[&str]) -> CommandHookSettings {
    CommandHookSettings {
        name: Some("test".into()),
        events: events.iter().map(|e| e.to_string()).collect(),
        tools: None,
        command: Some(command.into()),
        timeout_secs: Some(20),
        on_error: OnErrorSetting::Deny,
        memory_mib: None,
        writes: Vec::new(),
        network: false,
        scope: HookScope::User,
        origin: PathBuf::from("config.toml"),
    }
}

fn run(hook: &Arc<dyn Hook>, event: HookEvent) -> Result<HookReply, HookFailure> {
    runtime().block_on(hook.run(Arc::new(event)))
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime")
}

/// The text a `prompt_submitted` hook printed (Claude Code's plain-text context).
fn printed(scene: &Scene, setting: CommandHookSettings) -> String {
    let hook = scene.hook(setting);
    let reply = run(&hook, scene.event(HookEventName::PromptSubmitted)).expect("a reply");
    reply.context.unwrap_or_default()
}

#[test]
fn exit_2_denies_with_stderr_as_the_reason() {
    let _slot = super::super::shared();
    let scene = Scene::new();
    scene.script("guard.sh", "#!/bin/sh\ngrep -q 'force' && { echo 'no force pushes' >&2; exit 2; }\nexit 0\n");
    let hook = scene.hook(setting("sh guard.sh", &["before_tool"]));
    let reply = run(&hook, scene.shell_call("git push --force")).expect("a reply");
    assert_eq!((reply.verdict, reply.reason.as_deref()), (Some(HookVerdict::Deny), Some("no force pushes")));
    let reply = run(&hook, scene.shell_call("git status")).expect("a reply");
    assert_eq!(reply, HookReply::default(), "exit 0 without output: no objection");
}

/// A PreToolUse hook written to Claude Code's hooks reference: it reads `tool_name` and
/// `tool_input.command`, and answers with `hookSpecificOutput`.
const CLAUDE_GUARD: &str = r#"import json, sys

data = json.load(sys.stdin)
if data.get("hook_event_name") != "PreToolUse" or data.get("tool_name") != "Bash":
    sys.exit(0)
command = data.get("tool_input", {}).get("command", "")
if "rm -rf" in command:
    print(json.dumps({"hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "permissionDecision": "deny",
        "permissionDecisionReason": "rm -rf is blocked in " + data["cwd"],
    }}))
elif command.startswith("git push --force"):
    print(json.dumps({"hookSpecificOutput": {
        "hookEventName": "PreToolUse",
        "permissionDecision": "allow",
        "updatedInput": {"command": command.replace("--force", "--force-with-lease", 1)},
        "additionalContext": "rewrote --force to --force-with-lease",
    }}))
sys.exit(0)
"#;

#[test]
fn a_claude_code_python_hook_denies_and_rewrites_by_json() {
    let _slot = super::super::shared();
    let scene = Scene::new();
    scene.script("guard.py", CLAUDE_GUARD);
    let mut guard = setting("python3 \"$CLAUDE_PROJECT_DIR\"/guard.py", &["PreToolUse"]);
    guard.tools = Some("Bash".into());
    let hook = scene.hook(guard);
    assert!(hook.spec().runs_for(HookEventName::BeforeTool, Some("run_shell_command")));

    let reply = run(&hook, scene.shell_call("rm -rf build")).expect("a reply");
    assert_eq!(reply.verdict, Some(HookVerdict::Deny));
    assert_eq!(reply.reason, Some(format!("rm -rf is blocked in {}", scene.workspace.display())));

    let reply = run(&hook, scene.shell_call("git push --force origin main")).expect("a reply");
    assert_eq!(reply.verdict, Some(HookVerdict::Allow));
    assert_eq!(reply.arguments, Some(json!({"command": "git push --force-with-lease origin main"})));
    assert_eq!(reply.context.as_deref(), Some("rewrote --force to --force-with-lease"));

    assert_eq!(run(&hook, scene.shell_call("ls")).expect("a reply"), HookReply::default());
}

/// Whether a process whose command line is `words` (NUL-separated) lives, in any pid
/// namespace this one can see.
fn living(words: &str) -> bool {
    let Ok(entries) = std::fs::read_dir("/proc") else { return false };
    entries
        .flatten()
        .any(|entry| std::fs::read(entry.path().join("cmdline")).is_ok_and(|line| line.starts_with(words.as_bytes())))
}

#[test]
fn a_hook_past_its_deadline_is_killed_with_its_children() {
    let _slot = super::super::shared();
    let scene = Scene::new();
    // A marker no other process of the machine has: the child's command line.
    let marker = format!("sleep\0{}.{}\0", 60 + std::process::id() % 100, std::process::id());
    let seconds = marker.trim_start_matches("sleep\0").trim_end_matches('\0').to_string();
    let mut slow = setting(&format!("sleep {seconds} & sleep {seconds}"), &["before_tool"]);
    slow.timeout_secs = Some(1);
    let hook = scene.hook(slow);
    let watcher = {
        let marker = marker.clone();
        std::thread::spawn(move || {
            let until = Instant::now() + Duration::from_secs(10);
            while Instant::now() < until {
                if living(&marker) {
                    return true;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            false
        })
    };
    let started = Instant::now();
    let failure = run(&hook, scene.shell_call("ls")).expect_err("timed out");
    assert_eq!(failure, HookFailure::TimedOut(Duration::from_secs(1)));
    assert!(started.elapsed() < Duration::from_secs(30), "{:?}", started.elapsed());
    assert!(watcher.join().expect("watcher"), "the hook's children were seen running");
    let deadline = Instant::now() + Duration::from_secs(5);
    while living(&marker) {
        assert!(Instant::now() < deadline, "a child of the hook outlived it");
        std::thread::sleep(Duration::from_millis(50));
    }
}

#[test]
fn a_hook_that_floods_stdout_is_stopped() {
    let _slot = super::super::shared();
    let scene = Scene::new();
    let hook = scene.hook(setting("yes airlock", &["before_tool"]));
    assert_eq!(run(&hook, scene.shell_call("ls")).expect_err("flooded"), HookFailure::Flooded(MAX_OUTPUT));
    let hook = scene.hook(setting("head -c 200000 /dev/zero >&2", &["before_tool"]));
    assert_eq!(run(&hook, scene.shell_call("ls")).expect_err("flooded"), HookFailure::Flooded(MAX_OUTPUT));
}

#[test]
fn a_hook_writes_nothing_outside_its_writes_and_never_outside_the_workspace() {
    let _slot = super::super::shared();
    let scene = Scene::new();
    let outside = scene.outside.join("escaped");
    let inside = scene.workspace.join("formatted");
    let attempt = format!(
        "(echo x > {0}) 2>/dev/null && echo wrote-outside; (echo x > {1}) 2>/dev/null && echo wrote-inside; echo done",
        outside.display(),
        inside.display()
    );
    assert_eq!(printed(&scene, setting(&attempt, &["prompt_submitted"])), "done");
    assert!(!outside.exists() && !inside.exists(), "no write grant: nothing written");

    let mut formatter = setting(&attempt, &["prompt_submitted"]);
    formatter.writes = vec![".".into()];
    assert_eq!(printed(&scene, formatter), "wrote-inside\ndone");
    assert!(!outside.exists(), "`writes` never reaches outside the workspace");
    assert!(inside.exists());
}

#[test]
fn a_hook_reads_no_secret_and_inherits_no_variable_of_airlocks() {
    let _slot = super::super::shared();
    let scene = Scene::new();
    let key = scene.home.join(".ssh/id_ed25519");
    let probe = format!(
        "cat {} 2>/dev/null || echo no-key; echo \"secret=${{AIRLOCK_TEST_SECRET:-absent}}\"; \
         echo \"project=$CLAUDE_PROJECT_DIR\"; echo \"workspace=$AIRLOCK_WORKSPACE\"",
        key.display()
    );
    let text = printed(&scene, setting(&probe, &["UserPromptSubmit"]));
    let ws = scene.workspace.display();
    assert_eq!(text, format!("no-key\nsecret=absent\nproject={ws}\nworkspace={ws}"));
    assert!(!text.contains(SECRET));
}

#[test]
fn a_hook_gets_no_network_unless_granted() {
    let _slot = super::super::shared();
    let scene = Scene::new();
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("listener");
    let port = listener.local_addr().expect("address").port();
    let probe = format!(
        "python3 -c 'import socket; socket.create_connection((\"127.0.0.1\", {port}), 2)' 2>/dev/null \
         && echo connected || echo refused"
    );
    assert_eq!(printed(&scene, setting(&probe, &["prompt_submitted"])), "refused");
    let mut networked = setting(&probe, &["prompt_submitted"]);
    networked.network = true;
    assert_eq!(printed(&scene, networked), "connected");
}

#[test]
fn a_hook_over_its_memory_cap_fails() {
    let _slot = super::super::shared();
    let scene = Scene::new();
    let grab = "python3 -c 'b = bytearray(256 << 20); print(len(b))'";
    let mut capped = setting(grab, &["before_tool"]);
    capped.memory_mib = Some(128);
    let failure = run(&scene.hook(capped), scene.shell_call("ls")).expect_err("over its cap");
    assert!(matches!(&failure, HookFailure::Exited(m) if m.contains("MemoryError")), "{failure:?}");
    let roomy = setting(grab, &["prompt_submitted"]);
    assert_eq!(printed(&scene, roomy), (256u64 << 20).to_string());
}

#[test]
fn other_exits_are_failures_naming_the_last_line_of_stderr() {
    let _slot = super::super::shared();
    let scene = Scene::new();
    let hook = scene.hook(setting("echo 'reading input' >&2; echo 'cannot parse' >&2; exit 3", &["before_tool"]));
    assert_eq!(
        run(&hook, scene.shell_call("ls")).expect_err("failed"),
        HookFailure::Exited("status 3: cannot parse".into())
    );
}
