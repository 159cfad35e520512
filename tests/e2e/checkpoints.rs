//! Checkpoints taken by the host (issue 29, items 1 and 5), through the real binary and the
//! scripted model: a built-in `replace` and `write_file`, a `run_shell_command` doing
//! `sed -i` and `rm`, a third-party plugin writing in its granted folder, and an MCP server
//! with a write grant each leave a `calls` line whose checkpoint ids exist in the store,
//! whose roots are exactly what the call could write, and whose changes (before → after)
//! are exactly what it did; unrelated files and files outside the grants are in no
//! checkpoint, a `.gitignore`d folder is left out, a read-only call takes none, a
//! workspace's settings cannot switch checkpoints off, and a resumed session's next prompt
//! continues the numbering.
// Set-up helpers unwrap: a failed set-up step should fail the test loudly.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use airlock_checkpoint::{Change, CheckpointId, Settings, Store};
use airlock_tests::{MockModel, Session, Turn, Wire, call, fixtures};
use serde_json::{Value, json};

use crate::{run_args, session, write_policy};

/// The session files of `s` (the audit trails left out), oldest first.
fn session_files(s: &Session) -> Vec<PathBuf> {
    let dir = s.airlock_home().join("sessions");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl") && !p.to_string_lossy().ends_with(".audit.jsonl"))
        .collect();
    files.sort_by_key(|p| std::fs::metadata(p).and_then(|m| m.modified()).ok());
    files
}

/// Every record of the session file of `s` (there is one).
fn records(s: &Session) -> Vec<Value> {
    let files = session_files(s);
    assert_eq!(files.len(), 1, "{files:?}");
    std::fs::read_to_string(&files[0]).unwrap().lines().map(|l| serde_json::from_str(l).unwrap()).collect()
}

/// The recorded calls (from the `calls` lines), in order.
fn calls(s: &Session) -> Vec<Value> {
    records(s)
        .into_iter()
        .filter(|r| r["type"] == "calls")
        .flat_map(|r| r["calls"].as_array().unwrap().clone())
        .collect()
}

/// The recorded call of `name` (the only one).
fn recorded(s: &Session, name: &str) -> Value {
    let found: Vec<Value> = calls(s).into_iter().filter(|c| c["name"] == name).collect();
    assert_eq!(found.len(), 1, "{name}: {found:?}");
    found.into_iter().next().unwrap()
}

/// The workspace's store, as airlock opens it.
fn store(s: &Session) -> Store {
    let home = s.airlock_home().canonicalize().unwrap();
    Store::open(&home, &s.workspace, Settings { never: vec![home.clone()], ..Settings::default() }).unwrap()
}

/// The checkpoints of a recorded call: its one `before` and its `after`, both in the store.
fn before_after(s: &Session, call: &Value) -> (CheckpointId, CheckpointId) {
    let checkpoint = &call["checkpoint"];
    let before = checkpoint["before"].as_array().unwrap_or_else(|| panic!("no checkpoint: {call}"));
    assert_eq!(before.len(), 1, "{call}");
    let before = CheckpointId(before[0].as_str().unwrap().to_owned());
    let after = CheckpointId(checkpoint["after"].as_str().unwrap_or_else(|| panic!("no after: {call}")).to_owned());
    let store = store(s);
    for id in [&before, &after] {
        store.get(id).unwrap_or_else(|e| panic!("{id} is not in the store: {e}"));
    }
    (before, after)
}

/// The paths `before` → `after` changed, with what each held after (`None`: deleted).
fn changed(s: &Session, before: &CheckpointId, after: &CheckpointId) -> Vec<(PathBuf, Option<String>)> {
    let store = store(s);
    let changes: Vec<Change> = store.changes(before, after).unwrap();
    changes
        .into_iter()
        .map(|change| {
            let content = change.after.as_ref().map(|e| String::from_utf8(store.read(e).unwrap()).unwrap());
            (change.path, content)
        })
        .collect()
}

fn roots(s: &Session, id: &CheckpointId) -> Vec<PathBuf> {
    store(s).get(id).unwrap().roots
}

