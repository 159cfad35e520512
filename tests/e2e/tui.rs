//! The interactive UI (issue 10) through the real binary in a pseudo-terminal, its screen
//! read by a terminal emulator (`vt100`), against the scripted mock model: a typed prompt
//! streams its answer into the terminal's own scrollback; an edit approved in the dialog
//! changes the file and a refused one tells the model; Esc cancels a slow tool; the grant
//! prompt widens one call only; resizes, NO_COLOR, and the terminal restored on every way
//! out; hostile text (the model's, a plugin's, a file name) is shown escaped, never obeyed. Tool cards, their pager and a resumed session's cards are in [`cards`].

#[path = "tui_cards.rs"]
mod cards;
#[path = "tui_rewind.rs"]
mod rewind;

use std::process::Command;
use std::time::Duration;

use airlock_tests::pty::Pty;
use airlock_tests::{MockModel, Session, Turn, Wire, call, fixtures, function_responses};
use serde_json::json;

use crate::session;

const LIMIT: Duration = Duration::from_secs(90);

/// The UI of `s` pointed at `mock`, in a `cols` x `rows` terminal, ready for input.
fn open(s: &Session, mock: &MockModel, extra: &[&str], cols: u16, rows: u16) -> Pty {
    let mut command = s.command(mock);
    command.args(extra);
    open_command(&command, cols, rows)
}

fn open_command(command: &Command, cols: u16, rows: u16) -> Pty {
    let pty = Pty::spawn(command, cols, rows);
    pty.wait_text("test-model", LIMIT);
    pty
}

/// Quits with Ctrl-C twice and checks the terminal was given back as it was found.
fn quit(mut pty: Pty) -> String {
    pty.send("\x03");
    pty.wait_text("Ctrl-C again", LIMIT);
    pty.send("\x03");
    assert_eq!(pty.wait_exit(LIMIT), 0, "the UI's exit code");
    assert!(pty.terminal_restored(), "the terminal was not restored:\n{}", pty.screen());
    pty.transcript()
}

#[test]
fn a_typed_prompt_streams_the_answer_into_the_terminals_own_scrollback() {
    let s = session();
    let mock = MockModel::start(Wire::Gemini);
    let numbered: String = (1..=60).map(|n| format!("answer line {n:02}\n\n")).collect();
    mock.push_turn(Turn::text(format!("# Heading\n\nSome **bold** and `code`.\n\n{numbered}The end.")));
    let mut pty = open(&s, &mock, &[], 80, 24);
    pty.send("hello airlock\r");
    let screen = pty.wait_text("The end.", LIMIT);
    // The first lines scrolled off the screen into the terminal's scrollback, in order.
    assert!(!screen.contains("answer line 01"), "line 01 should have scrolled away:\n{screen}");
    let transcript = pty.transcript();
    let first =
        transcript.find("answer line 01").unwrap_or_else(|| panic!("no line 01 in the scrollback:\n{transcript}"));
    let last = transcript.find("answer line 60").unwrap_or_else(|| panic!("no line 60:\n{transcript}"));
    assert!(first < last, "the scrollback is out of order");
    assert!(transcript.contains("hello airlock"), "the user's turn is in the transcript");
    let sent = mock.last_request().unwrap_or_default().to_string();
    assert!(sent.contains("hello airlock"), "the model got the prompt: {sent}");
    let after = quit(pty);
    assert!(after.contains("The end."), "the answer stays on the screen after quitting:\n{after}");
}

#[test]
fn ui_opens_with_a_first_prompt_from_dash_i() {
    let s = session();
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::text("first prompt answered"));
    let pty = open(&s, &mock, &["-i", "start with this"], 100, 30);
    pty.wait_text("first prompt answered", LIMIT);
    let sent = mock.last_request().unwrap_or_default().to_string();
    assert!(sent.contains("start with this"), "the -i prompt went to the model: {sent}");
    quit(pty);
}

