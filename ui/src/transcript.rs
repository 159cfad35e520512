//! The small pieces of the transcript: the user's turns, the model's thoughts (dimmed, and
//! collapsed to one line), and notices (quiet: information and retries dim, warnings
//! yellow, errors red).

use ratatui::style::Modifier;
use ratatui::text::{Line, Span};

use crate::composer::clean;
use crate::style::Theme;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoticeKind {
    Info,
    Warning,
    Retry,
    Error,
}

/// A user turn: `› ` then the text, wrapped.
pub fn user_lines(text: &str, width: u16, theme: &Theme) -> Vec<Line<'static>> {
    prefixed(text, "› ", "  ", width, theme.user())
}

/// The model's reasoning: one dim line when collapsed (`▸ thinking (N lines): first words`),
/// else every line dim and italic.
pub fn thought_lines(text: &str, collapsed: bool, width: u16, theme: &Theme) -> Vec<Line<'static>> {
    let style = theme.dim().add_modifier(Modifier::ITALIC);
    if collapsed {
        let count = text.lines().filter(|l| !l.trim().is_empty()).count();
        let first: String = text.split_whitespace().take(12).collect::<Vec<_>>().join(" ");
        let head = format!("▸ thinking ({count} line{}): {}", if count == 1 { "" } else { "s" }, clean(&first));
        return vec![Line::from(Span::styled(crate::diff::cut(&head, usize::from(width.max(4))), style))];
    }
    prefixed(text, "  ", "  ", width, style)
}

/// A notice, wrapped; the marker says its kind without colour too.
pub fn notice_line(text: &str, kind: NoticeKind, width: u16, theme: &Theme) -> Vec<Line<'static>> {
    let (marker, style) = match kind {
        NoticeKind::Info => ("· ", theme.dim()),
        NoticeKind::Retry => ("↻ ", theme.dim()),
        NoticeKind::Warning => ("! ", theme.warning()),
        NoticeKind::Error => ("✗ ", theme.error()),
    };
    prefixed(text, marker, "  ", width, style)
}

/// `text` wrapped to `width`, the first row after `first`, the others after `rest`.
fn prefixed(text: &str, first: &str, rest: &str, width: u16, style: ratatui::style::Style) -> Vec<Line<'static>> {
    let inner = usize::from(width.max(4)).saturating_sub(2).max(2);
    let mut out = Vec::new();
    for (n, line) in text.split('\n').enumerate() {
        let cleaned = clean(line.trim_end_matches('\r'));
        let rows = wrap_words(&cleaned, inner);
        for (i, row) in rows.into_iter().enumerate() {
            let marker = if n == 0 && i == 0 { first } else { rest };
            out.push(Line::from(vec![Span::styled(marker.to_string(), style), Span::styled(row, style)]));
        }
    }
    out
}

/// Word wrap of one line (a word longer than the width is cut).
pub(crate) fn wrap_words(text: &str, width: usize) -> Vec<String> {
    use unicode_width::UnicodeWidthStr;
    let mut rows = vec![String::new()];
    let mut used = 0;
    for word in text.split_inclusive(' ') {
        let w = UnicodeWidthStr::width(word);
        if used > 0 && used + UnicodeWidthStr::width(word.trim_end()) > width {
            rows.push(String::new());
            used = 0;
        }
        if w > width {
            for c in word.chars() {
                let cw = UnicodeWidthStr::width(c.encode_utf8(&mut [0; 4]) as &str);
                if used + cw > width && used > 0 {
                    rows.push(String::new());
                    used = 0;
                }
                if let Some(row) = rows.last_mut() {
                    row.push(c);
                }
                used += cw;
            }
            continue;
        }
        if let Some(row) = rows.last_mut() {
            row.push_str(word);
        }
        used += w;
    }
    rows.into_iter().map(|r| r.trim_end().to_string()).collect()
}
