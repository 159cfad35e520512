//! (g) What the OS sandbox adds to every command a plugin runs: `/bin/true` through the
//! helper against `/bin/true` started directly, interleaved so all see the same load — once
//! under the confinement alone (`airlock __sandbox <spec>`: re-exec of airlock, capabilities,
//! Landlock, seccomp, then `exec`; what every command had before the view), once in the
//! namespace view (user, mount, PID and network namespaces, every mount read-only, the
//! writable folders bound back, secrets hidden, the init process, then the program); then
//! `bash -c true` the same ways, and the whole process manager ([`Child`]: private folders,
//! pipes, waiter thread) on `/bin/true` with the view. The goal is at most 5 ms added.
//!
//! Then a developer's command: `cargo test --offline` of a small crate, run in the view with
//! exactly what a session gives commands (the user's `PATH`, `HOME`, toolchain homes and
//! caches, secrets hidden: [`CommandView::detect`]) against the same command run directly —
//! once warm (nothing to compile) and once after a change to the crate (one crate compiled
//! and linked). The goal is within 5 %.
//!
//! `cargo bench -p airlock --bench sandbox`; `AIRLOCK_BENCH_RUNS` sets the runs (200, and a
//! tenth of that for `cargo test`).

#![allow(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark is a test program: it prints its report and stops loudly on a broken setup"
)]

mod support;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use airlock_process::{Child, ChildEvent, Request};
use airlock_sandbox::folders::{CommandView, HostEnv, Settings};
use airlock_sandbox::{HELPER_ARG, Spec, support as kernel_support};
use support::{Summary, count_from_env, header, human, report};

/// The airlock built with this benchmark (same profile).
const BINARY: &str = env!("CARGO_BIN_EXE_airlock");

fn main() {
    let runs = count_from_env("AIRLOCK_BENCH_RUNS", 200);
    header("OS sandbox of a child: helper vs direct", &format!("5 warm-up + {runs} interleaved runs each"));
    println!("helper {BINARY} · {}", kernel_support());
    let scratch = tempfile::tempdir().expect("temp dir");
    let work = scratch.path().canonicalize().expect("canonical").join("work");
    std::fs::create_dir(&work).expect("work folder");

    // A home with secrets to hide, as a user's has: the view covers each one.
    let home = work.with_file_name("home");
    for secret in [".ssh", ".aws", ".gnupg", ".config/gcloud", ".kube"] {
        std::fs::create_dir_all(home.join(secret)).expect("secret folder");
    }
    let hidden: Vec<_> = [".ssh", ".aws", ".gnupg", ".config/gcloud", ".kube"].iter().map(|s| home.join(s)).collect();
    for argv in [&["/bin/true"][..], &["bash", "-c", "true"][..]] {
        let spec = |view: bool| Spec {
            argv: argv.iter().map(|a| (*a).to_owned()).collect(),
            cwd: work.clone(),
            env: vec![("PATH".into(), "/usr/bin:/bin".into())],
            read_write: vec![work.clone()],
            read_only: vec![home.clone()],
            hidden: hidden.clone(),
            view,
            ..Spec::default()
        };
        let confined = serde_json::to_string(&spec(false)).expect("json");
        let viewed = serde_json::to_string(&spec(true)).expect("json");
        let name = argv.join(" ");
        let direct =
            || run(Command::new(argv[0]).args(&argv[1..]).env_clear().env("PATH", "/usr/bin:/bin").current_dir(&work));
        let (alone, without) = interleaved(runs, || run(Command::new(BINARY).arg(HELPER_ARG).arg(&confined)), direct);
        report(&format!("{name}, confinement alone (before the view)"), &alone);
        let (with, without_again) =
            interleaved(runs, || run(Command::new(BINARY).arg(HELPER_ARG).arg(&viewed)), direct);
        report(&format!("{name}, in the view"), &with);
        report(&format!("{name}, direct"), &without);
        println!(
            "{:<58} median {:>9}  p90 {:>9}",
            format!("{name}, added by the confinement alone"),
            diff(alone.median, without.median),
            diff(alone.p90, without.p90)
        );
        println!(
            "{:<58} median {:>9}  p90 {:>9}",
            format!("{name}, added by the view and the confinement"),
            diff(with.median, without_again.median),
            diff(with.p90, without_again.p90)
        );
    }

    let runtime = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().expect("runtime");
    let mut samples = Vec::with_capacity(runs);
    for round in 0..runs + 5 {
        let started = Instant::now();
        runtime.block_on(async {
            let request = Request {
                spec: Spec {
                    argv: vec!["/bin/true".into()],
                    cwd: work.clone(),
                    read_write: vec![work.clone()],
                    hidden: hidden.clone(),
                    view: true,
                    ..Spec::default()
                },
                timeout: Duration::from_secs(10),
                ..Request::default()
            };
            let mut child = Child::spawn_with_helper(Path::new(BINARY), request).expect("spawn");
            while !matches!(child.next(Duration::from_secs(10)).await, ChildEvent::Exited(_)) {}
        });
        if round >= 5 {
            samples.push(started.elapsed());
        }
    }
    report("/bin/true through process::Child in the view (spawn to Exited)", &Summary::of(&samples));
    cargo_test(runs / 10);
}

