//! STAND-IN (replaced by helper ui-dialogs' module at merge).
use crate::style::Theme;
use ratatui::text::Line;

pub fn lines(commands: &[(&str, &str)], _theme: &Theme) -> Vec<Line<'static>> {
    commands.iter().map(|(n, d)| Line::raw(format!("/{n}  {d}"))).collect()
}
