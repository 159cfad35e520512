//! What the dialogs (approval, grant, picker, help) share: making untrusted text safe to draw,
//! fitting it to a width without hiding that it was cut or wrapped, and drawing lines into
//! an area without ever writing outside it.
//!
//! Invariant: every string that comes from a model or a plugin is a `Shown` or passes
//! through [`clean`] (the one sanitiser) before it is put in a `Line`, so no control
//! character (hence no escape sequence, no newline that could draw a fake line, no carriage
//! return or backspace that could overdraw one), no bidi control and no invisible character
//! ever reaches a cell.

use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Paragraph, Widget};
use unicode_width::{UnicodeWidthChar, UnicodeWidthStr};

use crate::style::Theme;

/// `text` as one line, made safe by the one sanitiser (`airlock_protocol::shown`): every
/// control, bidi or invisible character written visibly (`\x1b`, `\n`, `\u{202e}`). Not
/// cut: widgets fit it to their width.
pub(crate) fn clean(text: &str) -> String {
    airlock_protocol::shown::line_bounded(text, usize::MAX)
}

/// Display width of `s` in cells.
pub(crate) fn width(s: &str) -> usize {
    UnicodeWidthStr::width(s)
}

/// `s` (already clean) cut to `max` cells, ending in `…` when it was cut.
pub(crate) fn fit(s: &str, max: usize) -> String {
    if width(s) <= max {
        return s.to_string();
    }
    if max == 0 {
        return String::new();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in s.chars() {
        let w = c.width().unwrap_or(0);
        if used + w > max - 1 {
            break;
        }
        used += w;
        out.push(c);
    }
    out.push('…');
    out
}

/// `s` (already clean) broken into rows of at most `max` cells; every row after the first
/// starts with `↪ ` so a wrap is never mistaken for a second line of the original.
pub(crate) fn wrap_marked(s: &str, max: usize) -> Vec<String> {
    const MARK: &str = "↪ ";
    if width(s) <= max || max <= width(MARK) {
        return vec![s.to_string()];
    }
    let mut rows = Vec::new();
    let mut row = String::new();
    let mut used = 0;
    for c in s.chars() {
        let w = c.width().unwrap_or(0);
        if used + w > max && !row.is_empty() {
            rows.push(std::mem::take(&mut row));
            row.push_str(MARK);
            used = width(MARK);
        }
        row.push(c);
        used += w;
    }
    rows.push(row);
    rows
}

/// One choice: `› y   Allow once`, the selected one in the theme's selection style. A label
/// too long for one row is wrapped under itself with the `↪` marker, never cut, so the scope
/// of an "always" is read whole.
pub(crate) fn choice_lines(key: &str, label: &str, selected: bool, max: usize, theme: &Theme) -> Vec<Line<'static>> {
    let marker = if selected { "› " } else { "  " };
    let key = format!("{key:<4}");
    let base = if selected { theme.selected() } else { theme.text() };
    let rows = wrap_marked(label, max.saturating_sub(2 + 4).max(8));
    let mut out = Vec::with_capacity(rows.len());
    for (i, row) in rows.into_iter().enumerate() {
        let (m, k) = if i == 0 { (marker, key.clone()) } else { ("  ", "    ".to_string()) };
        out.push(Line::from(vec![
            Span::styled(m, base),
            Span::styled(k, base.patch(theme.strong()).patch(theme.accent())),
            Span::styled(row, base),
        ]));
    }
    out
}

/// A dim hint row.
pub(crate) fn hint(text: &str, theme: &Theme) -> Line<'static> {
    Line::styled(text.to_string(), theme.dim())
}

/// `label: value` rows, the value cleaned and wrapped (with the `↪` marker) to `max` cells.
pub(crate) fn field(label: &str, value: &str, value_style: Style, max: usize, theme: &Theme) -> Vec<Line<'static>> {
    let head = format!("{label}: ");
    let indent = width(&head);
    let rows = wrap_marked(&clean(value), max.saturating_sub(indent).max(8));
    rows.into_iter()
        .enumerate()
        .map(|(i, row)| {
            let lead = if i == 0 { Span::styled(head.clone(), theme.dim()) } else { Span::raw(" ".repeat(indent)) };
            Line::from(vec![lead, Span::styled(row, value_style)])
        })
        .collect()
}

/// Draws `lines` into `area`, top-aligned, one row each, never wrapping and never past the
/// area (ratatui clips), and does nothing on an empty area.
pub(crate) fn draw(lines: Vec<Line<'static>>, area: Rect, buf: &mut Buffer) {
    if area.width == 0 || area.height == 0 {
        return;
    }
    Paragraph::new(lines).render(area, buf);
}

/// The text of a buffer, one row per line, for snapshots.
#[cfg(test)]
pub(crate) fn buffer_text(buf: &Buffer) -> String {
    let area = buf.area;
    let mut out = String::new();
    for y in area.top()..area.bottom() {
        let mut row = String::new();
        let mut skip = 0;
        for x in area.left()..area.right() {
            if skip > 0 {
                skip -= 1;
                continue;
            }
            let sym = buf[(x, y)].symbol();
            skip = width(sym).saturating_sub(1);
            row.push_str(sym);
        }
        out.push_str(row.trim_end());
        out.push('\n');
    }
    out
}

/// A hostile string: screen clear, OSC 52 clipboard write, bell, carriage return,
/// backspaces, a newline that tries to draw a fake choice, a bidi override and isolate, an
/// 8-bit CSI, a zero-width space.
#[cfg(test)]
pub(crate) const HOSTILE: &str =
    "ok\u{1b}[2J\u{1b}]52;c;ZXZpbA==\u{7}\rfake\u{8}\u{8}\n  y   Allow once\u{202e}x\u{2066}\u{9b}31m\u{200b}";

/// Asserts no cell of `buf` holds a control, bidi or invisible character.
#[cfg(test)]
pub(crate) fn assert_no_controls(buf: &Buffer) {
    for cell in buf.content() {
        assert!(
            !cell.symbol().chars().any(airlock_protocol::shown::is_hidden),
            "control character in cell {:?}",
            cell.symbol()
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_makes_every_control_visible() {
        let out = clean(HOSTILE);
        assert!(!out.chars().any(airlock_protocol::shown::is_hidden), "{out:?}");
        assert!(out.starts_with(r"ok\x1b[2J\x1b]52;c;ZXZpbA==\x07\rfake\x08\x08\n  y"), "{out:?}");
        assert!(out.ends_with(r"\u{202e}x\u{2066}\u{9b}31m\u{200b}"), "{out:?}");
    }

    #[test]
    fn fit_and_wrap_respect_wide_characters() {
        assert_eq!(fit("日本語テキスト", 6), "日本…");
        assert!(width(&fit("日本語テキスト", 5)) <= 5);
        let rows = wrap_marked("abcdefghij", 4);
        assert_eq!(rows, vec!["abcd", "↪ ef", "↪ gh", "↪ ij"]);
        for row in wrap_marked("日本語テキスト日本語", 5) {
            assert!(width(&row) <= 5, "{row}");
        }
    }
}
