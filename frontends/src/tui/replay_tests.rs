use std::time::Duration;

use airlock_ui::style::Theme;

use super::*;
use crate::tui::views::LiveCard;
use airlock_door::events::{CallCost, CallStatus, CallUpdate, CommandRun};

fn text(lines: &[Line<'static>]) -> String {
    lines
        .iter()
        .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect::<String>().trim_end().to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

fn function_call() -> FunctionCall {
    FunctionCall {
        id: "c1".into(),
        name: "run_shell_command".into(),
        arguments: r#"{"command":"python3 x.py"}"#.into(),
        signature: None,
    }
}

fn response(content: &str, is_error: bool) -> FunctionResponse {
    FunctionResponse {
        id: "c1".into(),
        name: "run_shell_command".into(),
        content: content.into(),
        is_error,
        media: Vec::new(),
    }
}

fn output(lines: usize) -> String {
    (1..=lines).map(|n| format!("test line {n}\n")).collect()
}

fn command(exit_code: i32) -> CommandRun {
    CommandRun {
        count: 1,
        exit_code: Some(exit_code),
        cpu_ms: 310,
        peak_memory_bytes: 12 << 20,
        ..CommandRun::default()
    }
}

/// The card the live session drew for a call that ran `lines` lines of output and ended
/// with `exit_code`.
fn live_card(lines: usize, exit_code: i32) -> Card {
    let mut validating = CallUpdate::new("c1", "run_shell_command", CallStatus::Validating);
    validating.args = serde_json::from_str(&function_call().arguments).ok();
    let mut live = LiveCard::new(&validating);
    let mut scheduled = CallUpdate::new("c1", "run_shell_command", CallStatus::Scheduled);
    scheduled.description = Some("python3 x.py".into());
    live.update(&scheduled);
    live.update(&CallUpdate::new("c1", "run_shell_command", CallStatus::Executing));
    live.output(&output(lines));
    let mut ended = CallUpdate::new("c1", "run_shell_command", CallStatus::Success);
    ended.run = Some(Duration::from_millis(1_234));
    ended.duration = Some(Duration::from_millis(9_000));
    ended.cost = Some(CallCost { wall_ms: 9_000, peak_memory_bytes: 1 << 20, ..CallCost::default() });
    ended.command = Some(command(exit_code));
    ended.shown = Some(Shown::new(None, &output(lines)));
    live.update(&ended);
    live.card
}

fn recorded(lines: usize, exit_code: i32) -> RecordedCall {
    RecordedCall {
        id: "c1".into(),
        name: "run_shell_command".into(),
        status: CallStatus::Success,
        description: Some("python3 x.py".into()),
        run_ms: Some(1_234),
        command: Some(command(exit_code)),
        cost: Some(CallCost { wall_ms: 9_000, peak_memory_bytes: 1 << 20, ..CallCost::default() }),
        shown: Shown::new(None, &output(lines)),
        checkpoint: None,
    }
}

#[test]
fn a_replayed_card_is_the_card_the_live_session_drew() {
    for (lines, exit_code) in [(40, 0), (4, 3), (1, 0)] {
        let live = card::lines(&live_card(lines, exit_code), 80, &Theme::PLAIN);
        let told = response(&format!("Output: …\nExit Code: {exit_code}"), false);
        let replayed = card_of(&function_call(), Some(&recorded(lines, exit_code)), Some(&told));
        assert_eq!(text(&card::lines(&replayed, 80, &Theme::PLAIN)), text(&live), "{lines} lines, exit {exit_code}");
    }
    let failed = card_of(&function_call(), Some(&recorded(4, 3)), None);
    assert!(failed.failed(), "exit 3 is marked failed: {failed:?}");
    let shown = text(&card::lines(&failed, 80, &Theme::PLAIN));
    assert!(shown.starts_with("x run_shell_command python3 x.py"), "{shown}");
    assert!(shown.contains("exit 3 · 1.2 s · cpu 310 ms · 12.0 MiB peak"), "{shown}");
}

#[test]
fn a_call_without_a_record_is_drawn_from_its_answer() {
    let ok = card_of(&function_call(), None, Some(&response(&output(12), false)));
    assert_eq!(ok.state, airlock_ui::view::CallStatus::Success);
    let shown = text(&card::lines(&ok, 80, &Theme::PLAIN));
    assert!(shown.contains("7 earlier lines") && shown.ends_with("test line 12"), "{shown}");
    assert!(shown.contains(r#"{"command":"python3 x.py"}"#), "the arguments stand for the description: {shown}");
    let failed = card_of(&function_call(), None, Some(&response("execution: it broke", true)));
    assert_eq!(failed.state, airlock_ui::view::CallStatus::Error);
    let unanswered = card_of(&function_call(), None, None);
    assert_eq!(unanswered.tail, [Text::line("no result was recorded")]);
}

#[test]
fn hostile_recorded_text_is_made_safe() {
    let mut hostile = recorded(2, 0);
    hostile.description = Some("desc \x1b]0;owned\x07".into());
    hostile.shown =
        Shown { summary: Some("sum \x1b[2J".into()), tail: vec!["tail \u{202e}x".into()], earlier_lines: 0 };
    let card = card_of(&function_call(), Some(&hostile), None);
    let shown = text(&card::lines(&card, 80, &Theme::PLAIN));
    assert!(!shown.chars().any(|c| (c.is_control() && c != '\n') || c == '\u{202e}'), "{shown:?}");
}
