//! The plan panel: the model's plan (`write_todos`) above the composer while some of it is
//! still to do — a header with the count done, then the steps, windowed around the one in
//! progress when there are more than fit.

use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

use crate::style::Theme;

/// Most steps shown at once.
pub const MAX_STEPS: usize = 6;

/// Where a step stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StepStatus {
    Pending,
    InProgress,
    Completed,
    Cancelled,
}

/// One step of the plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Step {
    pub text: String,
    pub status: StepStatus,
}

/// Whether the panel shows: some step is pending or in progress.
pub fn is_open(steps: &[Step]) -> bool {
    steps.iter().any(|s| matches!(s.status, StepStatus::Pending | StepStatus::InProgress))
}

/// The panel's lines at `width` (none when the plan is done or empty).
pub fn lines(steps: &[Step], width: u16, theme: &Theme) -> Vec<Line<'static>> {
    if !is_open(steps) {
        return Vec::new();
    }
    let done = steps.iter().filter(|s| s.status == StepStatus::Completed).count();
    let mut out = vec![Line::from(vec![
        Span::styled("Plan ", theme.strong()),
        Span::styled(format!("{done}/{} done", steps.len()), theme.dim()),
    ])];
    // A window of MAX_STEPS steps that holds the current one (or the first pending one).
    let current = steps
        .iter()
        .position(|s| s.status == StepStatus::InProgress)
        .or_else(|| steps.iter().position(|s| s.status == StepStatus::Pending))
        .unwrap_or(0);
    let start = current.saturating_sub(1).min(steps.len().saturating_sub(MAX_STEPS));
    let end = (start + MAX_STEPS).min(steps.len());
    if start > 0 {
        out.push(Line::styled(format!("  … {start} earlier"), theme.dim()));
    }
    for step in &steps[start..end] {
        let (mark, style) = match step.status {
            StepStatus::Pending => ("[ ]", theme.text()),
            StepStatus::InProgress => ("[>]", theme.accent()),
            StepStatus::Completed => ("[x]", theme.dim()),
            StepStatus::Cancelled => ("[-]", theme.dim()),
        };
        let room = usize::from(width).saturating_sub(6);
        out.push(Line::from(vec![
            Span::styled(format!("  {mark} "), style),
            Span::styled(fit(&step.text, room), style),
        ]));
    }
    if end < steps.len() {
        out.push(Line::styled(format!("  … {} more", steps.len() - end), theme.dim()));
    }
    out
}

/// `text` cut to `room` columns, with an ellipsis when cut.
fn fit(text: &str, room: usize) -> String {
    if UnicodeWidthStr::width(text) <= room {
        return text.to_string();
    }
    let mut out = String::new();
    for c in text.chars() {
        if UnicodeWidthStr::width(out.as_str()) + unicode_width::UnicodeWidthChar::width(c).unwrap_or(0) + 1 > room {
            break;
        }
        out.push(c);
    }
    out.push('…');
    out
}

#[cfg(test)]
#[path = "plan_tests.rs"]
mod tests;