#[test]
fn resume_shows_the_recorded_conversation_and_continues_it() {
    let s = session();
    let mock = MockModel::start(Wire::Gemini);
    mock.push_turn(Turn::text("recorded answer"));
    let done = s.airlock(&mock, &["-p", "recorded question"]);
    assert_eq!(done.code, Some(0), "stderr: {}", done.stderr);
    mock.push_turn(Turn::text("continued answer"));
    let mut pty = open(&s, &mock, &["--resume"], 100, 30);
    let screen = pty.wait_text("recorded answer", LIMIT);
    assert!(screen.contains("recorded question"), "the old prompt is shown:\n{screen}");
    pty.send("go on\r");
    pty.wait_text("continued answer", LIMIT);
    let sent = mock.last_request().unwrap_or_default().to_string();
    assert!(sent.contains("recorded question") && sent.contains("go on"), "the model got the old history: {sent}");
    quit(pty);
}

#[test]
fn an_edit_approved_in_the_dialog_changes_the_file() {
    let s = session();
    let mock = MockModel::start(Wire::Gemini);
    mock.push_turn(Turn::calls(vec![call("write_file", json!({"file_path": "notes.txt", "content": "approved\n"}))]));
    mock.push_turn(Turn::text("the file is written"));
    let mut pty = open(&s, &mock, &[], 100, 30);
    pty.send("write the notes\r");
    let dialog =
        pty.wait_for("the whole dialog", LIMIT, |s| s.contains("sandbox will hold") && s.contains("Cancel this call"));
    assert!(s.read("notes.txt").is_none(), "nothing is written before the answer:\n{dialog}");
    // What the call's sandbox will hold: the workspace, writable, and the default limits.
    let workspace = s.workspace.canonicalize().unwrap_or_else(|e| panic!("{e}"));
    assert!(dialog.contains(&format!("read-write {}", workspace.display())), "{dialog}");
    assert!(dialog.contains("no network") && dialog.contains("memory 256 MiB"), "{dialog}");
    pty.send("y");
    pty.wait_text("the file is written", LIMIT);
    assert_eq!(s.read("notes.txt").as_deref(), Some("approved\n"));
    quit(pty);
}

#[test]
fn a_refused_edit_tells_the_model_why_and_leaves_the_file_alone() {
    let s = session();
    let mock = MockModel::start(Wire::Gemini);
    mock.push_turn(Turn::calls(vec![call("write_file", json!({"file_path": "notes.txt", "content": "no\n"}))]));
    mock.push_turn(Turn::text("understood, not writing"));
    let mut pty = open(&s, &mock, &[], 100, 30);
    pty.send("write the notes\r");
    // Keys reach the dialog once it is drawn (the call's card shows the path earlier).
    pty.wait_text("Cancel this call", LIMIT);
    pty.send("n");
    pty.wait_text("tell the model why (optional)", LIMIT);
    pty.send("wrong folder\r");
    pty.wait_text("understood, not writing", LIMIT);
    assert!(s.read("notes.txt").is_none(), "a refused edit wrote the file");
    let responses = function_responses(&mock.last_request().unwrap_or_default());
    let told: String = responses.iter().map(|(_, r)| r.as_str()).collect();
    assert!(told.contains("refused"), "the model was not told of the refusal: {responses:?}");
    assert!(told.contains("wrong folder"), "the model was not told the reason: {responses:?}");
    quit(pty);
}

#[test]
fn esc_cancels_a_slow_tool_and_its_card_says_so() {
    let s = session();
    s.install_plugin(fixtures::SPIN_FOREVER);
    let mock = MockModel::start(Wire::Gemini);
    mock.push_turn(Turn::calls(vec![call("spin", json!({}))]));
    let mut pty = open(&s, &mock, &["--approval-mode", "yolo"], 100, 30);
    pty.send("spin please\r");
    pty.wait_for("the running card", LIMIT, |screen| screen.contains("spin") && screen.contains("esc to interrupt"));
    std::thread::sleep(Duration::from_millis(300));
    pty.send("\x1b");
    pty.wait_for("the cancelled card", LIMIT, |screen| screen.contains("cancelled"));
    // The session goes on.
    mock.push_turn(Turn::text("still here"));
    pty.send("again\r");
    pty.wait_text("still here", LIMIT);
    quit(pty);
}

