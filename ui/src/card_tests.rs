use std::time::Duration;

use super::*;
use crate::view::{CommandView, FileChange, Shown};

fn text(lines: &[Line<'static>]) -> String {
    lines
        .iter()
        .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect::<String>().trim_end().to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

fn card(state: CallStatus) -> Card {
    Card {
        elapsed: Duration::from_millis(1_234),
        spinner: 3,
        ..Card::new("c1".into(), "read_file".into(), "src/main.rs".into(), state)
    }
}

/// A `run_shell_command` card that ended: the last lines of `lines` output lines and how the
/// command ended.
fn command_card(lines: usize, ending: &str, failed: bool) -> Card {
    let mut c = card(CallStatus::Success);
    c.tool = "run_shell_command".into();
    c.description = "python3 build.py".into();
    let shown = lines.min(10);
    c.tail = (lines - shown + 1..=lines).map(|n| format!("output line {n}").into()).collect();
    c.earlier_lines = lines - shown;
    c.command =
        Some(CommandView { ending: ending.into(), failed, cpu: Duration::from_millis(840), peak_memory: 45 << 20 });
    c.cost = Some(Cost { wall: Duration::from_millis(1_200), ..Cost::default() });
    c
}

fn cost() -> Cost {
    Cost { wall: Duration::from_millis(12), peak_memory: 3 << 20, bytes_read: 4_300, bytes_written: 0, net_requests: 0 }
}

#[test]
fn a_card_in_every_state() {
    let mut out = String::new();
    let mut executing = card(CallStatus::Executing);
    executing.tool = "run_build".into();
    executing.live_tail = (1..=8).map(|i| format!("compiling crate {i}").into()).collect();
    let mut success = card(CallStatus::Success);
    success.summary = Some(Shown::block("fn main() {}\nline two\nline three\nline four"));
    success.cost = Some(cost());
    let mut edited = card(CallStatus::Success);
    edited.tool = "write_file".into();
    edited.diff = Some(FileChange {
        path: "notes.txt".into(),
        original: Shown::block("a\nb\nc\n"),
        proposed: Shown::block("a\nB\nc\nd\n"),
        is_new_file: false,
    });
    edited.cost = Some(cost());
    let mut error = card(CallStatus::Error);
    error.tail = vec!["cannot read src/main.rs: No such file or directory".into()];
    error.cost = Some(cost());
    let mut cancelled = card(CallStatus::Cancelled);
    cancelled.tail = vec!["the run was cancelled".into()];
    for (name, c) in [
        ("validating", card(CallStatus::Validating)),
        ("awaiting approval", card(CallStatus::AwaitingApproval)),
        ("scheduled", card(CallStatus::Scheduled)),
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
fn a_card_shows_what_hooks_did_under_its_first_line() {
    let mut denied = card(CallStatus::Error);
    denied.tool = "run_shell_command".into();
    denied.description = "git push --force".into();
    denied.hooks = vec![Shown::line("hook no-force-push denied: force pushes are not allowed\u{1b}[31m")];
    denied.tail = vec!["policy_denied: hook `no-force-push` denied this call".into()];
    let mut rewritten = card(CallStatus::AwaitingApproval);
    rewritten.tool = "write_file".into();
    rewritten.hooks = vec![Shown::line("hook to-safe rewrote: moved into safe/")];
    let mut out = String::new();
    for (name, c) in [("denied", denied), ("rewritten", rewritten)] {
        out.push_str(&format!("── {name}\n{}\n", text(&lines(&c, 60, &Theme::PLAIN))));
    }
    assert!(!out.contains('\u{1b}'), "{out}");
    insta::assert_snapshot!("hook_cards_60", out);
}

#[test]
fn a_narrow_card_keeps_within_its_width() {
    let mut c = card(CallStatus::Executing);
    c.description = "a very long description of what this call is going to do to the workspace".into();
    c.live_tail = vec!["x".repeat(100).into()];
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
    let mut error = card(CallStatus::Error);
    error.summary = Some("bad \x1b[2J thing".into());
    error.tail = vec!["tail \x1b]0;title\x07".into()];
    error.description = "desc \x1b]52;c;AAAA\x07".into();
    let shown = lines(&error, 80, &theme);
    assert_eq!(shown[0].spans[0].style, theme.error(), "an error's glyph is red");
    let all = text(&shown);
    assert!(all.contains(r"bad \x1b[2J thing"), "{all}");
    assert!(!all.chars().any(|c| airlock_protocol::shown::is_hidden(c) && c != '\n'), "{all}");
    let ok = lines(&card(CallStatus::Success), 80, &theme);
    assert_eq!(ok[0].spans[0].style, theme.success());
    let plain = lines(&card(CallStatus::Success), 80, &Theme::PLAIN);
    assert!(plain.iter().flat_map(|l| l.spans.iter()).all(|s| s.style.fg.is_none()));
}

#[test]
fn cost_text_uses_human_units() {
    assert_eq!(cost_text(&cost()), "12 ms · 3.0 MiB peak · read 4.2 KiB · wrote 0 B · 0 net");
    assert_eq!(duration(Duration::from_millis(65_000)), "1m 05s");
}

#[test]
fn a_command_card_shows_the_last_lines_and_how_it_ended() {
    let mut out = String::new();
    for (name, c) in [
        ("40 lines, exit 0", command_card(40, "exit 0", false)),
        ("4 lines, exit 101", command_card(4, "exit 101", true)),
        ("1 line", command_card(1, "exit 0", false)),
        ("killed", command_card(3, "signal 9", true)),
    ] {
        out.push_str(&format!("── {name}\n{}\n", text(&lines(&c, 80, &Theme::PLAIN))));
    }
    insta::assert_snapshot!("command_cards_80", out);
    let forty = text(&lines(&command_card(40, "exit 0", false), 80, &Theme::PLAIN));
    assert!(forty.contains("output line 40") && forty.contains("output line 36"), "{forty}");
    assert!(!forty.contains("output line 35\n") && !forty.contains("output line 1\n"), "{forty}");
    assert!(forty.contains("35 earlier lines · ctrl-o shows all"), "{forty}");
    assert!(forty.contains("exit 0 · 1.2 s · cpu 840 ms · 45.0 MiB peak"), "{forty}");
    let one = text(&lines(&command_card(1, "exit 0", false), 80, &Theme::PLAIN));
    assert!(!one.contains("earlier") && !one.contains("more line"), "{one}");
    // A peak that is not known is left out, not shown as zero.
    let mut unknown = command_card(1, "exit 0", false);
    if let Some(command) = unknown.command.as_mut() {
        command.peak_memory = 0;
    }
    let unknown = text(&lines(&unknown, 80, &Theme::PLAIN));
    assert!(unknown.ends_with("exit 0 · 1.2 s · cpu 840 ms"), "{unknown}");
}

#[test]
fn a_failed_command_is_marked_failed_though_the_tool_succeeded() {
    let theme = Theme::COLOR;
    let failed = lines(&command_card(4, "exit 3", true), 80, &theme);
    assert_eq!(failed[0].spans[0].content, "x ", "{}", text(&failed));
    assert_eq!(failed[0].spans[0].style, theme.error());
    let exit = failed.last().and_then(|l| l.spans.get(1)).map(|s| (s.content.to_string(), s.style));
    assert_eq!(exit, Some(("exit 3".to_string(), theme.error())));
    let ok = lines(&command_card(4, "exit 0", false), 80, &theme);
    assert_eq!(ok[0].spans[0].content, "✓ ");
    assert_eq!(ok[0].spans[0].style, theme.success());
}

#[test]
fn a_tool_without_a_summary_shows_the_end_of_its_output() {
    let mut c = card(CallStatus::Success);
    c.tail = vec!["second to last".into(), "the last line".into()];
    c.earlier_lines = 12;
    let shown = text(&lines(&c, 80, &Theme::PLAIN));
    assert!(shown.contains("12 earlier lines") && shown.ends_with("the last line"), "{shown}");
    // A summary, when the tool gave one, is shown instead.
    c.summary = Some("Read lines 1-14 of 14 from src/main.rs".into());
    let shown = text(&lines(&c, 80, &Theme::PLAIN));
    assert!(shown.contains("Read lines 1-14") && !shown.contains("the last line"), "{shown}");
}

#[test]
fn a_narrow_command_card_keeps_within_its_width() {
    let c = command_card(40, "exit 101", true);
    for w in [24u16, 30, 40] {
        let shown = lines(&c, w, &Theme::PLAIN);
        assert!(shown.iter().all(|l| l.width() <= usize::from(w)), "{w}: {}", text(&shown));
    }
    for w in [0, 1, 8] {
        let _ = lines(&c, w, &Theme::PLAIN);
    }
}

#[test]
fn an_ended_card_that_can_be_undone_shows_its_number_at_the_right() {
    let mut edited = card(CallStatus::Success);
    edited.tool = "write_file".into();
    edited.description = "notes.txt".into();
    edited.undo = Some(4);
    let head = text(&lines(&edited, 40, &Theme::PLAIN)[..1]);
    assert_eq!(head, format!("✓ write_file notes.txt{}#4", " ".repeat(16)));
    assert_eq!(lines(&edited, 40, &Theme::PLAIN)[0].width(), 40);
    // While it runs the right shows its time, not the number.
    edited.state = CallStatus::Executing;
    let running = text(&lines(&edited, 40, &Theme::PLAIN)[..1]);
    assert!(running.ends_with("1.2 s") && !running.contains("#4"), "{running}");
}
