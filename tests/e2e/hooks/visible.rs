//! What front ends are shown of hooks: the `hook` event of stream-json, the rewritten call's
//! confirmation.

use airlock_tests::{MockModel, Turn, Wire, call};
use serde_json::{Value, json};

use super::{command_hook, replying};
use crate::session;

fn stream(stdout: &str) -> Vec<Value> {
    stdout.lines().filter_map(|l| serde_json::from_str(l).ok()).collect()
}

#[test]
fn stream_json_carries_a_hook_event_naming_the_hook_the_call_and_what_it_did() {
    let s = session();
    command_hook(&s, "no-writes", "\"before_tool\"", "cat >/dev/null\necho 'frozen' >&2\nexit 2\n");
    let mock = MockModel::start(Wire::Gemini);
    mock.push_turn(Turn::calls(vec![call("write_file", json!({"file_path": "new.txt", "content": "x"}))]));
    mock.push_turn(Turn::text("done"));
    let done = s.airlock(&mock, &["--approval-mode", "yolo", "-o", "stream-json", "-p", "write it"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let events = stream(&done.stdout);
    let hook = events.iter().find(|e| e["type"] == "hook").unwrap_or_else(|| panic!("{}", done.stdout));
    assert_eq!(hook["hook"], "no-writes");
    assert_eq!(hook["event"], "before_tool");
    assert_eq!(hook["action"], "denied");
    assert_eq!(hook["message"], "frozen");
    let call_id = events.iter().find(|e| e["type"] == "tool_call").unwrap()["call_id"].clone();
    assert_eq!(hook["call_id"], call_id);
}

#[test]
fn a_rewritten_call_is_what_the_confirmation_shows() {
    let s = session();
    let rewrite = json!({"hookSpecificOutput": {
        "permissionDecision": "allow",
        "updatedInput": {"file_path": "safe/out.txt", "content": "rewritten"}
    }});
    command_hook(&s, "to-safe", "\"PreToolUse\"", &replying(&rewrite));
    let mock = MockModel::start(Wire::Gemini);
    mock.push_turn(Turn::calls(vec![call("write_file", json!({"file_path": "out.txt", "content": "x"}))]));
    mock.push_turn(Turn::text("done"));
    // Default mode, headless: the write is asked about (and refused), so its card is shown.
    let done = s.airlock(&mock, &["-o", "stream-json", "-p", "write it"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let events = stream(&done.stdout);
    let card = events
        .iter()
        .find(|e| e["type"] == "tool_call" && e["status"] == "awaiting_approval")
        .unwrap_or_else(|| panic!("{}", done.stdout));
    let shown = card["confirmation"].to_string();
    assert!(shown.contains("safe/out.txt") && shown.contains("rewritten"), "{shown}");
    assert!(!shown.contains("\"x\""), "{shown}");
    let rewrote = events.iter().find(|e| e["type"] == "hook" && e["action"] == "rewrote");
    assert!(rewrote.is_some(), "{}", done.stdout);
    assert!(s.read("out.txt").is_none() && s.read("safe/out.txt").is_none());
}

#[test]
fn hooks_list_shows_every_hook_with_its_settings_in_running_order() {
    let s = session();
    s.write_config(
        "[[hooks.command]]\nname = \"no-force-push\"\nevents = [\"PreToolUse\"]\ntools = \"Bash\"\n\
         command = \"sh check.sh\"\ntimeout_secs = 5\non_error = \"allow\"\n\n\
         [[hooks.command]]\nname = \"greeter\"\nevents = [\"session_start\"]\ncommand = \"echo hi\"\n",
    );
    let done = crate::run_args(&s, &["hooks", "list", "--json"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let listed: Value = serde_json::from_str(&done.stdout).unwrap_or_else(|e| panic!("{e}: {}", done.stdout));
    let hooks = listed["hooks"].as_array().unwrap();
    let names: Vec<&str> = hooks.iter().map(|h| h["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["no-force-push", "greeter"], "the settings file's order");
    let first = &hooks[0];
    assert_eq!(first["kind"], "command");
    assert_eq!(first["scope"], "user");
    assert_eq!(first["events"], json!(["before_tool"]));
    assert_eq!(first["timeout_ms"], 5000);
    assert_eq!(first["on_error"], "allow");
    assert!(first["tools"].as_str().unwrap().contains("Bash"), "{first}");
    assert!(first["origin"].as_str().unwrap().ends_with("config.toml"), "{first}");
    assert!(!first["digest"].as_str().unwrap().is_empty(), "{first}");
    assert_eq!(first["runs"], true);
    // The text form names the same.
    let done = crate::run_args(&s, &["hooks", "list"]);
    assert!(done.stdout.contains("no-force-push  command · user · before_tool"), "{}", done.stdout);
}
