//! (g) What the OS sandbox adds to every command a plugin runs: `/bin/true` through the
//! helper against `/bin/true` started directly, interleaved so all see the same load — once
//! under the confinement alone (`airlock __sandbox <spec>`: re-exec of airlock, capabilities,
//! Landlock, seccomp, then `exec`; what every command had before the view), once in the
//! namespace view (user, mount, PID and network namespaces, every mount read-only, the
//! writable folders bound back, secrets hidden, the init process, then the program); then
//! `bash -c true` the same ways, and the whole process manager ([`Child`]: private folders,
//! pipes, waiter thread) on `/bin/true` with the view. The goal is at most 5 ms added.
//!
//! `cargo bench -p airlock --bench sandbox`; `AIRLOCK_BENCH_RUNS` sets the runs (200).

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

use airlock::process::{Child, ChildEvent, Request};
use airlock::sandbox::{HELPER_ARG, Spec, support as kernel_support};
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