/// Whether checkpoint `id` holds anything at `path`.
fn holds(s: &Session, id: &CheckpointId, path: &Path) -> bool {
    let store = store(s);
    store.covers(id, path).unwrap() || store.entry(id, path).unwrap().is_some()
}

/// One prompt in which the model makes `calls` (one batch each), then answers.
fn run(s: &Session, batches: Vec<Vec<airlock_tests::MockCall>>, flags: &[&str]) -> airlock_tests::Finished {
    let mock = MockModel::start(Wire::OpenAi);
    for batch in batches {
        mock.push_turn(Turn::calls(batch));
    }
    mock.push_turn(Turn::text("done"));
    let mut args = vec!["-p", "work"];
    args.extend_from_slice(flags);
    let done = s.airlock(&mock, &args);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    done
}

const YOLO: [&str; 2] = ["--approval-mode", "yolo"];

#[test]
fn a_replace_and_a_write_file_checkpoint_their_file_alone() {
    let s = session();
    s.write("a.txt", "alpha\n");
    s.write("unrelated.txt", "keep\n");
    let batches = vec![
        vec![call("replace", json!({"file_path": "a.txt", "old_string": "alpha", "new_string": "beta"}))],
        vec![call("write_file", json!({"file_path": "new/b.txt", "content": "bee\n"}))],
        vec![call("read_file", json!({"file_path": "a.txt"}))],
    ];
    let done = run(&s, batches, &YOLO);
    assert!(!done.stderr.contains("checkpoint failed"), "{}", done.stderr);
    assert_eq!(s.read("a.txt").as_deref(), Some("beta\n"));

    let replace = recorded(&s, "replace");
    assert_eq!(replace["checkpoint"]["prompt"], 1, "{replace}");
    let (before, after) = before_after(&s, &replace);
    let file = s.workspace.join("a.txt");
    assert_eq!(roots(&s, &before), vec![file.clone()]);
    assert_eq!(roots(&s, &after), vec![file.clone()]);
    assert_eq!(changed(&s, &before, &after), [(file, Some("beta\n".to_owned()))]);
    assert!(!holds(&s, &before, &s.workspace.join("unrelated.txt")));

    // A file that did not exist: its root has no entry before, the file after.
    let write = recorded(&s, "write_file");
    let (before, after) = before_after(&s, &write);
    let file = s.workspace.join("new/b.txt");
    assert_eq!(roots(&s, &before), vec![file.clone()]);
    assert!(store(&s).entry(&before, &file).unwrap().is_none());
    assert_eq!(changed(&s, &before, &after), [(file, Some("bee\n".to_owned()))]);

    // A read-only call holds no write access: no checkpoint.
    assert!(recorded(&s, "read_file").get("checkpoint").is_none());
    // The prompt record comes before the prompt's message.
    let all = records(&s);
    let at = all.iter().position(|r| r["type"] == "prompt").unwrap();
    assert_eq!((all[at]["prompt"].as_u64(), all[at]["text"].as_str()), (Some(1), Some("work")));
    assert_eq!(all[at + 1]["type"], "message", "{:?}", all[at + 1]);
}

#[test]
fn a_shell_command_checkpoints_the_workspace_and_leaves_ignored_folders_out() {
    let s = session();
    s.write("a.txt", "old line\n");
    s.write("b.txt", "to remove\n");
    s.write("c.txt", "untouched\n");
    s.write(".gitignore", "target/\n");
    s.write("target/big.bin", "built\n");
    let outside = tempfile::tempdir().unwrap();
    std::fs::write(outside.path().join("o.txt"), "outside\n").unwrap();
    let line = "sed -i 's/old/new/' a.txt && rm b.txt";
    let done = run(&s, vec![vec![call("run_shell_command", json!({"command": line}))]], &YOLO);
    assert!(!done.stderr.contains("checkpoint failed"), "{}", done.stderr);
    assert_eq!((s.read("a.txt").as_deref(), s.read("b.txt")), (Some("new line\n"), None));

    let shell = recorded(&s, "run_shell_command");
    let (before, after) = before_after(&s, &shell);
    // Its sandbox makes the workspace writable: the workspace is the root.
    assert_eq!(roots(&s, &before), vec![s.workspace.clone()]);
    assert_eq!(
        changed(&s, &before, &after),
        [(s.workspace.join("a.txt"), Some("new line\n".to_owned())), (s.workspace.join("b.txt"), None)]
    );
    let store = store(&s);
    let held = store.get(&before).unwrap();
    assert!(store.entry(&before, &s.workspace.join("c.txt")).unwrap().is_some());
    assert!(store.entry(&before, &s.workspace.join("target/big.bin")).unwrap().is_none());
    assert!(
        held.left_out
            .iter()
            .any(|l| s.workspace.join("target").starts_with(&l.path) || l.path.starts_with(s.workspace.join("target"))),
        "{:?}",
        held.left_out
    );
    assert!(!holds(&s, &before, &outside.path().join("o.txt")));
}

