use std::time::Duration;

use super::*;
use crate::view::DiffView;

fn text(lines: &[Line<'static>]) -> String {
    lines
        .iter()
        .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect::<String>().trim_end().to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

fn card(state: CallState) -> Card {
    Card {
        call_id: "c1".into(),
        tool: "read_file".into(),
        description: "src/main.rs".into(),
        state,
        elapsed: Duration::from_millis(1_234),
        spinner: 3,
        live_tail: Vec::new(),
        summary: None,
        diff: None,
        cost: None,
    }
}

fn cost() -> Cost {
    Cost { wall: Duration::from_millis(12), peak_memory: 3 << 20, bytes_read: 4_300, bytes_written: 0, net_requests: 0 }
}

#[test]
fn a_card_in_every_state() {
    let mut out = String::new();
    let mut executing = card(CallState::Executing);
    executing.tool = "run_build".into();
    executing.live_tail = (1..=8).map(|i| format!("compiling crate {i}")).collect();
    let mut success = card(CallState::Success);
    success.summary = Some("fn main() {}\nline two\nline three\nline four".into());
    success.cost = Some(cost());
    let mut edited = card(CallState::Success);
    edited.tool = "write_file".into();
    edited.diff = Some(DiffView {
        path: "notes.txt".into(),
        original: "a\nb\nc\n".into(),
        proposed: "a\nB\nc\nd\n".into(),
        is_new_file: false,
    });
    edited.cost = Some(cost());
    let mut error = card(CallState::Error);
    error.summary = Some("cannot read src/main.rs: No such file or directory".into());
    error.cost = Some(cost());
    let mut cancelled = card(CallState::Cancelled);
    cancelled.summary = Some("the run was cancelled".into());
    for (name, c) in [
        ("validating", card(CallState::Validating)),
        ("awaiting approval", card(CallState::AwaitingApproval)),
        ("scheduled", card(CallState::Scheduled)),
        ("executing", executing),
        ("success", success),
        ("success with diff", edited),
        ("error", error),
        ("cancelled", cancelled),
    ] {
        out.push_str(&format!("── {name}\n{}\n", text(&lines(&c, 80, &Theme::PLAIN))));
    }
    insta::assert_snapshot!("cards_80", out);
}

#[test]
fn a_narrow_card_keeps_within_its_width() {
    let mut c = card(CallState::Executing);
    c.description = "a very long description of what this call is going to do to the workspace".into();
    c.live_tail = vec!["x".repeat(100)];
    let shown = lines(&c, 40, &Theme::PLAIN);
    insta::assert_snapshot!("card_40", text(&shown));
    assert!(shown.iter().all(|l| l.width() <= 40), "{}", text(&shown));
    for w in [0, 1, 5] {
        let _ = lines(&c, w, &Theme::PLAIN);
    }
}

#[test]
fn state_colours_and_hostile_text() {
    let theme = Theme::COLOR;
    let mut error = card(CallState::Error);
    error.summary = Some("bad \x1b[2J thing".into());
    error.description = "desc \x1b]52;c;AAAA\x07".into();
    let shown = lines(&error, 80, &theme);
    assert_eq!(shown[0].spans[0].style, theme.error(), "an error's glyph is red");
    let all = text(&shown);
    assert!(all.contains("bad ␛[2J thing") && !all.chars().any(|c| c.is_control() && c != '\n'), "{all}");
    let ok = lines(&card(CallState::Success), 80, &theme);
    assert_eq!(ok[0].spans[0].style, theme.success());
    let plain = lines(&card(CallState::Success), 80, &Theme::PLAIN);
    assert!(plain.iter().flat_map(|l| l.spans.iter()).all(|s| s.style.fg.is_none()));
}

#[test]
fn cost_text_uses_human_units() {
    assert_eq!(cost_text(&cost()), "12 ms · 3.0 MiB peak · read 4.2 KiB · wrote 0 B · 0 net");
    assert_eq!(duration(Duration::from_millis(65_000)), "1m 05s");
}
