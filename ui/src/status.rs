//! STAND-IN (replaced by helper ui-render's module at merge).
use crate::style::Theme;
use crate::view::StatusView;
use ratatui::text::Line;

pub fn line(s: &StatusView, _width: u16, _theme: &Theme) -> Line<'static> {
    Line::raw(format!("{} {} · {} · {} tokens · {}", s.provider, s.model, s.mode, s.tokens_used, s.session_id))
}
