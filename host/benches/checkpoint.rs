//! The checkpoint store's cost (issue 29), against `git add -A && git commit` on the same
//! tree in the same run: a generated 20,000-file workspace (1,000 folders, 200 B–20 KB, a
//! `.gitignore`d `target/` of 3,000 files) that is also a git repository, a store in a
//! temporary `$AIRLOCK_HOME`.
//!
//! Timed, median and p90 of many runs, the page cache warm: the checkpoint of the whole
//! workspace when nothing changed since the last one (goal ≤ 15 ms) and when 10 files did
//! (goal ≤ 40 ms), git's add and commit on the same tree right after each; a single-file
//! checkpoint (goal ≤ 1 ms); restoring 1,000 changed files. Once: the first (cold store)
//! checkpoint of the tree, and the store's size after 100 turns of small edits (3 files a
//! turn, a checkpoint before and after) against the workspace's and `.git`'s after the same
//! 100 commits.
//!
//! `cargo bench -p airlock --bench checkpoint`; `AIRLOCK_BENCH_RUNS` sets the timed runs of
//! each case (30), `AIRLOCK_BENCH_FILES` the tree's files (20,000).

#![allow(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark is a test program: it prints its report and stops loudly on a broken setup"
)]

mod support;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use airlock_checkpoint::{Label, Restore, Settings, Store};
use airlock_tests::trees::{Rng, Shape, Tree, disk_usage, generate, text};
use support::{Summary, count_from_env, header, human, report};

fn main() {
    let runs = count_from_env("AIRLOCK_BENCH_RUNS", 30);
    let files = count_from_env("AIRLOCK_BENCH_FILES", Shape::BENCH.files);
    let shape = Shape { files, folders: Shape::BENCH.folders.min(files), ..Shape::BENCH };
    header(
        "checkpoints (issue 29) against git add -A && git commit",
        &format!("{} files in {} folders + {} ignored, {runs} runs a case", shape.files, shape.folders, shape.ignored),
    );
    let dir = tempfile::tempdir().expect("temp dir");
    let workspace = dir.path().join("workspace");
    std::fs::create_dir(&workspace).expect("workspace");
    let made = Instant::now();
    let tree = generate(&workspace, shape, 29).expect("tree");
    println!(
        "tree: {} in {} ({} on disk with target/)",
        tree.files.len(),
        human(made.elapsed()),
        mib(disk_usage(&workspace))
    );
    let git = Git::init(&workspace);
    let home = dir.path().join("home");
    let store = Store::open(&home, &workspace, Settings::default()).expect("store");
    let roots = vec![workspace.clone()];
    let mut rng = Rng::new(2929);

    let cold = timed(|| checkpoint(&store, &roots, "cold"));
    let first = store.list().expect("list").pop().expect("a checkpoint");
    println!(
        "cold store, first checkpoint of the whole tree: {} ({} files, left out: {})",
        human(cold),
        first.files,
        first.left_out.iter().map(|l| format!("{} ({})", l.path.display(), l.reason)).collect::<Vec<_>>().join(", ")
    );
    println!("git, first add -A && commit of the tree:        {}", human(timed(|| git.commit())));
    for _ in 0..3 {
        checkpoint(&store, &roots, "warm-up");
        git.commit();
    }

    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        ours.push(timed(|| checkpoint(&store, &roots, "unchanged")));
        theirs.push(timed(|| git.commit()));
    }
    let unchanged = Summary::of(&ours);
    report("whole workspace, nothing changed (goal ≤ 15 ms)", &unchanged);
    report("  git add -A && git commit, nothing changed", &Summary::of(&theirs));

    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        edit(&tree, &mut rng, 10);
        ours.push(timed(|| checkpoint(&store, &roots, "ten")));
        theirs.push(timed(|| git.commit()));
    }
    let ten = Summary::of(&ours);
    report("whole workspace, 10 files changed (goal ≤ 40 ms)", &ten);
    report("  git add -A && git commit, the same 10 files", &Summary::of(&theirs));

    let one = vec![workspace.join(&tree.files[17])];
    let unchanged_file =
        Summary::of(&(0..runs * 10).map(|_| timed(|| checkpoint(&store, &one, "one"))).collect::<Vec<_>>());
    report("one file, unchanged (goal ≤ 1 ms)", &unchanged_file);
    let changed_file = Summary::of(
        &(0..runs * 10)
            .map(|_| {
                edit_one(&workspace.join(&tree.files[17]), &mut rng);
                timed(|| checkpoint(&store, &one, "one"))
            })
            .collect::<Vec<_>>(),
    );
    report("one file, changed (goal ≤ 1 ms)", &changed_file);

    let restore = restore_thousand(&store, &tree, &roots, &mut rng, runs.min(10));
    report("restore 1,000 changed files", &restore);

    let sizes = hundred_turns(&dir.path().join("turns"), shape, &mut rng);
    println!("{sizes}");
    println!(
        "goals: nothing changed {}, 10 changed {}, one file {}",
        met(unchanged.median, 15),
        met(ten.median, 40),
        met(changed_file.median.max(unchanged_file.median), 1)
    );
}

/// One checkpoint of `roots`.
fn checkpoint(store: &Store, roots: &[PathBuf], why: &str) {
    let label = Label { session: "bench".into(), prompt: 1, call: Some("c".into()), why: why.into() };
    store.checkpoint(roots, label).expect("checkpoint");
}

fn timed(step: impl FnOnce()) -> Duration {
    let started = Instant::now();
    step();
    started.elapsed()
}

fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / f64::from(1u32 << 20))
}

