//! The checkpoints of a path read as a chain, from the rewind's target on: a person's edit
//! between two calls is caught even when a later, wider call's checkpoints hold it; a path
//! its earliest checkpoint left out is listed and kept, never restored from a later one.

use airlock_tests::{MockModel, Turn, Wire, call};
use serde_json::{Value, json};

use super::{prompt, rewind};
use crate::session;

#[test]
fn an_edit_between_two_prompts_is_changed_outside_though_a_workspace_wide_command_ran_after_it() {
    let s = session();
    s.write("f.txt", "one\n");
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![call("write_file", json!({"file_path": "f.txt", "content": "two\n"}))]));
    mock.push_turn(Turn::text("first done"));
    prompt(&s, &mock, "write f", false);
    // The person edits f.txt; then a command that may write the whole workspace runs, so its
    // checkpoints hold the person's edit before and after.
    s.write("f.txt", "mine\n");
    mock.push_turn(Turn::calls(vec![call("run_shell_command", json!({"command": "ls > listing.txt"}))]));
    mock.push_turn(Turn::text("second done"));
    prompt(&s, &mock, "list", true);
    assert!(s.read("listing.txt").is_some());

    let kept = rewind(&s, &["--to", "1", "--code", "-o", "json"]);
    assert_eq!(kept.code, Some(2), "{}{}", kept.stdout, kept.stderr);
    let done: Value = serde_json::from_str(&kept.stdout).unwrap();
    assert_eq!(done["changed_outside"], json!(["f.txt"]), "{done}");
    assert_eq!(done["kept"], json!(["f.txt"]), "{done}");
    assert_eq!(s.read("f.txt").as_deref(), Some("mine\n"));
    assert_eq!(s.read("listing.txt"), None);
}

#[test]
fn a_file_its_earliest_checkpoint_left_out_is_listed_and_never_restored_from_a_later_one() {
    let s = session();
    s.write_config("[checkpoints]\nmax_file_mib = 1\n");
    // Over the 1 MiB cap: the command's checkpoint of the workspace leaves it out.
    s.write("big.bin", &"b".repeat(1_500_000));
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![call("run_shell_command", json!({"command": "printf small > big.bin"}))]));
    mock.push_turn(Turn::text("first done"));
    prompt(&s, &mock, "shrink", false);
    assert_eq!(s.read("big.bin").as_deref(), Some("small"));
    // The next call's checkpoint holds "small": a state in between, not what was there.
    mock.push_turn(Turn::calls(vec![call("write_file", json!({"file_path": "big.bin", "content": "last\n"}))]));
    mock.push_turn(Turn::text("second done"));
    prompt(&s, &mock, "write", true);

    let done = rewind(&s, &["--to", "1", "--code", "-o", "json"]);
    assert_eq!(done.code, Some(0), "{}{}", done.stdout, done.stderr);
    let done: Value = serde_json::from_str(&done.stdout).unwrap();
    assert_eq!(done["files"], json!([]), "{done}");
    let left: Vec<&str> = done["left_out"].as_array().unwrap().iter().map(|l| l["path"].as_str().unwrap()).collect();
    assert_eq!(left, ["big.bin"], "{done}");
    assert_eq!(s.read("big.bin").as_deref(), Some("last\n"));
}

#[test]
fn a_folder_a_command_made_goes_with_its_files() {
    let s = session();
    s.write("keep.txt", "keep\n");
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![call(
        "run_shell_command",
        json!({"command": "mkdir -p newpkg/sub && echo x > newpkg/sub/a.rs && echo y > newpkg/b.rs"}),
    )]));
    mock.push_turn(Turn::text("made"));
    prompt(&s, &mock, "make a package", false);
    assert_eq!(s.read("newpkg/sub/a.rs").as_deref(), Some("x\n"));

    let done = rewind(&s, &["--to", "1", "--code", "-o", "json"]);
    assert_eq!(done.code, Some(0), "{}{}", done.stdout, done.stderr);
    let done: Value = serde_json::from_str(&done.stdout).unwrap();
    assert_eq!(done["restored"], 2, "{done}");
    assert!(!s.workspace.join("newpkg").exists(), "the empty folders stay");
    assert_eq!(s.read("keep.txt").as_deref(), Some("keep\n"));
    // Undone, the files come back (and their folders with them).
    assert_eq!(rewind(&s, &["--undo"]).code, Some(0));
    assert_eq!(s.read("newpkg/sub/a.rs").as_deref(), Some("x\n"));
}
