//! (c) The cost of one tool call on a fresh instance, through airlock's own runtime API
//! (`Runtime::instantiate`, `Instance::execute`), for the `echo` tool of the `echo_tools`
//! fixture and the built-in `read_file`, on a current-thread and a multi-thread tokio
//! runtime:
//!
//! - instantiate + drop;
//! - the first execute on a fresh instance (instantiation untimed);
//! - execute on a live instance;
//! - fresh: instantiate + execute + drop (the goal is about this one);
//! - the scheduler's path for one call: a check instance (validate, describe-call,
//!   confirm), then execute in the same instance, kept for it, as the scheduler does when
//!   the execution's sandbox holds the same as the checks' (both subjects);
//! - a batch of 8 fresh `read_file` calls, joined on one task, and spawned as tasks of
//!   their own (as the scheduler runs calls).
//!
//! `cargo bench -p airlock --bench instance`; `AIRLOCK_BENCH_ITERS` sets the timed
//! iterations per measurement (10 000); a first argument keeps only the lines whose label
//! holds it (`cargo bench -p airlock --bench instance -- "fresh:"`).

#![allow(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark is a test program: it prints its report and stops loudly on a broken setup"
)]

mod support;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use airlock_engine::capability::Preopen;
use airlock_engine::contract::ToolOutput;
use airlock_engine::registry::{PluginDirs, Registry};
use airlock_engine::runtime::{Instance, LoadedComponent, Parked, Runtime, Sandbox};
use airlock_files::content_hash;
use airlock_tests::fixtures;
use futures_util::future::join_all;
use support::{Summary, count_from_env, header, report};

/// The scheduler's defaults (`CallLimits::default`).
const MEMORY: usize = 256 << 20;
const DEADLINE: Duration = Duration::from_secs(60);
const BATCH: usize = 8;

/// One tool to call: its component, the sandbox its calls get, and its arguments.
struct Subject {
    label: &'static str,
    tool: &'static str,
    args: String,
    component: LoadedComponent,
    sandbox: Sandbox,
}

fn main() {
    let iterations = count_from_env("AIRLOCK_BENCH_ITERS", 10_000);
    let warmup = (iterations / 10).max(10);
    // `cargo bench -p airlock --bench instance -- fresh` runs the lines whose label holds
    // "fresh" (cargo passes `--bench` itself, which is skipped).
    let filter = std::env::args().skip(1).find(|a| !a.starts_with("--"));
    let wanted = |label: &str| filter.as_deref().is_none_or(|f| label.contains(f));
    header(
        "one tool call through airlock_engine::runtime",
        &format!("{warmup} warm-up + {iterations} timed iterations per line"),
    );
    let cache = tempfile::tempdir().expect("temp cache");
    let workspace_dir = tempfile::tempdir().expect("temp workspace");
    let workspace = workspace_dir.path().canonicalize().expect("canonical workspace");
    let body: String = (0..40).map(|n| format!("fn function_{n}() -> u32 {{\n    {n}\n}}\n\n")).collect();
    std::fs::create_dir_all(workspace.join("src")).expect("mkdir");
    std::fs::write(workspace.join("src/lib.rs"), &body).expect("write");

    for (flavour, runtime) in [
        ("current-thread", tokio::runtime::Builder::new_current_thread().enable_all().build().expect("tokio")),
        ("multi-thread", tokio::runtime::Builder::new_multi_thread().enable_all().build().expect("tokio")),
    ] {
        let airlock = Arc::new(Runtime::new(cache.path().to_path_buf()).expect("runtime"));
        let subjects = runtime.block_on(subjects(&airlock, &workspace));
        println!("-- tokio {flavour} runtime --");
        for subject in &subjects {
            runtime.block_on(check(&airlock, subject, &body));
            let name = |what: &str| format!("{} [{flavour}] {what}", subject.label);
            let label = name("instantiate + drop");
            if wanted(&label) {
                let samples = runtime.block_on(measure(warmup, iterations, || async {
                    drop(instantiate(&airlock, subject, &subject.sandbox).await);
                }));
                report(&label, &Summary::of(&samples));
            }
            let label = name("first execute on a fresh instance");
            if wanted(&label) {
                let samples = runtime.block_on(async {
                    let mut samples = Vec::with_capacity(iterations);
                    for i in 0..warmup + iterations {
                        let mut instance = instantiate(&airlock, subject, &subject.sandbox).await;
                        let started = Instant::now();
                        execute(&mut instance, subject).await;
                        if i >= warmup {
                            samples.push(started.elapsed());
                        }
                    }
                    samples
                });
                report(&label, &Summary::of(&samples));
            }
            let label = name("execute on a live instance");
            if wanted(&label) {
                let samples = runtime.block_on(async {
                    let mut instance = instantiate(&airlock, subject, &subject.sandbox).await;
                    let mut samples = Vec::with_capacity(iterations);
                    for i in 0..warmup + iterations {
                        let started = Instant::now();
                        execute(&mut instance, subject).await;
                        if i >= warmup {
                            samples.push(started.elapsed());
                        }
                    }
                    samples
                });
                report(&label, &Summary::of(&samples));
            }
            let label = name("fresh: instantiate + execute + drop");
            if wanted(&label) {
                let samples = runtime.block_on(measure(warmup, iterations, || async {
                    fresh_call(&airlock, subject).await;
                }));
                report(&label, &Summary::of(&samples));
            }
            let label = name("scheduler path: checks + execute");
            if wanted(&label) {
                let samples = runtime.block_on(measure(warmup, iterations, || scheduler_path(&airlock, subject)));
                report(&label, &Summary::of(&samples));
            }
        }
        let read_file = subjects.iter().find(|s| s.tool == "read_file").expect("read_file subject");
        let batch_iterations = (iterations / BATCH).max(10);
        let label = format!("8 x read_file fresh, join_all on one task [{flavour}]");
        if wanted(&label) {
            let samples = runtime.block_on(measure(warmup / BATCH, batch_iterations, || async {
                join_all((0..BATCH).map(|_| fresh_call(&airlock, read_file))).await;
            }));
            report(&label, &Summary::of(&samples));
        }
        let label = format!("8 x read_file fresh, tokio::spawn each [{flavour}]");
        if wanted(&label) {
            let shared = Arc::new(Subject {
                label: read_file.label,
                tool: read_file.tool,
                args: read_file.args.clone(),
                component: read_file.component.clone(),
                sandbox: read_file.sandbox.clone(),
            });
            let samples = runtime.block_on(measure(warmup / BATCH, batch_iterations, || {
                let (airlock, shared) = (airlock.clone(), shared.clone());
                async move {
                    let tasks: Vec<_> = (0..BATCH)
                        .map(|_| {
                            let (airlock, shared) = (airlock.clone(), shared.clone());
                            tokio::spawn(async move {
                                fresh_call(&airlock, &shared).await;
                            })
                        })
                        .collect();
                    for task in tasks {
                        task.await.expect("task");
                    }
                }
            }));
            report(&label, &Summary::of(&samples));
        }
    }
}

