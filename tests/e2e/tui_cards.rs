//! Tool cards in the real UI (issue 24, items 4 and 9): a command's card shows its last
//! lines and how it ended and opens whole in the pager; a failed command's card is marked
//! failed; cards keep the model's order when calls end out of order; a card's time is its
//! own run; a command's card counts its processes' CPU time and memory; and a resumed
//! session shows the same cards and token counts, its resume command printed at quit.

use std::time::Duration;

use airlock_tests::pty::Pty;
use airlock_tests::{MockModel, Turn, Wire, call, fixtures};
use serde_json::json;

use super::{LIMIT, open, quit, session};

/// A command printing `line 01` … `line 40`.
const FORTY: &str = "for i in $(seq -w 1 40); do echo line $i; done";

/// The time a card's cost line shows (`12 ms`, `1.2 s`), after `marker`'s first match.
fn shown_time(screen: &str, marker: &str) -> Duration {
    let from = screen.find(marker).unwrap_or_else(|| panic!("no {marker}:\n{screen}"));
    let line = screen[from..].lines().find(|l| l.contains(" peak")).unwrap_or_else(|| panic!("{screen}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    let at = words.iter().position(|w| *w == "ms" || *w == "s").unwrap_or_else(|| panic!("{line}"));
    let value: f64 = words[at - 1].parse().unwrap_or_else(|e| panic!("{e}: {line}"));
    Duration::from_secs_f64(if words[at] == "ms" { value / 1000.0 } else { value })
}

/// The pager's rows of output `line NN` on the screen.
fn pager_lines(screen: &str) -> Vec<String> {
    screen.lines().filter(|l| l.starts_with("line ")).map(str::to_string).collect()
}

#[test]
fn a_forty_line_commands_card_shows_its_last_lines_and_exit_and_opens_whole_in_the_pager() {
    let s = session();
    let mock = MockModel::start(Wire::Gemini);
    mock.push_turn(Turn::calls(vec![call("run_shell_command", json!({ "command": FORTY }))]));
    mock.push_turn(Turn::text("counted to forty"));
    let mut pty = open(&s, &mock, &["--approval-mode", "yolo"], 100, 30);
    pty.send("count\r");
    let screen = pty.wait_text("counted to forty", LIMIT);
    assert!(screen.contains("✓ run_shell_command"), "{screen}");
    for last in 36..=40 {
        assert!(screen.contains(&format!("  line {last}")), "line {last} is on the card:\n{screen}");
    }
    assert!(
        !screen.contains("line 01") && !screen.contains("line 35"),
        "the card shows the last lines only:\n{screen}"
    );
    assert!(screen.contains("… 35 earlier lines · ctrl-o shows all"), "{screen}");
    assert!(screen.contains("exit 0 · ") && screen.contains(" · cpu "), "how it ended and what it used:\n{screen}");

    // Ctrl-O: the whole output on the full screen, from its first line to its last.
    pty.send("\x0f");
    let top = pty.wait_for("the pager", LIMIT, |s| s.contains("rows 1–") && s.contains("q back"));
    assert!(top.contains("run_shell_command") && top.contains("[1/1]"), "{top}");
    let mut seen = pager_lines(&top);
    assert_eq!(seen.first().map(String::as_str), Some("line 01"), "{top}");
    pty.send("\x1b[F");
    let end = pty.wait_for("the end of the output", LIMIT, |s| s.contains("line 40") && s.contains("of 40"));
    seen.extend(pager_lines(&end));
    seen.sort();
    seen.dedup();
    assert_eq!(seen.len(), 40, "every line can be read: {seen:?}");
    assert!(!end.contains("counted to forty"), "the pager covers the screen:\n{end}");

    // q: back to the session as it was, and it goes on.
    pty.send("q");
    let back = pty.wait_for("the session again", LIMIT, |s| s.contains("counted to forty") && !s.contains("q back"));
    assert!(back.contains("test-model"), "the status line is back:\n{back}");
    mock.push_turn(Turn::text("still here"));
    pty.send("again\r");
    pty.wait_text("still here", LIMIT);
    quit(pty);
}

#[test]
fn a_failed_commands_card_is_marked_failed() {
    let s = session();
    let mock = MockModel::start(Wire::Gemini);
    let commands =
        ["python3 -c 'import sys; sys.exit(3)'", "false", "echo 'test result: FAILED. 0 passed; 1 failed'; exit 101"];
    mock.push_turn(Turn::calls(commands.iter().map(|c| call("run_shell_command", json!({ "command": c }))).collect()));
    mock.push_turn(Turn::text("all three ran"));
    let mut pty = open(&s, &mock, &["--approval-mode", "yolo"], 110, 40);
    pty.send("run them\r");
    pty.wait_text("all three ran", LIMIT);
    let transcript = pty.transcript();
    let heads: Vec<&str> = transcript.lines().filter(|l| l.contains(" run_shell_command ")).collect();
    assert_eq!(heads.len(), 3, "{transcript}");
    for head in &heads {
        assert!(head.starts_with("x run_shell_command"), "marked failed: {head}\n{transcript}");
    }
    for exit in ["exit 3 · ", "exit 1 · ", "exit 101 · "] {
        assert!(transcript.contains(exit), "{exit} is shown:\n{transcript}");
    }
    assert!(transcript.contains("test result: FAILED"), "the failing run's last line:\n{transcript}");
    quit(pty);
}

#[test]
fn cards_keep_the_models_order_when_later_calls_end_first() {
    let s = session();
    s.install_plugin(fixtures::SCHED_PROBE);
    let mock = MockModel::start(Wire::Gemini);
    mock.push_turn(Turn::calls(vec![
        call("stream", json!({"lines": 4, "pause_ms": 500})),
        call("stream", json!({"lines": 1, "pause_ms": 0})),
    ]));
    mock.push_turn(Turn::text("both streamed"));
    let mut pty = open(&s, &mock, &["--approval-mode", "yolo"], 100, 40);
    pty.send("stream twice\r");
    pty.wait_text("both streamed", LIMIT);
    let transcript = pty.transcript();
    let heads: Vec<usize> = transcript.match_indices("✓ stream").map(|(at, _)| at).collect();
    assert_eq!(heads.len(), 2, "{transcript}");
    let first = &transcript[heads[0]..heads[1]];
    assert!(first.contains("line 4"), "the first call's card (the slower, 4 lines) comes first:\n{transcript}");
    assert!(!transcript[heads[1]..].contains("line 4"), "{transcript}");
    quit(pty);
}

#[test]
fn a_cards_time_is_its_own_run_not_the_wait_for_another_calls_approval() {
    let s = session();
    s.write("notes.txt", "some notes\n");
    let mock = MockModel::start(Wire::Gemini);
    mock.push_turn(Turn::calls(vec![
        call("read_file", json!({"file_path": "notes.txt"})),
        call("write_file", json!({"file_path": "new.txt", "content": "new\n"})),
    ]));
    mock.push_turn(Turn::text("read and wrote"));
    let mut pty = open(&s, &mock, &[], 100, 40);
    pty.send("read then write\r");
    pty.wait_text("Cancel this call", LIMIT);
    // A person reads the dialog for a while; the read waits with the batch.
    let wait = Duration::from_secs(3);
    std::thread::sleep(wait);
    pty.send("y");
    pty.wait_text("read and wrote", LIMIT);
    let transcript = pty.transcript();
    let read = shown_time(&transcript, "✓ read_file");
    assert!(read < wait, "the read's card counts the wait for the write's approval: {read:?}\n{transcript}");
    quit(pty);
}

#[test]
fn a_commands_card_counts_its_processes_cpu_time_and_memory() {
    let s = session();
    let mock = MockModel::start(Wire::Gemini);
    let hungry = "python3 -c \"import time\nb = b'x' * (256 << 20)\nt = time.process_time()\n\
                  while time.process_time() - t < 0.3: pass\"; echo fed";
    mock.push_turn(Turn::calls(vec![call("run_shell_command", json!({ "command": hungry }))]));
    mock.push_turn(Turn::text("it ate"));
    let mut pty = open(&s, &mock, &["--approval-mode", "yolo"], 110, 30);
    pty.send("eat\r");
    let screen = pty.wait_text("it ate", LIMIT);
    let line = screen.lines().find(|l| l.trim_start().starts_with("exit 0 · ")).unwrap_or_else(|| panic!("{screen}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    let cpu_at = words.iter().position(|w| *w == "cpu").unwrap_or_else(|| panic!("{line}"));
    let cpu: f64 = words[cpu_at + 1].parse().unwrap_or_else(|e| panic!("{e}: {line}"));
    let cpu_ms = if words[cpu_at + 2] == "ms" { cpu } else { cpu * 1000.0 };
    assert!(cpu_ms >= 300.0, "the python grandchild's CPU time: {line}");
    let peak_at = words.iter().position(|w| *w == "peak").unwrap_or_else(|| panic!("{line}"));
    let (amount, unit) = (words[peak_at - 2], words[peak_at - 1]);
    let mib: f64 = amount.parse::<f64>().unwrap_or_else(|e| panic!("{e}: {line}"))
        * match unit {
            "MiB" => 1.0,
            "GiB" => 1024.0,
            _ => 0.0,
        };
    assert!(mib >= 256.0, "the python grandchild's 256 MiB, not the plugin's memory: {line}");
    quit(pty);
}

/// The session id in the line printed at quit.
fn resume_id(after: &str) -> String {
    let line = after
        .lines()
        .find(|l| l.starts_with("Resume this session with: airlock --resume "))
        .unwrap_or_else(|| panic!("no resume command printed at quit:\n{after}"));
    line.rsplit(' ').next().unwrap_or_default().to_string()
}

#[test]
fn a_resumed_session_shows_the_same_cards_and_token_counts_and_quitting_prints_how_to_resume() {
    let s = session();
    s.write("notes.txt", "alpha\nbeta\n");
    let mock = MockModel::start(Wire::Gemini);
    mock.push_turn(
        Turn::calls(vec![
            call("read_file", json!({"file_path": "notes.txt"})),
            call("run_shell_command", json!({"command": "echo before the failure; exit 3"})),
        ])
        .with_usage(1200, 34),
    );
    mock.push_turn(Turn::text("first session done").with_usage(1500, 66));
    let mut pty = open(&s, &mock, &["--approval-mode", "yolo"], 100, 40);
    pty.send("do things\r");
    pty.wait_text("first session done", LIMIT);
    let live = pty.wait_text("2.8k tokens", LIMIT);
    let cards = |text: &str| -> Vec<String> {
        let from = text.find("do things").unwrap_or(0);
        text[from..]
            .lines()
            .filter(|l| l.starts_with("✓ ") || l.starts_with("x ") || l.trim_start().starts_with("exit "))
            .map(|l| l.split(" · ").next().unwrap_or(l).trim_end().to_string())
            .collect()
    };
    let live_cards = cards(&pty.transcript());
    assert_eq!(live_cards.len(), 3, "{live}");
    let after = quit(pty);
    let id = resume_id(&after);
    assert_eq!(id.len(), 16, "{after}");

    let mut pty: Pty = open(&s, &mock, &["--resume", &id, "--approval-mode", "yolo"], 100, 40);
    let resumed = pty.wait_text("resumed ──", LIMIT);
    assert_eq!(cards(&pty.transcript()), live_cards, "the cards as they were:\n{resumed}");
    assert!(resumed.contains("Read lines 1-2 of 2 from notes.txt"), "the read's summary:\n{resumed}");
    assert!(resumed.contains("x run_shell_command") && resumed.contains("exit 3 · "), "{resumed}");
    assert!(resumed.contains("before the failure"), "the command's last line:\n{resumed}");
    assert!(resumed.contains("2.8k tokens"), "the token counts came back:\n{resumed}");
    // The pager has the replayed call's output as the model was told it.
    pty.send("\x0f");
    let pager = pty.wait_for("the pager", LIMIT, |s| s.contains("q back"));
    assert!(pager.contains("Exit Code: 3") && pager.contains("[2/2]"), "{pager}");
    pty.send("\x1b");
    pty.wait_for("the session again", LIMIT, |s| !s.contains("q back"));
    let after = quit(pty);
    assert_eq!(resume_id(&after), id, "the same session resumes again");
}

#[test]
fn quitting_before_any_prompt_prints_no_resume_command() {
    let s = session();
    let mock = MockModel::start(Wire::Gemini);
    let pty = open(&s, &mock, &[], 100, 30);
    let after = quit(pty);
    assert!(!after.contains("--resume"), "nothing to resume:\n{after}");
}

#[test]
fn hostile_command_output_in_a_card_and_in_the_pager_cannot_drive_the_terminal() {
    let s = session();
    let mock = MockModel::start(Wire::Gemini);
    // Clipboard write, screen clear, title, a cursor move that forges the pager's own footer,
    // a bidi override and a C1 control, then a long line without a newline.
    let hostile = r"printf '\033]52;c;cHduZWQ=\007\033[2J\033]0;owned\007 first\n\033[999;1H rows 1–1 of 1 · q back\n\342\200\256evil \302\233 31m\n'; head -c 100000 /dev/zero | tr '\0' x";
    mock.push_turn(Turn::calls(vec![call("run_shell_command", json!({ "command": hostile }))]));
    mock.push_turn(Turn::text("printed"));
    let mut pty = open(&s, &mock, &["--approval-mode", "yolo"], 100, 30);
    pty.send("print\r");
    pty.wait_text("printed", LIMIT);
    pty.send("\x0f");
    // The forged footer says `rows 1–` too: wait for the real one as well.
    let pager = pty.wait_for("the pager", LIMIT, |s| s.matches("q back").count() >= 2 && s.contains("[1/1]"));
    assert!(pager.contains(r"\x1b]52;c;cHduZWQ=") && pager.contains(r"\x1b[2J"), "shown, not run:\n{pager}");
    assert!(pager.contains(r"\u{202e}evil"), "{pager}");
    assert_eq!(pager.matches("q back").count(), 2, "one forged footer line and the real one:\n{pager}");
    pty.send("G");
    pty.wait_for("the long line's end", LIMIT, |s| s.lines().any(|l| l.chars().all(|c| c == 'x') && l.len() > 50));
    pty.send("q");
    pty.wait_for("the session again", LIMIT, |s| s.contains("printed") && !s.contains("[1/1]"));
    let raw = String::from_utf8_lossy(&pty.raw_output()).into_owned();
    for bad in ["\x1b]52", "\x1b]0;owned", "\x1b[999;1H", "\u{202e}", "\u{9b}", "\x07"] {
        assert!(!raw.contains(bad), "the terminal got {bad:?} raw");
    }
    quit(pty);
}
