//! The hostile-plugin suite (issue 3, item 7) through the real binary: plugins from
//! `$AIRLOCK_HOME/plugins/` that try to read, write, look or spend past what the user's
//! `policy.toml` grants them. Each attempt must come back to the model as a typed error or
//! a capped result, the host must stay up (the scripted next turn happens and the run exits
//! 0), and nothing outside the grant may be touched or leak into what the model is sent.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use airlock_tests::{
    Finished, MockModel, Session, Turn, Wire, call, climbing, declared_tools, fixtures, function_responses,
};
use serde_json::{Value, json};

// Grants are what this suite writes into the user's `policy.toml`.
use crate::{session, write_policy as grant};

const SECRET: &str = "TOP-SECRET-7f3a9c";
const HOST_KEY: &str = "sk-fake-host-key";

/// Runs one headless prompt with every call approved, the host's environment holding a
/// fake API key and a variable a grant may name.
fn run(s: &Session, mock: &MockModel, extra: &[&str]) -> Finished {
    let mut command = s.command(mock);
    command
        .args(["-p", "probe the sandbox", "--approval-mode", "yolo"])
        .args(extra)
        .env("OPENAI_API_KEY", HOST_KEY)
        .env("GEMINI_API_KEY", HOST_KEY)
        .env("GRANTED_VAR", "visible");
    Session::run(command)
}

/// The run finished normally after the model's last turn `text`.
fn assert_survived(done: &Finished, mock: &MockModel, text: &str) {
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert_eq!(done.stdout, format!("{text}\n"), "{}", done.stderr);
    assert_eq!(mock.pending_turns(), 0, "the model was not asked again: {}", done.stderr);
}

/// A folder outside the workspace holding `secret.txt`, canonical.
struct Outside {
    _dir: tempfile::TempDir,
    path: PathBuf,
}

impl Outside {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("temp dir: {e}"));
        let path = dir.path().canonicalize().unwrap_or_else(|e| panic!("canonical temp dir: {e}"));
        std::fs::write(path.join("secret.txt"), SECRET).unwrap_or_else(|e| panic!("write the secret: {e}"));
        Self { _dir: dir, path }
    }

    fn secret(&self) -> PathBuf {
        self.path.join("secret.txt")
    }
}

#[test]
fn reads_outside_the_grant_fail_and_leak_nothing() {
    let s = session();
    let outside = Outside::new();
    s.install_plugin(fixtures::FS_PROBE);
    grant(&s, "[grants.fs_probe]\nfiles = [\".:read\"]\n");
    s.write("inside.txt", "inside content");
    std::os::unix::fs::symlink(outside.secret(), s.workspace.join("link_file")).unwrap();
    std::os::unix::fs::symlink(&outside.path, s.workspace.join("link_dir")).unwrap();
    let attempts = [
        climbing(&s.workspace, &outside.secret()),
        format!("../{}/secret.txt", outside.path.file_name().unwrap().to_string_lossy()),
        outside.secret().display().to_string(),
        format!("{}/../{}", s.workspace.display(), climbing(&s.workspace, &outside.secret())),
        "link_file".to_string(),
        "link_dir/secret.txt".to_string(),
        s.workspace.join("link_dir/secret.txt").display().to_string(),
        "/etc/passwd".to_string(),
    ];
    // The probes must be able to find the secret on the host: only the sandbox stops them.
    assert_eq!(std::fs::read_to_string(s.workspace.join(&attempts[0])).unwrap(), SECRET);
    assert_eq!(std::fs::read_to_string(s.workspace.join(&attempts[1])).unwrap(), SECRET, "not siblings");
    assert_eq!(std::fs::read_to_string(s.workspace.join("link_dir/secret.txt")).unwrap(), SECRET);

    let mock = MockModel::start(Wire::Gemini);
    let mut calls = vec![call("read_path", json!({"path": "inside.txt"}))];
    calls.extend(attempts.iter().map(|path| call("read_path", json!({"path": path}))));
    calls.push(call("list_root", json!({})));
    mock.push_turn(Turn::calls(calls));
    mock.push_turn(Turn::text("done"));
    let done = run(&s, &mock, &[]);
    assert_survived(&done, &mock, "done");

    let sent = function_responses(&mock.requests()[1]);
    assert_eq!(sent.len(), attempts.len() + 2, "{sent:?}");
    assert_eq!(sent[0].1, "inside content", "the grant itself must work");
    for (path, (_, content)) in attempts.iter().zip(&sent[1..]) {
        assert!(content.starts_with("Error: execution: cannot read"), "{path}: {content}");
        assert!(!content.contains(SECRET) && !content.contains("root:"), "{path} leaked: {content}");
    }
    // `/` holds nothing but the way down to the workspace, if anything at all.
    let (_, root) = sent.last().unwrap();
    let first = s.workspace.components().nth(1).unwrap().as_os_str().to_string_lossy().into_owned();
    if !root.starts_with("Error: ") {
        assert!(root.lines().all(|name| name == first), "list_root saw {root:?}");
    }
    let everything = serde_json::to_string(&mock.requests()).unwrap();
    assert!(!everything.contains(SECRET), "the secret reached the model");
    assert!(!done.stderr.contains(SECRET), "{}", done.stderr);
}

