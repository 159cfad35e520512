//! Retention and the space used: `--gc` with a tiny cap, `sessions list`.

use airlock_tests::{MockModel, Turn, Wire, call};
use serde_json::{Value, json};

use super::{prompt, rewind, two_prompts};
use crate::{run_args, session};

#[test]
fn gc_with_a_tiny_cap_removes_other_sessions_checkpoints_and_the_rest_still_restore() {
    let s = session();
    // An older session of the workspace, whose checkpoints retention may take.
    s.write("old.txt", "old\n");
    let old = MockModel::start(Wire::OpenAi);
    old.push_turn(Turn::calls(vec![call("write_file", json!({"file_path": "old.txt", "content": "older\n"}))]));
    old.push_turn(Turn::text("ok"));
    prompt(&s, &old, "older session", false);
    std::thread::sleep(std::time::Duration::from_millis(20));
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
    assert!(gc.stdout.starts_with("removed "), "{}", gc.stdout);
    // The latest session's checkpoints are kept, and still restore.
    let done = rewind(&s, &["--to", "1", "--code"]);
    assert_eq!(done.code, Some(0), "{}{}", done.stdout, done.stderr);
    assert_eq!(s.read("a.txt").as_deref(), Some("alpha\nbeta\n"));
    assert_eq!(s.read("gone.txt").as_deref(), Some("doomed\n"));
}
