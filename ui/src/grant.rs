//! STAND-IN (replaced by helper ui-dialogs' module at merge).
use crate::style::Theme;
use crate::view::{GrantChoice, GrantView};
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Widget};

#[derive(Debug)]
pub struct GrantPrompt {
    view: GrantView,
}

impl GrantPrompt {
    pub fn new(view: GrantView) -> Self {
        Self { view }
    }
    pub fn handle_key(&mut self, key: KeyEvent) -> Option<GrantChoice> {
        match key.code {
            KeyCode::Char('o') => Some(GrantChoice::ThisCall),
            KeyCode::Char('s') => Some(GrantChoice::Session),
            KeyCode::Char('a') => Some(GrantChoice::Always),
            KeyCode::Char('n') | KeyCode::Esc => Some(GrantChoice::No),
            _ => None,
        }
    }
    pub fn desired_height(&self, _width: u16) -> u16 {
        3
    }
    pub fn render(&self, area: Rect, buf: &mut Buffer, _theme: &Theme) {
        let lines = vec![
            Line::raw(format!("{} ({}) asked for: {}", self.view.tool, self.view.plugin, self.view.missing.join(", "))),
            Line::raw("o this call · s session · a always · n no"),
        ];
        Paragraph::new(lines).render(area, buf);
    }
}
