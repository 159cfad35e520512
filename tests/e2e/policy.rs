//! Grants, trust, rules and approvals through the real binary: what a plugin gets is what
//! it requested and the user granted, a workspace cannot arm itself, rules and modes decide
//! calls, and `--ask` takes the user's answers on stdin.
// Set-up helpers unwrap: a failed set-up step should fail the test loudly.
#![allow(clippy::unwrap_used)]

use std::io::Write;
use std::path::Path;
use std::process::Stdio;

use airlock_tests::{Finished, MockModel, Session, Turn, Wire, call, declared_tools, fixtures, function_responses};
use serde_json::{Value, json};

use crate::{run_args, session, write_policy};

/// Installs `component` in the workspace's own plugin folder.
fn install_in_workspace(s: &Session, component: &str) {
    let dir = s.workspace.join(".airlock/plugins");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(component, dir.join(Path::new(component).file_name().unwrap())).unwrap();
}

/// Runs one prompt in which the model calls `read_path` on `secret.txt`, and returns what
/// the tool told the model.
fn read_secret(s: &Session) -> (Finished, String) {
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![call("read_path", json!({"path": "secret.txt"}))]));
    mock.push_turn(Turn::text("ok"));
    let done = s.airlock(&mock, &["-p", "read"]);
    let sent = function_responses(&mock.requests()[1]);
    (done, sent[0].1.clone())
}