#[test]
fn a_resize_redraws_the_ui_at_the_new_size() {
    let s = session();
    let mock = MockModel::start(Wire::Gemini);
    mock.push_turn(Turn::text("before the resize"));
    mock.push_turn(Turn::text("after the resize"));
    let mut pty = open(&s, &mock, &[], 120, 40);
    pty.send("one\r");
    pty.wait_text("before the resize", LIMIT);
    // Keys typed while the program learns of a resize are not lost (with crossterm's
    // edge-triggered reader they waited for the next key press).
    pty.resize(55, 24);
    pty.send("two");
    // The status line is drawn again for 55 columns: its parts that no longer fit are dropped
    // whole (the emulator's own resize would only cut the old line at column 55).
    let screen = pty.wait_for("the status line at 55x24", LIMIT, |screen| {
        let status: Vec<&str> = screen.lines().filter(|l| l.contains("test-model")).collect();
        status.len() == 1 && !status[0].contains("tokens")
    });
    assert!(screen.lines().all(|l| l.chars().count() <= 55), "a row is wider than the terminal:\n{screen}");
    pty.wait_text("› two", LIMIT);
    pty.send("\r");
    pty.wait_text("after the resize", LIMIT);
    quit(pty);
}

#[test]
fn no_color_keeps_colour_codes_out_and_colour_is_on_without_it() {
    let s = session();
    let mock = MockModel::start(Wire::Gemini);
    mock.push_turn(Turn::text("plain answer"));
    mock.push_turn(Turn::text("plain answer"));
    for no_color in [true, false] {
        let mut command = s.command(&mock);
        if no_color {
            command.env("NO_COLOR", "1");
        }
        let mut pty = open_command(&command, 100, 30);
        pty.send("hello\r");
        pty.wait_text("plain answer", LIMIT);
        let raw = String::from_utf8_lossy(&pty.raw_output()).into_owned();
        let coloured = raw.contains("\x1b[38;5;") || (30..38).any(|c| raw.contains(&format!("\x1b[{c}m")));
        assert_eq!(coloured, !no_color, "NO_COLOR={no_color}: colour codes present = {coloured}");
        quit(pty);
    }
}

#[test]
fn sigterm_ends_the_ui_and_restores_the_terminal() {
    let s = session();
    let mock = MockModel::start(Wire::Gemini);
    let mut pty = open(&s, &mock, &[], 100, 30);
    assert!(!pty.terminal_restored(), "the UI should hold the terminal (bracketed paste on)");
    let pid = pty.pid().unwrap_or_else(|| panic!("no pid"));
    let killed = Command::new("kill").args(["-TERM", &pid.to_string()]).status();
    assert!(killed.is_ok_and(|s| s.success()), "kill -TERM failed");
    pty.wait_exit(LIMIT);
    assert!(pty.terminal_restored(), "SIGTERM left the terminal in raw state:\n{}", pty.screen());
}

#[test]
fn dash_i_without_a_terminal_is_a_usage_error() {
    let s = session();
    let mock = MockModel::start(Wire::Gemini);
    let done = s.airlock(&mock, &["-i", "hello"]);
    assert_eq!(done.code, Some(2), "stderr: {}", done.stderr);
    assert!(done.stderr.contains("terminal"), "stderr: {}", done.stderr);
    assert!(mock.requests().is_empty(), "no model request without a terminal");
}

#[test]
fn hostile_text_from_the_model_and_a_plugin_cannot_drive_the_terminal() {
    let s = session();
    s.install_plugin(fixtures::HOSTILE_TEXT);
    let mock = MockModel::start(Wire::Gemini);
    let attack = "\x1b[2J\x1b]52;c;cHduZWQ=\x07\x1b]0;owned\x07 shown text\r\n✓ read_file · README.md\u{202e}";
    mock.push_turn(Turn::text_and_calls(attack, vec![call("ask_exec", json!({})), call("ask_edit", json!({}))]));
    mock.push_turn(Turn::text("after the attack"));
    let mut pty = open(&s, &mock, &[], 100, 30);
    pty.send("go\r");
    let dialog = pty.wait_text("ask_exec", LIMIT);
    for line in dialog.lines() {
        assert!(!line.trim_start().starts_with("✓ read_file · README.md"), "a forged line on screen:\n{dialog}");
    }
    // Cancel the batch: nothing runs, the turn ends; the session goes on.
    pty.send("\x1b");
    pty.wait_text("cancelled", LIMIT);
    pty.send("next\r");
    pty.wait_text("after the attack", LIMIT);
    let raw = String::from_utf8_lossy(&pty.raw_output()).into_owned();
    for bad in ["\x1b[2J", "\x1b]52", "\x1b]0;", "\u{202e}", "\x07"] {
        assert!(!raw.contains(bad), "the terminal got {bad:?} raw");
    }
    quit(pty);
}

