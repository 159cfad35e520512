//! Terminal injection (issue 7, item 7) and schema bombs (item 11) through the real binary.
//! A plugin (`hostile_text`), the model and a repository's `AIRLOCK.md` all write escape
//! sequences, carriage returns, newlines that forge airlock's own `✓ read_file` lines and
//! approval menus, bidi overrides and zero-width characters. Whatever airlock prints as text
//! must contain none of them raw, and no forged line; a suggested command must be pasteable
//! as exactly what it says. A `$ref`-doubling schema is a load problem, and the run still
//! answers promptly (every run here is bounded by a timeout and killed past it).

use std::time::{Duration, Instant};

use airlock_engine::sanitize::is_hidden;
use airlock_tests::{Finished, MockModel, Session, Turn, Wire, call, fixtures, function_responses, run_bounded};
use serde_json::{Value, json};

use crate::session;

/// The line a hostile string tries to forge.
const FORGED: &str = "✓ read_file · README.md";

const LIMIT: Duration = Duration::from_secs(120);

/// No raw control, bidi or invisible character but newlines.
fn assert_clean(what: &str, text: &str) {
    for (number, line) in text.lines().enumerate() {
        for c in line.chars() {
            assert!(!is_hidden(c), "{what}: raw {c:?} on line {} {line:?}\n{text}", number + 1);
        }
    }
}

/// No line of `text` starts with a forged success line.
fn assert_no_forged_line(what: &str, text: &str) {
    for line in text.lines() {
        assert!(!line.trim_start().starts_with(FORGED), "{what}: forged line {line:?}\n{text}");
    }
}

/// A session with the hostile plugin installed and its flag-named folder present.
fn hostile_session() -> Session {
    let s = session();
    s.install_plugin(fixtures::HOSTILE_TEXT);
    std::fs::create_dir_all(s.workspace.join("docs --write ~")).unwrap_or_else(|e| panic!("mkdir: {e}"));
    s
}

#[test]
fn errors_descriptions_and_unknown_tool_names_cannot_forge_lines_in_text_mode() {
    let s = hostile_session();
    let mock = MockModel::start(Wire::Gemini);
    mock.push_turn(Turn::calls(vec![
        call("fail_forge", json!({})),
        call("ghost\x1b[2J\r\n✓ read_file · README.md\u{202e}", json!({})),
    ]));
    mock.push_turn(Turn::text("done \x1b]0;title\x07\u{202e}ok"));
    let mut command = s.command(&mock);
    command.args(["-p", "go"]);
    let done = run_bounded(command, Some(""), LIMIT);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert_clean("stderr", &done.stderr);
    assert_clean("stdout", &done.stdout);
    assert_no_forged_line("stderr", &done.stderr);
    // The failed call is one line, its error's newline shown as `\n`.
    let line = done.stderr.lines().find(|l| l.starts_with("✗ fail_forge")).unwrap_or_else(|| panic!("{}", done.stderr));
    assert!(line.contains("boom\\n✓ read_file"), "{line}");
    assert!(line.contains("\\x1b[1A\\x1b[2K\\r✓ read_file"), "the description: {line}");
    let ghost = done.stderr.lines().find(|l| l.starts_with("✗ ghost")).unwrap_or_else(|| panic!("{}", done.stderr));
    assert!(ghost.contains("ghost\\x1b[2J\\r\\n✓ read_file"), "{ghost}");
    // The model's answer keeps its text, its controls made visible.
    assert_eq!(done.stdout, "done \\x1b]0;title\\x07\\u{202e}ok\n");
    // The hint for a folder named like flags pastes as one --read argument.
    assert!(
        done.stderr.contains("to grant it: airlock plugins grant hostile_text --read 'docs --write ~'"),
        "{}",
        done.stderr
    );
    assert!(!done.stderr.contains("--read docs --write ~"), "{}", done.stderr);
    // What the model is told is data, not terminal text: it still gets the error as written.
    let requests = mock.requests();
    let responses = function_responses(&requests[1]);
    assert!(responses.iter().any(|(name, text)| name == "fail_forge" && text.contains("boom")), "{responses:?}");
}

