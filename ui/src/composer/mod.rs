//! STAND-IN (replaced by helper ui-composer's module at merge).
use std::path::{Path, PathBuf};

use crate::style::Theme;
use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Widget};

#[derive(Debug, Default)]
pub struct History {
    entries: Vec<String>,
}

impl History {
    pub fn load(_path: PathBuf) -> (History, Option<String>) {
        (History::default(), None)
    }
}

#[derive(Debug, Default)]
pub struct FileIndex {
    files: Vec<String>,
}

impl FileIndex {
    pub fn build(_workspace: &Path, _limit: usize) -> FileIndex {
        FileIndex::default()
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ComposerAction {
    Submit { text: String, mentions: Vec<String> },
    Command { name: String, args: String },
}

#[derive(Debug, Default)]
pub struct Composer {
    text: String,
    history: History,
    index: FileIndex,
    commands: Vec<(String, String)>,
}

impl Composer {
    pub fn new(history: History) -> Self {
        Self { history, ..Self::default() }
    }
    pub fn set_file_index(&mut self, index: FileIndex) {
        self.index = index;
    }
    pub fn set_commands(&mut self, commands: Vec<(String, String)>) {
        self.commands = commands;
    }
    pub fn handle_key(&mut self, key: KeyEvent) -> Option<ComposerAction> {
        match key.code {
            KeyCode::Char('j') if key.modifiers.contains(KeyModifiers::CONTROL) => self.text.push('\n'),
            KeyCode::Char(c) => self.text.push(c),
            KeyCode::Backspace => {
                self.text.pop();
            }
            KeyCode::Enter if key.modifiers.contains(KeyModifiers::SHIFT) => self.text.push('\n'),
            KeyCode::Enter if !self.text.trim().is_empty() => {
                let text = std::mem::take(&mut self.text);
                self.history.entries.push(text.clone());
                if let Some(rest) = text.strip_prefix('/') {
                    let (name, args) = rest.split_once(' ').unwrap_or((rest, ""));
                    if self.commands.iter().any(|(n, _)| n == name) {
                        return Some(ComposerAction::Command { name: name.to_string(), args: args.trim().to_string() });
                    }
                }
                return Some(ComposerAction::Submit { text, mentions: Vec::new() });
            }
            _ => {}
        }
        None
    }
    pub fn handle_paste(&mut self, text: String) {
        self.text.push_str(&text.replace("\r\n", "\n"));
    }
    pub fn has_popup(&self) -> bool {
        false
    }
    pub fn is_empty(&self) -> bool {
        self.text.is_empty()
    }
    pub fn clear(&mut self) {
        self.text.clear();
    }
    pub fn set_text(&mut self, text: &str) {
        self.text = text.to_string();
    }
    pub fn desired_height(&self, _width: u16) -> u16 {
        self.text.lines().count().max(1) as u16
    }
    pub fn render(&self, area: Rect, buf: &mut Buffer, _theme: &Theme) {
        let lines: Vec<Line> = if self.text.is_empty() {
            vec![Line::raw("› ")]
        } else {
            self.text.split('\n').map(|l| Line::raw(format!("› {l}"))).collect()
        };
        Paragraph::new(lines).render(area, buf);
    }
    pub fn cursor(&self, area: Rect) -> Option<(u16, u16)> {
        let last = self.text.split('\n').last().unwrap_or("");
        let rows = self.text.split('\n').count().max(1) as u16;
        Some((area.x + 2 + last.chars().count() as u16, area.y + rows - 1))
    }
}
