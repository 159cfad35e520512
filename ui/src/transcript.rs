//! STAND-IN (replaced by helper ui-render's module at merge).
use crate::style::Theme;
use ratatui::text::Line;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NoticeKind {
    Info,
    Warning,
    Retry,
    Error,
}

pub fn user_lines(text: &str, _width: u16, _theme: &Theme) -> Vec<Line<'static>> {
    text.lines().map(|l| Line::raw(format!("› {l}"))).collect()
}
pub fn thought_lines(text: &str, _collapsed: bool, _width: u16, _theme: &Theme) -> Vec<Line<'static>> {
    vec![Line::raw(format!("▸ thinking ({} lines)", text.lines().count()))]
}
pub fn notice_line(text: &str, _kind: NoticeKind, _width: u16, _theme: &Theme) -> Vec<Line<'static>> {
    vec![Line::raw(text.to_string())]
}
