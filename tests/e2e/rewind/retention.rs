//! Retention and the space used: `--gc` with a tiny cap, the collection a session start runs
//! when the store is over its cap, `sessions list`. Every checkpoint here is younger than
//! the grace period (an hour), so a collection keeps them all whatever the cap; removing
//! older ones is tested on a real store in `engine/src/rewind/retention_tests.rs`.

use airlock_tests::{MockModel, Turn, Wire, call};
use serde_json::{Value, json};

use super::{prompt, rewind, two_prompts};
use crate::{run_args, session};

/// An older session of the workspace, whose checkpoints hold a file of 3 MiB that does not
/// compress (a cap is at least 1 MiB), removed before the next session.
fn older_session(s: &airlock_tests::Session) {
    let mut state = 0x2545_f491_4f6c_dd1d_u64;
    let noise: String = (0..3 << 20)
        .map(|_| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            char::from(b'!' + (state % 90) as u8)
        })
        .collect();
    s.write("big.bin", &noise);
    let old = MockModel::start(Wire::OpenAi);
    old.push_turn(Turn::calls(vec![call("run_shell_command", json!({"command": "echo older > old.txt"}))]));
    old.push_turn(Turn::text("ok"));
    prompt(s, &old, "older session", false);
    std::fs::remove_file(s.workspace.join("big.bin")).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
}

#[test]
fn gc_with_a_tiny_cap_keeps_the_checkpoints_of_the_last_hour_and_they_still_restore() {
    let s = session();
    older_session(&s);
    let _mock = two_prompts(&s);
    s.write_config("[checkpoints]\nmax_size_mib = 1\nmax_age_days = 1\n");

    let listed = run_args(&s, &["sessions", "list", "--json"]);
    let sessions: Value = serde_json::from_str(&listed.stdout).unwrap();
    let before: u64 = sessions.as_array().unwrap().iter().map(|e| e["checkpoints"].as_u64().unwrap()).sum();
    assert!(before >= 8, "{sessions}");
    assert!(sessions[0]["store_bytes"].as_u64().unwrap() > 0, "{sessions}");
    let text = run_args(&s, &["sessions", "list"]);
    assert!(text.stdout.contains("checkpoints · the workspace's store uses"), "{}", text.stdout);

    let gc = rewind(&s, &["--gc"]);
    assert_eq!(gc.code, Some(0), "{}", gc.stderr);
    assert!(
        gc.stdout.starts_with("removed 0 checkpoints") && gc.stdout.contains("within 1.0 MiB and 1 days"),
        "{}",
        gc.stdout
    );
    let report = rewind(&s, &["--gc", "-o", "json"]);
    assert_eq!(report.code, Some(0), "{}", report.stderr);
    let after = run_args(&s, &["sessions", "list", "--json"]);
    let after: Value = serde_json::from_str(&after.stdout).unwrap();
    // Both sessions keep their checkpoints: none is an hour old.
    assert_eq!(after[1]["checkpoints"], sessions[1]["checkpoints"], "{}\n{after}", gc.stdout);
    assert_eq!(after[0]["checkpoints"], sessions[0]["checkpoints"], "{after}");
    // The older session's still restore.
    let old_id = after[1]["id"].as_str().unwrap();
    let old = rewind(&s, &["--session", old_id, "--to", "1", "--code"]);
    assert_eq!(old.code, Some(0), "{}{}", old.stdout, old.stderr);
    assert_eq!(s.read("old.txt"), None);
    // The latest session's checkpoints are kept, and still restore (named: the older
    // session's file, just written to, is the latest now).
    let done = rewind(&s, &["--session", after[0]["id"].as_str().unwrap(), "--to", "1", "--code"]);
    assert_eq!(done.code, Some(0), "{}{}", done.stdout, done.stderr);
    assert_eq!(s.read("a.txt").as_deref(), Some("alpha\nbeta\n"), "{}", done.stdout);
    assert_eq!(s.read("gone.txt").as_deref(), Some("doomed\n"));
}

#[test]
fn a_session_start_over_the_cap_collects_in_the_background() {
    let s = session();
    older_session(&s);
    s.write_config("[checkpoints]\nmax_size_mib = 1\n");
    let listed = run_args(&s, &["sessions", "list", "--json"]);
    let sessions: Value = serde_json::from_str(&listed.stdout).unwrap();
    assert!(sessions[0]["checkpoints"].as_u64().unwrap() >= 2, "{sessions}");
    // A new session whose prompt writes nothing: the collection still runs, off its way,
    // and keeps the older session's checkpoints (younger than an hour).
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::text("hello"));
    prompt(&s, &mock, "just talk", false);
    let listed = run_args(&s, &["sessions", "list", "--json"]);
    let after: Value = serde_json::from_str(&listed.stdout).unwrap();
    let older = after.as_array().unwrap().iter().find(|e| e["first_prompt"] == "older session").unwrap();
    assert_eq!(older["checkpoints"], sessions[0]["checkpoints"], "{after}");
    assert!(s.log().contains("checkpoint retention at start"), "{}", s.log());
}

#[test]
fn gc_for_another_session_keeps_a_running_sessions_checkpoints() {
    let s = session();
    older_session(&s);
    let _mock = two_prompts(&s);
    s.write_config("[checkpoints]\nmax_size_mib = 1\n");
    let listed = run_args(&s, &["sessions", "list", "--json"]);
    let sessions: Value = serde_json::from_str(&listed.stdout).unwrap();
    let (latest, older) = (sessions[0]["id"].as_str().unwrap(), sessions[1]["id"].as_str().unwrap());
    // The latest session still runs: the test holds its file's lock as its recorder would.
    let running = std::fs::File::open(super::session_file_of(&s, latest)).unwrap();
    running.try_lock_shared().unwrap();

    let gc = rewind(&s, &["--gc", "--session", older]);
    assert_eq!(gc.code, Some(0), "{}", gc.stderr);
    let after = run_args(&s, &["sessions", "list", "--json"]);
    let after: Value = serde_json::from_str(&after.stdout).unwrap();
    let of = |list: &Value, id: &str| {
        list.as_array().unwrap().iter().find(|e| e["id"] == id).unwrap()["checkpoints"].clone()
    };
    assert_eq!(of(&after, latest), of(&sessions, latest), "{}\n{after}", gc.stdout);
    drop(running);
    let done = rewind(&s, &["--session", latest, "--to", "1", "--code"]);
    assert_eq!(done.code, Some(0), "{}{}", done.stdout, done.stderr);
    assert_eq!(s.read("a.txt").as_deref(), Some("alpha\nbeta\n"));
}