#[test]
fn writes_through_a_read_request_or_a_read_only_kind_fail() {
    let s = session();
    s.install_plugin(fixtures::FS_PROBE);
    s.install_plugin(fixtures::WRITER_CLAIMS_READ);
    // Both grants are read-write: only the request (`write_path` asks for read) and the kind
    // (`sneaky_write` says it reads) may hold the writes back.
    grant(
        &s,
        "[grants.fs_probe]\nfiles = [\".:read-write\"]\n\n[grants.writer_claims_read]\nfiles = [\".:read-write\"]\n",
    );
    s.write("existing.txt", "original");
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![
        call("write_path", json!({"path": "new.txt", "content": "written"})),
        call("write_path", json!({"path": "existing.txt", "content": "overwritten"})),
        call("sneaky_write", json!({})),
        call("read_path", json!({"path": "existing.txt"})),
    ]));
    mock.push_turn(Turn::text("done"));
    let done = run(&s, &mock, &[]);
    assert_survived(&done, &mock, "done");

    let sent = function_responses(&mock.requests()[1]);
    assert!(sent[0].1.starts_with("Error: execution: cannot write"), "{sent:?}");
    assert!(sent[1].1.starts_with("Error: execution: cannot write"), "{sent:?}");
    assert!(sent[2].1.starts_with("Error: execution: cannot write"), "{sent:?}");
    assert_eq!(sent[3].1, "original");
    assert_eq!(s.read("new.txt"), None);
    assert_eq!(s.read("existing.txt").as_deref(), Some("original"));
    assert_eq!(s.read("pwned.txt"), None);
    let mut names: Vec<_> = std::fs::read_dir(&s.workspace).unwrap().map(|e| e.unwrap().file_name()).collect();
    names.sort();
    assert_eq!(names, ["existing.txt"], "the workspace changed");
}

#[test]
fn an_ungranted_plugin_reads_nothing_and_the_user_is_told_the_grant_command() {
    let s = session();
    s.install_plugin(fixtures::FS_PROBE);
    s.write("inside.txt", "inside content");
    let mock = MockModel::start(Wire::Gemini);
    mock.push_turn(Turn::calls(vec![
        call("read_path", json!({"path": "inside.txt"})),
        call("read_path", json!({"path": s.workspace.join("inside.txt")})),
    ]));
    mock.push_turn(Turn::text("done"));
    let done = run(&s, &mock, &[]);
    assert_survived(&done, &mock, "done");

    let sent = function_responses(&mock.requests()[1]);
    for (_, content) in &sent {
        assert!(content.starts_with("Error: execution: cannot read"), "{sent:?}");
        assert!(!content.contains("inside content"), "{sent:?}");
    }
    assert!(done.stderr.contains("airlock plugins grant fs_probe --read ."), "{}", done.stderr);
}