#[test]
fn a_plugin_checkpoints_its_granted_folder_and_nothing_outside_it() {
    let s = session();
    s.install_plugin(fixtures::ESCAPE_PROBE);
    write_policy(&s, "[grants.escape_probe]\nfiles = [\"out:read-write\"]\n");
    s.write("out/old.txt", "old\n");
    s.write("beside.txt", "beside\n");
    let ops = json!([
        {"op": "write", "path": "out/new.txt", "content": "new\n"},
        {"op": "remove", "path": "out/old.txt"},
        {"op": "write", "path": "beside.txt", "content": "pwned\n"},
    ]);
    let done = run(&s, vec![vec![call("fs_ops", json!({"ops": ops}))]], &YOLO);
    assert!(!done.stderr.contains("checkpoint failed"), "{}", done.stderr);
    assert_eq!(s.read("beside.txt").as_deref(), Some("beside\n"), "the grant let it write outside");

    let (before, after) = before_after(&s, &recorded(&s, "fs_ops"));
    let out = s.workspace.join("out");
    assert_eq!(roots(&s, &before), vec![out.clone()]);
    assert_eq!(
        changed(&s, &before, &after),
        [(out.join("new.txt"), Some("new\n".to_owned())), (out.join("old.txt"), None)]
    );
    assert!(!holds(&s, &before, &s.workspace.join("beside.txt")));
}

