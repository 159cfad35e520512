//! Issue 24 item 8: the workspace by the name the user gave it. A workspace reached through
//! a symlinked parent (`--workspace ~/link/proj`, or `$PWD` in a shell that keeps the
//! logical path — on macOS `/tmp` itself is a link) is the same workspace in that spelling:
//! the model's absolute paths in it read and edit files. A link *inside* the workspace still
//! never leads out, in either spelling.

use std::path::{Path, PathBuf};
use std::process::Command;

use airlock_tests::{Finished, MockModel, Session, Turn, Wire, call, function_responses};
use serde_json::json;

use super::{scratch, session};

const SECRET: &str = "OUTSIDE-SECRET-7d1e";

/// The workspace spelled through a link to its parent, and the folder holding that link.
fn aliased(s: &Session) -> (tempfile::TempDir, PathBuf) {
    let (dir, path) = scratch();
    let parent = s.workspace.parent().unwrap_or_else(|| panic!("the workspace has a parent"));
    std::os::unix::fs::symlink(parent, path.join("link")).unwrap_or_else(|e| panic!("{e}"));
    let name = s.workspace.file_name().unwrap_or_else(|| panic!("the workspace has a name"));
    let alias = path.join("link").join(name);
    assert_ne!(alias, s.workspace);
    assert_eq!(alias.canonicalize().ok().as_deref(), Some(s.workspace.as_path()));
    (dir, alias)
}

/// The binary pointed at `mock`, without `--workspace`.
fn command(s: &Session, mock: &MockModel) -> Command {
    let mut command = s.bare_command();
    command.args(["--provider", "openai", "--base-url", &mock.base_url(), "-m", "test-model"]);
    command.args(["-p", "work", "--approval-mode", "yolo"]);
    command
}

/// Scripts reads and edits in `alias`'s spelling, and a read through a link inside the
/// workspace that leads out; runs `command`; checks what happened.
fn reads_and_edits_through(s: &Session, alias: &Path, mut command: impl FnMut(&MockModel) -> Command, round: u32) {
    let (_outside_dir, outside) = scratch();
    std::fs::write(outside.join("secret.txt"), SECRET).unwrap_or_else(|e| panic!("{e}"));
    let inner_link = s.workspace.join(format!("out{round}"));
    std::os::unix::fs::symlink(&outside, &inner_link).unwrap_or_else(|e| panic!("{e}"));
    s.write("notes.txt", "alpha\nbeta\n");
    let at = |relative: &str| alias.join(relative).display().to_string();
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![
        call("read_file", json!({"file_path": at("notes.txt")})),
        call(
            "write_file",
            json!({"file_path": at(&format!("made{round}/new.txt")), "content": "written via the alias\n"}),
        ),
        call("replace", json!({"file_path": at("notes.txt"), "old_string": "beta", "new_string": "gamma"})),
        call("read_file", json!({"file_path": at(&format!("out{round}/secret.txt"))})),
        call("list_directory", json!({"dir_path": at(".")})),
    ]));
    mock.push_turn(Turn::text("done"));
    let done: Finished = Session::run(command(&mock));
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let requests = mock.requests();
    assert_eq!(requests.len(), 2, "{}", done.stderr);
    let told = function_responses(&requests[1]);
    assert_eq!(told.len(), 5, "{told:?}");
    assert!(told[0].1.contains("alpha") && told[0].1.contains("beta"), "read: {:?}", told[0]);
    assert_eq!(s.read(&format!("made{round}/new.txt")).as_deref(), Some("written via the alias\n"), "{told:?}");
    assert_eq!(s.read("notes.txt").as_deref(), Some("alpha\ngamma\n"), "{told:?}");
    assert!(!told[3].1.contains(SECRET), "a link inside the workspace led out: {:?}", told[3]);
    assert!(told[4].1.contains("notes.txt"), "list: {:?}", told[4]);
    // What the tools reported names the workspace by its canonical path, never the alias.
    let everything = serde_json::to_string(&requests[1]).unwrap_or_default();
    assert!(!everything.contains(SECRET));
    assert!(!told[1].1.contains(&alias.display().to_string()), "{:?}", told[1]);
}

#[test]
fn a_workspace_named_through_a_symlinked_parent_reads_and_edits_in_that_spelling() {
    let s = session();
    let (_link_dir, alias) = aliased(&s);
    reads_and_edits_through(
        &s,
        &alias,
        |mock| {
            let mut command = command(&s, mock);
            command.arg("--workspace").arg(&alias);
            command
        },
        1,
    );
}

#[test]
fn a_shell_that_keeps_the_logical_pwd_gives_the_workspace_that_name_too() {
    let s = session();
    let (_link_dir, alias) = aliased(&s);
    reads_and_edits_through(
        &s,
        &alias,
        |mock| {
            let mut command = command(&s, mock);
            command.current_dir(&alias).env("PWD", &alias);
            command
        },
        2,
    );
}

#[test]
fn a_link_inside_the_workspace_is_no_alias_and_a_stale_pwd_names_nothing() {
    let s = session();
    let (_outside_dir, outside) = scratch();
    std::fs::write(outside.join("secret.txt"), SECRET).unwrap_or_else(|e| panic!("{e}"));
    // `self` leads back to the workspace, `away` out of it; $PWD claims `away` is here.
    std::os::unix::fs::symlink(&s.workspace, s.workspace.join("self")).unwrap_or_else(|e| panic!("{e}"));
    std::os::unix::fs::symlink(&outside, s.workspace.join("away")).unwrap_or_else(|e| panic!("{e}"));
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![
        call("read_file", json!({"file_path": outside.join("secret.txt").display().to_string()})),
        call("read_file", json!({"file_path": s.workspace.join("self/away/secret.txt").display().to_string()})),
        call("write_file", json!({"file_path": outside.join("dropped.txt").display().to_string(), "content": "x"})),
    ]));
    mock.push_turn(Turn::text("done"));
    let mut command = command(&s, &mock);
    command.arg("--workspace").arg(s.workspace.join("self")).env("PWD", &outside);
    let done = Session::run(command);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let told = function_responses(&mock.requests()[1]);
    for (name, content) in &told {
        assert!(!content.contains(SECRET), "{name}: {content}");
    }
    assert!(!outside.join("dropped.txt").exists(), "a write left the workspace");
}
