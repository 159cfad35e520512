//! STAND-IN (replaced by helper ui-dialogs' module at merge).
use crate::style::Theme;
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Widget};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PickerItem {
    pub label: String,
    pub detail: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PickerResult {
    Selected(usize),
    Cancelled,
}

#[derive(Debug)]
pub struct Picker {
    title: String,
    items: Vec<PickerItem>,
    selected: usize,
}

impl Picker {
    pub fn new(title: impl Into<String>, items: Vec<PickerItem>) -> Self {
        Self { title: title.into(), items, selected: 0 }
    }
    pub fn handle_key(&mut self, key: KeyEvent) -> Option<PickerResult> {
        match key.code {
            KeyCode::Up => self.selected = self.selected.saturating_sub(1),
            KeyCode::Down => self.selected = (self.selected + 1).min(self.items.len().saturating_sub(1)),
            KeyCode::Enter if !self.items.is_empty() => return Some(PickerResult::Selected(self.selected)),
            KeyCode::Esc => return Some(PickerResult::Cancelled),
            _ => {}
        }
        None
    }
    pub fn desired_height(&self, _width: u16) -> u16 {
        (self.items.len() as u16).min(10) + 1
    }
    pub fn render(&self, area: Rect, buf: &mut Buffer, _theme: &Theme) {
        let mut lines = vec![Line::raw(self.title.clone())];
        for (i, item) in self.items.iter().enumerate() {
            let mark = if i == self.selected { ">" } else { " " };
            lines.push(Line::raw(format!("{mark} {} {}", item.label, item.detail)));
        }
        Paragraph::new(lines).render(area, buf);
    }
}
