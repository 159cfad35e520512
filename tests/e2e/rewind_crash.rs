//! Kill -9 at random moments of a checkpoint and of a restore (issue 29, "What it must show"):
//! the real binary killed with SIGKILL, at least 50 times across the two loops, then the
//! store must open and read back whole, and every workspace file must be whole — one
//! version or the other, never a mix or a truncation. Each file the loops check carries its
//! own checksum ([`airlock_tests::trees::checked`]).
//!
//! The kill moments are drawn from a seed, printed with every failure; `AIRLOCK_TEST_SEED`
//! replays one, `AIRLOCK_CRASH_KILLS` sets the kills of each loop (25).

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use airlock_checkpoint::{Settings, Store};
use airlock_tests::trees::{Rng, check, checked, seed_from_env, text};
use airlock_tests::{MockModel, Session, Turn, Wire, call, run_bounded};
use serde_json::json;

use super::session;

/// Kills per loop (runs that ended before their kill moment do not count, and are run
/// again): two loops make the 50 the issue asks for.
pub(super) fn kills() -> usize {
    std::env::var("AIRLOCK_CRASH_KILLS").ok().and_then(|k| k.parse().ok()).unwrap_or(25)
}

/// Starts `command` and SIGKILLs it `after` in. `None` when it was killed; when it ended
/// first, how long it ran (the loops then spread later kills over no more than that).
pub(super) fn kill_after(command: Command, after: Duration) -> Option<Duration> {
    kill_when(command, &|| true, after)
}

/// Starts `command`, waits until `begun` says its interesting part has begun, and SIGKILLs
/// it `after` that. `None` when it was killed; when it ended first, how long it ran since
/// `begun` (or since it started, when it never was).
pub(super) fn kill_when(mut command: Command, begun: &dyn Fn() -> bool, after: Duration) -> Option<Duration> {
    command.stdin(Stdio::null()).stdout(Stdio::null()).stderr(Stdio::null());
    let mut child = command.spawn().unwrap_or_else(|e| panic!("cannot run airlock: {e}"));
    let mut started = Instant::now();
    let mut waiting = true;
    while waiting || started.elapsed() < after {
        if child.try_wait().unwrap_or_else(|e| panic!("wait: {e}")).is_some() {
            return Some(started.elapsed());
        }
        if waiting && begun() {
            waiting = false;
            started = Instant::now();
            continue;
        }
        std::thread::sleep(Duration::from_millis(1).min(after.saturating_sub(started.elapsed())));
    }
    // `Child::kill` is SIGKILL on Unix.
    let _ = child.kill();
    let _ = child.wait();
    None
}

/// Writes `count` checked files of version `version` under `folder` (`f0000`, …), each
/// 200 B–20 KB, and returns their paths.
pub(super) fn checked_files(folder: &Path, count: usize, version: u32, rng: &mut Rng) -> Vec<PathBuf> {
    std::fs::create_dir_all(folder).unwrap_or_else(|e| panic!("mkdir {}: {e}", folder.display()));
    (0..count)
        .map(|i| {
            let path = folder.join(format!("f{i:04}"));
            let size = rng.log_size(200, 20_000);
            std::fs::write(&path, checked(version, &text(rng, size))).unwrap_or_else(|e| panic!("write: {e}"));
            path
        })
        .collect()
}

/// Opens the store as a later run would, and reads every record back: each checkpoint by
/// id, its changes from the one before, and for the newest four the content of every changed
/// file. Returns the count.
pub(super) fn store_reads_back(s: &Session, context: &str) -> usize {
    let store = Store::open(&s.airlock_home(), &s.workspace, Settings::default())
        .unwrap_or_else(|e| panic!("{context}: the store does not open: {e}"));
    let list = store.list().unwrap_or_else(|e| panic!("{context}: list: {e}"));
    let Some(first) = list.first() else { return 0 };
    let mut previous = first;
    for (n, record) in list.iter().enumerate() {
        let got = store.get(&record.id).unwrap_or_else(|e| panic!("{context}: get {}: {e}", record.id));
        assert_eq!(got.id, record.id, "{context}");
        let changes = store.changes(&previous.id, &record.id).unwrap_or_else(|e| panic!("{context}: changes: {e}"));
        previous = record;
        // The newest records are those a kill may just have cut: their content is read back
        // whole; the older ones were read after an earlier kill.
        if n + 4 < list.len() {
            continue;
        }
        for change in changes {
            if let Some(entry) = &change.after {
                let bytes =
                    store.read(entry).unwrap_or_else(|e| panic!("{context}: read {}: {e}", change.path.display()));
                assert_eq!(bytes.len() as u64, entry.size, "{context}: {} read back whole", change.path.display());
            }
        }
    }
    list.len()
}

