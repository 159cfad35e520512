//! The time one component hook adds to a tool call (issue 28; goal ≤ 100 µs median): the
//! same fresh call of the `echo` tool (`echo_tools` fixture: instantiate, execute, drop) on
//! its own, then preceded by one `before_tool` event of the `hook-deny` fixture, which reads
//! the call's `command` argument and passes it (a fresh instance per event, with its
//! deadline and memory cap, through `airlock_engine::hooks::component`, as the dispatcher
//! runs it). The hook's event on its own is measured too.
//!
//! `cargo bench -p airlock --bench hooks`; `AIRLOCK_BENCH_ITERS` sets the timed iterations
//! per line (5 000).

#![allow(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark is a test program: it prints its report and stops loudly on a broken setup"
)]

mod support;

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use airlock_engine::capability::Roots;
use airlock_engine::hooks::component;
use airlock_engine::hooks::{HookEvent, HookEventName, HookTool};
use airlock_engine::policy::rules::RuleSource;
use airlock_engine::policy::{ApprovalMode, Policy};
use airlock_engine::registry::{PluginDirs, Registry};
use airlock_engine::runtime::{Runtime, Sandbox};
use airlock_files::content_hash;
use airlock_tests::fixtures;
use support::{Summary, count_from_env, header, report};

fn main() {
    let iterations = count_from_env("AIRLOCK_BENCH_ITERS", 5_000);
    let warmup = (iterations / 10).max(10);
    header("one component hook on a tool call", &format!("{warmup} warm-up + {iterations} timed iterations per line"));
    let home = tempfile::tempdir().expect("temp home");
    let plugins = home.path().join("plugins");
    std::fs::create_dir_all(&plugins).expect("mkdir");
    std::fs::copy(fixtures::HOOK_DENY, plugins.join("hook_deny.wasm")).expect("copy hook");
    let workspace = home.path().canonicalize().expect("canonical");
    let tokio = tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("tokio");
    let runtime = Arc::new(Runtime::new(home.path().join("cache")).expect("runtime"));
    let dirs = PluginDirs { user: plugins, workspace: workspace.join(".airlock/plugins"), ..PluginDirs::default() };
    let registry = tokio.block_on(Registry::load(&runtime, &dirs));
    assert!(registry.problems.is_empty(), "{:?}", registry.problems);
    let policy_path = home.path().join("policy.toml");
    std::fs::write(&policy_path, "").expect("policy");
    let user = airlock_engine::policy::file::load(&policy_path, RuleSource::User).expect("policy");
    let roots = Roots { workspace: workspace.clone(), home: None, memory: None };
    let policy = Policy::new(ApprovalMode::Default, roots, user);
    let (hooks, problems) = component::load(&runtime, &registry, &policy, &BTreeMap::new());
    assert!(problems.is_empty() && hooks.len() == 1, "{problems:?}");
    let hook = hooks[0].clone();

    let bytes = std::fs::read(fixtures::ECHO_TOOLS).expect("echo_tools fixture");
    let (echo, _) = runtime.load(&content_hash(&bytes), || Ok(bytes.clone())).expect("load echo_tools");
    let mut sandbox = Sandbox::empty(256 << 20, Duration::from_secs(60));
    sandbox.workspace_root = workspace.to_string_lossy().into_owned();
    sandbox.call_id = "call_0".into();
    let event = Arc::new(HookEvent {
        event: HookEventName::BeforeTool,
        session_id: "bench".into(),
        workspace: workspace.to_string_lossy().into_owned(),
        approval_mode: "default".into(),
        tool: Some(HookTool {
            call_id: "call_0".into(),
            name: "run_shell_command".into(),
            plugin: "run-shell-command".into(),
            kind: "execute".into(),
            arguments: serde_json::json!({"command": "cargo test --workspace"}),
            status: None,
            output: None,
        }),
        prompt: None,
        message: None,
        reason: None,
        transcript_path: None,
    });
    let call = || async {
        let mut instance = runtime.instantiate(&echo, Arc::from("bench"), &sandbox).await.expect("instantiate");
        instance.execute("echo", r#"{"text":"hello"}"#).await.expect("fault").expect("echo");
    };
    let event_alone = || async {
        let reply = hook.run(event.clone()).await.expect("hook");
        assert!(reply.verdict.is_none(), "{reply:?}");
    };
    let without = tokio.block_on(measure(warmup, iterations, call));
    report("echo call, no hook", &Summary::of(&without));
    let with = tokio.block_on(measure(warmup, iterations, || async {
        event_alone().await;
        call().await;
    }));
    report("echo call after one component hook (hook-deny, passes)", &Summary::of(&with));
    let alone = tokio.block_on(measure(warmup, iterations, event_alone));
    report("the hook's before_tool event alone", &Summary::of(&alone));
    let added = Summary::of(&with).median.saturating_sub(Summary::of(&without).median);
    println!("added per call (median with - median without): {}", support::human(added));
}

/// `iterations` timed runs of `step` after `warmup` untimed ones.
async fn measure<F: Future<Output = ()>>(warmup: usize, iterations: usize, step: impl Fn() -> F) -> Vec<Duration> {
    let mut samples = Vec::with_capacity(iterations);
    for i in 0..warmup + iterations {
        let started = Instant::now();
        step().await;
        if i >= warmup {
            samples.push(started.elapsed());
        }
    }
    samples
}
