//! The spawn gate against a hostile plugin: `process-probe` (contract 0.2.0) starts whatever
//! the model asks, with no confirmation of its own. What it may start is decided by the
//! user's grant and rules alone, checked by the host at every start.

use std::time::Duration;

use airlock_tests::{MockModel, Session, Turn, Wire, call, fixtures, function_responses, run_bounded};
use serde_json::{Value, json};

use super::{pid_alive, session, write_policy};

/// Runs one batch of `spawn_probe` calls with `args` each (yolo, so only the gate decides);
/// returns what each call sent back, parsed.
fn probe(s: &Session, calls: &[Value]) -> Vec<Value> {
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(calls.iter().map(|args| call("spawn_probe", args.clone())).collect()));
    mock.push_turn(Turn::text("done"));
    let mut command = s.command(&mock);
    command.args(["-p", "probe", "--approval-mode", "yolo"]).env("PROBE_VAR", "probe-value");
    let done = run_bounded(command, Some(""), Duration::from_secs(120));
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let requests = mock.requests();
    function_responses(&requests[1])
        .into_iter()
        .map(|(_, text)| serde_json::from_str(&text).unwrap_or(Value::String(text)))
        .collect()
}

fn granted(s: &Session, extra: &str) {
    s.install_plugin(fixtures::PROCESS_PROBE);
    write_policy(s, &format!("[grants.process-probe]\nfiles = [\".:read-write\"]\nprocesses = [\"echo\"]\n{extra}"));
}

#[test]
fn a_plugin_without_a_process_grant_cannot_start_anything() {
    let s = session();
    s.install_plugin(fixtures::PROCESS_PROBE);
    write_policy(&s, "[grants.process-probe]\nfiles = [\".:read-write\"]\n");
    let sent = probe(
        &s,
        &[json!({ "shell": "echo hi" }), json!({ "argv": ["echo", "hi"] }), json!({ "shell": "touch made" })],
    );
    for reply in &sent {
        assert_eq!(reply["refused"], "denied", "{reply}");
        assert!(reply["message"].as_str().unwrap_or_default().contains("not granted"), "{reply}");
    }
    assert!(s.read("made").is_none());
}

#[test]
fn a_granted_prefix_runs_and_nothing_can_be_smuggled_past_it() {
    let s = session();
    granted(&s, "");
    let outside = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let smuggled = [
        "echo hi; touch made",
        "echo hi && touch made",
        "echo hi | touch made",
        "echo $(touch made)",
        "echo `touch made`",
        "echo \"$(touch made)\"",
        "sh -c 'touch made'",
        "bash -c 'touch made'",
        "env touch made",
        "'touch' made",
        "$X touch made",
        "echo <(touch made)",
        "FOO=1 echo hi",
        "echo${IFS}hi",
        "ech\"o\" hi; touch made",
    ];
    let mut calls: Vec<Value> = vec![json!({ "shell": "echo granted" }), json!({ "argv": ["echo", "by", "argv"] })];
    calls.extend(smuggled.iter().map(|line| json!({ "shell": line })));
    calls.push(json!({ "argv": ["touch", "made"] }));
    calls.push(json!({ "argv": ["sh", "-c", "touch made"] }));
    calls.push(json!({ "shell": format!("echo hi > {}/stolen", outside.path().display()) }));
    let sent = probe(&s, &calls);
    assert_eq!(sent[0]["stdout"], "granted\n", "{}", sent[0]);
    assert_eq!(sent[1]["stdout"], "by argv\n", "{}", sent[1]);
    for (args, reply) in calls.iter().zip(&sent).skip(2) {
        assert_eq!(reply["refused"], "denied", "{args} was not refused: {reply}");
    }
    assert!(s.read("made").is_none(), "a smuggled command ran");
    assert!(!outside.path().join("stolen").exists());
}