/// Every file under `folder` (relative paths), sorted.
pub(super) fn files_under(folder: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut stack = vec![folder.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                stack.push(path);
            } else if let Ok(relative) = path.strip_prefix(folder) {
                out.push(relative.to_path_buf());
            }
        }
    }
    out.sort();
    out
}

/// The shell line of one call: copies each file of `stage/` into `new/<tag>/` with `tag`
/// appended, each through a temp file and `mv` (so the command itself never leaves a torn
/// file: what the test checks is that airlock's checkpoints never tear one).
fn copy_line(tag: &str) -> String {
    format!(
        "mkdir -p new/{tag} && for f in stage/*; do {{ cat \"$f\"; echo {tag}; }} > new/{tag}/.t && mv new/{tag}/.t \
         \"new/{tag}/${{f##*/}}\"; done"
    )
}

/// One headless run: two calls of `run_shell_command` (each checkpointed before and after
/// over the whole workspace), then `done`.
fn checkpoint_run(s: &Session, run: usize) -> (Command, MockModel) {
    let mock = MockModel::start(Wire::OpenAi);
    for part in ["a", "b"] {
        let line = copy_line(&format!("r{run}{part}"));
        mock.push_turn(Turn::calls(vec![call("run_shell_command", json!({ "command": line }))]));
    }
    mock.push_turn(Turn::text("done"));
    let mut command = s.command(&mock);
    command.args(["-p", "copy the stage", "--approval-mode", "yolo"]);
    (command, mock)
}

/// What a copy of `stage/<name>` tagged `tag` holds.
fn tagged(stage: &[u8], tag: &str) -> Vec<u8> {
    let mut out = stage.to_vec();
    out.extend_from_slice(format!("{tag}\n").as_bytes());
    out
}

/// The checkpoint loop: a workspace of 2,000 checked files and a stage of 100; each run
/// copies the stage twice through the shell (four whole-workspace checkpoints), killed at a
/// random moment. After each kill the store opens and reads back, the 2,000 files are as
/// they were, and each copied file is whole or absent.
#[test]
fn kill_9_during_checkpoints_leaves_the_store_readable_and_every_file_whole() {
    let seed = seed_from_env();
    let mut rng = Rng::new(seed);
    let s = session();
    let tree = checked_files(&s.workspace.join("src"), 2_000, 0, &mut rng);
    let originals: Vec<Vec<u8>> = tree.iter().map(|p| std::fs::read(p).unwrap_or_default()).collect();
    checked_files(&s.workspace.join("stage"), 100, 1, &mut rng);
    let stage: Vec<(String, Vec<u8>)> = files_under(&s.workspace.join("stage"))
        .into_iter()
        .map(|f| (f.display().to_string(), std::fs::read(s.workspace.join("stage").join(&f)).unwrap_or_default()))
        .collect();

    // Two whole runs first: proof that the binary checkpoints at all, and how long a run
    // takes once the store and the compile cache are warm (the kills are spread over it).
    let mut whole = Duration::ZERO;
    for run in [0, 100] {
        let (command, _mock) = checkpoint_run(&s, run);
        let started = Instant::now();
        let done = run_bounded(command, Some(""), Duration::from_secs(120));
        whole = started.elapsed();
        assert_eq!(done.code, Some(0), "seed {seed}: the whole run: {}", done.stderr);
    }
    let records = store_reads_back(&s, &format!("seed {seed}, the whole runs"));
    assert!(records >= 8, "seed {seed}: the binary took {records} checkpoints, not the eight of four calls");

    let mut killed = 0;
    let mut run = 0;
    while killed < kills() {
        run += 1;
        assert!(run <= 4 * kills(), "seed {seed}: only {killed} of {run} runs were killed before they ended");
        let _ = std::fs::remove_dir_all(s.workspace.join("new"));
        if run % 4 == 0 {
            // A cold store now and then: its first checkpoint writes every object afresh.
            let _ = std::fs::remove_dir_all(airlock_checkpoint::store_dir(&s.airlock_home(), &s.workspace));
        }
        let at = Duration::from_millis(rng.range(0, whole.as_millis() as u64 + 1));
        let context = format!("seed {seed}, run {run} killed at {} ms of {} ms", at.as_millis(), whole.as_millis());
        let (command, _mock) = checkpoint_run(&s, run);
        match kill_after(command, at) {
            None => killed += 1,
            Some(ran) => whole = whole.min(ran),
        }
        store_reads_back(&s, &context);
        for (path, original) in tree.iter().zip(&originals) {
            let now = std::fs::read(path).unwrap_or_else(|e| panic!("{context}: {}: {e}", path.display()));
            assert!(now == *original, "{context}: {} changed: {:?}", path.display(), check(&now));
        }
        for file in files_under(&s.workspace.join("new")) {
            let name = file.file_name().unwrap_or_default().to_string_lossy().into_owned();
            if name == ".t" {
                continue; // the command's own temp file, cut by the kill before its `mv`
            }
            let tag = file.parent().map(|p| p.display().to_string()).unwrap_or_default();
            let source = stage.iter().find(|(n, _)| *n == name).map(|(_, b)| b.as_slice()).unwrap_or_default();
            let now = std::fs::read(s.workspace.join("new").join(&file)).unwrap_or_default();
            assert!(now == tagged(source, &tag), "{context}: new/{} is not whole", file.display());
        }
    }
    println!("seed {seed}: {killed} of {run} runs killed");
}

