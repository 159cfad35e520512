//! A served session over time: a command's live output reaches the client as
//! `notifications/progress` while it runs, a client's cancellation stops a slow call and its
//! process (the session serves on), and a plugin dropped into `$AIRLOCK_HOME/plugins/` while a client
//! is connected reaches it as `notifications/tools/list_changed` (on 2026-07-28 through
//! `subscriptions/listen`), then in its `tools/list`.

use std::time::Duration;

use airlock_tests::{Session, fixtures};
use serde_json::{Value, json};

use super::{Http, Server, Watching, client, client_command, run_steps_in, text};
use crate::session;

/// Cancels a `sleep 30.NNN` after 3 s and checks the call ended by the cancellation and the
/// `sleep` is gone while the session still answers. `marker` is the sleep's argument, unique to
/// the test so that no other test's process is mistaken for it.
fn cancelled(s: &Session, server: &Server, marker: &str) {
    let command = json!({ "command": format!("sleep {marker}") }).to_string();
    let printed = client(s, server, "legacy", &["cancel", "run_shell_command", &command, marker, "--after", "3"]);
    assert!(printed.get("error").is_none(), "{printed}");
    assert_eq!(printed["finished"], Value::Null, "the slow call ended by itself: {printed}");
    assert_eq!(printed["marker_seen"], true, "the sleep never ran, so nothing was cancelled: {printed}");
    assert!(printed["marker_gone_after"].is_number(), "the sleep outlived the cancellation: {printed}");
    assert!(printed["tools_after"].as_u64().is_some_and(|n| n > 0), "the session stopped serving: {printed}");
}

#[test]
fn a_cancelled_slow_call_stops_its_process_over_stdio() {
    let s = session();
    cancelled(&s, &Server::Stdio(&["--approval-mode", "yolo"]), "30.3141");
}

#[test]
fn a_cancelled_slow_call_stops_its_process_over_http() {
    let s = session();
    let http = Http::start(&s, &["--approval-mode", "yolo"]);
    cancelled(&s, &Server::Http(&http, &http.token), "30.2718");
}

#[test]
fn live_output_reaches_the_client_as_progress() {
    let s = session();
    let http = Http::start(&s, &["--approval-mode", "yolo"]);
    let yolo = Server::Stdio(&["--approval-mode", "yolo"]);
    let command = json!({ "command": "for i in 1 2 3; do echo line$i; sleep 0.3; done" });
    for (server, mode) in [(&yolo, "legacy"), (&yolo, "2026-07-28"), (&Server::Http(&http, &http.token), "legacy")] {
        let results = run_steps_in(&s, server, mode, &[("a", "none")], &[("a", "run_shell_command", command.clone())]);
        assert!(text(&results[0]).contains("line3"), "{mode}: {}", results[0]);
        let progress = results[0]["progress"].as_array().cloned().unwrap_or_default();
        let shown: String = progress.iter().filter_map(Value::as_str).collect();
        assert_eq!(shown, "line1\nline2\nline3\n", "{mode}: the output came not as progress: {}", results[0]);
    }
}

/// Starts `watch`, drops the echo fixture into the plugins folder once the client is ready,
/// and checks the client heard of it and lists its tools.
fn plugin_reaches(s: &Session, server: &Server, mode: &str) {
    let mut watching = Watching::start(client_command(s, server, mode, &["watch", "--timeout", "60"]));
    let ready = watching.next(Duration::from_secs(120));
    assert_eq!(ready["event"], "ready", "{ready}");
    assert_eq!(ready["protocol"], if mode == "legacy" { "2025-11-25" } else { mode }, "{ready}");
    let names = |v: &Value| v["tools"].as_array().cloned().unwrap_or_default();
    assert!(!names(&ready).contains(&json!("echo")), "{ready}");
    s.install_plugin(fixtures::ECHO_TOOLS);
    let changed = watching.next(Duration::from_secs(90));
    assert_eq!(changed["event"], "changed", "no tools/list_changed reached the client: {changed}");
    assert!(names(&changed).contains(&json!("echo")) && names(&changed).contains(&json!("shout")), "{changed}");
    assert!(names(&changed).contains(&json!("read_file")), "{changed}");
}

#[test]
fn a_plugin_dropped_in_reaches_a_stdio_client_as_list_changed() {
    let s = session();
    plugin_reaches(&s, &Server::Stdio(&[]), "legacy");
}

#[test]
fn a_plugin_dropped_in_reaches_an_http_client_as_list_changed() {
    let s = session();
    let http = Http::start(&s, &[]);
    plugin_reaches(&s, &Server::Http(&http, &http.token), "legacy");
}

#[test]
fn a_plugin_dropped_in_reaches_a_2026_07_28_listener() {
    let s = session();
    plugin_reaches(&s, &Server::Stdio(&[]), "2026-07-28");
}
