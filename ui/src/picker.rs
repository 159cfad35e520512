//! A list picker (`/resume`, `/mode`): typing filters (case-insensitive, by substring or
//! by chars in order), ↑/↓/PgUp/PgDn move, Enter picks, Esc closes.

use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;

use crate::composer::clean;
use crate::diff::cut;
use crate::style::Theme;

/// Rows of items shown at most.
const ROWS: usize = 10;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PickerItem {
    pub label: String,
    pub detail: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PickerResult {
    /// The index of the item in the list given to [`Picker::new`].
    Selected(usize),
    Cancelled,
}

#[derive(Debug)]
pub struct Picker {
    title: String,
    items: Vec<PickerItem>,
    filter: String,
    /// Position in the filtered list.
    selected: usize,
}

impl Picker {
    pub fn new(title: impl Into<String>, items: Vec<PickerItem>) -> Self {
        Self { title: title.into(), items, filter: String::new(), selected: 0 }
    }

    /// Indices of the items the filter keeps.
    fn visible(&self) -> Vec<usize> {
        let filter = self.filter.to_lowercase();
        self.items
            .iter()
            .enumerate()
            .filter(|(_, item)| {
                let hay = format!("{} {}", item.label, item.detail).to_lowercase();
                filter.is_empty() || hay.contains(&filter) || {
                    let mut chars = hay.chars();
                    filter.chars().all(|f| chars.any(|h| h == f))
                }
            })
            .map(|(i, _)| i)
            .collect()
    }

    pub fn handle_key(&mut self, key: KeyEvent) -> Option<PickerResult> {
        let visible = self.visible();
        match key.code {
            KeyCode::Esc => return Some(PickerResult::Cancelled),
            KeyCode::Enter => return visible.get(self.selected).map(|&i| PickerResult::Selected(i)),
            KeyCode::Up => self.selected = self.selected.saturating_sub(1),
            KeyCode::Down => self.selected = (self.selected + 1).min(visible.len().saturating_sub(1)),
            KeyCode::PageUp => self.selected = self.selected.saturating_sub(ROWS),
            KeyCode::PageDown => self.selected = (self.selected + ROWS).min(visible.len().saturating_sub(1)),
            KeyCode::Backspace => {
                self.filter.pop();
                self.selected = 0;
            }
            KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => {
                self.filter.push(c);
                self.selected = 0;
            }
            _ => {}
        }
        None
    }

    pub fn desired_height(&self, _width: u16) -> u16 {
        (3 + self.visible().len().clamp(1, ROWS)) as u16
    }

    pub fn render(&self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        let w = usize::from(area.width.max(10));
        let visible = self.visible();
        let mut lines = vec![
            Line::from(Span::styled("─".repeat(w), theme.dim())),
            Line::from(vec![
                Span::styled(clean(&self.title), theme.strong()),
                Span::styled(format!("  filter: {}▏  (Enter picks, Esc closes)", clean(&self.filter)), theme.dim()),
            ]),
        ];
        if visible.is_empty() {
            let text = if self.items.is_empty() { "nothing to pick" } else { "nothing matches the filter" };
            lines.push(Line::from(Span::styled(format!("  {text}"), theme.dim())));
        }
        let first = (self.selected + 1).saturating_sub(ROWS);
        for (row, &index) in visible.iter().enumerate().skip(first).take(ROWS) {
            let item = &self.items[index];
            let style = if row == self.selected { theme.selected() } else { theme.text() };
            let label = clean(&item.label);
            let detail = cut(&clean(&item.detail), w.saturating_sub(label.chars().count() + 5));
            lines.push(Line::from(vec![
                Span::styled(format!("  {label}"), style),
                Span::styled(format!("  {detail}"), theme.dim()),
            ]));
        }
        let start = lines.len().saturating_sub(usize::from(area.height));
        for (i, line) in lines.into_iter().skip(start).enumerate() {
            line.render(Rect::new(area.x, area.y + i as u16, area.width, 1), buf);
        }
    }
}