/// `airlock rewind --to 1 --code --yes` on the workspace's latest session, offline.
fn rewind_command(s: &Session) -> Command {
    let mut command = s.bare_command();
    command.args(["rewind", "--to", "1", "--code", "--yes", "--workspace"]).arg(&s.workspace);
    command
}

/// The version of each checked file under `folder`, failing on a torn or mixed one.
pub(super) fn versions(folder: &Path, context: &str) -> Vec<u32> {
    files_under(folder)
        .iter()
        // A restore's temp files (hidden) are the stray check's business, once the store opened.
        .filter(|f| !f.to_string_lossy().starts_with('.'))
        .map(|f| {
            let bytes = std::fs::read(folder.join(f)).unwrap_or_else(|e| panic!("{context}: {}: {e}", f.display()));
            check(&bytes).unwrap_or_else(|why| panic!("{context}: {} is not whole: {why}", f.display()))
        })
        .collect()
}

/// Killed rewinds in a row before one is left to finish (each finishing rewind costs a whole
/// one: about 1.5 s in the unoptimised test build).
const CHAIN: usize = 5;

/// The restore loop: 1,000 checked files at version 1, a prompt whose shell command turns
/// them all into version 2, then `airlock rewind --to 1` from that state, killed at a random
/// moment; [`CHAIN`] killed rewinds in a row, each starting where the last was cut. After
/// each kill every file is version 1 or 2; once the store has opened, nothing but the
/// workspace's own files is there (no stray temp file). Then a rewind left to finish brings
/// every file back to version 1, and the files go back to version 2 for the next chain.
#[test]
fn kill_9_during_a_rewind_leaves_every_file_one_version_and_a_second_rewind_finishes() {
    let seed = seed_from_env();
    let mut rng = Rng::new(seed);
    let s = session();
    checked_files(&s.workspace.join("files"), 1_000, 1, &mut rng);
    checked_files(&s.workspace.join("stage"), 1_000, 2, &mut rng);
    let expected = files_under(&s.workspace);
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![call("run_shell_command", json!({ "command": "cp stage/* files/" }))]));
    mock.push_turn(Turn::text("done"));
    let mut command = s.command(&mock);
    command.args(["-p", "version two", "--approval-mode", "yolo"]);
    let done = run_bounded(command, Some(""), Duration::from_secs(120));
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert!(versions(&s.workspace.join("files"), "after the prompt").iter().all(|&v| v == 2));

    // Back to version 2 in place, as the prompt left it (the store's stat index sees new
    // files; the rewind finds them changed since its last checkpoint, and `--yes` goes on).
    let version_two = || {
        for name in files_under(&s.workspace.join("stage")) {
            std::fs::copy(s.workspace.join("stage").join(&name), s.workspace.join("files").join(&name))
                .unwrap_or_else(|e| panic!("{}: {e}", name.display()));
        }
    };

    // Whole rewinds first: the first brings version 1 back and exits 0; the second says how
    // long a whole one takes, the third how long its restoring part does (from the first
    // temp file beside a file to the end). Half the kills are spread over the whole run,
    // half over its restoring part, where a kill may leave both versions on disk.
    let done = run_bounded(rewind_command(&s), None, Duration::from_secs(120));
    assert_eq!(done.code, Some(0), "seed {seed}: a whole rewind: {}{}", done.stdout, done.stderr);
    let files = s.workspace.join("files");
    let restoring = || {
        std::fs::read_dir(&files)
            .into_iter()
            .flatten()
            .flatten()
            .any(|e| e.file_name().as_encoded_bytes().first() == Some(&b'.'))
    };
    let mut spans = [Duration::ZERO; 2];
    let (always, restoring): (&dyn Fn() -> bool, &dyn Fn() -> bool) = (&|| true, &restoring);
    for (span, begun) in spans.iter_mut().zip([always, restoring]) {
        assert!(versions(&files, "a whole rewind").iter().all(|&v| v == 1));
        version_two();
        *span = kill_when(rewind_command(&s), begun, Duration::from_secs(120))
            .unwrap_or_else(|| panic!("seed {seed}: a whole rewind ran past two minutes"));
    }
    assert!(versions(&files, "a whole rewind").iter().all(|&v| v == 1));
    let [mut whole, mut part] = spans;
    println!(
        "seed {seed}: a whole rewind of 1,000 files takes {} ms, restoring {} ms",
        whole.as_millis(),
        part.as_millis()
    );

    let mut killed = 0;
    let mut torn_between = 0;
    let mut run = 0;
    while killed < kills() {
        run += 1;
        assert!(run <= 4 * kills(), "seed {seed}: only {killed} of {run} rewinds were killed before they ended");
        if run % CHAIN == 1 {
            version_two();
        }
        let in_part = run % 2 == 0;
        let span = if in_part { part } else { whole };
        let at = Duration::from_millis(rng.range(0, span.as_millis() as u64 + 1));
        let context = format!(
            "seed {seed}, rewind {run} killed at {} ms of {} ms{}",
            at.as_millis(),
            span.as_millis(),
            if in_part { " into its restoring part" } else { "" }
        );
        match kill_when(rewind_command(&s), if in_part { restoring } else { always }, at) {
            None => killed += 1,
            // Only a rewind of all 1,000 files says how long a whole one takes.
            Some(ran) if run % CHAIN == 1 && in_part => part = part.min(ran),
            Some(ran) if run % CHAIN == 1 => whole = whole.min(ran),
            Some(_) => {}
        }
        let found = versions(&s.workspace.join("files"), &context);
        assert!(found.len() == 1_000 && found.iter().all(|&v| v == 1 || v == 2), "{context}: versions {found:?}");
        torn_between += usize::from(found.contains(&1) && found.contains(&2));
        store_reads_back(&s, &context);
        let left: Vec<PathBuf> = files_under(&s.workspace).into_iter().filter(|f| !expected.contains(f)).collect();
        assert!(left.is_empty(), "{context}: stray files after the store opened: {left:?}");
        if run % CHAIN == 0 || killed == kills() {
            let done = run_bounded(rewind_command(&s), None, Duration::from_secs(120));
            assert_eq!(done.code, Some(0), "{context}: the rewind after: {}{}", done.stdout, done.stderr);
            let found = versions(&s.workspace.join("files"), &context);
            assert!(found.iter().all(|&v| v == 1), "{context}: after a whole rewind, versions {found:?}");
        }
    }
    println!("seed {seed}: {killed} of {run} rewinds killed, {torn_between} of them midway (both versions on disk)");
}
