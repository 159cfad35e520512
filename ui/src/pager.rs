//! The pager: one call's whole output on the full screen, to read what its card leaves
//! out. A title row (the tool, its description, which card of how many), the output wrapped
//! to the width, and a footer with the keys and the rows shown. Arrows, PgUp/PgDn, Space,
//! Home/End (and `j`/`k`, `g`/`G`) scroll; Left/Right (`h`/`l`) go to the previous or next
//! card's output; `q`, Esc or the key that opened it close it.
//!
//! The output is untrusted (a command's, a plugin's): every row is cleaned of control
//! characters here, whatever the front end did before.

use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;
use unicode_width::UnicodeWidthStr;

use crate::dialog::clean;
use crate::diff::cut;
use crate::style::Theme;
use crate::view::OutputView;

/// What a key asks of the front end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PagerAction {
    Close,
    /// Show the output of the card before this one.
    Previous,
    /// Show the output of the card after this one.
    Next,
}

/// A call's output on the full screen, and how far it is scrolled.
#[derive(Debug, Clone)]
pub struct Pager {
    view: OutputView,
    /// Which card this is and how many there are (1-based), for the title.
    position: (usize, usize),
    /// The first row shown (of the wrapped rows).
    top: usize,
    /// The output's rows at the last drawn width, and the rows the last frame showed.
    rows: Vec<String>,
    width: u16,
    page: usize,
}

impl Pager {
    /// The pager on `view`, card `index` (0-based) of `count`, at its top.
    pub fn new(view: OutputView, index: usize, count: usize) -> Self {
        Self { view, position: (index + 1, count), top: 0, rows: Vec::new(), width: 0, page: 1 }
    }

    /// Which card it shows (0-based).
    pub fn index(&self) -> usize {
        self.position.0 - 1
    }

    /// Takes one key; `Some` when the front end must act.
    pub fn handle_key(&mut self, key: KeyEvent) -> Option<PagerAction> {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let last = self.rows.len().saturating_sub(self.page);
        match key.code {
            KeyCode::Char('o') if ctrl => return Some(PagerAction::Close),
            KeyCode::Char('q') | KeyCode::Esc => return Some(PagerAction::Close),
            KeyCode::Left | KeyCode::Char('h') => return Some(PagerAction::Previous),
            KeyCode::Right | KeyCode::Char('l') => return Some(PagerAction::Next),
            KeyCode::Up | KeyCode::Char('k') => self.top = self.top.saturating_sub(1),
            KeyCode::Down | KeyCode::Char('j') => self.top += 1,
            KeyCode::PageUp | KeyCode::Char('b') => self.top = self.top.saturating_sub(self.page),
            KeyCode::PageDown | KeyCode::Char(' ') => self.top += self.page,
            KeyCode::Home | KeyCode::Char('g') => self.top = 0,
            KeyCode::End | KeyCode::Char('G') => self.top = last,
            _ => {}
        }
        self.top = self.top.min(last);
        None
    }

    /// Draws the pager over the whole of `area`.
    pub fn render(&mut self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        if area.height == 0 || area.width == 0 {
            return;
        }
        if self.width != area.width {
            self.rows = wrap(&self.view.text, usize::from(area.width));
            self.width = area.width;
        }
        let body = usize::from(area.height.saturating_sub(2)).max(1);
        self.page = body;
        self.top = self.top.min(self.rows.len().saturating_sub(body));
        let w = usize::from(area.width);
        let (index, count) = self.position;
        let mark = if self.view.failed { "x " } else { "" };
        // The position first: a long title is cut at the right.
        let title = format!(" [{index}/{count}] {mark}{}", clean(&self.view.title));
        let title = cut(&title, w);
        let pad = " ".repeat(w.saturating_sub(UnicodeWidthStr::width(title.as_str())));
        let title_style = if self.view.failed { theme.error() } else { theme.strong() };
        Line::from(vec![Span::styled(title, title_style), Span::styled(pad, theme.dim())])
            .style(theme.selected())
            .render(Rect::new(area.x, area.y, area.width, 1), buf);
        for (i, row) in self.rows.iter().skip(self.top).take(body).enumerate() {
            let y = area.y + 1 + i as u16;
            if y + 1 >= area.bottom() && area.height > 1 {
                break;
            }
            Line::styled(row.clone(), theme.text()).render(Rect::new(area.x, y, area.width, 1), buf);
        }
        if area.height > 1 {
            let shown_end = (self.top + body).min(self.rows.len());
            let place = if self.rows.is_empty() {
                "(no output)".to_string()
            } else {
                format!("rows {}–{shown_end} of {}", self.top + 1, self.rows.len())
            };
            let footer = format!(" {place} · ↑↓ PgUp PgDn Home End scroll · ←→ other cards · q back");
            Line::styled(cut(&footer, w), theme.dim()).render(Rect::new(area.x, area.bottom() - 1, area.width, 1), buf);
        }
    }
}

/// `text` cut into rows of at most `width` columns, each cleaned of control characters.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let width = width.max(1);
    let mut rows = Vec::new();
    for line in text.lines() {
        let line = clean(&line.replace('\t', "    "));
        let mut row = String::new();
        let mut used = 0;
        for c in line.chars() {
            let cw = UnicodeWidthStr::width(c.encode_utf8(&mut [0; 4]) as &str);
            if used + cw > width && used > 0 {
                rows.push(std::mem::take(&mut row));
                used = 0;
            }
            row.push(c);
            used += cw;
        }
        rows.push(row);
    }
    rows
}

#[cfg(test)]
#[path = "pager_tests.rs"]
mod tests;
