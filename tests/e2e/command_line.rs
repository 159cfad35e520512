//! The command line as a script or a new user meets it (issue 8, items 4, 9 and 10): where
//! the prompt comes from and that an open standard input never holds a `-p` run, exit 2 for
//! a wrong command line, and a reader that closes stdout early is a normal end.

use std::process::{Command, Stdio};
use std::time::Duration;

use airlock_tests::{Finished, MockModel, Session, Turn, Wire, run_bounded};
use serde_json::Value;

use crate::session;

/// The user message of the first request the model received.
fn first_prompt(mock: &MockModel) -> String {
    let request = mock.requests().into_iter().next().unwrap_or_else(|| panic!("the model received no request"));
    let messages = request["messages"].as_array().cloned().unwrap_or_default();
    let user = messages.iter().find(|m| m["role"] == "user").cloned().unwrap_or(Value::Null);
    user["content"].as_str().unwrap_or_default().to_owned()
}

/// Runs `command` with `input` written to its stdin, which is then closed.
fn with_stdin(command: Command, input: &str) -> Finished {
    run_bounded(command, Some(input), Duration::from_secs(60))
}

#[test]
fn a_prompt_flag_does_not_wait_for_an_open_stdin() {
    // `sleep 600 | airlock -p hi`, a CI job or an ssh session: stdin is a pipe nobody closes.
    let s = session();
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::text("hello"));
    let mut command = s.command(&mock);
    command.args(["-p", "hi"]);
    // Generous: a cold component cache on a busy machine takes a while; the old code never ended.
    let done = run_bounded(command, None, Duration::from_secs(120));
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert_eq!(done.stdout.trim(), "hello");
    assert_eq!(first_prompt(&mock), "hi", "stdin must not be read into the prompt");
}

#[test]
fn piped_input_is_ignored_after_a_prompt_flag_unless_asked_for() {
    let s = session();
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::text("ok"));
    let mut command = s.command(&mock);
    command.args(["-p", "Summarise"]);
    let done = with_stdin(command, "ignored text\n");
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert_eq!(first_prompt(&mock), "Summarise");
}

#[test]
fn stdin_flag_appends_the_piped_text_to_the_prompt() {
    let s = session();
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::text("ok"));
    let mut command = s.command(&mock);
    command.args(["-p", "Review this diff", "--stdin"]);
    let done = with_stdin(command, "-old\n+new\n");
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert_eq!(first_prompt(&mock), "Review this diff\n\n-old\n+new");
}

#[test]
fn a_dash_prompt_is_read_from_stdin() {
    let s = session();
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::text("ok"));
    let mut command = s.command(&mock);
    command.args(["-p", "-"]);
    let done = with_stdin(command, "the prompt from a file\n");
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert_eq!(first_prompt(&mock), "the prompt from a file");

    // An empty stdin is no prompt, said as such.
    let mut command = s.command(&mock);
    command.args(["-p", "-"]);
    let done = with_stdin(command, "  \n");
    assert_eq!(done.code, Some(42), "{}", done.stderr);
    assert!(done.stderr.contains("standard input was empty"), "{}", done.stderr);
}

#[test]
fn ask_never_takes_the_prompt_from_stdin_and_says_so() {
    let s = session();
    let mock = MockModel::start(Wire::OpenAi);
    // `echo y | airlock --ask`: the user did pipe something; the message must not say to.
    let mut command = s.command(&mock);
    command.arg("--ask");
    let done = with_stdin(command, "y\n");
    assert_eq!(done.code, Some(42), "{}", done.stderr);
    assert!(done.stderr.contains("give it with -p"), "{}", done.stderr);
    assert!(!done.stderr.contains("pipe"), "{}", done.stderr);

    let mut command = s.command(&mock);
    command.args(["-p", "-", "--ask"]);
    let done = with_stdin(command, "y\n");
    assert_eq!(done.code, Some(2), "{}", done.stderr);
    assert!(done.stderr.contains("--ask"), "{}", done.stderr);
    let mut command = s.command(&mock);
    command.args(["-p", "x", "--stdin", "--ask"]);
    let done = with_stdin(command, "y\n");
    assert_eq!(done.code, Some(2), "{}", done.stderr);
    assert!(mock.requests().is_empty());
}

#[test]
fn bad_flag_values_are_bad_command_lines() {
    let s = session();
    let mock = MockModel::start(Wire::OpenAi);
    let done = s.airlock(&mock, &["-p", "hi", "--max-turns", "0"]);
    assert_eq!(done.code, Some(2), "{}", done.stderr);
    assert!(done.stderr.contains("--max-turns"), "{}", done.stderr);

    for url in ["not-a-url", "ftp://example.com/v1", "127.0.0.1:11434/v1", "http://"] {
        let done = Session::run({
            let mut c = s.bare_command();
            c.args(["--provider", "openai", "--base-url", url, "-p", "hi", "--workspace"]).arg(&s.workspace);
            c
        });
        assert_eq!(done.code, Some(2), "{url}: {}", done.stderr);
        assert!(done.stderr.contains("--base-url"), "{url}: {}", done.stderr);
        assert!(!done.stderr.contains("provider's base_url"), "{url}: {}", done.stderr);
    }
    assert!(mock.requests().is_empty());
}

#[test]
fn a_bad_base_url_in_the_config_file_names_its_line() {
    let s = session();
    let mock = MockModel::start(Wire::OpenAi);
    s.write_config("provider = \"openai\"\nbase_url = \"localhost:11434/v1\"\n");
    let done = Session::run({
        let mut c = s.bare_command();
        c.args(["-p", "hi", "--workspace"]).arg(&s.workspace);
        c
    });
    assert_eq!(done.code, Some(52), "{}", done.stderr);
    assert!(done.stderr.contains("config.toml: line 2: base_url `localhost:11434/v1`"), "{}", done.stderr);
    assert!(mock.requests().is_empty());
}

#[test]
fn a_reader_that_closes_stdout_early_is_a_normal_end() {
    let s = session();
    let listings: [&[&str]; 4] =
        [&["tools", "list"], &["tools", "list", "--json"], &["sessions", "list"], &["plugins", "list"]];
    for args in listings {
        // The read end is closed before airlock writes a byte: every write meets EPIPE,
        // as at the end of `airlock tools list | head -1`.
        let (reader, writer) = std::io::pipe().unwrap_or_else(|e| panic!("pipe: {e}"));
        drop(reader);
        let mut command = s.bare_command();
        command.args(args).arg("--workspace").arg(&s.workspace).stdout(writer).stderr(Stdio::piped());
        let output = command.output().unwrap_or_else(|e| panic!("cannot run airlock: {e}"));
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert_eq!(output.status.code(), Some(0), "{args:?}: {stderr}");
        assert!(!stderr.contains("Broken pipe") && !stderr.contains("cannot write"), "{args:?}: {stderr}");
    }
}
