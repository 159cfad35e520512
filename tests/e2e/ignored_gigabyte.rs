//! A workspace whose `.gitignore`d `target/` holds 1 GB (issue 29, "What it must show"): a
//! workspace-wide write through the real binary checkpoints the workspace without copying,
//! or even reading, `target/`; the checkpoints say it was left out, and so does a rewind.
//!
//! The gigabyte is four sparse files (`set_len`): they read as 1 GB and take no disk.
//! Whether a file was read is told by its access time: it is set far before its change time,
//! so on a `relatime` (or `strictatime`) mount the first read moves it. The test first checks
//! that a read does move it on this file system, and says so when it cannot tell.

use std::fs::{File, FileTimes};
use std::path::Path;
use std::time::{Duration, SystemTime};

use airlock_checkpoint::{Settings, Store};
use airlock_tests::trees::{Rng, disk_usage, text};
use airlock_tests::{MockModel, Turn, Wire, call, run_bounded};
use serde_json::{Value, json};

use super::session;

const GIGABYTE: u64 = 1 << 30;

/// Sets `path`'s access time to 2001, its change time now.
fn age_access(path: &Path) {
    let file = File::options().write(true).open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let long_ago = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000_000);
    file.set_times(FileTimes::new().set_accessed(long_ago).set_modified(SystemTime::now()))
        .unwrap_or_else(|e| panic!("set times of {}: {e}", path.display()));
}

fn accessed(path: &Path) -> SystemTime {
    std::fs::metadata(path).and_then(|m| m.accessed()).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn a_gigabyte_under_an_ignored_target_is_not_read_nor_stored_and_a_rewind_says_it_was_left_out() {
    let s = session();
    let mut rng = Rng::new(29);
    s.write(".gitignore", "/target/\n");
    for i in 0..40 {
        let size = rng.log_size(200, 20_000);
        s.write(&format!("src/m{}/f{i:02}.rs", i % 4), &String::from_utf8_lossy(&text(&mut rng, size)));
    }
    let before = s.read("src/m0/f00.rs").unwrap_or_default();
    let target = s.workspace.join("target/release/deps");
    std::fs::create_dir_all(&target).unwrap_or_else(|e| panic!("{e}"));
    let big: Vec<_> = (0..4).map(|i| target.join(format!("big{i}.rlib"))).collect();
    for path in &big {
        File::create(path).and_then(|f| f.set_len(GIGABYTE / 4)).unwrap_or_else(|e| panic!("{e}"));
        age_access(path);
    }
    assert_eq!(big.iter().map(|p| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0)).sum::<u64>(), GIGABYTE);

    // Does a read move the access time here? A probe file says.
    let probe = s.workspace.join("target/probe");
    std::fs::write(&probe, b"probe").unwrap_or_else(|e| panic!("{e}"));
    age_access(&probe);
    let probe_before = accessed(&probe);
    let _ = std::fs::read(&probe);
    let atime_tells = accessed(&probe) != probe_before;
    std::fs::remove_file(&probe).unwrap_or_else(|e| panic!("{e}"));
    let times: Vec<SystemTime> = big.iter().map(|p| accessed(p)).collect();

    let mock = MockModel::start(Wire::OpenAi);
    let line = "echo '// changed' >> src/m0/f00.rs && touch src/new.rs";
    mock.push_turn(Turn::calls(vec![call("run_shell_command", json!({ "command": line }))]));
    mock.push_turn(Turn::text("done"));
    let mut command = s.command(&mock);
    command.args(["-p", "edit", "--approval-mode", "yolo"]);
    let done = run_bounded(command, Some(""), Duration::from_secs(120));
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert_ne!(s.read("src/m0/f00.rs"), Some(before.clone()), "the command ran");

    let store = Store::open(&s.airlock_home(), &s.workspace, Settings::default()).unwrap_or_else(|e| panic!("{e}"));
    let list = store.list().unwrap_or_else(|e| panic!("{e}"));
    assert!(list.len() >= 2, "a checkpoint before and after the call: {list:?}");
    let ignored = s.workspace.join("target");
    for checkpoint in &list {
        assert!(checkpoint.files <= 42, "{} holds {} files: target/ was taken", checkpoint.id, checkpoint.files);
        assert!(
            checkpoint.left_out.iter().any(|l| l.path == ignored && l.reason.contains(".gitignore")),
            "{} says target/ was left out: {:?}",
            checkpoint.id,
            checkpoint.left_out
        );
        for path in &big {
            let held = store.entry(&checkpoint.id, path).unwrap_or_else(|e| panic!("{e}"));
            assert_eq!(held, None, "{} holds {}", checkpoint.id, path.display());
        }
    }
    let used = disk_usage(store.path());
    assert!(used < 1 << 20, "the store uses {used} bytes for 40 small files beside 1 GB ignored");
    if atime_tells {
        let now: Vec<SystemTime> = big.iter().map(|p| accessed(p)).collect();
        assert_eq!(now, times, "a file under target/ was read");
    } else {
        println!("this file system does not move access times on a read: only the store's size tells");
    }

    let mut command = s.bare_command();
    command.args(["rewind", "--to", "1", "--code", "--yes", "-o", "json", "--workspace"]).arg(&s.workspace);
    let done = run_bounded(command, None, Duration::from_secs(120));
    assert_eq!(done.code, Some(0), "{}{}", done.stdout, done.stderr);
    let rewound: Value = serde_json::from_str(done.stdout.trim()).unwrap_or_else(|e| panic!("{e}: {}", done.stdout));
    let left_out = rewound["left_out"].as_array().cloned().unwrap_or_default();
    assert!(
        left_out.iter().any(|l| l["path"].as_str().is_some_and(|p| p.trim_end_matches('/').ends_with("target"))
            && l["reason"].as_str().is_some_and(|r| r.contains(".gitignore"))),
        "the rewind says target/ was left out: {}",
        done.stdout
    );
    assert_eq!(s.read("src/m0/f00.rs"), Some(before), "the edit undone");
    assert_eq!(s.read("src/new.rs"), None, "the new file removed");
    assert!(big.iter().all(|p| std::fs::metadata(p).is_ok_and(|m| m.len() == GIGABYTE / 4)), "target/ untouched");
}
