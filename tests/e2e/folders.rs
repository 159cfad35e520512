//! Folders outside the workspace added to a session (issue 24, item 7) through the real
//! binary and the scripted model: `--add-dir DIR` lets the built-in tools read a folder,
//! `DIR:read-write` lets them write it only where the person approves each write (the
//! question names the folder; `auto-edit` does not approve it); a third-party plugin gets
//! none of it; a folder that cannot be added (missing, a file, inside the workspace,
//! airlock's own, holding airlock's own) is a bad command line; `/add-dir` does the same in
//! the interactive UI.
// Set-up helpers unwrap: a failed set-up step should fail the test loudly.
#![allow(clippy::unwrap_used)]

use std::path::{Path, PathBuf};
use std::time::Duration;

use airlock_tests::pty::Pty;
use airlock_tests::{Finished, MockModel, Session, Turn, Wire, call, fixtures, function_responses, run_bounded};
use serde_json::{Value, json};

use crate::session;

const LIMIT: Duration = Duration::from_secs(120);
const REFUSED: &str = "needs the user's approval";

/// A folder outside the workspace holding `notes.txt`, canonical.
fn outside() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().canonicalize().unwrap();
    std::fs::write(path.join("notes.txt"), "notes from outside\n").unwrap();
    (dir, path)
}

/// One headless run in which the model makes `calls` (one batch) with `flags`, `stdin`
/// given to it; the run and what each call told the model.
fn run(s: &Session, calls: Vec<(&str, Value)>, flags: &[&str], stdin: Option<&str>) -> (Finished, Vec<String>) {
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(calls.into_iter().map(|(tool, args)| call(tool, args)).collect()));
    mock.push_turn(Turn::text("ok"));
    let mut command = s.command(&mock);
    command.args(["-p", "go"]).args(flags);
    let done = run_bounded(command, stdin, LIMIT);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let sent = function_responses(&mock.requests()[1]).into_iter().map(|(_, text)| text).collect();
    (done, sent)
}

fn path_in(folder: &Path, name: &str) -> String {
    folder.join(name).display().to_string()
}

#[test]
fn an_added_folder_is_read_by_the_built_in_tools_and_never_written_without_asking_for_it() {
    let s = session();
    let (_keep, out) = outside();
    s.install_plugin(fixtures::FS_PROBE);
    std::fs::write(s.airlock_home().join("policy.toml"), "[grants.fs_probe]\nfiles = [\".:read\"]\n").unwrap();
    let calls = || {
        vec![
            ("read_file", json!({"file_path": path_in(&out, "notes.txt")})),
            ("list_directory", json!({"dir_path": out.display().to_string()})),
            ("grep_search", json!({"pattern": "from outside", "dir_path": out.display().to_string()})),
            ("read_path", json!({"path": path_in(&out, "notes.txt")})),
        ]
    };
    // Without the flag nothing outside the workspace is read.
    let (_, sent) = run(&s, calls(), &["--approval-mode", "yolo"], None);
    for (index, result) in sent.iter().enumerate() {
        assert!(!result.contains("notes from outside"), "call {index} read outside without --add-dir: {result}");
    }
    // With it, the built-in tools read it; a third-party plugin still gets nothing of it.
    let dir = out.display().to_string();
    let (_, sent) = run(&s, calls(), &["--approval-mode", "yolo", "--add-dir", &dir], None);
    assert!(sent[0].contains("notes from outside"), "read_file: {}", sent[0]);
    assert!(sent[1].contains("notes.txt"), "list_directory: {}", sent[1]);
    assert!(sent[2].contains("from outside"), "grep_search: {}", sent[2]);
    assert!(!sent[3].contains("notes from outside"), "a third-party plugin read the added folder: {}", sent[3]);

    // Added for reading, it is written by nothing, even in yolo mode.
    let writes = vec![
        ("write_file", json!({"file_path": path_in(&out, "new.txt"), "content": "pwned"})),
        ("replace", json!({"file_path": path_in(&out, "notes.txt"), "old_string": "notes", "new_string": "pwned"})),
        ("run_shell_command", json!({"command": format!("touch {}", path_in(&out, "touched"))})),
    ];
    let (_, sent) = run(&s, writes, &["--approval-mode", "yolo", "--add-dir", &dir], None);
    for (index, result) in sent.iter().enumerate() {
        // The tools refuse; the command runs and its sandbox refuses the write (a read-only
        // view of the folder, or Landlock where there is no view), and says so.
        let refused = result.starts_with("Error")
            || (result.contains("Read-only file system") || result.contains("Permission denied"))
                && result.contains("blocked by the sandbox");
        assert!(refused, "write {index} did not fail: {result}");
    }
    assert!(!out.join("new.txt").exists() && !out.join("touched").exists());
    assert_eq!(std::fs::read_to_string(out.join("notes.txt")).unwrap(), "notes from outside\n");
}

