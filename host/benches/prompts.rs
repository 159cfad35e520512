//! Issue 27, prompts: what 100 skills and 100 custom commands cost at start-up.
//!
//! - in process: finding and checking 100 commands (`prompts::commands::load`), 100 skills
//!   (`prompts::skills::load`) and assembling the system prompt's skills section, which a
//!   session does once when it starts;
//! - the whole `airlock -p` run of the release binary against the mock model, in a
//!   workspace without and with 100 user skills and 100 workspace commands.
//!
//! `cargo bench -p airlock --bench prompts`; `AIRLOCK_BENCH_RUNS` sets the timed runs (50).

#![allow(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark is a test program: it prints its report and stops loudly on a broken setup"
)]

mod support;

use std::hint::black_box;
use std::path::Path;
use std::process::Stdio;

use airlock_engine::prompts::{commands, skills};
use airlock_tests::{MockModel, Session, Turn, Wire};
use support::{Summary, count_from_env, header, report, sample};

const BINARY: &str = env!("CARGO_BIN_EXE_airlock");
const COUNT: usize = 100;

fn main() {
    let runs = count_from_env("AIRLOCK_BENCH_RUNS", 50);
    header("prompts: 100 skills and 100 custom commands at start-up", &format!("5 warm-up + {runs} runs"));
    let scratch = tempfile::tempdir().expect("temp dir");
    let cache = scratch.path().join("cache");
    let empty = Session::new(BINARY, &cache);
    let full = Session::new(BINARY, &cache);
    fill(&full.airlock_home(), &full.workspace);

    let home = full.airlock_home().canonicalize().unwrap();
    let workspace = full.workspace.canonicalize().unwrap();
    let found = commands::load(&home, &workspace);
    assert_eq!(found.list.len(), COUNT, "{:?}", found.problems);
    let found = skills::load(&home, &workspace);
    assert_eq!(found.list.len(), COUNT, "{:?}", found.problems);
    let passes = sample(5, runs * 4, || {
        black_box(commands::load(&home, &workspace));
    });
    report("100 commands found and read (in process)", &Summary::of(&passes));
    let passes = sample(5, runs * 4, || {
        let found = skills::load(&home, &workspace);
        black_box(skills::section(&found));
    });
    report("100 skills found, checked and listed in the prompt (in process)", &Summary::of(&passes));
    let passes = sample(5, runs * 4, || {
        black_box(commands::load(&home, &workspace));
        let found = skills::load(&home, &workspace);
        black_box(skills::section(&found));
    });
    report("both together (what a session's start adds)", &Summary::of(&passes));

    let mock = MockModel::start(Wire::OpenAi);
    let passes = sample(5, runs, || run(&empty, &mock, &cache));
    report("airlock -p, no skills or commands", &Summary::of(&passes));
    let passes = sample(5, runs, || run(&full, &mock, &cache));
    report("airlock -p, 100 skills and 100 commands", &Summary::of(&passes));
}

/// 100 user skills (a `SKILL.md` and a file beside it each) and 100 workspace commands.
fn fill(home: &Path, workspace: &Path) {
    for n in 0..COUNT {
        let skill = home.join(format!("skills/skill-{n}"));
        std::fs::create_dir_all(&skill).unwrap();
        let description = format!("Use this skill for task number {n}: it explains the steps and the checks.");
        let body = "Step one, then step two.\n".repeat(40);
        std::fs::write(
            skill.join("SKILL.md"),
            format!("---\nname: skill-{n}\ndescription: {description}\n---\n{body}"),
        )
        .unwrap();
        std::fs::write(skill.join("REFERENCE.md"), "reference\n").unwrap();
        let folder = workspace.join(".airlock/commands").join(if n % 2 == 0 { "" } else { "team" });
        std::fs::create_dir_all(&folder).unwrap();
        let text = format!("---\ndescription: Command {n}\nargument-hint: [target]\n---\nDo task {n} on $ARGUMENTS.\n");
        std::fs::write(folder.join(format!("command-{n}.md")), text).unwrap();
    }
}

fn run(session: &Session, mock: &MockModel, cache: &Path) {
    mock.push_turn(Turn::text("Hello from the mock model."));
    let mut command = session.command(mock);
    command.args(["-p", "Say hello"]).env("AIRLOCK_CACHE_DIR", cache).env_remove("AIRLOCK_LOG");
    let output = command.stdout(Stdio::piped()).stderr(Stdio::piped()).output().expect("run airlock");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    assert_eq!(mock.pending_turns(), 0);
}
