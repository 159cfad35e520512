//! The question a person answers about a command line (issue 23, item 5; issue 24, item 6),
//! through the real binary with `--ask`: it names every command riskiest first, shows the whole
//! line with blank runs collapsed, and "always" covers each command it showed.

use std::time::Duration;

use airlock_tests::{MockModel, Turn, Wire, call, function_responses, run_bounded};
use serde_json::json;

use super::session;

#[test]
fn a_command_hidden_behind_blanks_is_named_first_and_does_not_run_when_refused() {
    let s = session();
    s.write("x", "keep me");
    let line = format!("echo harmless{}; rm -f x", " ".repeat(1100));
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![call("run_shell_command", json!({ "command": line }))]));
    mock.push_turn(Turn::text("done"));
    let mut command = s.command(&mock);
    command.args(["-p", "go", "--ask"]);
    let done = run_bounded(command, Some("n\n"), Duration::from_secs(120));
    let question = done.stderr.split("? n").next().unwrap_or_default();
    let rm = question.find("high   rm -f x").unwrap_or_else(|| panic!("rm is not named: {question}"));
    let echo = question.find("low    echo harmless").unwrap_or_else(|| panic!("echo is not named: {question}"));
    assert!(rm < echo, "the riskiest command comes first: {question}");
    assert!(question.contains("$ echo harmless␣×1100; rm -f x"), "{question}");
    // The plugin's own description is cut short by the host: the list above is what shows the `rm`.
    assert!(question.contains("wants to run: echo harmless␣×"), "{question}");
    assert!(question.contains("`run_shell_command` running `rm …` · `echo …`"), "{question}");
    // (The answers line up in columns of up to ten blanks; the hidden run had 1,100.)
    assert!(!question.contains(&" ".repeat(12)), "no run of blanks reaches the terminal: {question}");
    assert_eq!(s.read("x").as_deref(), Some("keep me"));
}

#[test]
fn long_lines_are_wrapped_and_newlines_shown_never_cut() {
    let s = session();
    let tail = "z".repeat(1500);
    let line = format!("echo {tail}\ntouch made");
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![call("run_shell_command", json!({ "command": line }))]));
    mock.push_turn(Turn::text("done"));
    let mut command = s.command(&mock);
    command.args(["-p", "go", "--ask"]);
    let done = run_bounded(command, Some("n\n"), Duration::from_secs(120));
    let question = &done.stderr;
    assert!(question.contains("medium touch made"), "{question}");
    let shown: String = question
        .lines()
        .filter_map(|l| l.trim_start().strip_prefix("$ ").or_else(|| l.trim_start().strip_prefix("↪ ")))
        .collect();
    assert!(shown.contains(&format!("echo {tail}⏎")), "the whole line is shown: {question}");
    assert!(shown.ends_with("touch made"), "{question}");
    assert!(s.read("made").is_none());
}

#[test]
fn always_for_a_compound_line_covers_each_command_it_showed() {
    let s = session();
    s.write("x.py", "print('python ran')\n");
    s.write("notes.txt", "one\ntwo\n");
    let line = "python3 x.py && wc -l notes.txt";
    let mock = MockModel::start(Wire::OpenAi);
    for command in [line, line, "python3 x.py", "wc -l notes.txt", "touch made"] {
        mock.push_turn(Turn::calls(vec![call("run_shell_command", json!({ "command": command }))]));
    }
    mock.push_turn(Turn::text("done"));
    let mut command = s.command(&mock);
    command.args(["-p", "go", "--ask"]);
    // "a" for the first question; nothing else is answered: a call that asked again is refused.
    let done = run_bounded(command, Some("a\n"), Duration::from_secs(120));
    assert!(
        done.stderr.contains("a  allow always: `run_shell_command` running `python3 …` · `wc …`, for this session"),
        "{}",
        done.stderr
    );
    let requests = mock.requests();
    for (turn, wanted) in [(1, "python ran"), (2, "python ran"), (3, "python ran"), (4, "2 notes.txt")] {
        let sent = function_responses(&requests[turn]);
        assert!(sent[0].1.contains(wanted) && sent[0].1.contains("Exit Code: 0"), "turn {turn}: {sent:?}");
    }
    // Only the first line and `touch made` (which nothing covers) were asked about.
    assert_eq!(done.stderr.matches("wants to run:").count(), 2, "{}", done.stderr);
    assert!(s.read("made").is_none());
}