#[test]
fn inspect_shows_requests_tools_and_schemas_before_install() {
    let s = session();
    let done = run_args(&s, &["plugins", "inspect", fixtures::FS_PROBE, "--json"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let listing: Value = serde_json::from_str(&done.stdout).unwrap();
    let tools = listing["plugin"]["tools"].as_array().unwrap();
    let read = tools.iter().find(|t| t["name"] == "read_path").unwrap();
    assert_eq!(read["capabilities"]["files"][0], json!({"path": ".", "access": "read"}));
    assert_eq!(read["parameters"]["type"], "object");
    // Inspecting installs nothing.
    assert!(!s.airlock_home().join("plugins").exists());
}

#[test]
fn a_user_plugin_gets_nothing_until_granted_and_then_only_what_it_asked_for() {
    let s = session();
    s.write("secret.txt", "the secret");
    s.install_plugin(fixtures::FS_PROBE);
    let (done, sent) = read_secret(&s);
    assert!(sent.starts_with("Error"), "{sent}");
    assert!(done.stderr.contains("airlock plugins grant fs_probe --read ."), "{}", done.stderr);

    let granted = run_args(&s, &["plugins", "grant", "fs_probe", "--read", "."]);
    assert_eq!(granted.code, Some(0), "{}", granted.stderr);
    let (_, sent) = read_secret(&s);
    assert_eq!(sent, "the secret");

    let shown = run_args(&s, &["plugins", "show", "fs_probe", "--json"]);
    let shown: Value = serde_json::from_str(&shown.stdout).unwrap();
    let write = shown["tools"].as_array().unwrap().iter().find(|t| t["name"] == "write_path").unwrap();
    assert_eq!(write["gets"]["files"][0]["access"], "read", "a read request stays read-only");

    let revoked = run_args(&s, &["plugins", "revoke", "fs_probe", "--all"]);
    assert_eq!(revoked.code, Some(0), "{}", revoked.stderr);
    let (_, sent) = read_secret(&s);
    assert!(sent.starts_with("Error"), "{sent}");
}

#[test]
fn an_untrusted_workspace_cannot_grant_its_own_plugins_and_trust_is_pinned() {
    let s = session();
    s.write("secret.txt", "the secret");
    install_in_workspace(&s, fixtures::FS_PROBE);
    s.write(".airlock/policy.toml", "[grants.fs_probe]\nfiles = [\".:read\"]\n");

    let (done, sent) = read_secret(&s);
    assert!(sent.starts_with("Error"), "an untrusted workspace granted itself access: {sent}");
    assert!(done.stderr.contains("not trusted"), "{}", done.stderr);

    let trusted = run_args(&s, &["trust"]);
    assert_eq!(trusted.code, Some(0), "{}", trusted.stderr);
    assert!(trusted.stdout.contains("grants fs_probe: .:read"), "{}", trusted.stdout);
    let (_, sent) = read_secret(&s);
    assert_eq!(sent, "the secret");

    // Any change to the file — by a pull, or by a tool call — drops the trust.
    s.write(".airlock/policy.toml", "[grants.fs_probe]\nfiles = [\".:read-write\"]\n");
    let (done, sent) = read_secret(&s);
    assert!(sent.starts_with("Error"), "{sent}");
    assert!(done.stderr.contains("changed since you trusted"), "{}", done.stderr);
}

#[test]
fn the_model_cannot_grant_itself_anything() {
    let s = session();
    s.write("secret.txt", "the secret");
    install_in_workspace(&s, fixtures::FS_PROBE);
    assert_eq!(run_args(&s, &["trust"]).code, Some(0));
    // The model rewrites the workspace policy with the built-in write tool, in yolo mode.
    let mock = MockModel::start(Wire::OpenAi);
    let policy = "[grants.fs_probe]\nfiles = [\".:read\"]\n";
    mock.push_turn(Turn::calls(vec![call(
        "write_file",
        json!({"file_path": ".airlock/policy.toml", "content": policy}),
    )]));
    mock.push_turn(Turn::text("granted myself"));
    let done = s.airlock(&mock, &["-p", "grant yourself", "--approval-mode", "yolo"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert_eq!(s.read(".airlock/policy.toml").as_deref(), Some(policy));
    let (done, sent) = read_secret(&s);
    assert!(sent.starts_with("Error"), "the rewritten policy took effect: {sent}");
    assert!(done.stderr.contains("changed since you trusted"), "{}", done.stderr);
}

#[test]
fn a_malformed_policy_names_file_and_line_and_refuses_to_start() {
    let s = session();
    write_policy(&s, "[grants.fs_probe]\nfiles = [\".\"]\nnetwork = [\"ftp://nope\"]\n");
    let mock = MockModel::start(Wire::OpenAi);
    let done = s.airlock(&mock, &["-p", "hi"]);
    assert_eq!(done.code, Some(52), "{}", done.stderr);
    assert!(done.stderr.contains("policy.toml:3:"), "{}", done.stderr);
    assert!(done.stderr.contains("ftp"), "{}", done.stderr);
    assert!(mock.requests().is_empty());
}

#[test]
fn rules_allow_ask_and_deny_and_a_denied_tool_is_not_offered() {
    let s = session();
    write_policy(
        &s,
        "[[rule]]\ntool = \"write_file\"\npath = \"notes/**\"\ndecision = \"allow\"\n\n\
         [[rule]]\ntool = \"glob\"\ndecision = \"deny\"\n",
    );
    let mock = MockModel::start(Wire::Gemini);
    mock.push_turn(Turn::calls(vec![
        call("write_file", json!({"file_path": "notes/a.md", "content": "allowed"})),
        call("write_file", json!({"file_path": "src/b.rs", "content": "asks"})),
        call("glob", json!({"pattern": "*"})),
    ]));
    mock.push_turn(Turn::text("ok"));
    let done = s.airlock(&mock, &["-p", "write"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert_eq!(s.read("notes/a.md").as_deref(), Some("allowed"));
    assert_eq!(s.read("src/b.rs"), None);
    let sent = function_responses(&mock.requests()[1]);
    assert!(sent[1].1.contains("needs the user's approval"), "{sent:?}");
    assert!(sent[2].1.contains("policy_denied"), "{sent:?}");
    assert!(!declared_tools(&mock.requests()[0]).contains(&"glob".to_string()));
}

#[test]
fn plan_mode_offers_read_only_tools_only() {
    let s = session();
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![call("write_file", json!({"file_path": "a.txt", "content": "x"}))]));
    mock.push_turn(Turn::text("ok"));
    let done = s.airlock(&mock, &["-p", "plan", "--approval-mode", "plan"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let tools = declared_tools(&mock.requests()[0]);
    assert!(tools.contains(&"read_file".to_string()) && !tools.contains(&"write_file".to_string()), "{tools:?}");
    assert!(function_responses(&mock.requests()[1])[0].1.contains("plan mode"));
    assert_eq!(s.read("a.txt"), None);
}

/// Runs with `--ask`, answering the approval questions with `answers` on stdin.
fn ask(s: &Session, mock: &MockModel, answers: &str, env: &[(&str, &str)]) -> Finished {
    let mut command = s.command(mock);
    command.args(["-p", "edit", "--ask"]).stdin(Stdio::piped()).stdout(Stdio::piped()).stderr(Stdio::piped());
    for (key, value) in env {
        command.env(key, value);
    }
    let mut child = command.spawn().unwrap();
    child.stdin.take().unwrap().write_all(answers.as_bytes()).unwrap();
    let output = child.wait_with_output().unwrap();
    Finished {
        code: output.status.code(),
        stdout: String::from_utf8_lossy(&output.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

#[test]
fn ask_takes_allow_once_refuse_and_cancel_from_stdin() {
    let s = session();
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![call("write_file", json!({"file_path": "yes.txt", "content": "y"}))]));
    mock.push_turn(Turn::calls(vec![call("write_file", json!({"file_path": "no.txt", "content": "n"}))]));
    mock.push_turn(Turn::text("done"));
    let done = ask(&s, &mock, "y\nn\n", &[]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert_eq!(s.read("yes.txt").as_deref(), Some("y"));
    assert_eq!(s.read("no.txt"), None);
    assert!(done.stderr.contains("+y"), "the diff is shown: {}", done.stderr);
    assert!(function_responses(&mock.requests()[2])[0].1.contains("refused"));

    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![call("write_file", json!({"file_path": "c.txt", "content": "c"}))]));
    let done = ask(&s, &mock, "c\n", &[]);
    assert_eq!(done.code, Some(130), "a cancelled batch ends the run: {}", done.stderr);
    assert_eq!(s.read("c.txt"), None);
}

#[test]
fn allow_always_saved_becomes_a_rule_in_the_user_policy() {
    let s = session();
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![call("write_file", json!({"file_path": "a.txt", "content": "1"}))]));
    mock.push_turn(Turn::calls(vec![call("write_file", json!({"file_path": "a.txt", "content": "2"}))]));
    mock.push_turn(Turn::text("done"));
    // One answer only: the second write must not ask.
    let done = ask(&s, &mock, "s\n", &[]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert_eq!(s.read("a.txt").as_deref(), Some("2"));
    let policy = std::fs::read_to_string(s.airlock_home().join("policy.toml")).unwrap();
    assert!(policy.contains("tool = \"write_file\"") && policy.contains("path = \"a.txt\""), "{policy}");

    // A later run uses the saved rule without --ask.
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![call("write_file", json!({"file_path": "a.txt", "content": "3"}))]));
    mock.push_turn(Turn::text("done"));
    let done = s.airlock(&mock, &["-p", "again"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert_eq!(s.read("a.txt").as_deref(), Some("3"));
}

#[test]
fn modify_with_editor_applies_the_users_version() {
    let s = session();
    s.write("a.txt", "old line\n");
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![call(
        "replace",
        json!({"file_path": "a.txt", "old_string": "old line", "new_string": "model line"}),
    )]));
    mock.push_turn(Turn::text("done"));
    let editor = "sed -i s/model/user/";
    let done = ask(&s, &mock, "e\n", &[("EDITOR", editor)]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert_eq!(s.read("a.txt").as_deref(), Some("user line\n"));
    let sent = function_responses(&mock.requests()[1]);
    assert!(sent[0].1.contains("the user edited the proposed content"), "{sent:?}");
}
