//! Component hooks (`airlock:hook` components in the plugin folders) through the real binary
//! and a scripted model: a deny the model reads, a rewrite the call runs with and the question
//! shows, a read the hook was not granted, a trap and a hang under both `on_error` settings,
//! and a workspace hook that runs only once the workspace is trusted.
// Set-up helpers unwrap: a failed set-up step should fail the test loudly.
#![allow(clippy::unwrap_used)]

use airlock_tests::{Finished, MockModel, Session, Turn, Wire, call, fixtures, function_responses};
use serde_json::{Value, json};

/// One prompt in which the model makes `tool_call`, then ends; what the call returned to
/// the model, and how the run ended.
fn one_call(s: &Session, name: &str, arguments: Value, extra: &[&str]) -> (Finished, String) {
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![call(name, arguments)]));
    mock.push_turn(Turn::text("ok"));
    let mut args = vec!["-p", "go"];
    args.extend_from_slice(extra);
    let done = s.airlock(&mock, &args);
    let requests = mock.requests();
    assert!(requests.len() >= 2, "the model was asked {} times: {}", requests.len(), done.stderr);
    let sent = function_responses(&requests[1]);
    (done, sent[0].1.clone())
}

#[test]
fn a_component_hook_denies_a_matching_command_and_the_model_reads_why() {
    let s = crate::session();
    s.install_plugin(fixtures::HOOK_DENY);
    let (_, sent) = one_call(&s, "run_shell_command", json!({"command": "rm -rf build"}), &["--approval-mode", "yolo"]);
    assert!(sent.contains("hook-deny") && sent.contains("commands containing `rm -rf` are not allowed"), "{sent}");
    // A command it does not match runs.
    let (_, sent) = one_call(&s, "run_shell_command", json!({"command": "echo fine"}), &["--approval-mode", "yolo"]);
    assert!(sent.contains("fine") && !sent.contains("hook-deny"), "{sent}");
}

#[test]
fn a_component_hook_rewrites_the_path_a_write_goes_to() {
    let s = crate::session();
    s.install_plugin(fixtures::HOOK_REWRITE);
    s.write("sandboxed/.keep", "");
    let (done, sent) =
        one_call(&s, "write_file", json!({"file_path": "notes.txt", "content": "hello"}), &["--approval-mode", "yolo"]);
    assert_eq!(s.read("sandboxed/notes.txt").as_deref(), Some("hello"), "{sent}\n{}", done.stderr);
    assert_eq!(s.read("notes.txt"), None);
}

#[test]
fn a_component_hooks_rewrite_is_what_the_confirmation_shows() {
    let s = crate::session();
    s.install_plugin(fixtures::HOOK_REWRITE);
    s.write("sandboxed/.keep", "");
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![call("write_file", json!({"file_path": "notes.txt", "content": "hello"}))]));
    mock.push_turn(Turn::text("ok"));
    // Default mode, headless: the write is asked about (and refused), so its card is shown.
    let done = s.airlock(&mock, &["-o", "stream-json", "-p", "go"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let events: Vec<Value> = done.stdout.lines().filter_map(|l| serde_json::from_str(l).ok()).collect();
    let card = events
        .iter()
        .find(|e| e["type"] == "tool_call" && e["status"] == "awaiting_approval")
        .unwrap_or_else(|| panic!("{}", done.stdout));
    let shown = card["confirmation"].to_string();
    assert!(shown.contains("sandboxed/notes.txt"), "the rewritten path is what is asked about: {shown}");
    assert!(events.iter().any(|e| e["type"] == "hook" && e["action"] == "rewrote"), "{}", done.stdout);
    assert_eq!(s.read("notes.txt"), None);
    assert_eq!(s.read("sandboxed/notes.txt"), None, "refused headless: nothing written");
}

#[test]
fn a_component_hook_cannot_read_what_it_was_not_granted() {
    let s = crate::session();
    s.write("secret.txt", "the secret");
    s.install_plugin(fixtures::HOOK_READ_UNGRANTED);
    let (_, sent) = one_call(&s, "read_file", json!({"file_path": "secret.txt"}), &[]);
    assert!(sent.contains("hook-read-ungranted refused:"), "{sent}");
    assert!(!sent.contains("the secret"), "{sent}");
    // Its own grant lets it read (and it denies the call with what it read).
    s.write_config("");
    std::fs::write(s.airlock_home().join("policy.toml"), "[grants.hook-read-ungranted]\nfiles = [\".:read\"]\n")
        .unwrap();
    let (_, sent) = one_call(&s, "read_file", json!({"file_path": "secret.txt"}), &[]);
    assert!(sent.contains("hook-read-ungranted read: the secret"), "{sent}");
}

#[test]
fn a_hook_that_traps_or_hangs_refuses_the_call_by_default_and_allow_passes_over_it() {
    for (fixture, name) in [(fixtures::HOOK_TRAP, "hook-trap"), (fixtures::HOOK_HANG, "hook-hang")] {
        let s = crate::session();
        s.write("notes.txt", "the notes");
        s.install_plugin(fixture);
        s.write_config(&format!("[hooks.component.{name}]\ntimeout_ms = 300\n"));
        let (done, sent) = one_call(&s, "read_file", json!({"file_path": "notes.txt"}), &[]);
        assert!(sent.contains(name) && !sent.contains("the notes"), "{name}: {sent}\n{}", done.stderr);
        s.write_config(&format!("[hooks.component.{name}]\ntimeout_ms = 300\non_error = \"allow\"\n"));
        let (done, sent) = one_call(&s, "read_file", json!({"file_path": "notes.txt"}), &[]);
        assert!(sent.contains("the notes"), "{name}: {sent}\n{}", done.stderr);
        assert!(!done.stdout.contains("panics in handle") && !done.stderr.contains("writes to stderr"), "{name}");
    }
}

#[test]
fn a_workspace_hook_runs_only_once_the_workspace_is_trusted() {
    let s = crate::session();
    let dir = s.workspace.join(".airlock/plugins");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(fixtures::HOOK_DENY, dir.join("hook_deny.wasm")).unwrap();
    // A workspace's plugins and hooks are armed by its trusted policy, even one granting nothing.
    s.write(".airlock/policy.toml", "");
    let rm = json!({"command": "rm -rf build"});
    let (done, sent) = one_call(&s, "run_shell_command", rm.clone(), &["--approval-mode", "yolo"]);
    assert!(!sent.contains("hook-deny"), "an untrusted workspace's hook ran: {sent}");
    assert!(done.stderr.contains("hook-deny") && done.stderr.contains("not trusted"), "{}", done.stderr);
    let mut trust = s.bare_command();
    trust.args(["trust", "--workspace"]).arg(&s.workspace);
    let trusted = Session::run(trust);
    assert_eq!(trusted.code, Some(0), "{}", trusted.stderr);
    let (_, sent) = one_call(&s, "run_shell_command", rm, &["--approval-mode", "yolo"]);
    assert!(sent.contains("commands containing `rm -rf` are not allowed"), "{sent}");
}
