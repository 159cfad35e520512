use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;

use super::*;
use crate::dialog::{HOSTILE, assert_no_controls, buffer_text};
use crate::view::Shown;

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn forty() -> OutputView {
    let text = (1..=40).map(|n| format!("line {n:02} of the build")).collect::<Vec<_>>().join("\n");
    OutputView { title: "run_shell_command · seq 40".into(), text: Shown::block(&text), failed: false }
}

fn render(pager: &mut Pager, width: u16, height: u16) -> Buffer {
    let mut buf = Buffer::empty(Rect::new(0, 0, width, height));
    pager.render(buf.area, &mut buf, &Theme::PLAIN);
    buf
}

#[test]
fn the_pager_shows_the_top_then_scrolls_to_the_end() {
    let mut pager = Pager::new(forty(), 2, 3);
    insta::assert_snapshot!("pager_top", buffer_text(&render(&mut pager, 60, 12)));
    assert_eq!(pager.handle_key(key(KeyCode::End)), None);
    let end = buffer_text(&render(&mut pager, 60, 12));
    insta::assert_snapshot!("pager_end", end);
    assert!(end.contains("line 40") && !end.contains("line 30 "), "{end}");
}

#[test]
fn every_line_can_be_reached_and_scrolling_stops_at_both_ends() {
    let mut pager = Pager::new(forty(), 0, 1);
    let mut seen = std::collections::BTreeSet::new();
    render(&mut pager, 60, 12);
    for _ in 0..10 {
        let text = buffer_text(&render(&mut pager, 60, 12));
        seen.extend(text.lines().filter_map(|l| l.strip_prefix("line ").map(|n| n[..2].to_string())));
        pager.handle_key(key(KeyCode::PageDown));
    }
    assert_eq!(seen.len(), 40, "{seen:?}");
    let bottom = buffer_text(&render(&mut pager, 60, 12));
    pager.handle_key(key(KeyCode::Down));
    assert_eq!(buffer_text(&render(&mut pager, 60, 12)), bottom, "scrolled past the end");
    pager.handle_key(key(KeyCode::Home));
    pager.handle_key(key(KeyCode::Up));
    assert!(buffer_text(&render(&mut pager, 60, 12)).contains("line 01"));
}

#[test]
fn keys_close_the_pager_or_move_to_another_card() {
    let mut pager = Pager::new(forty(), 0, 2);
    assert_eq!(pager.handle_key(key(KeyCode::Char('q'))), Some(PagerAction::Close));
    assert_eq!(pager.handle_key(key(KeyCode::Esc)), Some(PagerAction::Close));
    let ctrl_o = KeyEvent::new(KeyCode::Char('o'), KeyModifiers::CONTROL);
    assert_eq!(pager.handle_key(ctrl_o), Some(PagerAction::Close));
    assert_eq!(pager.handle_key(key(KeyCode::Left)), Some(PagerAction::Previous));
    assert_eq!(pager.handle_key(key(KeyCode::Right)), Some(PagerAction::Next));
    assert_eq!(pager.handle_key(key(KeyCode::Char('x'))), None);
}

#[test]
fn long_lines_wrap_and_a_failed_call_says_so() {
    let view = OutputView {
        title: "python3 x.py".into(),
        text: Shown::block(&format!("{}\nend", "ab".repeat(50))),
        failed: true,
    };
    let mut pager = Pager::new(view, 0, 1);
    let text = buffer_text(&render(&mut pager, 40, 8));
    insta::assert_snapshot!("pager_wrapped_failed", text);
    assert!(text.lines().next().is_some_and(|title| title.contains("x python3 x.py")), "{text}");
}

#[test]
fn hostile_output_cannot_reach_the_terminal_raw() {
    let view = OutputView {
        title: HOSTILE.into(),
        text: Shown::block(&format!("{HOSTILE}\n\tindented\n{HOSTILE}")),
        failed: false,
    };
    let mut pager = Pager::new(view, 0, 1);
    for (w, h) in [(80, 10), (5, 3), (1, 1), (0, 0)] {
        let buf = render(&mut pager, w, h);
        assert_no_controls(&buf);
    }
    let text = buffer_text(&render(&mut pager, 80, 10));
    assert!(text.contains(r"ok\x1b[2J") && text.contains("    indented"), "{text}");
}

#[test]
fn an_empty_output_says_so() {
    let view = OutputView { title: "true".into(), text: Shown::default(), failed: false };
    let text = buffer_text(&render(&mut Pager::new(view, 0, 1), 60, 5));
    assert!(text.contains("(no output)"), "{text}");
}
