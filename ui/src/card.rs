//! STAND-IN (replaced by helper ui-render's module at merge).
use crate::style::Theme;
use crate::view::{Card, Cost};
use ratatui::text::Line;

pub fn lines(card: &Card, _width: u16, _theme: &Theme) -> Vec<Line<'static>> {
    let mut lines = vec![Line::raw(format!("{:?} {} {}", card.state, card.tool, card.description))];
    lines.extend(card.live_tail.iter().map(|l| Line::raw(format!("  {l}"))));
    if let Some(s) = &card.summary {
        lines.push(Line::raw(format!("  {s}")));
    }
    if let Some(c) = &card.cost {
        lines.push(Line::raw(format!("  {}", cost_text(c))));
    }
    lines
}
pub fn cost_text(cost: &Cost) -> String {
    format!(
        "{} ms · {} B peak · read {} B · wrote {} B · {} net",
        cost.wall.as_millis(),
        cost.peak_memory,
        cost.bytes_read,
        cost.bytes_written,
        cost.net_requests
    )
}
