use std::time::Duration;

use super::*;

fn view() -> StatusView {
    StatusView {
        provider: "gemini".into(),
        model: "gemini-2.5-flash".into(),
        mode: "auto-edit".into(),
        tokens_used: 12_345,
        context_left: Some(987_000),
        session_id: "0123456789abcdef".into(),
        running_calls: 2,
        working: Some(Duration::from_secs(12)),
    }
}

fn text(line: &Line<'static>) -> String {
    line.spans.iter().map(|s| s.content.as_ref()).collect()
}

#[test]
fn the_status_line_at_several_widths() {
    let mut out = String::new();
    for width in [140, 120, 80, 40, 10] {
        let shown = text(&line(&view(), width, &Theme::PLAIN));
        assert!(UnicodeWidthStr::width(shown.as_str()) <= usize::from(width), "{width}: {shown}");
        out.push_str(&format!("{width:>3} |{shown}\n"));
    }
    insta::assert_snapshot!("status_widths", out);
}

#[test]
fn the_mode_is_coloured_and_no_color_removes_it() {
    let theme = Theme::COLOR;
    let mut v = view();
    v.mode = "yolo".into();
    let shown = line(&v, 200, &theme);
    let mode = shown.spans.iter().find(|s| s.content == "yolo").map(|s| s.style);
    assert_eq!(mode, Some(theme.error()));
    let plain = line(&v, 200, &Theme::PLAIN);
    assert!(plain.spans.iter().all(|s| s.style.fg.is_none()));
}