#[test]
fn a_hostile_file_name_in_the_approval_dialog_is_shown_escaped() {
    let s = session();
    let mock = MockModel::start(Wire::Gemini);
    // A bidi isolate and override that would show `notes.txt` for `txt.seton`, and an SGR
    // sequence, in the name of the file an edit asks to write.
    let name = "notes\u{2066}\u{202e}txt.\x1b[31mexe";
    mock.push_turn(Turn::calls(vec![call("write_file", json!({"file_path": name, "content": "x\n"}))]));
    mock.push_turn(Turn::text("after the name"));
    let mut pty = open(&s, &mock, &[], 100, 30);
    pty.send("write it\r");
    let escaped = r"notes\u{2066}\u{202e}txt.\x1b[31mexe";
    let shown = pty.wait_for("the dialog", LIMIT, |s| s.contains("Cancel this call") && s.contains(escaped));
    let create = shown.lines().find(|l| l.contains("create: ")).unwrap_or_default();
    assert!(create.contains(&format!("/{escaped}")), "the dialog names the file escaped:\n{shown}");
    // Cancel the batch: nothing is written, the turn ends; the session goes on.
    pty.send("\x1b");
    pty.wait_text("cancelled", LIMIT);
    pty.send("next\r");
    pty.wait_text("after the name", LIMIT);
    assert!(s.read(name).is_none(), "nothing was written");
    let raw = String::from_utf8_lossy(&pty.raw_output()).into_owned();
    for bad in ["\u{2066}", "\u{202e}", "\x1b[31mexe"] {
        assert!(!raw.contains(bad), "the terminal got {bad:?} raw");
    }
    quit(pty);
}

#[test]
fn stdin_that_is_not_a_terminal_stays_headless() {
    let s = session();
    let mock = MockModel::start(Wire::Gemini);
    mock.push_turn(Turn::text("headless answer"));
    let mut command = s.command(&mock);
    command.stdin(std::process::Stdio::piped()).stdout(std::process::Stdio::piped());
    let mut child = command.spawn().unwrap_or_else(|e| panic!("spawn: {e}"));
    use std::io::Write as _;
    child.stdin.take().map(|mut i| i.write_all(b"a piped prompt"));
    let out = child.wait_with_output().unwrap_or_else(|e| panic!("wait: {e}"));
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(String::from_utf8_lossy(&out.stdout).trim(), "headless answer");
}

#[test]
fn a_grant_given_for_this_call_only_reverts_after_it() {
    let s = session();
    s.install_plugin(fixtures::FS_PROBE);
    s.write("secret.txt", "the secret words");
    let mock = MockModel::start(Wire::Gemini);
    mock.push_turn(Turn::calls(vec![call("read_path", json!({"path": "secret.txt"}))]));
    mock.push_turn(Turn::text("first read done"));
    mock.push_turn(Turn::calls(vec![call("read_path", json!({"path": "secret.txt"}))]));
    mock.push_turn(Turn::text("second read done"));
    let mut pty = open(&s, &mock, &["--approval-mode", "yolo"], 100, 30);
    pty.send("read it\r");
    let prompt =
        pty.wait_for("the grant prompt", LIMIT, |s| s.contains("never granted") && s.contains("this call only"));
    assert!(prompt.contains("fs_probe"), "{prompt}");
    pty.send("o");
    pty.wait_text("first read done", LIMIT);
    let told = function_responses(&mock.last_request().unwrap_or_default());
    assert!(told.iter().any(|(_, r)| r.contains("the secret words")), "the granted call read the file: {told:?}");
    // The next call is denied again, and asks again.
    pty.send("again\r");
    pty.wait_for("the grant prompt again", LIMIT, |s| s.contains("never granted") && s.contains("this call only"));
    pty.send("n");
    pty.wait_text("second read done", LIMIT);
    let told = function_responses(&mock.last_request().unwrap_or_default());
    assert!(told.iter().all(|(_, r)| !r.contains("the secret words")), "a refused grant read the file: {told:?}");
    quit(pty);
}

