use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier};

use super::*;
use crate::dialog::{HOSTILE, assert_no_controls, buffer_text};

fn sessions() -> Vec<PickerItem> {
    [
        ("0193a1f2", "2 min ago", "fix the failing test in scheduler"),
        ("0193a0c7", "yesterday", "write a README for the ui crate"),
        ("01939e11", "3 days ago", "Refactor the policy loader"),
        ("01939d02", "last week", "日本語のテキストを翻訳して 🙂"),
    ]
    .into_iter()
    .map(|(id, when, prompt)| PickerItem { label: id.into(), detail: format!("{when} · {prompt}") })
    .collect()
}

fn render(p: &Picker, w: u16, h: u16, theme: &Theme) -> Buffer {
    let area = Rect::new(0, 0, w, h);
    let mut buf = Buffer::empty(area);
    p.render(area, &mut buf, theme);
    buf
}

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn typed(p: &mut Picker, s: &str) {
    for c in s.chars() {
        assert_eq!(p.handle_key(key(KeyCode::Char(c))), None);
    }
}

#[test]
fn resume_picker_snapshot() {
    let p = Picker::new("Resume a session", sessions());
    let h = p.desired_height(80);
    insta::assert_snapshot!(buffer_text(&render(&p, 80, h, &Theme::COLOR)));
}

#[test]
fn filter_snapshot_and_original_index() {
    let mut p = Picker::new("Resume a session", sessions());
    typed(&mut p, "POLICY");
    insta::assert_snapshot!(buffer_text(&render(&p, 80, 8, &Theme::COLOR)));
    assert_eq!(p.handle_key(key(KeyCode::Enter)), Some(PickerResult::Selected(2)));
}

#[test]
fn subsequence_matches_after_substrings() {
    let items = vec![
        PickerItem { label: "gpt-4o-mini".into(), detail: String::new() },
        PickerItem { label: "claude-sonnet".into(), detail: "cs".into() },
        PickerItem { label: "claude".into(), detail: "chat sonnet".into() },
    ];
    let mut p = Picker::new("Model", items);
    typed(&mut p, "cs");
    assert_eq!(p.handle_key(key(KeyCode::Enter)), Some(PickerResult::Selected(1)));
    p.handle_key(key(KeyCode::Down));
    assert_eq!(p.handle_key(key(KeyCode::Enter)), Some(PickerResult::Selected(2)));
    p.handle_key(key(KeyCode::Backspace));
    p.handle_key(key(KeyCode::Backspace));
    typed(&mut p, "g4m");
    assert_eq!(p.handle_key(key(KeyCode::Enter)), Some(PickerResult::Selected(0)));
}

#[test]
fn no_match_and_empty_list_say_so() {
    let mut p = Picker::new("Resume a session", sessions());
    typed(&mut p, "zzz");
    let text = buffer_text(&render(&p, 80, 8, &Theme::PLAIN));
    assert!(text.contains("nothing matches “zzz”"), "{text}");
    assert_eq!(p.handle_key(key(KeyCode::Enter)), None);
    let empty = Picker::new("Model", Vec::new());
    insta::assert_snapshot!(buffer_text(&render(&empty, 40, empty.desired_height(40), &Theme::PLAIN)));
}

#[test]
fn moves_and_pages_within_bounds() {
    let items: Vec<PickerItem> =
        (0..50).map(|i| PickerItem { label: format!("item {i:02}"), detail: String::new() }).collect();
    let mut p = Picker::new("Many", items);
    render(&p, 40, 8, &Theme::PLAIN);
    p.handle_key(key(KeyCode::Up));
    assert_eq!(p.handle_key(key(KeyCode::Enter)), Some(PickerResult::Selected(0)));
    p.handle_key(key(KeyCode::PageDown));
    assert_eq!(p.handle_key(key(KeyCode::Enter)), Some(PickerResult::Selected(5)), "a page is the 5 rows shown");
    let text = buffer_text(&render(&p, 40, 8, &Theme::PLAIN));
    assert!(text.contains("› item 05"), "{text}");
    for _ in 0..20 {
        p.handle_key(key(KeyCode::PageDown));
    }
    assert_eq!(p.handle_key(key(KeyCode::Enter)), Some(PickerResult::Selected(49)));
    assert!(buffer_text(&render(&p, 40, 8, &Theme::PLAIN)).contains("› item 49"));
    p.handle_key(key(KeyCode::Down));
    assert_eq!(p.handle_key(key(KeyCode::Enter)), Some(PickerResult::Selected(49)));
    assert_eq!(p.handle_key(key(KeyCode::Esc)), Some(PickerResult::Cancelled));
}

#[test]
fn selection_is_reversed_with_and_without_colour() {
    let p = Picker::new("Resume a session", sessions());
    for theme in [Theme::COLOR, Theme::PLAIN] {
        let buf = render(&p, 80, 8, &theme);
        let y = buffer_text(&buf).lines().position(|l| l.contains("› 0193a1f2")).expect("selected row") as u16;
        assert!(buf[(3, y)].modifier.contains(Modifier::REVERSED));
        if theme == Theme::PLAIN {
            assert!(buf.content().iter().all(|c| c.fg == Color::Reset));
        } else {
            assert_eq!(buf[(0, 0)].fg, Color::Magenta, "the border takes the accent colour");
        }
    }
}

#[test]
fn hostile_items_and_tiny_areas() {
    let items = vec![
        PickerItem { label: HOSTILE.into(), detail: HOSTILE.into() },
        PickerItem { label: "ok".into(), detail: "fine".into() },
    ];
    let mut p = Picker::new(HOSTILE, items);
    assert_no_controls(&render(&p, 80, 10, &Theme::COLOR));
    typed(&mut p, "\u{1b}[2J");
    assert_no_controls(&render(&p, 80, 10, &Theme::COLOR));
    for (w, h) in [(0, 0), (10, 3), (1, 1), (80, 2), (2, 20)] {
        render(&p, w, h, &Theme::COLOR);
    }
}
