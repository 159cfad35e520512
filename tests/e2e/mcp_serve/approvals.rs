//! Approvals through a served call: in the default mode an edit needs a person. A client that
//! declared no elicitation gets a refusal naming what would allow the call, and the file stays;
//! a client that declared it is asked, with what the confirmation shows, and its user's answer
//! decides (accept: the file changes; decline or cancel: it stays), on the legacy handshake and
//! on 2026-07-28 (`InputRequiredResult`). Two HTTP clients keep their "allow for this session" apart.

use serde_json::{Value, json};

use super::{Http, Server, run_steps, run_steps_in, text};
use crate::session;

const BEFORE: &str = "colour = red\n";

/// A `replace` in `config.txt` of `red` by `to`.
fn edit(to: &str) -> Value {
    json!({ "file_path": "config.txt", "old_string": "red", "new_string": to })
}

/// Checks that `result` is a refusal that names the approval mode and the rule that would
/// allow it.
fn refused_naming_the_mode(result: &Value) {
    assert_eq!(result["is_error"], true, "{result}");
    let said = text(result);
    assert!(said.contains("--approval-mode auto-edit"), "the refusal names no approval mode: {result}");
    assert!(said.contains("[[rule]] tool = \"replace\""), "the refusal names no rule: {result}");
}

#[test]
fn an_edit_is_refused_without_elicitation_over_stdio_and_http() {
    let s = session();
    s.write("config.txt", BEFORE);
    let steps = [("a", "replace", edit("blue"))];
    let stdio = run_steps(&s, &Server::Stdio(&[]), &[("a", "none")], &steps);
    refused_naming_the_mode(&stdio[0]);
    let http = Http::start(&s, &[]);
    let over_http = run_steps(&s, &Server::Http(&http, &http.token), &[("a", "none")], &steps);
    refused_naming_the_mode(&over_http[0]);
    assert_eq!(s.read("config.txt").as_deref(), Some(BEFORE), "a refused edit changed the file");
}

#[test]
fn the_approval_mode_given_to_the_server_decides_as_in_the_agent() {
    let s = session();
    s.write("config.txt", BEFORE);
    let results = run_steps(
        &s,
        &Server::Stdio(&["--approval-mode", "auto-edit"]),
        &[("a", "none")],
        &[("a", "replace", edit("green"))],
    );
    assert_eq!(results[0]["is_error"], false, "{}", results[0]);
    assert_eq!(results[0]["elicitations"], json!([]), "auto-edit asks nobody: {}", results[0]);
    assert_eq!(s.read("config.txt").as_deref(), Some("colour = green\n"));
}

#[test]
fn an_edit_accepted_through_elicitation_changes_the_file_and_the_question_shows_the_diff() {
    let s = session();
    s.write("config.txt", BEFORE);
    let results = run_steps(&s, &Server::Stdio(&[]), &[("a", "accept:once")], &[("a", "replace", edit("blue"))]);
    let result = &results[0];
    assert_eq!(result["is_error"], false, "{result}");
    let asked = result["elicitations"].as_array().cloned().unwrap_or_default();
    assert_eq!(asked.len(), 1, "one question for one edit: {result}");
    let message = asked[0]["message"].as_str().unwrap_or_default();
    assert!(message.contains("config.txt"), "the question names no file: {message}");
    assert!(message.contains("-colour = red\n+colour = blue"), "the question shows no diff: {message}");
    assert!(message.contains("read-write"), "the question shows no sandbox: {message}");
    assert_eq!(asked[0]["mode"], "form", "{result}");
    assert_eq!(s.read("config.txt").as_deref(), Some("colour = blue\n"));
}

#[test]
fn an_edit_declined_or_cancelled_through_elicitation_leaves_the_file() {
    let s = session();
    s.write("config.txt", BEFORE);
    let http = Http::start(&s, &[]);
    for answer in ["decline", "cancel"] {
        for server in [Server::Stdio(&[]), Server::Http(&http, &http.token)] {
            let results = run_steps(&s, &server, &[("a", answer)], &[("a", "replace", edit("blue"))]);
            assert_eq!(results[0]["is_error"], true, "{answer}: {}", results[0]);
            assert_eq!(results[0]["elicitations"].as_array().map(Vec::len), Some(1), "{}", results[0]);
            assert_eq!(s.read("config.txt").as_deref(), Some(BEFORE), "a {answer} changed the file");
        }
    }
}

#[test]
fn on_2026_07_28_the_question_comes_as_input_required_and_the_answer_decides() {
    let s = session();
    s.write("config.txt", BEFORE);
    let stdio = Server::Stdio(&[]);
    let declined = run_steps_in(&s, &stdio, "2026-07-28", &[("a", "decline")], &[("a", "replace", edit("blue"))]);
    assert_eq!(declined[0]["is_error"], true, "{}", declined[0]);
    assert_eq!(s.read("config.txt").as_deref(), Some(BEFORE));
    let accepted = run_steps_in(&s, &stdio, "2026-07-28", &[("a", "accept:once")], &[("a", "replace", edit("blue"))]);
    assert_eq!(accepted[0]["is_error"], false, "{}", accepted[0]);
    assert_eq!(accepted[0]["elicitations"].as_array().map(Vec::len), Some(1), "{}", accepted[0]);
    assert_eq!(s.read("config.txt").as_deref(), Some("colour = blue\n"));
}

#[test]
fn two_http_clients_keep_their_allow_for_the_session_apart() {
    let s = session();
    s.write("config.txt", BEFORE);
    let http = Http::start(&s, &[]);
    let edit_to = |from: &str, to: &str| json!({ "file_path": "config.txt", "old_string": from, "new_string": to });
    // Both clients are connected (two MCP sessions) before either calls, and stay so.
    let results = run_steps(
        &s,
        &Server::Http(&http, &http.token),
        &[("a", "accept:session"), ("b", "decline")],
        &[
            ("a", "replace", edit_to("red", "blue")),
            ("a", "replace", edit_to("blue", "green")),
            ("b", "replace", edit_to("green", "black")),
        ],
    );
    let asked = |i: usize| results[i]["elicitations"].as_array().map(Vec::len).unwrap_or(0);
    assert_eq!((results[0]["is_error"].clone(), asked(0)), (json!(false), 1), "A is asked once: {}", results[0]);
    assert_eq!(
        (results[1]["is_error"].clone(), asked(1)),
        (json!(false), 0),
        "A's allow-for-the-session holds: {}",
        results[1]
    );
    assert_eq!(asked(2), 1, "B is asked although A allowed it for the session: {}", results[2]);
    assert_eq!(results[2]["is_error"], true, "B declined: {}", results[2]);
    assert_eq!(s.read("config.txt").as_deref(), Some("colour = green\n"));
}