fn label() -> Arc<str> {
    Arc::from("bench")
}

/// The `echo` tool of the `echo_tools` fixture (no files) and the built-in `read_file`
/// (the workspace, read-only, as the scheduler grants it).
async fn subjects(runtime: &Runtime, workspace: &Path) -> Vec<Subject> {
    let bytes = std::fs::read(fixtures::ECHO_TOOLS).expect("echo_tools fixture");
    let (echo, _) = runtime.load(&content_hash(&bytes), || Ok(bytes.clone())).expect("load echo_tools");
    let none = PathBuf::from("/nonexistent-airlock-bench");
    let registry =
        Registry::load(runtime, &PluginDirs { user: none.clone(), workspace: none, ..PluginDirs::default() }).await;
    assert!(registry.problems.is_empty(), "{:?}", registry.problems);
    let read_file =
        registry.get("read_file").expect("built-in read_file").plugin.component(runtime).await.expect("load");
    let root = workspace.to_string_lossy().into_owned();
    let mut sandbox = Sandbox::empty(MEMORY, DEADLINE);
    sandbox.workspace_root = root.clone();
    sandbox.call_id = "call_0".into();
    let mut files = sandbox.clone();
    files.preopens = vec![Preopen { host: workspace.to_path_buf(), guest: root, writable: false }];
    vec![
        Subject {
            label: "echo (echo_tools)",
            tool: "echo",
            args: r#"{"text":"hello"}"#.into(),
            component: echo,
            sandbox,
        },
        Subject {
            label: "read_file (built-in)",
            tool: "read_file",
            args: r#"{"file_path":"src/lib.rs"}"#.into(),
            component: read_file,
            sandbox: files,
        },
    ]
}

async fn instantiate(runtime: &Runtime, subject: &Subject, sandbox: &Sandbox) -> Instance {
    runtime.instantiate(&subject.component, label(), sandbox).await.expect("instantiate")
}

async fn execute(instance: &mut Instance, subject: &Subject) -> ToolOutput {
    instance.execute(subject.tool, &subject.args).await.expect("execute").expect("tool ok")
}

/// One call of the subject's tool on a fresh instance.
async fn fresh_call(runtime: &Runtime, subject: &Subject) -> ToolOutput {
    execute(&mut instantiate(runtime, subject, &subject.sandbox).await, subject).await
}

/// What the scheduler does for one approved call: validate, describe-call and confirm on a
/// read-only check instance, then execute — in the same instance (parked and resumed) when
/// the execution's sandbox holds the same as the checks' (both subjects here), else on an
/// instance of its own.
async fn scheduler_path(runtime: &Runtime, subject: &Subject) {
    let mut check = subject.sandbox.clone();
    for preopen in &mut check.preopens {
        preopen.writable = false;
    }
    let mut instance = instantiate(runtime, subject, &check).await;
    instance.validate(subject.tool, &subject.args).await.expect("validate").expect("valid");
    instance.describe_call(subject.tool, &subject.args).await.expect("describe-call");
    instance.confirm(subject.tool, &subject.args).await.expect("confirm").expect("confirm ok");
    if !check.holds_the_same(&subject.sandbox) {
        drop(instance);
        fresh_call(runtime, subject).await;
        return;
    }
    let mut instance = runtime.park(instance).and_then(Parked::resume).expect("kept for the execution");
    execute(&mut instance, subject).await;
}

/// The tool answers what it should, so the timings are of real calls.
async fn check(runtime: &Runtime, subject: &Subject, body: &str) {
    let output = fresh_call(runtime, subject).await.llm_text();
    match subject.tool {
        "echo" => assert_eq!(output, "hello"),
        _ => assert!(output.contains(body.lines().next().unwrap_or_default()), "{output}"),
    }
}

/// Times `step` `iterations` times after `warmup` untimed runs.
async fn measure<F, Fut>(warmup: usize, iterations: usize, mut step: F) -> Vec<Duration>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = ()>,
{
    for _ in 0..warmup {
        step().await;
    }
    let mut samples = Vec::with_capacity(iterations);
    for _ in 0..iterations {
        let started = Instant::now();
        step().await;
        samples.push(started.elapsed());
    }
    samples
}
