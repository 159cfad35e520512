//! A coloured unified diff of a [`FileChange`]: a header with the path, hunks with old and new
//! line numbers in a gutter, `+` lines in the added colour and `-` lines in the removed one,
//! three lines of context, tabs expanded, long lines cut with `…`, and a note of what was
//! left out past `max_lines`.

use ratatui::text::{Line, Span};
use similar::{ChangeTag, TextDiff};
use unicode_width::UnicodeWidthStr;

use crate::composer::clean;
use crate::style::Theme;
use crate::view::FileChange;

/// The diff as lines at most `width` columns wide, at most `max_lines` of them (plus a note).
pub fn lines(diff: &FileChange, width: u16, theme: &Theme, max_lines: usize) -> Vec<Line<'static>> {
    let width = usize::from(width.max(12));
    let mut out = Vec::new();
    let header = if diff.is_new_file { format!("{} (new file)", clean(&diff.path)) } else { clean(&diff.path) };
    out.push(Line::from(Span::styled(header, theme.strong())));
    let text_diff = TextDiff::from_lines(diff.original.as_str(), diff.proposed.as_str());
    let mut body = Vec::new();
    for (index, group) in text_diff.grouped_ops(3).iter().enumerate() {
        if index > 0 {
            body.push(Line::from(Span::styled("  ⋮".to_string(), theme.dim())));
        }
        for op in group {
            for change in text_diff.iter_changes(op) {
                let (sign, style) = match change.tag() {
                    ChangeTag::Delete => ('-', theme.removed()),
                    ChangeTag::Insert => ('+', theme.added()),
                    ChangeTag::Equal => (' ', theme.text()),
                };
                let number = change.new_index().or(change.old_index()).map_or(0, |n| n + 1);
                let gutter = format!("{number:>5} {sign} ");
                let content = cut(&clean(change.value().trim_end_matches(['\n', '\r'])), width.saturating_sub(8));
                body.push(Line::from(vec![Span::styled(gutter, theme.dim()), Span::styled(content, style)]));
            }
        }
    }
    if body.is_empty() {
        body.push(Line::from(Span::styled("  (no changes)".to_string(), theme.dim())));
    }
    let total = body.len();
    out.extend(body.into_iter().take(max_lines.max(1)));
    if total > max_lines.max(1) {
        out.push(Line::from(Span::styled(
            format!("  … {}", crate::card::more_lines(total - max_lines.max(1))),
            theme.dim(),
        )));
    }
    out
}

/// `text` cut to `width` columns, `…` marking the cut.
pub(crate) fn cut(text: &str, width: usize) -> String {
    if UnicodeWidthStr::width(text) <= width {
        return text.to_string();
    }
    let mut out = String::new();
    let mut used = 0;
    for c in text.chars() {
        let w = UnicodeWidthStr::width(c.encode_utf8(&mut [0; 4]) as &str);
        if used + w + 1 > width {
            break;
        }
        out.push(c);
        used += w;
    }
    out.push('…');
    out
}
