//! One tool call's card: a head line (state glyph or spinner, tool, description, elapsed
//! time while it runs) and, indented below, the live output's tail while it executes; once
//! it ended, the tool's summary or the last lines of its output (never the first: a build's
//! verdict is at its end), the diff of an edit, and what its execution cost — for a call
//! that ran commands, how the last one ended and the commands' own CPU time and memory.
//! A card whose call failed, or whose last command failed, is marked failed (`x`, red).
//! Lines left out are counted, with the key that shows them all ([`EXPAND_KEY`]). An ended
//! card of a call that holds a checkpoint shows its number at the right of its head (`#4`),
//! the number `/undo 4` takes.

use std::time::Duration;

use ratatui::style::Modifier;
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

use crate::composer::clean;
use crate::diff::{self, cut};
use crate::style::Theme;
use crate::view::{CallStatus, Card, CommandView, Cost};

/// Spinner frames while a call executes.
const SPINNER: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];
/// Most diff lines a card shows.
const DIFF_LINES: usize = 20;
/// Most lines of live output a running card shows.
const LIVE_LINES: usize = 5;
/// Most lines of a summary a card shows.
const SUMMARY_LINES: usize = 3;
/// Most lines of output an ended card shows (its last ones).
pub const TAIL_LINES: usize = 5;
/// The key that opens a card's whole output, as the cards name it.
pub const EXPAND_KEY: &str = "ctrl-o";

/// The card's lines at `width` columns.
pub fn lines(card: &Card, width: u16, theme: &Theme) -> Vec<Line<'static>> {
    let w = usize::from(width.max(8));
    let failed = card.failed();
    let (glyph, glyph_style) = match card.state {
        CallStatus::Validating | CallStatus::Scheduled => ("o".to_string(), theme.dim()),
        CallStatus::AwaitingApproval => ("?".to_string(), theme.warning()),
        CallStatus::Executing => (SPINNER[card.spinner % SPINNER.len()].to_string(), theme.accent()),
        CallStatus::Success | CallStatus::Error if failed => ("x".to_string(), theme.error()),
        CallStatus::Success | CallStatus::Error => ("✓".to_string(), theme.success()),
        CallStatus::Cancelled => ("-".to_string(), theme.dim()),
    };
    let mut tool_style = theme.strong();
    if card.state == CallStatus::Cancelled {
        tool_style = tool_style.add_modifier(Modifier::CROSSED_OUT);
    }
    let tool = clean(&card.tool);
    let running = matches!(card.state, CallStatus::Executing | CallStatus::AwaitingApproval);
    // Once ended, the right of the head names a call that can be undone: `/undo N`.
    let right = match (running, card.undo) {
        (true, _) => format!(" {}", duration(card.elapsed)),
        (false, Some(n)) if card.state.is_terminal() => format!(" #{n}"),
        _ => String::new(),
    };
    let used = 2 + UnicodeWidthStr::width(tool.as_str()) + 1 + UnicodeWidthStr::width(right.as_str());
    let description = cut(&clean(&card.description), w.saturating_sub(used));
    let pad = w.saturating_sub(used + UnicodeWidthStr::width(description.as_str()));
    let mut out = vec![Line::from(vec![
        Span::styled(format!("{glyph} "), glyph_style),
        Span::styled(tool, tool_style),
        Span::raw(" "),
        Span::styled(description, theme.dim()),
        Span::raw(" ".repeat(pad)),
        Span::styled(right, theme.dim()),
    ])];
    let indent =
        |text: String, style| Line::from(vec![Span::raw("  "), Span::styled(cut(&text, w.saturating_sub(2)), style)]);
    for hook in &card.hooks {
        out.push(indent(clean(hook), theme.warning()));
    }
    match card.state {
        CallStatus::AwaitingApproval => out.push(indent("waiting for your answer".into(), theme.warning())),
        CallStatus::Executing => {
            for line in card.live_tail.iter().rev().take(LIVE_LINES).rev() {
                out.push(indent(clean(line), theme.dim()));
            }
        }
        _ => {}
    }
    let style = match card.state {
        _ if failed => theme.error(),
        CallStatus::Cancelled => theme.dim(),
        _ => theme.text(),
    };
    if let Some(summary) = &card.summary {
        let count = summary.lines().count();
        for line in summary.lines().take(SUMMARY_LINES) {
            out.push(indent(clean(line), style));
        }
        if count > SUMMARY_LINES {
            out.push(indent(format!("… {}", more_lines(count - SUMMARY_LINES)), theme.dim()));
        }
    } else if card.diff.is_none() && !card.tail.is_empty() {
        let shown = card.tail.len().min(TAIL_LINES);
        let earlier = card.earlier_lines + card.tail.len() - shown;
        if earlier > 0 {
            let marker = format!("… {} · {EXPAND_KEY} shows all", earlier_lines(earlier));
            out.push(indent(marker, theme.dim()));
        }
        // A command's output is quiet unless it failed; its exit line says how it ended.
        let tail_style = match &card.command {
            Some(command) if command.failed => theme.text(),
            Some(_) => theme.dim(),
            None => style,
        };
        for line in &card.tail[card.tail.len() - shown..] {
            out.push(indent(clean(line), tail_style));
        }
    } else if card.state == CallStatus::Cancelled {
        out.push(indent("cancelled".into(), theme.dim()));
    }
    if let Some(diff) = &card.diff {
        for line in diff::lines(diff, width.saturating_sub(2), theme, DIFF_LINES) {
            let mut spans = vec![Span::raw("  ")];
            spans.extend(line.spans);
            out.push(Line::from(spans));
        }
    }
    match (&card.command, &card.cost) {
        (Some(command), Some(cost)) => {
            let ending_style = if command.failed { theme.error() } else { theme.dim() };
            let ending = cut(&clean(&command.ending), w.saturating_sub(2));
            let rest = w.saturating_sub(2 + UnicodeWidthStr::width(ending.as_str()));
            let mut spans = vec![Span::raw("  "), Span::styled(ending, ending_style)];
            if rest > 3 {
                spans.push(Span::styled(cut(&format!(" · {}", command_cost_text(command, cost)), rest), theme.dim()));
            }
            out.push(Line::from(spans));
        }
        (None, Some(cost)) => out.push(indent(cost_text(cost), theme.dim())),
        _ => {}
    }
    out
}

