//! The status line: provider and model, approval mode, tokens used and context left, the
//! session, running calls, and while a turn runs how long it has run. When narrow, whole
//! parts are dropped in a fixed order (the session id first, the model last); a part is
//! never cut mid-word.

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

use crate::card::duration;
use crate::composer::clean;
use crate::style::Theme;
use crate::view::StatusView;

pub fn line(status: &StatusView, width: u16, theme: &Theme) -> Line<'static> {
    let mode_style = match status.mode.as_str() {
        "yolo" => theme.error(),
        "auto-edit" | "auto_edit" => theme.warning(),
        "plan" => theme.accent(),
        _ => theme.dim(),
    };
    let tokens = match status.context_left {
        Some(left) if status.tokens_used + left > 0 => {
            let window = (status.tokens_used.max(1)).max(left);
            let _ = window;
            format!("{} tokens · {} context left", short(status.tokens_used), short(left))
        }
        _ => format!("{} tokens", short(status.tokens_used)),
    };
    // (priority: lower goes first when space runs out, text, style)
    let mut parts: Vec<(u8, String, Style)> = Vec::new();
    if let Some(working) = status.working {
        parts.push((9, format!("Working {} · esc to interrupt", duration_short(working)), theme.accent()));
    }
    parts.push((10, format!("{} {}", clean(&status.provider), clean(&status.model)), theme.strong()));
    parts.push((8, clean(&status.mode), mode_style));
    if status.running_calls > 0 {
        parts.push((7, format!("{} running", status.running_calls), theme.accent()));
    }
    parts.push((6, tokens, theme.dim()));
    parts.push((5, clean(&status.session_id.chars().take(8).collect::<String>()), theme.dim()));
    let width = usize::from(width);
    let fits = |parts: &[(u8, String, Style)]| {
        parts.iter().map(|(_, t, _)| UnicodeWidthStr::width(t.as_str())).sum::<usize>()
            + parts.len().saturating_sub(1) * 3
            <= width
    };
    while !fits(&parts) && !parts.is_empty() {
        let lowest = parts.iter().enumerate().min_by_key(|(_, p)| p.0).map(|(i, _)| i).unwrap_or(0);
        parts.remove(lowest);
    }
    let mut spans = Vec::new();
    for (i, (_, text, style)) in parts.into_iter().enumerate() {
        if i > 0 {
            spans.push(Span::styled(" · ", theme.dim()));
        }
        spans.push(Span::styled(text, style));
    }
    Line::from(spans)
}

/// `12.3k`, `1.2M`.
fn short(n: u64) -> String {
    match n {
        n if n >= 1_000_000 => format!("{:.1}M", n as f64 / 1e6),
        n if n >= 1_000 => format!("{:.1}k", n as f64 / 1e3),
        n => n.to_string(),
    }
}

/// Whole seconds while working: `12s`, `2m 05s`.
fn duration_short(d: std::time::Duration) -> String {
    if d.as_secs() < 60 { format!("{}s", d.as_secs()) } else { duration(d) }
}

#[cfg(test)]
#[path = "status_tests.rs"]
mod tests;