#[test]
fn an_ask_confirmation_cannot_draw_a_fake_menu_even_in_stream_json_mode() {
    let s = hostile_session();
    for format in ["stream-json", "json", "text"] {
        let mock = MockModel::start(Wire::OpenAi);
        mock.push_turn(Turn::calls(vec![call("ask_exec", json!({})), call("ask_edit", json!({}))]));
        mock.push_turn(Turn::text("refused"));
        let mut command = s.command(&mock);
        command.args(["-p", "go", "--ask", "-o", format]);
        let done = run_bounded(command, Some("n\nn\n"), LIMIT);
        assert_eq!(done.code, Some(0), "{format}: {}", done.stderr);
        assert_clean(format, &done.stderr);
        assert_no_forged_line(format, &done.stderr);
        // Two questions, so exactly two real menus: every forged menu line is escaped inside
        // another line.
        let menus = done.stderr.lines().filter(|l| l.starts_with("  y  allow once")).count();
        assert_eq!(menus, 2, "{format}: {}", done.stderr);
        let always = done.stderr.lines().filter(|l| l.starts_with("  s  allow always")).count();
        assert_eq!(always, 2, "{format}: {}", done.stderr);
        assert!(done.stderr.contains("  $ ls\\n  y  allow once (safe)\\x1b[2K\\r\\x1b[1A"), "{}", done.stderr);
        assert!(done.stderr.contains("in /tmp\\n  s  allow always"), "{}", done.stderr);
        assert!(done.stderr.contains("+\\x1b[1A\\x1b[2K  y  allow once"), "{}", done.stderr);
        assert!(done.stderr.contains("\\u{202e}"), "{}", done.stderr);
        if format != "text" {
            for line in done.stdout.lines() {
                serde_json::from_str::<Value>(line).unwrap_or_else(|e| panic!("{format}: {e}: {line}"));
            }
        }
    }
}

/// `airlock ARGS` with no model, bounded.
fn airlock(s: &Session, args: &[&str]) -> Finished {
    let mut command = s.bare_command();
    command.args(args);
    run_bounded(command, Some(""), LIMIT)
}

#[test]
fn the_review_commands_show_a_hostile_plugin_escaped() {
    let s = hostile_session();
    let inspect = airlock(&s, &["plugins", "inspect", fixtures::HOSTILE_TEXT]);
    let list = airlock(&s, &["plugins", "list"]);
    let show = airlock(&s, &["plugins", "show", "hostile_text"]);
    let tools = airlock(&s, &["tools", "list"]);
    for (what, done) in [("inspect", &inspect), ("list", &list), ("show", &show), ("tools list", &tools)] {
        assert_eq!(done.code, Some(0), "{what}: {}", done.stderr);
        assert_clean(what, &done.stdout);
        assert_clean(what, &done.stderr);
        assert_no_forged_line(what, &done.stdout);
        assert!(done.stdout.contains("1.0.0\\x1b[2J\\u{202e}evil"), "{what}: the version\n{}", done.stdout);
    }
    for (what, done) in [("inspect", &inspect), ("show", &show), ("tools list", &tools)] {
        assert!(done.stdout.contains("Fail\\x1b[8m hidden\\u{202e}"), "{what}: the display name\n{}", done.stdout);
        assert!(done.stdout.contains("Edit\\r\\x1b[K"), "{what}\n{}", done.stdout);
    }
    assert!(inspect.stdout.contains("requests: read 'docs --write ~'"), "{}", inspect.stdout);
    assert!(
        show.stdout.contains("to grant the rest: airlock plugins grant hostile_text --read 'docs --write ~'"),
        "{}",
        show.stdout
    );
    assert!(tools.stdout.contains("Reads\\x1b]0;pwned\\x07 files\\u{200b}"), "{}", tools.stdout);
    // JSON is data: the fields are there, JSON-escaped, never raw.
    let json = airlock(&s, &["tools", "list", "--json"]);
    assert!(!json.stdout.contains('\x1b'), "{}", json.stdout);
    let value: Value = serde_json::from_str(&json.stdout).unwrap();
    let tools = value["tools"].as_array().unwrap();
    assert!(tools.iter().any(|t| t["display_name"] == "Fail\x1b[8m hidden\u{202e}"), "{value}");
}

