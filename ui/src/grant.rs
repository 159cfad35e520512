//! The grant prompt: a call failed because its plugin asked for something the user never
//! granted; the person may grant it for this call only, for the session, always (written to
//! the policy file), or not. Esc is "no". Every string is shown through [`clean`].

use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;

use crate::composer::clean;
use crate::diff::cut;
use crate::style::Theme;
use crate::view::{GrantChoice, GrantView};

const CHOICES: [GrantChoice; 4] = [GrantChoice::ThisCall, GrantChoice::Session, GrantChoice::Always, GrantChoice::No];

#[derive(Debug)]
pub struct GrantPrompt {
    view: GrantView,
    selected: usize,
}

impl GrantPrompt {
    pub fn new(view: GrantView) -> Self {
        Self { view, selected: 0 }
    }

    pub fn view(&self) -> &GrantView {
        &self.view
    }

    pub fn handle_key(&mut self, key: KeyEvent) -> Option<GrantChoice> {
        match key.code {
            KeyCode::Char('o') => Some(GrantChoice::ThisCall),
            KeyCode::Char('s') => Some(GrantChoice::Session),
            KeyCode::Char('a') => Some(GrantChoice::Always),
            KeyCode::Char('n') | KeyCode::Esc => Some(GrantChoice::No),
            KeyCode::Enter => Some(CHOICES[self.selected]),
            KeyCode::Up => {
                self.selected = (self.selected + CHOICES.len() - 1) % CHOICES.len();
                None
            }
            KeyCode::Down | KeyCode::Tab => {
                self.selected = (self.selected + 1) % CHOICES.len();
                None
            }
            _ => None,
        }
    }

    pub fn desired_height(&self, width: u16) -> u16 {
        self.lines(width, &Theme::PLAIN).len() as u16
    }

    pub fn render(&self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        let lines = self.lines(area.width, theme);
        let start = lines.len().saturating_sub(usize::from(area.height));
        for (i, line) in lines.into_iter().skip(start).enumerate() {
            line.render(Rect::new(area.x, area.y + i as u16, area.width, 1), buf);
        }
    }

    fn lines(&self, width: u16, theme: &Theme) -> Vec<Line<'static>> {
        let w = usize::from(width.max(10));
        let mut out = vec![
            Line::from(Span::styled("─".repeat(w), theme.dim())),
            Line::from(vec![
                Span::styled(format!("{} ", clean(&self.view.tool)), theme.strong().patch(theme.warning())),
                Span::styled(
                    format!("(plugin {}) failed: it asked for what it was never granted:", clean(&self.view.plugin)),
                    theme.text(),
                ),
            ]),
        ];
        for missing in &self.view.missing {
            out.push(Line::from(vec![
                Span::raw("  + "),
                Span::styled(cut(&clean(missing), w.saturating_sub(4)), theme.warning()),
            ]));
        }
        let file = clean(&self.view.policy_file);
        for (i, choice) in CHOICES.iter().enumerate() {
            let (key, text) = match choice {
                GrantChoice::ThisCall => ("o", "Grant for this call only (the sandbox reverts after it)".to_string()),
                GrantChoice::Session => ("s", "Grant for this session".to_string()),
                GrantChoice::Always => ("a", format!("Grant always (written to {file}, like `airlock plugins grant`)")),
                GrantChoice::No => ("n", "No (Esc): the call keeps its error".to_string()),
            };
            let style = if i == self.selected { theme.selected() } else { theme.text() };
            out.push(Line::from(vec![
                Span::styled(format!(" {key} "), theme.accent()),
                Span::styled(cut(&text, w.saturating_sub(3)), style),
            ]));
        }
        out
    }
}

#[cfg(test)]
#[path = "grant_tests.rs"]
mod tests;
