//! STAND-IN (replaced by helper ui-dialogs' module at merge).
use crate::style::Theme;
use crate::view::{ApprovalChoice, ApprovalView};
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{KeyCode, KeyEvent};
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Widget};

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApprovalResult {
    Choose(ApprovalChoice),
    Refuse { reason: Option<String> },
}

#[derive(Debug)]
pub struct ApprovalDialog {
    view: ApprovalView,
}

impl ApprovalDialog {
    pub fn new(view: ApprovalView) -> Self {
        Self { view }
    }
    pub fn view(&self) -> &ApprovalView {
        &self.view
    }
    pub fn handle_key(&mut self, key: KeyEvent) -> Option<ApprovalResult> {
        match key.code {
            KeyCode::Char('y') => Some(ApprovalResult::Choose(ApprovalChoice::Once)),
            KeyCode::Char('a') => Some(ApprovalResult::Choose(ApprovalChoice::AlwaysForSession)),
            KeyCode::Char('s') => Some(ApprovalResult::Choose(ApprovalChoice::AlwaysSaved)),
            KeyCode::Char('t') => Some(ApprovalResult::Choose(ApprovalChoice::ToolForSession)),
            KeyCode::Char('e') if self.view.editable => Some(ApprovalResult::Choose(ApprovalChoice::Modify)),
            KeyCode::Char('n') => Some(ApprovalResult::Refuse { reason: None }),
            KeyCode::Char('c') | KeyCode::Esc => Some(ApprovalResult::Choose(ApprovalChoice::CancelBatch)),
            _ => None,
        }
    }
    pub fn desired_height(&self, _width: u16) -> u16 {
        4
    }
    pub fn render(&self, area: Rect, buf: &mut Buffer, _theme: &Theme) {
        let lines = vec![
            Line::raw(format!("Allow {}: {}?", self.view.tool, self.view.description)),
            Line::raw("y once · a session · s saved · t tool · n refuse · c cancel"),
        ];
        Paragraph::new(lines).render(area, buf);
    }
}
