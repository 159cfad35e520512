//! Every language kit's example of reaching outside (issue 30): built from source by the
//! kit's own `build.sh`, installed, and called by the scripted model in the real binary. The
//! `http_get` tool GETs a page of a real HTTP server on 127.0.0.1 through `wasi:http`, and the
//! `run_echo` tool runs `echo` through `airlock:host/process`. Before the user grants them
//! the network and the command, both are refused — the server sees no request, nothing is
//! echoed — and the model is told why; once granted, both work. (Every kit's example is
//! `examples/http_and_process`, with both tools.)

use std::path::PathBuf;

use airlock_tests::http_server::WebServer;
use airlock_tests::kits::{self, root};
use airlock_tests::{Finished, MockModel, Session, Turn, Wire, call, function_responses};
use serde_json::json;

use crate::session;

/// One kit's example.
struct Example {
    /// The kit's folder in `plugin-sdk/`.
    lang: &'static str,
    /// The example's folder in the kit's `examples/`, and the plugin's name.
    folder: &'static str,
    plugin: &'static str,
}

/// The kit's `http_and_process` example, both tools.
fn with_http(lang: &'static str) -> Example {
    Example { lang, folder: "http_and_process", plugin: "http-and-process" }
}
/// What `run_echo` is asked to print: words no other part of the run says.
const WORDS: [&str; 3] = ["kit", "echo", "4f1c9a"];

/// The kit's example component, built from source.
fn build(example: &Example) -> PathBuf {
    let _slot = crate::shared();
    let kit = root().join("plugin-sdk").join(example.lang);
    let project = kit.join("examples").join(example.folder);
    let inputs = [kit.clone(), root().join("plugin-sdk/wit")];
    kits::build(&format!("{}-{}", example.lang, example.folder), &kit.join("build.sh"), &project, &inputs)
}

/// `airlock plugins ARGS` with no model, to the end; it must succeed.
fn plugins(s: &Session, args: &[&str]) -> Finished {
    let mut command = s.bare_command();
    command.arg("plugins").args(args).arg("--workspace").arg(&s.workspace);
    let done = Session::run(command);
    assert_eq!(done.code, Some(0), "airlock plugins {args:?}: {}\n{}", done.stderr, done.stdout);
    done
}

/// One run in which the model calls `http_get` for `url` and `run_echo` with [`WORDS`] (in
/// one batch, every call approved), then answers `done`; what each call sent back.
fn both_calls(s: &Session, url: &str) -> (String, String) {
    let mock = MockModel::start(Wire::OpenAi);
    let calls = vec![call("http_get", json!({ "url": url })), call("run_echo", json!({ "words": WORDS }))];
    let expected = calls.len();
    mock.push_turn(Turn::calls(calls));
    mock.push_turn(Turn::text("done"));
    let done = s.airlock(&mock, &["-p", "fetch and echo", "--approval-mode", "yolo"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert_eq!(done.stdout.trim(), "done", "{}", done.stdout);
    let requests = mock.requests();
    let sent: Vec<String> =
        requests.get(1).map(function_responses).unwrap_or_default().into_iter().map(|(_, t)| t).collect();
    assert_eq!(sent.len(), expected, "{sent:?}\n{}", done.stderr);
    match sent.as_slice() {
        [fetched, ran] => (fetched.clone(), ran.clone()),
        _ => unreachable!("checked above"),
    }
}

fn reaches_out_only_when_granted(example: Example) {
    let lang = example.lang;
    let component = build(&example);
    let s = session();
    let server = WebServer::start();
    let installed = {
        let mut command = s.bare_command();
        command.args(["plugins", "install"]).arg(&component);
        Session::run(command)
    };
    assert_eq!(installed.code, Some(0), "{}", installed.stderr);
    let shown = plugins(&s, &["show", example.plugin]).stdout;
    assert!(shown.contains("echo"), "{lang}: {shown}");
    assert!(shown.contains("http://127.0.0.1:*"), "{lang}: {shown}");
    // The workspace, where `echo` runs, but neither the network nor the command.
    plugins(&s, &["grant", example.plugin, "--read", "."]);

    let url = server.url("/hello");
    let echoed = WORDS.join(" ");
    let (fetched, ran) = both_calls(&s, &url);
    assert!(fetched.contains("denied") && fetched.contains("grant"), "{lang}: http_get was not refused: {fetched}");
    assert!(!fetched.contains("HTTP 200"), "{lang}: {fetched}");
    assert!(server.requests().is_empty(), "{lang}: the server was reached: {:?}", server.requests());
    assert!(ran.contains("not granted"), "{lang}: run_echo was not refused: {ran}");
    assert!(!ran.contains(&echoed), "{lang}: echo ran without a grant: {ran}");

    let rule = format!("http://127.0.0.1:{}", server.port());
    plugins(&s, &["grant", example.plugin, "--process", "echo", "--net", &rule]);
    let (fetched, ran) = both_calls(&s, &url);
    assert!(fetched.contains("HTTP 200") && fetched.contains("hello"), "{lang}: {fetched}");
    assert_eq!(server.requests(), ["/hello"], "{lang}");
    assert!(ran.contains(&echoed), "{lang}: {ran}");
}

#[test]
fn the_rust_kits_http_and_process_reach_out_only_when_granted() {
    reaches_out_only_when_granted(with_http("rust"));
}

#[test]
fn the_javascript_kits_http_and_process_reach_out_only_when_granted() {
    reaches_out_only_when_granted(with_http("js"));
}

#[test]
fn the_python_kits_http_and_process_reach_out_only_when_granted() {
    reaches_out_only_when_granted(with_http("python"));
}

#[test]
fn the_c_kits_http_and_process_reach_out_only_when_granted() {
    reaches_out_only_when_granted(with_http("c"));
}