#[test]
fn a_plugin_sees_exactly_the_granted_environment_variables() {
    let s = session();
    s.install_plugin(fixtures::FS_PROBE);
    s.install_plugin(fixtures::ENV_PEEK);
    // `env_peek` requests no variables, so even a grant naming them gives it none.
    grant(
        &s,
        "[grants.fs_probe]\nenv = [\"GRANTED_VAR\"]\n\n[grants.env_peek]\nenv = [\"GRANTED_VAR\", \"OPENAI_API_KEY\"]\n",
    );
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![call("read_env", json!({})), call("peek_env", json!({}))]));
    mock.push_turn(Turn::text("done"));
    let done = run(&s, &mock, &[]);
    assert_survived(&done, &mock, "done");

    let sent = function_responses(&mock.requests()[1]);
    assert_eq!(sent[0], ("read_env".to_string(), r#"[("GRANTED_VAR", "visible")]"#.to_string()));
    assert_eq!(sent[1], ("peek_env".to_string(), "[]".to_string()));
    assert!(done.stderr.contains("airlock plugins grant fs_probe --env OPENAI_API_KEY"), "{}", done.stderr);
    // The key travels in the model request's header, never in a tool result.
    let bodies = serde_json::to_string(&mock.requests()).unwrap();
    assert!(!bodies.contains(HOST_KEY), "the host's key reached a tool result");
}

#[test]
fn runaway_plugins_are_stopped_by_their_grants_limits() {
    let s = session();
    for plugin in [fixtures::SPIN_FOREVER, fixtures::MEMORY_BOMB, fixtures::STACK_BOMB, fixtures::ECHO_TOOLS] {
        s.install_plugin(plugin);
    }
    grant(&s, "[grants.spin_forever]\ntimeout_secs = 1\n\n[grants.memory_bomb]\nmemory_mb = 32\n");
    let mock = MockModel::start(Wire::Gemini);
    mock.push_turn(Turn::calls(vec![
        call("spin", json!({})),
        call("allocate", json!({})),
        call("recurse", json!({})),
        call("recurse_deep", json!({})),
    ]));
    mock.push_turn(Turn::calls(vec![call("echo", json!({"text": "still here"}))]));
    mock.push_turn(Turn::text("done"));
    let started = Instant::now();
    let done = run(&s, &mock, &[]);
    let elapsed = started.elapsed();
    assert_survived(&done, &mock, "done");
    // The grant's 1 s deadline, not the 60 s default, stopped the spinner.
    assert!(elapsed < Duration::from_secs(15), "took {elapsed:?}");

    let sent = function_responses(&mock.requests()[1]);
    assert!(sent[0].1.starts_with("Error: timeout:") && sent[0].1.contains("deadline of 1s"), "{sent:?}");
    assert!(sent[1].1.starts_with("Error: plugin_fault:") && sent[1].1.contains("memory limit of 32 MiB"), "{sent:?}");
    for (name, content) in &sent[2..] {
        assert!(content.starts_with("Error: plugin_fault:") && content.contains("crashed"), "{name}: {content}");
    }
    // Deep recursion exhausts wasmtime's stack limit; wide frames overrun the guest's own
    // stack in linear memory first, which the host sees as an out-of-bounds access.
    assert!(sent[3].1.contains("call stack exhausted"), "{sent:?}");
    assert_eq!(function_responses(&mock.requests()[2])[0].1, "still here");
}

#[test]
fn floods_are_capped_and_never_reach_the_terminal() {
    let s = session();
    s.install_plugin(fixtures::FLOOD);
    grant(&s, "[grants.flood]\nmax_output_bytes = 10000\n");
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![
        call("flood_return", json!({})),
        call("flood_stdout", json!({})),
        call("flood_log", json!({})),
    ]));
    mock.push_turn(Turn::text("done"));
    let started = Instant::now();
    let done = run(&s, &mock, &[]);
    let elapsed = started.elapsed();
    assert_survived(&done, &mock, "done");
    assert!(elapsed < Duration::from_secs(15), "took {elapsed:?}");

    let sent = function_responses(&mock.requests()[1]);
    // The 100 MiB were cut to 16 MiB where they left the plugin, then to the grant's limit;
    // the 16 MiB were saved in the session folder.
    let note = "\n[airlock: the output was truncated: showing the first 10000 of 16777253 bytes; \
                its first 16777216 bytes saved to ";
    assert!(sent[0].1.starts_with(&format!("{}{note}", "r".repeat(10_000))), "{}", &sent[0].1[10_000..]);
    assert!(sent[0].1.contains(&s.airlock_home().join("sessions").display().to_string()), "{}", &sent[0].1[10_000..]);
    assert_eq!(sent[1].1, "done");
    assert_eq!(sent[2].1, "done");
    assert!(done.stderr.len() < 10_000, "{} bytes on stderr", done.stderr.len());
    assert!(!done.stderr.contains("ssss") && !done.stderr.contains("rrrr"), "{}", done.stderr);
    // The log keeps the first 1,000 lines of a call and drops the rest.
    let log = std::fs::metadata(s.airlock_home().join("logs/airlock.log")).unwrap().len();
    assert!(log < 1 << 20, "the log grew to {log} bytes");
    let log = s.log();
    assert!(log.contains("flood_log line 999") && !log.contains("flood_log line 1000"), "lines past the cap were kept");
}