#[test]
fn an_mcp_server_with_a_write_grant_checkpoints_its_write_folders() {
    use crate::mcp_client::{configure, python_grant, python_server, warm_up};
    let s = session();
    configure(&s, &python_server("notes", "normal.py", &[], ""));
    write_policy(&s, &python_grant("notes", "write = [\"out\"]"));
    s.write("out/keep.txt", "kept\n");
    s.write("beside.txt", "beside\n");
    let mock = MockModel::start(Wire::OpenAi);
    warm_up(&mock);
    let args = json!({"folder": s.workspace.join("out"), "name": "a.txt", "text": "written"});
    mock.push_turn(Turn::calls(vec![call("notes__write_note", args)]));
    mock.push_turn(Turn::text("done"));
    let done = s.airlock(&mock, &["-p", "go", "--approval-mode", "yolo"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert_eq!(s.read("out/a.txt").as_deref(), Some("written"));

    let (before, after) = before_after(&s, &recorded(&s, "notes__write_note"));
    let out = s.workspace.join("out");
    assert_eq!(roots(&s, &before), vec![out.clone()]);
    assert_eq!(changed(&s, &before, &after), [(out.join("a.txt"), Some("written".to_owned()))]);
    assert!(!holds(&s, &before, &s.workspace.join("beside.txt")));
    // The warm-up `sleep` ran with the workspace writable: it has its own checkpoint.
    assert!(recorded(&s, "run_shell_command")["checkpoint"]["before"].is_array());
}

/// SECURITY CP2: a trusted workspace's `[checkpoints] enabled = false` is refused with a
/// warning, and its calls are checkpointed all the same.
#[test]
fn a_workspace_cannot_switch_checkpoints_off() {
    let s = session();
    s.write(".airlock/config.toml", "[checkpoints]\nenabled = false\n");
    let trusted = run_args(&s, &["trust"]);
    assert_eq!(trusted.code, Some(0), "{}", trusted.stderr);
    s.write("a.txt", "alpha\n");
    let edit = call("replace", json!({"file_path": "a.txt", "old_string": "alpha", "new_string": "beta"}));
    let done = run(&s, vec![vec![edit]], &YOLO);
    let config = s.workspace.join(".airlock/config.toml").display().to_string();
    assert!(
        done.stderr.contains(&format!("checkpoints at {config}:1 is not used: a workspace's settings may not set it")),
        "{}",
        done.stderr
    );
    before_after(&s, &recorded(&s, "replace"));
    let shown = run_args(&s, &["config", "show"]);
    assert!(shown.stdout.contains("checkpoints.enabled") && shown.stdout.contains("true"), "{}", shown.stdout);
}

#[test]
fn the_user_may_switch_checkpoints_off() {
    let s = session();
    s.write_config(&format!("{}[checkpoints]\nenabled = false\n", airlock_tests::FAST_RETRIES));
    s.write("a.txt", "alpha\n");
    let edit = call("replace", json!({"file_path": "a.txt", "old_string": "alpha", "new_string": "beta"}));
    let done = run(&s, vec![vec![edit]], &YOLO);
    assert_eq!(s.read("a.txt").as_deref(), Some("beta\n"), "{}", done.stderr);
    assert!(recorded(&s, "replace").get("checkpoint").is_none());
    assert!(!s.airlock_home().join("checkpoints").exists(), "a session without checkpoints opened a store");
}

#[test]
fn a_resumed_session_continues_the_prompt_numbering_and_keeps_its_checkpoints() {
    let s = session();
    s.write("a.txt", "one\n");
    let edit =
        |from: &str, to: &str| call("replace", json!({"file_path": "a.txt", "old_string": from, "new_string": to}));
    run(&s, vec![vec![edit("one", "two")]], &YOLO);
    let first = before_after(&s, &recorded(&s, "replace"));

    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![edit("two", "three")]));
    mock.push_turn(Turn::text("done"));
    let done = s.airlock(&mock, &["--resume", "latest", "-p", "again", "--approval-mode", "yolo"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);

    let prompts: Vec<(u64, String)> = records(&s)
        .iter()
        .filter(|r| r["type"] == "prompt")
        .map(|r| (r["prompt"].as_u64().unwrap(), r["text"].as_str().unwrap().to_owned()))
        .collect();
    assert_eq!(prompts, [(1, "work".to_owned()), (2, "again".to_owned())]);
    let both: Vec<Value> = calls(&s).into_iter().filter(|c| c["name"] == "replace").collect();
    assert_eq!(both[1]["checkpoint"]["prompt"], 2, "{}", both[1]);
    let store = store(&s);
    // The first prompt's checkpoints are still there, and the second's label names prompt 2.
    store.get(&first.0).unwrap();
    let second = CheckpointId(both[1]["checkpoint"]["before"][0].as_str().unwrap().to_owned());
    let label = store.get(&second).unwrap().label;
    assert_eq!((label.prompt, label.why.as_str()), (2, "before"));
    assert_eq!(label.call.as_deref(), both[1]["id"].as_str());
    // The labels name the session, before and after the resume.
    let id = records(&s)[0]["id"].as_str().unwrap().to_owned();
    assert_eq!(
        (label.session.as_str(), store.get(&first.0).unwrap().label.session.as_str()),
        (id.as_str(), id.as_str())
    );
}

#[test]
fn a_store_that_cannot_be_opened_is_one_warning_and_the_calls_still_run() {
    let s = session();
    // A file where the store's folder would go: the store cannot be made.
    std::fs::write(s.airlock_home().join("checkpoints"), "not a folder").unwrap();
    s.write("a.txt", "one\n");
    let edit =
        |from: &str, to: &str| call("replace", json!({"file_path": "a.txt", "old_string": from, "new_string": to}));
    let done = run(&s, vec![vec![edit("one", "two")], vec![edit("two", "three")]], &YOLO);
    assert_eq!(s.read("a.txt").as_deref(), Some("three\n"));
    assert_eq!(done.stderr.matches("checkpoints are off for this session").count(), 1, "{}", done.stderr);
    assert!(done.stderr.contains("cannot be undone"), "{}", done.stderr);
    assert!(calls(&s).iter().all(|c| c.get("checkpoint").is_none()));
}