#[test]
fn the_plan_shows_as_a_panel_while_it_runs_and_goes_to_the_transcript_when_done() {
    let s = session();
    let mock = MockModel::start(Wire::Gemini);
    let steps = |statuses: [&str; 3]| {
        let names = ["Read the code", "Fix the bug", "Run the tests"];
        let todos: Vec<_> =
            names.iter().zip(statuses).map(|(d, st)| json!({ "description": d, "status": st })).collect();
        json!({ "todos": todos })
    };
    mock.push_turn(Turn::calls(vec![call("write_todos", steps(["completed", "in_progress", "pending"]))]));
    mock.push_turn(Turn::text("working on it"));
    let mut pty = open(&s, &mock, &[], 80, 24);
    pty.send("fix it\r");
    let screen = pty.wait_text("working on it", LIMIT);
    let screen = if screen.contains("[>] Fix the bug") { screen } else { pty.wait_text("[>] Fix the bug", LIMIT) };
    assert!(screen.contains("Plan 1/3 done") && screen.contains("[ ] Run the tests"), "{screen}");
    mock.push_turn(Turn::calls(vec![call("write_todos", steps(["completed", "completed", "completed"]))]));
    mock.push_turn(Turn::text("all done"));
    pty.send("go on\r");
    pty.wait_text("all done", LIMIT);
    let screen = pty.wait_text("plan done (3/3)", LIMIT);
    assert!(!screen.contains("Plan 1/3 done") && !screen.contains("[>]"), "the panel stayed:\n{screen}");
    quit(pty);
}

#[test]
fn a_loop_cut_mid_word_stays_as_shown_and_the_retry_starts_on_a_new_line() {
    let s = session();
    let mock = MockModel::start(Wire::OpenAi);
    // Three pieces of 680 characters: the loop is found in the first, which ends mid-word
    // ("… I shoul").
    let chant = "I am sure I should check the same thing again now. ".repeat(40);
    mock.push_turn(Turn::text(chant));
    mock.push_turn(Turn::text("Changing approach."));
    let mut pty = open(&s, &mock, &[], 100, 40);
    pty.send("think\r");
    pty.wait_text("Changing approach.", LIMIT);
    let transcript = quit(pty);
    let rows: Vec<&str> = transcript.lines().map(str::trim_end).collect();
    let retry =
        rows.iter().position(|row| row.contains("Changing approach.")).unwrap_or_else(|| panic!("{transcript}"));
    assert_eq!(rows[retry].trim_start(), "Changing approach.", "the retry starts its own line:\n{transcript}");
    let cut = rows
        .iter()
        .position(|row| row.ends_with("I shoul"))
        .unwrap_or_else(|| panic!("the cut word is kept:\n{transcript}"));
    let notice = rows.iter().position(|row| row.contains("loop detected")).unwrap_or_else(|| panic!("{transcript}"));
    assert!(cut < notice && notice < retry, "shown text, then the notice, then the retry:\n{transcript}");
}

#[test]
fn a_second_loop_ends_the_turn_with_the_stop_on_its_own_line() {
    let s = session();
    let mock = MockModel::start(Wire::OpenAi);
    let chant = "I am sure I should check the same thing again now. ".repeat(40);
    mock.push_turn(Turn::text(chant.clone()));
    mock.push_turn(Turn::text(chant));
    let mut pty = open(&s, &mock, &[], 100, 40);
    pty.send("think\r");
    pty.wait_text("stopped: the model wrote", LIMIT);
    let transcript = quit(pty);
    let rows: Vec<&str> = transcript.lines().map(str::trim_end).collect();
    let cuts: Vec<usize> =
        rows.iter().enumerate().filter(|(_, row)| row.ends_with("I shoul")).map(|(n, _)| n).collect();
    let stop =
        rows.iter().position(|row| row.contains("stopped: the model wrote")).unwrap_or_else(|| panic!("{transcript}"));
    assert_eq!(cuts.len(), 2, "both cut answers are shown as they were:\n{transcript}");
    assert!(!rows[stop].contains("I am sure"), "the stop has its own line:\n{transcript}");
    assert!(cuts[1] < stop, "{transcript}");
    assert_eq!(mock.requests().len(), 2, "no request after the stop");
}