/// `cargo test --offline` of a small crate, in the view and directly.
fn cargo_test(runs: usize) {
    let scratch = tempfile::tempdir().expect("temp dir");
    let krate = scratch.path().canonicalize().expect("canonical");
    std::fs::write(krate.join("Cargo.toml"), "[package]\nname = \"small\"\nversion = \"0.1.0\"\nedition = \"2021\"\n")
        .expect("manifest");
    std::fs::create_dir(krate.join("src")).expect("src");
    let source = "pub fn add(a: i32, b: i32) -> i32 { a + b }\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn adds() { assert_eq!(super::add(2, 2), 4); }\n}\n";
    std::fs::write(krate.join("src/lib.rs"), source).expect("lib");
    let host = HostEnv::current();
    let view = CommandView::detect(&host, &Settings::default(), &[], &krate);
    let mut env: Vec<(String, String)> = vec![("PATH".into(), view.path.clone())];
    if let Some(home) = &view.home {
        env.push(("HOME".into(), home.display().to_string()));
    }
    env.extend(view.env.iter().cloned());
    // A session gives each command a private temporary folder as `$TMPDIR` (rustdoc writes
    // there); every other folder outside the crate and the caches is read-only in the view.
    let private_tmp = tempfile::tempdir().expect("temp dir");
    let tmp = private_tmp.path().canonicalize().expect("canonical");
    env.push(("TMPDIR".into(), tmp.display().to_string()));
    let mut read_write = vec![krate.clone(), tmp.clone()];
    read_write.extend(view.write.iter().cloned());
    let spec = Spec {
        argv: ["cargo", "test", "--offline", "-q"].map(String::from).to_vec(),
        cwd: krate.clone(),
        env: env.clone(),
        read_write,
        read_only: view.read.clone(),
        hidden: view.hidden.clone(),
        view: true,
        ..Spec::default()
    };
    let json = serde_json::to_string(&spec).expect("json");
    let sandboxed = || run(Command::new(BINARY).arg(HELPER_ARG).arg(&json));
    let direct = || {
        run(Command::new("cargo").args(["test", "--offline", "-q"]).env_clear().envs(env.clone()).current_dir(&krate))
    };
    direct();
    let (with, without) = interleaved(runs, sandboxed, direct);
    report("cargo test --offline, warm, in the view", &with);
    report("cargo test --offline, warm, direct", &without);
    println!(
        "{:<58} median {:>9}  ({:+.1} %)",
        "cargo test, warm: added by the sandbox",
        diff(with.median, without.median),
        percent(with.median, without.median)
    );
    // A change to the crate each time: cargo compiles and links it again.
    let edits = std::cell::Cell::new(0u32);
    let touch = || {
        edits.set(edits.get() + 1);
        std::fs::write(krate.join("src/lib.rs"), format!("{source}// {}\n", edits.get())).expect("edit");
    };
    let (with, without) = interleaved(
        runs,
        || {
            touch();
            sandboxed();
        },
        || {
            touch();
            direct();
        },
    );
    report("cargo test --offline after a change, in the view", &with);
    report("cargo test --offline after a change, direct", &without);
    println!(
        "{:<58} median {:>9}  ({:+.1} %)",
        "cargo test, rebuilt: added by the sandbox",
        diff(with.median, without.median),
        percent(with.median, without.median)
    );
}

fn percent(with: Duration, without: Duration) -> f64 {
    (with.as_secs_f64() / without.as_secs_f64().max(f64::EPSILON) - 1.0) * 100.0
}

fn run(command: &mut Command) {
    let status = command.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::inherit()).status().expect("run");
    assert!(status.success(), "{command:?} failed: {status}");
}

/// Runs `a` and `b` alternately (5 untimed rounds first) and summarises each.
fn interleaved(runs: usize, mut a: impl FnMut(), mut b: impl FnMut()) -> (Summary, Summary) {
    let (mut first, mut second) = (Vec::with_capacity(runs), Vec::with_capacity(runs));
    for round in 0..runs + 5 {
        let started = Instant::now();
        a();
        let middle = Instant::now();
        b();
        if round >= 5 {
            first.push(middle - started);
            second.push(middle.elapsed());
        }
    }
    (Summary::of(&first), Summary::of(&second))
}

fn diff(with: Duration, without: Duration) -> String {
    match with.checked_sub(without) {
        Some(added) => format!("+{}", human(added)),
        None => format!("-{}", human(without - with)),
    }
}