fn met(median: Duration, goal_ms: u64) -> &'static str {
    if median <= Duration::from_millis(goal_ms) { "met" } else { "MISSED" }
}

/// Rewrites `count` random files of the tree with new content of about their size.
fn edit(tree: &Tree, rng: &mut Rng, count: usize) -> Vec<PathBuf> {
    (0..count)
        .map(|_| {
            let path = tree.root.join(&tree.files[rng.range(0, tree.files.len() as u64) as usize]);
            edit_one(&path, rng);
            path
        })
        .collect()
}

/// Changes a few lines of `path` (its last line replaced by three new ones).
fn edit_one(path: &Path, rng: &mut Rng) {
    let mut content = std::fs::read(path).expect("read");
    let keep = content.iter().rposition(|&b| b == b'\n').unwrap_or(0);
    content.truncate(keep);
    content.push(b'\n');
    content.extend_from_slice(&text(rng, 120));
    std::fs::write(path, content).expect("write");
}

/// Takes a checkpoint, changes 1,000 files, and times putting them back, `runs` times.
fn restore_thousand(store: &Store, tree: &Tree, roots: &[PathBuf], rng: &mut Rng, runs: usize) -> Summary {
    let label = Label { session: "bench".into(), prompt: 1, call: None, why: "restore".into() };
    let base = store.checkpoint(roots, label).expect("checkpoint");
    let paths: Vec<PathBuf> =
        tree.files.iter().step_by(tree.files.len() / 1000).take(1000).map(|f| tree.root.join(f)).collect();
    let plan: Vec<Restore> = paths
        .iter()
        .map(|p| Restore { path: p.clone(), to: Some(store.entry(&base.id, p).expect("entry").expect("held")) })
        .collect();
    let samples: Vec<Duration> = (0..runs)
        .map(|_| {
            for path in &paths {
                edit_one(path, rng);
            }
            let started = Instant::now();
            let restored = store.restore(&plan).expect("restore");
            let took = started.elapsed();
            assert_eq!(restored.written, 1000, "every file put back");
            took
        })
        .collect();
    let check = store.entry(&base.id, &paths[0]).expect("entry").expect("held");
    assert_eq!(std::fs::read(&paths[0]).expect("read"), store.read(&check).expect("object"), "restored whole");
    Summary::of(&samples)
}

/// A fresh tree, store and repository; 100 turns of 3 files changed by a few lines, a
/// checkpoint of the whole workspace before and after each, one commit after each.
fn hundred_turns(root: &Path, shape: Shape, rng: &mut Rng) -> String {
    let workspace = root.join("workspace");
    std::fs::create_dir_all(&workspace).expect("workspace");
    let tree = generate(&workspace, shape, 30).expect("tree");
    let git = Git::init(&workspace);
    let store = Store::open(&root.join("home"), &workspace, Settings::default()).expect("store");
    let roots = vec![workspace.clone()];
    checkpoint(&store, &roots, "base");
    git.commit();
    let (store_base, store_base_du) = (store.usage().expect("usage"), disk_usage(store.path()));
    let git_base = disk_usage(&workspace.join(".git"));
    for _ in 0..100 {
        checkpoint(&store, &roots, "before");
        edit(&tree, rng, 3);
        checkpoint(&store, &roots, "after");
        git.commit();
    }
    let (store_after, store_after_du) = (store.usage().expect("usage"), disk_usage(store.path()));
    let git_after = disk_usage(&workspace.join(".git"));
    let checkpoints = store.list().expect("list").len();
    let bytes: u64 =
        tree.files.iter().map(|f| std::fs::metadata(workspace.join(f)).map(|m| m.len()).unwrap_or(0)).sum();
    let work = disk_usage(&workspace) - git_after - disk_usage(&workspace.join("target"));
    git.run(&["gc", "-q"]);
    let packed = disk_usage(&workspace.join(".git"));
    format!(
        "100 turns of 3 small edits ({checkpoints} checkpoints):\n  \
         store: {} by its usage() ({} after the first checkpoint, +{} for the 100 turns); {} by du (+{})\n  \
         workspace outside target/: {} of content, {} by du\n  \
         .git by du: {} after the first commit, {} after 100 more (git's auto gc may pack in between), {} after git gc",
        mib(store_after),
        mib(store_base),
        mib(store_after - store_base),
        mib(store_after_du),
        mib(store_after_du.saturating_sub(store_base_du)),
        mib(bytes),
        mib(work),
        mib(git_base),
        mib(git_after),
        mib(packed)
    )
}

/// A real git repository at the workspace, with an identity and no user config.
struct Git {
    dir: PathBuf,
}

impl Git {
    fn init(dir: &Path) -> Self {
        let git = Self { dir: dir.to_path_buf() };
        git.run(&["init", "-q"]);
        git
    }

    fn command(&self) -> Command {
        let mut command = Command::new("git");
        command
            .current_dir(&self.dir)
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_AUTHOR_NAME", "bench")
            .env("GIT_AUTHOR_EMAIL", "bench@example.com")
            .env("GIT_COMMITTER_NAME", "bench")
            .env("GIT_COMMITTER_EMAIL", "bench@example.com");
        command
    }

    fn run(&self, args: &[&str]) {
        let status = self.command().args(args).status().expect("git");
        assert!(status.success(), "git {args:?}: {status}");
    }

    /// `git add -A && git commit -q` (a commit even when nothing changed, as a checkpoint is).
    fn commit(&self) {
        self.run(&["add", "-A"]);
        self.run(&["commit", "-q", "--allow-empty", "-m", "turn"]);
    }
}