#[test]
fn variables_and_folders_are_only_what_was_granted() {
    let s = session();
    granted(&s, "env = [\"PROBE_VAR\"]\n");
    let outside = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let sent = probe(
        &s,
        &[
            json!({ "argv": ["echo", "x"], "env": [["PROBE_VAR", "passed"]] }),
            json!({ "argv": ["echo", "x"], "env": [["OTHER_VAR", "1"]] }),
            json!({ "argv": ["echo", "x"], "env": [["LD_PRELOAD", "/tmp/evil.so"]] }),
            json!({ "argv": ["echo", "x"], "env": [["PATH", "/tmp"]] }),
            json!({ "argv": ["echo", "x"], "dir": outside.path().display().to_string() }),
            json!({ "argv": ["echo", "x"], "dir": ".." }),
        ],
    );
    assert_eq!(sent[0]["stdout"], "x\n", "{}", sent[0]);
    for reply in &sent[1..4] {
        assert_eq!(reply["refused"], "invalid", "{reply}");
    }
    for reply in &sent[4..] {
        assert!(reply["refused"] == "denied" || reply["refused"] == "invalid", "{reply}");
    }
}

#[test]
fn a_deny_rule_reaches_a_plugins_own_starts() {
    let s = session();
    s.install_plugin(fixtures::PROCESS_PROBE);
    write_policy(
        &s,
        "[grants.process-probe]\nfiles = [\".:read-write\"]\nprocesses = [\"echo\", \"git status\"]\n\n\
         [[rule]]\ntool = \"spawn_probe\"\ncommand = \"git\"\ndecision = \"deny\"\n",
    );
    let sent = probe(&s, &[json!({ "argv": ["git", "status"] }), json!({ "argv": ["echo", "ok"] })]);
    assert_eq!(sent[0]["refused"], "denied", "{}", sent[0]);
    assert!(sent[0]["message"].as_str().unwrap_or_default().contains("denies"), "{}", sent[0]);
    assert_eq!(sent[1]["stdout"], "ok\n");
}

#[test]
fn children_die_with_their_call_and_at_their_timeout() {
    let s = session();
    s.install_plugin(fixtures::PROCESS_PROBE);
    write_policy(&s, "[grants.process-probe]\nfiles = [\".:read-write\"]\nprocesses = [\"sleep\"]\n");
    let sent = probe(
        &s,
        &[
            json!({ "argv": ["sleep", "300"], "leave_running": true }),
            json!({ "argv": ["sleep", "300"], "timeout_ms": 500 }),
        ],
    );
    let left = sent[0]["pid"].as_u64().unwrap_or_else(|| panic!("{}", sent[0])) as u32;
    assert!(!pid_alive(left), "a child left running outlived its call");
    assert_eq!(sent[1]["timed_out"], true, "{}", sent[1]);
    assert_eq!(sent[1]["signal"], 9, "{}", sent[1]);
}

#[test]
fn a_granted_prefix_covers_no_write_and_git_runs_without_the_repositorys_programs() {
    let s = session();
    super::prefixes::repository(&s);
    super::prefixes::arm(&s);
    s.install_plugin(fixtures::PROCESS_PROBE);
    write_policy(&s, "[grants.process-probe]\nfiles = [\".:read-write\"]\nprocesses = [\"echo\", \"git status\"]\n");
    let beyond =
        ["git status > victim", "git status --short >> victim", "> victim git status", "{ git status; } > victim"];
    let uncertain = ["echo ${!ref}", "x='$(touch made)'; echo ${x@P}", "git $SUB", "echo $((x))"];
    let mut calls: Vec<Value> = vec![json!({ "shell": "git status --short" }), json!({ "argv": ["git", "status"] })];
    calls.extend(beyond.iter().chain(&uncertain).map(|line| json!({ "shell": line })));
    let sent = probe(&s, &calls);
    for reply in &sent[..2] {
        assert_eq!(reply["code"], 0, "{reply}");
        assert!(reply["stdout"].as_str().unwrap_or_default().contains("notes.txt"), "{reply}");
    }
    for (line, reply) in beyond.iter().chain(&uncertain).zip(&sent[2..]) {
        assert_eq!(reply["refused"], "denied", "`{line}` was not refused: {reply}");
    }
    for (line, reply) in uncertain.iter().zip(&sent[2 + beyond.len()..]) {
        let message = reply["message"].as_str().unwrap_or_default();
        assert!(message.contains("cannot tell"), "`{line}`: {message}");
    }
    assert_eq!(s.read("victim").as_deref(), Some("keep me"));
    assert!(s.read("made").is_none());
    for marker in super::prefixes::MARKERS {
        assert!(s.read(marker).is_none(), "{marker} ran");
    }
}
