//! A filterable list picker (`/resume` sessions, `/model`, `/mode`): typing filters the items
//! by case-insensitive substring, else subsequence; arrows and pages move; Enter answers with
//! the index of the chosen item in the list it was given.
//!
//! Invariants: the answer is always an index into the original items; the selection always
//! points at a shown item (or there is none and Enter does nothing); labels and details are
//! cleaned (a session's first prompt is the model user's text, but may hold anything).

use std::cell::Cell;

use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Widget};

use crate::dialog::{clean, draw, fit, hint, width};
use crate::style::Theme;

/// One row: a label (a session id, a model name) and a detail (when, first prompt).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PickerItem {
    pub label: String,
    pub detail: String,
}

/// What the picker answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PickerResult {
    /// The index of the chosen item in the items given to [`Picker::new`].
    Selected(usize),
    Cancelled,
}

/// Most rows of items a picker asks for.
const MAX_ROWS: usize = 12;

#[derive(Debug)]
pub struct Picker {
    title: String,
    items: Vec<PickerItem>,
    query: String,
    /// Indices into `items` that match `query`, best first.
    shown: Vec<usize>,
    /// Position in `shown`.
    selected: usize,
    /// First shown row and rows of the list at the last render (for paging).
    top: Cell<usize>,
    page: Cell<usize>,
}

impl Picker {
    pub fn new(title: impl Into<String>, items: Vec<PickerItem>) -> Self {
        let shown = (0..items.len()).collect();
        Self {
            title: title.into(),
            items,
            query: String::new(),
            shown,
            selected: 0,
            top: Cell::new(0),
            page: Cell::new(MAX_ROWS),
        }
    }

    /// The filter typed so far.
    pub fn query(&self) -> &str {
        &self.query
    }

    pub fn handle_key(&mut self, key: KeyEvent) -> Option<PickerResult> {
        if key.kind == KeyEventKind::Release {
            return None;
        }
        let last = self.shown.len().saturating_sub(1);
        let page = self.page.get().max(1);
        match key.code {
            KeyCode::Esc => return Some(PickerResult::Cancelled),
            KeyCode::Enter => return self.shown.get(self.selected).map(|&i| PickerResult::Selected(i)),
            KeyCode::Up => self.selected = self.selected.saturating_sub(1),
            KeyCode::Down => self.selected = (self.selected + 1).min(last),
            KeyCode::PageUp => self.selected = self.selected.saturating_sub(page),
            KeyCode::PageDown => self.selected = (self.selected + page).min(last),
            KeyCode::Home => self.selected = 0,
            KeyCode::End => self.selected = last,
            KeyCode::Backspace => {
                self.query.pop();
                self.refilter();
            }
            KeyCode::Char(c) if !key.modifiers.intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) => {
                self.query.push(c);
                self.refilter();
            }
            _ => {}
        }
        None
    }

    fn refilter(&mut self) {
        let q = self.query.to_lowercase();
        let mut substring = Vec::new();
        let mut subsequence = Vec::new();
        for (i, item) in self.items.iter().enumerate() {
            let hay = format!("{} {}", item.label, item.detail).to_lowercase();
            if hay.contains(&q) {
                substring.push(i);
            } else if is_subsequence(&q, &hay) {
                subsequence.push(i);
            }
        }
        substring.extend(subsequence);
        self.shown = substring;
        self.selected = 0;
        self.top.set(0);
    }

    /// Title, filter row, up to 12 rows of items, and borders.
    pub fn desired_height(&self, _width: u16) -> u16 {
        (2 + 1 + self.shown.len().clamp(1, MAX_ROWS)) as u16
    }

    pub fn render(&self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        if area.width == 0 || area.height == 0 {
            return;
        }
        let title = format!(" {} ", fit(&clean(&self.title), area.width.saturating_sub(4) as usize));
        let count = format!(" {}/{} ", self.shown.len(), self.items.len());
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme.accent())
            .title(Span::styled(title, theme.strong()))
            .title_bottom(Line::styled(count, theme.dim()).right_aligned());
        let inner = block.inner(area);
        block.render(area, buf);
        if inner.width == 0 || inner.height == 0 {
            return;
        }
        let w = inner.width as usize;
        let filter = Line::from(vec![
            Span::styled("filter: ", theme.dim()),
            Span::raw(fit(&clean(&self.query), w.saturating_sub(9))),
            Span::styled("▏", theme.accent()),
        ]);
        let rows = inner.height as usize - 1;
        let mut lines = vec![filter];
        lines.extend(self.rows(rows, w, theme));
        draw(lines, inner, buf);
    }

    fn rows(&self, rows: usize, w: usize, theme: &Theme) -> Vec<Line<'static>> {
        if self.items.is_empty() {
            return vec![hint("  nothing to choose from", theme)];
        }
        if self.shown.is_empty() {
            return vec![hint(&fit(&format!("  nothing matches “{}”", clean(&self.query)), w), theme)];
        }
        self.page.set(rows.max(1));
        // Keep the selection inside the window, moving the window as little as possible.
        let mut top = self.top.get().min(self.selected);
        if rows > 0 && self.selected >= top + rows {
            top = self.selected + 1 - rows;
        }
        self.top.set(top);
        let label_w = self.shown.iter().map(|&i| width(&clean(&self.items[i].label))).max().unwrap_or(0).min(w / 2);
        let mut out = Vec::new();
        for (pos, &i) in self.shown.iter().enumerate().skip(top).take(rows) {
            let item = &self.items[i];
            let selected = pos == self.selected;
            let base = if selected { theme.selected() } else { theme.text() };
            let marker = if selected { "› " } else { "  " };
            let label = fit(&clean(&item.label), label_w);
            let pad = " ".repeat(label_w.saturating_sub(width(&label)) + 2);
            let detail = fit(&clean(&item.detail), w.saturating_sub(2 + label_w + 2));
            out.push(Line::from(vec![
                Span::styled(marker, base),
                Span::styled(label, base.patch(theme.strong())),
                Span::styled(pad, base),
                Span::styled(detail, base.patch(theme.dim())),
            ]));
        }
        out
    }
}

/// Whether the characters of `needle` appear in `hay` in order.
fn is_subsequence(needle: &str, hay: &str) -> bool {
    let mut hay = hay.chars();
    needle.chars().all(|n| hay.any(|h| h == n))
}

#[cfg(test)]
#[path = "picker_tests.rs"]
mod tests;