/// What a call that ran commands cost: `1.2 s · cpu 840 ms · 45.2 MiB peak` — its own time,
/// then its commands' CPU time and largest resident set (left out when not known).
pub fn command_cost_text(command: &CommandView, cost: &Cost) -> String {
    let mut text = format!("{} · cpu {}", duration(cost.wall), duration(command.cpu));
    if command.peak_memory > 0 {
        text.push_str(&format!(" · {} peak", bytes(command.peak_memory)));
    }
    text
}

/// What a call cost, in one line: `12 ms · 3.1 MiB peak · read 4.2 KiB · wrote 0 B · 0 net`.
pub fn cost_text(cost: &Cost) -> String {
    format!(
        "{} · {} peak · read {} · wrote {} · {} net",
        duration(cost.wall),
        bytes(cost.peak_memory),
        bytes(cost.bytes_read),
        bytes(cost.bytes_written),
        cost.net_requests
    )
}

/// `n` bytes in the unit that suits it.
pub fn bytes(n: u64) -> String {
    const KIB: f64 = 1024.0;
    let n_f = n as f64;
    if n < 1024 {
        format!("{n} B")
    } else if n_f < KIB * KIB {
        format!("{:.1} KiB", n_f / KIB)
    } else if n_f < KIB * KIB * KIB {
        format!("{:.1} MiB", n_f / KIB / KIB)
    } else {
        format!("{:.1} GiB", n_f / KIB / KIB / KIB)
    }
}

/// `840 ms`, `12.3 s`, `2m 05s`.
pub fn duration(d: Duration) -> String {
    let ms = d.as_millis();
    if ms < 1_000 {
        format!("{ms} ms")
    } else if ms < 60_000 {
        format!("{:.1} s", d.as_secs_f64())
    } else {
        format!("{}m {:02}s", ms / 60_000, (ms / 1_000) % 60)
    }
}

#[cfg(test)]
#[path = "card_tests.rs"]
mod tests;

/// "1 more line", "3 more lines": what a shortened block leaves out.
pub fn more_lines(n: usize) -> String {
    if n == 1 { "1 more line".into() } else { format!("{n} more lines") }
}

/// "1 earlier line", "35 earlier lines": what a tail leaves out.
pub fn earlier_lines(n: usize) -> String {
    if n == 1 { "1 earlier line".into() } else { format!("{n} earlier lines") }
}