#[test]
fn live_output_floods_are_capped() {
    let s = session();
    s.install_plugin(fixtures::FLOOD);
    let mock = MockModel::start(Wire::Gemini);
    mock.push_turn(Turn::calls(vec![call("flood_live", json!({}))]));
    mock.push_turn(Turn::text("done"));
    let started = Instant::now();
    let done = run(&s, &mock, &["--output-format", "stream-json"]);
    let elapsed = started.elapsed();
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert_eq!(mock.pending_turns(), 0);
    assert!(elapsed < Duration::from_secs(15), "took {elapsed:?}");

    assert_eq!(function_responses(&mock.requests()[1])[0].1, "done");
    let events: Vec<Value> = done.stdout.lines().map(|line| serde_json::from_str(line).unwrap()).collect();
    let live: usize =
        events.iter().filter(|e| e["type"] == "tool_output").map(|e| e["chunk"].as_str().unwrap().len()).sum();
    assert!(0 < live && live <= 1 << 20, "{live} bytes of live output reached the front end");
    assert!(done.stdout.contains("live output capped at 1 MiB"), "the cut is announced");
    assert!(done.stdout.len() < 2 << 20, "{} bytes on stdout", done.stdout.len());
}

#[test]
fn broken_self_descriptions_are_reported_and_the_rest_load() {
    let s = session();
    for plugin in [
        fixtures::HUGE_DESCRIPTION,
        fixtures::BAD_NAME,
        fixtures::BAD_SCHEMA,
        fixtures::TRAP_IN_DESCRIBE,
        fixtures::ECHO_TOOLS,
    ] {
        s.install_plugin(plugin);
    }
    let mock = MockModel::start(Wire::Gemini);
    mock.push_turn(Turn::calls(vec![call("verbose", json!({})), call("echo", json!({"text": "fine"}))]));
    mock.push_turn(Turn::text("done"));
    let done = run(&s, &mock, &[]);
    assert_survived(&done, &mock, "done");

    let plugins = s.airlock_home().join("plugins");
    for (file, reason) in [
        ("huge_description.wasm", "description"),
        ("bad_name.wasm", "Bad Name!"),
        ("bad_schema.wasm", "schema"),
        ("trap_in_describe.wasm", "crashed"),
    ] {
        let path = plugins.join(file).display().to_string();
        let line = done.stderr.lines().find(|l| l.contains(&path)).unwrap_or_else(|| panic!("{file}: {}", done.stderr));
        assert!(line.contains(reason), "{file}: {line}");
        assert!(line.len() < 2_000, "{file}: the report is {} bytes long", line.len());
    }
    let tools = declared_tools(&mock.recorded()[0].body);
    for tool in ["verbose", "Bad Name!", "broken_schema"] {
        assert!(!tools.iter().any(|t| t == tool), "{tool} was offered: {tools:?}");
    }
    assert!(tools.iter().any(|t| t == "echo"), "{tools:?}");
    let sent = function_responses(&mock.requests()[1]);
    assert!(sent[0].1.starts_with("Error: tool_not_found:"), "{sent:?}");
    assert_eq!(sent[1].1, "fine");
}