#[test]
fn an_added_folder_is_written_only_where_the_person_approves_each_write() {
    let s = session();
    let (_keep, out) = outside();
    let added = format!("{}:read-write", out.display());
    let write = || vec![("write_file", json!({"file_path": path_in(&out, "new.txt"), "content": "approved\n"}))];
    // Headless without --ask, and under auto-edit (the folder is not the workspace), it asks,
    // so it is refused.
    for mode in ["default", "auto-edit"] {
        let (_, sent) = run(&s, write(), &["--approval-mode", mode, "--add-dir", &added], None);
        assert!(sent[0].contains(REFUSED), "{mode}: {}", sent[0]);
        assert!(!out.join("new.txt").exists(), "{mode}: written without approval");
    }
    // Refused at the question, nothing is written.
    let (done, sent) = run(&s, write(), &["--ask", "--add-dir", &added], Some("n\n"));
    assert!(sent[0].starts_with("Error"), "{}", sent[0]);
    assert!(!out.join("new.txt").exists());
    // The question says the call can write in the added folder; approved, it writes.
    assert!(done.stderr.contains(&format!("it can write anywhere in {}", out.display())), "{}", done.stderr);
    let (_, sent) = run(&s, write(), &["--ask", "--add-dir", &added], Some("y\n"));
    assert!(!sent[0].starts_with("Error"), "{}", sent[0]);
    assert_eq!(std::fs::read_to_string(out.join("new.txt")).unwrap(), "approved\n");
}

#[test]
fn a_folder_that_cannot_be_added_is_a_bad_command_line_and_nothing_runs() {
    let s = session();
    let (_keep, out) = outside();
    std::fs::create_dir_all(s.workspace.join("src")).unwrap();
    std::fs::create_dir_all(s.airlock_home().join("memory")).unwrap();
    let home = s.airlock_home().canonicalize().unwrap();
    let user_home = home.parent().unwrap().to_path_buf();
    for (text, says) in [
        (path_in(&out, "missing"), "does not exist"),
        (path_in(&out, "notes.txt"), "is not a folder"),
        (format!("{}:rw", out.display()), "read-write"),
        (format!("{}:write", out.display()), "read-write"),
        (s.workspace.join("src").display().to_string(), "inside the workspace"),
        (home.display().to_string(), "airlock's own folder"),
        (home.join("memory").display().to_string(), "airlock's own folder"),
        (format!("{}:read-write", user_home.display()), "holds"),
        ("/".to_string(), "holds"),
        (String::new(), "name a folder"),
    ] {
        let mock = MockModel::start(Wire::OpenAi);
        mock.push_turn(Turn::text("should not run"));
        let done = s.airlock(&mock, &["-p", "go", "--add-dir", &text]);
        assert_eq!(done.code, Some(2), "--add-dir {text:?} was accepted: {}", done.stderr);
        assert!(done.stderr.contains(says), "--add-dir {text:?}: {}", done.stderr);
        assert!(mock.requests().is_empty(), "--add-dir {text:?}: the model was asked");
    }
}

#[test]
fn add_dir_in_the_ui_lets_the_tools_read_the_folder() {
    let s = session();
    let (_keep, out) = outside();
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![call("read_file", json!({"file_path": path_in(&out, "notes.txt")}))]));
    mock.push_turn(Turn::text("read the added folder"));
    let mut command = s.command(&mock);
    command.args(["--approval-mode", "yolo"]);
    let mut pty = Pty::spawn(&command, 120, 30);
    pty.wait_text("test-model", LIMIT);
    // What cannot be added is refused, with the reason.
    pty.send(&format!("/add-dir {}\r", s.airlock_home().display()));
    pty.wait_text("airlock's own folder", LIMIT);
    pty.send(&format!("/add-dir {}\r", out.display()));
    pty.wait_text("to this session", LIMIT);
    pty.send("/add-dir\r");
    pty.wait_text("Folders added to this session", LIMIT);
    pty.send("read the notes\r");
    pty.wait_text("read the added folder", LIMIT);
    let sent = function_responses(&mock.requests()[1]);
    assert!(sent[0].1.contains("notes from outside"), "{}", sent[0].1);
    pty.send("\x03");
    pty.wait_text("Ctrl-C again", LIMIT);
    pty.send("\x03");
    assert_eq!(pty.wait_exit(LIMIT), 0);
}