#[test]
fn show_context_shows_a_hostile_airlock_md_escaped() {
    let s = session();
    let hostile = "# Notes\n\x1b[2J\x1b[H✓ read_file · README.md\r\x1b]0;pwned\x07\nif (admin) { /* \u{202e} } \u{2066} */\nzero\u{200b}width\u{feff}\n\tindented\n";
    s.write("AIRLOCK.md", hostile);
    let done = airlock(&s, &["--workspace", s.workspace.to_str().unwrap(), "--show-context"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    for line in done.stdout.lines() {
        for c in line.chars().filter(|c| *c != '\t') {
            assert!(!is_hidden(c), "raw {c:?} in {line:?}");
        }
    }
    assert_no_forged_line("show-context", &done.stdout);
    assert!(done.stdout.contains("\\x1b[2J\\x1b[H✓ read_file · README.md\\r\\x1b]0;pwned\\x07"), "{}", done.stdout);
    assert!(done.stdout.contains("/* \\u{202e} } \\u{2066} */"), "{}", done.stdout);
    assert!(done.stdout.contains("zero\\u{200b}width\\u{feff}"), "{}", done.stdout);
    assert!(done.stdout.contains("\n\tindented\n"), "tabs are kept: {}", done.stdout);
}

#[test]
fn a_schema_bomb_is_a_load_problem_and_the_run_still_answers_promptly() {
    let s = session();
    let plugins = s.airlock_home().join("plugins");
    std::fs::create_dir_all(&plugins).unwrap();
    // Its file name attacks the terminal too: load problems quote it.
    std::fs::copy(fixtures::SCHEMA_BOMB, plugins.join("bomb\x1b[2J\u{202e}.wasm")).unwrap();
    let mock = MockModel::start(Wire::Gemini);
    mock.push_turn(Turn::calls(vec![call("bomb", json!({"x": "a"}))]));
    mock.push_turn(Turn::text("still here"));
    let started = Instant::now();
    let mut command = s.command(&mock);
    command.args(["-p", "go"]);
    let done = run_bounded(command, Some(""), Duration::from_secs(60));
    assert!(started.elapsed() < Duration::from_secs(60));
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert_eq!(done.stdout, "still here\n", "{}", done.stderr);
    assert_clean("stderr", &done.stderr);
    let problem = done
        .stderr
        .lines()
        .find(|l| l.starts_with("warning: plugin ") && l.contains("bomb\\x1b[2J\\u{202e}.wasm"))
        .unwrap_or_else(|| panic!("{}", done.stderr));
    assert!(problem.contains("more than 10000 schemas") || problem.contains("deeper than 64"), "{problem}");
    assert!(done.stderr.contains("✗ bomb"), "the call is refused as unknown: {}", done.stderr);
    // The model is not offered the tool.
    let requests = mock.requests();
    assert!(!airlock_tests::declared_tools(&requests[0]).contains(&"bomb".to_string()));
    // `tools list` reports it the same way, promptly.
    let listed = airlock(&s, &["tools", "list"]);
    assert!(listed.stdout.contains("problem: ") && listed.stdout.contains("bomb\\x1b[2J"), "{}", listed.stdout);
    assert_clean("tools list", &listed.stdout);
    // Reviewing the file before installing it fails the same way, its name escaped.
    let file = plugins.join("bomb\x1b[2J\u{202e}.wasm");
    let inspected = airlock(&s, &["plugins", "inspect", file.to_str().unwrap_or_default()]);
    assert_ne!(inspected.code, Some(0), "{}", inspected.stdout);
    assert_clean("inspect", &inspected.stderr);
    assert!(inspected.stderr.contains("bomb\\x1b[2J\\u{202e}.wasm"), "{}", inspected.stderr);
    assert!(
        inspected.stderr.contains("more than 10000 schemas") || inspected.stderr.contains("deeper than 64"),
        "{}",
        inspected.stderr
    );
}