#[test]
fn network_denials_reach_the_model_and_name_the_grant_that_would_allow_them() {
    let s = session();
    s.install_plugin(fixtures::NET_PROBE);
    s.install_plugin(fixtures::SOCKET_PROBE);
    // Granted, but only for what it requested: port 80, not this one.
    grant(&s, "[grants.net_probe]\nnetwork = [\"http://localhost\"]\n");
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![
        call("fetch", json!({"url": "http://127.0.0.1/requested"})),
        call("fetch", json!({"url": "http://127.0.0.2:9/never-requested"})),
        call("connect", json!({"addr": "127.0.0.1:9"})),
    ]));
    mock.push_turn(Turn::text("done"));
    let done = run(&s, &mock, &[]);
    assert_survived(&done, &mock, "done");
    let sent = function_responses(&mock.requests()[1]);
    assert!(sent[0].1.contains("HttpRequestDenied"), "{sent:?}");
    assert!(sent[1].1.contains("HttpRequestDenied"), "{sent:?}");
    assert!(sent[2].1.to_lowercase().contains("denied") || sent[2].1.contains("Permission"), "{sent:?}");
    assert!(
        done.stderr.contains("was denied http://127.0.0.1/requested: ")
            && done.stderr.contains("airlock plugins grant net_probe --net http://127.0.0.1"),
        "{}",
        done.stderr
    );
    assert!(done.stderr.contains("did not request it"), "{}", done.stderr);
}

#[test]
fn each_call_reports_the_network_requests_its_guest_sent_allowed_or_not() {
    let s = session();
    s.install_plugin(fixtures::NET_PROBE);
    let server = airlock_tests::http_server::WebServer::start();
    grant(&s, &format!("[grants.net_probe]\nnetwork = [\"http://127.0.0.1:{}\"]\n", server.port()));
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![
        call("fetch", json!({"url": server.url("/allowed")})),
        call("fetch", json!({"url": "http://127.0.0.2:9/refused"})),
    ]));
    mock.push_turn(Turn::text("done"));
    let done = run(&s, &mock, &["-o", "json"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let object: serde_json::Value =
        serde_json::from_str(&done.stdout).unwrap_or_else(|e| panic!("{e}: {}", done.stdout));
    let calls = object["tool_calls"].as_array().unwrap_or_else(|| panic!("{object}"));
    let requests: Vec<u64> = calls.iter().map(|c| c["cost"]["network_requests"].as_u64().unwrap_or(99)).collect();
    assert_eq!(requests, [1, 1], "one request each, the refused one counted too: {object}");
    assert_eq!(object["stats"]["by_tool"]["fetch"]["network_requests"], 2);
    assert!(calls.iter().all(|c| c["cost"]["peak_memory_bytes"].as_u64().unwrap_or(0) > 0), "{object}");
}
