//! The composer: where the user writes. A multi-line text area with a cursor, the history of
//! earlier prompts (kept across runs, [`History`]), large pastes folded into placeholders,
//! `@path` mentions completed from the workspace's files ([`FileIndex`]) and `/command`
//! completion.
//!
//! Invariants: the cursor is always on a char boundary of the text; a paste placeholder is
//! edited as one unit (one Backspace removes it) and is expanded back to the pasted text on
//! submit; what is drawn never holds a control character (they are shown as the one sanitiser writes them: `\x1b`, `\u{202e}`),
//! while what is submitted keeps the pasted text exactly (but CRLF, which becomes LF).

mod history;
mod index;
mod text;

use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;

use crate::style::Theme;
pub use history::History;
pub use index::FileIndex;
use text::Text;

/// Pastes over this many lines or chars become a placeholder.
const PASTE_LINES: usize = 5;
const PASTE_CHARS: usize = 1_000;
/// Most rows the text takes before it scrolls.
const MAX_TEXT_ROWS: u16 = 10;
/// Most rows of a completion popup.
const POPUP_ROWS: usize = 8;
/// The prompt marker.
const MARKER: &str = "› ";

/// What the user sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ComposerAction {
    /// A prompt, pastes expanded, with the `@paths` it mentions that the index knows.
    Submit { text: String, mentions: Vec<String> },
    /// `/name args` for a known command.
    Command { name: String, args: String },
}

/// An open completion list.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Popup {
    None,
    /// Commands matching the `/word` being typed.
    Commands {
        items: Vec<(String, String)>,
        selected: usize,
    },
    /// Files matching the `@word` before the cursor, which starts at byte `start`.
    Files {
        start: usize,
        items: Vec<String>,
        selected: usize,
    },
    /// A `/word` that names no command.
    Unknown(String),
}

/// The composer's state.
#[derive(Debug)]
pub struct Composer {
    text: Text,
    history: History,
    index: FileIndex,
    commands: Vec<(String, String)>,
    popup: Popup,
    /// Pasted texts, by placeholder.
    pastes: Vec<(String, String)>,
}

impl Composer {
    pub fn new(history: History) -> Self {
        Self {
            text: Text::default(),
            history,
            index: FileIndex::default(),
            commands: Vec::new(),
            popup: Popup::None,
            pastes: Vec::new(),
        }
    }

    /// The workspace's files, for `@` completion (built off the UI thread).
    pub fn set_file_index(&mut self, index: FileIndex) {
        self.index = index;
        self.refresh_popup();
    }

    /// The slash commands: names without `/`, and what each does.
    pub fn set_commands(&mut self, commands: Vec<(String, String)>) {
        self.commands = commands;
    }

    pub fn has_popup(&self) -> bool {
        !matches!(self.popup, Popup::None)
    }

    pub fn is_empty(&self) -> bool {
        self.text.as_str().is_empty()
    }

    /// The text as typed (placeholders not expanded).
    pub fn text(&self) -> &str {
        self.text.as_str()
    }

    pub fn clear(&mut self) {
        self.text = Text::default();
        self.pastes.clear();
        self.popup = Popup::None;
        self.history.reset();
    }

    pub fn set_text(&mut self, text: &str) {
        self.text = Text::from(text);
        self.refresh_popup();
    }

    /// Takes a key. Keys the composer does not use (Esc with no popup, Ctrl+C, Shift+Tab,
    /// PgUp/PgDn) return `None` and change nothing.
    pub fn handle_key(&mut self, key: KeyEvent) -> Option<ComposerAction> {
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        let alt = key.modifiers.contains(KeyModifiers::ALT);
        let shift = key.modifiers.contains(KeyModifiers::SHIFT);
        if self.has_popup() {
            match self.popup_key(key) {
                PopupKey::Taken => return None,
                PopupKey::Submit => return self.submit(),
                PopupKey::Pass => {}
            }
        }
        match key.code {
            KeyCode::Enter if shift || alt || ctrl => self.text.insert("\n"),
            KeyCode::Char('j') if ctrl => self.text.insert("\n"),
            KeyCode::Enter => return self.submit(),
            KeyCode::Char('a') if ctrl => self.text.home(),
            KeyCode::Char('e') if ctrl => self.text.end(),
            KeyCode::Char('u') if ctrl => self.text.kill_to_line_start(),
            KeyCode::Char('k') if ctrl => self.text.kill_to_line_end(),
            KeyCode::Char('w') if ctrl => self.text.delete_word_back(),
            KeyCode::Char(_) if ctrl => return None,
            KeyCode::Char(c) => {
                let mut buf = [0u8; 4];
                self.text.insert(c.encode_utf8(&mut buf));
            }
            KeyCode::Tab => self.text.insert("\t"),
            KeyCode::Backspace => {
                if !self.delete_placeholder_before() {
                    self.text.backspace();
                }
            }
            KeyCode::Delete => self.text.delete(),
            KeyCode::Left if ctrl || alt => self.text.word_left(),
            KeyCode::Right if ctrl || alt => self.text.word_right(),
            KeyCode::Left => self.text.left(),
            KeyCode::Right => self.text.right(),
            KeyCode::Home => self.text.home(),
            KeyCode::End => self.text.end(),
            KeyCode::Up => {
                if !self.text.up()
                    && let Some(entry) = self.history.older(self.text.as_str())
                {
                    self.text = Text::from(&entry);
                }
            }
            KeyCode::Down => {
                if !self.text.down()
                    && let Some(entry) = self.history.newer()
                {
                    self.text = Text::from(&entry);
                }
            }
            _ => return None,
        }
        self.refresh_popup();
        None
    }

    /// Takes a bracketed paste: a large one becomes a placeholder.
    pub fn handle_paste(&mut self, pasted: String) {
        let pasted = pasted.replace("\r\n", "\n").replace('\r', "\n");
        let lines = pasted.lines().count();
        let chars = pasted.chars().count();
        if lines > PASTE_LINES || chars > PASTE_CHARS {
            let placeholder = format!("[Pasted {} chars · {lines} lines #{}]", group(chars), self.pastes.len() + 1);
            self.text.insert(&placeholder);
            self.pastes.push((placeholder, pasted));
        } else {
            self.text.insert(&pasted);
        }
        self.refresh_popup();
    }

    /// Rows the composer wants at `width`: its text (up to a maximum) and an open popup.
    pub fn desired_height(&self, width: u16) -> u16 {
        let rows = self.text_rows(width).len() as u16;
        rows.clamp(1, MAX_TEXT_ROWS) + self.popup_rows() as u16
    }

    pub fn render(&self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        if area.width == 0 || area.height == 0 {
            return;
        }
        let popup_rows = (self.popup_rows() as u16).min(area.height.saturating_sub(1));
        let text_area = Rect::new(area.x, area.y, area.width, area.height - popup_rows);
        let (rows, cursor_row) = self.visible_rows(text_area.width, text_area.height);
        let _ = cursor_row;
        for (i, row) in rows.iter().enumerate() {
            let y = text_area.y + i as u16;
            let marker =
                if i == 0 && self.first_visible(text_area.width, text_area.height) == 0 { MARKER } else { "  " };
            let mut spans = vec![Span::styled(marker, theme.accent())];
            if self.is_empty() {
                spans.push(Span::styled("Ask anything · @ to attach a file · / for commands", theme.dim()));
            } else {
                spans.extend(styled_row(&row.text, &self.pastes, theme));
            }
            Line::from(spans).render(Rect::new(text_area.x, y, text_area.width, 1), buf);
        }
        let popup_area = Rect::new(area.x, text_area.bottom(), area.width, popup_rows);
        self.render_popup(popup_area, buf, theme);
    }

    /// Where the terminal cursor goes when the composer is drawn in `area`.
    pub fn cursor(&self, area: Rect) -> Option<(u16, u16)> {
        if area.width <= 2 || area.height == 0 {
            return None;
        }
        let popup_rows = (self.popup_rows() as u16).min(area.height.saturating_sub(1));
        let height = area.height - popup_rows;
        let rows = self.text_rows(area.width);
        let first = self.first_visible(area.width, height);
        let (row, col) = cursor_in(&rows, self.text.cursor());
        let y = row.checked_sub(first)?;
        Some((area.x + 2 + col.min(area.width - 3), area.y + y as u16))
    }

    fn submit(&mut self) -> Option<ComposerAction> {
        let typed = self.text.as_str().to_string();
        if typed.trim().is_empty() {
            return None;
        }
        if let Some(rest) = typed.strip_prefix('/') {
            let (name, args) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
            if self.commands.iter().any(|(n, _)| n == name) {
                self.history.push(&typed);
                self.clear();
                return Some(ComposerAction::Command { name: name.to_string(), args: args.trim().to_string() });
            }
            if !name.is_empty()
                && !name.contains('/')
                && name.chars().all(|c| c.is_alphanumeric() || c == '-' || c == '_')
            {
                // `/foo` that names no command stays, with a hint; `/usr/bin` is a prompt.
                self.popup = Popup::Unknown(name.to_string());
                return None;
            }
        }
        let mentions = mentions(&typed).into_iter().filter(|m| self.index.contains(m)).collect();
        let mut text = typed.clone();
        for (placeholder, pasted) in &self.pastes {
            text = text.replacen(placeholder, pasted, 1);
        }
        self.history.push(&typed);
        self.clear();
        Some(ComposerAction::Submit { text, mentions })
    }

    /// Deletes a whole placeholder ending at the cursor; true if there was one.
    fn delete_placeholder_before(&mut self) -> bool {
        let before = &self.text.as_str()[..self.text.cursor()];
        let Some(index) = self.pastes.iter().position(|(p, _)| before.ends_with(p.as_str())) else { return false };
        let length = self.pastes[index].0.len();
        self.text.delete_before(length);
        self.pastes.remove(index);
        true
    }

    fn refresh_popup(&mut self) {
        let text = self.text.as_str();
        let cursor = self.text.cursor();
        if let Some(word) = text.strip_prefix('/').filter(|w| !w.contains(char::is_whitespace) && cursor == text.len())
        {
            let mut items: Vec<(String, String)> =
                self.commands.iter().filter(|(n, _)| n.starts_with(word)).cloned().collect();
            if items.is_empty() {
                items = self.commands.iter().filter(|(n, _)| subsequence(word, n)).cloned().collect();
            }
            self.popup = if items.is_empty() { Popup::None } else { Popup::Commands { items, selected: 0 } };
            return;
        }
        let before = &text[..cursor];
        let start = before.rfind(|c: char| c.is_whitespace()).map_or(0, |i| i + 1);
        if let Some(query) = before[start..].strip_prefix('@') {
            let items = self.index.matches(query, POPUP_ROWS);
            if !items.is_empty() {
                self.popup = Popup::Files { start, items, selected: 0 };
                return;
            }
        }
        self.popup = Popup::None;
    }

    fn popup_key(&mut self, key: KeyEvent) -> PopupKey {
        let count = match &self.popup {
            Popup::Commands { items, .. } => items.len(),
            Popup::Files { items, .. } => items.len(),
            Popup::Unknown(_) => 0,
            Popup::None => return PopupKey::Pass,
        };
        match key.code {
            KeyCode::Esc => {
                self.popup = Popup::None;
                PopupKey::Taken
            }
            KeyCode::Up | KeyCode::Down if count > 0 => {
                if let Popup::Commands { selected, .. } | Popup::Files { selected, .. } = &mut self.popup {
                    *selected =
                        if key.code == KeyCode::Up { (*selected + count - 1) % count } else { (*selected + 1) % count };
                }
                PopupKey::Taken
            }
            KeyCode::Tab | KeyCode::Enter if count > 0 => {
                let enter = key.code == KeyCode::Enter;
                match std::mem::replace(&mut self.popup, Popup::None) {
                    Popup::Commands { items, selected } => {
                        let name = &items[selected.min(items.len() - 1)].0;
                        self.text = Text::from(&format!("/{name}"));
                        if enter {
                            PopupKey::Submit
                        } else {
                            self.text.insert(" ");
                            PopupKey::Taken
                        }
                    }
                    Popup::Files { start, items, selected } => {
                        let path = &items[selected.min(items.len() - 1)];
                        let word = if path.contains(char::is_whitespace) {
                            format!("@\"{path}\" ")
                        } else {
                            format!("@{path} ")
                        };
                        self.text.replace_range(start, self.text.cursor(), &word);
                        PopupKey::Taken
                    }
                    other => {
                        self.popup = other;
                        PopupKey::Pass
                    }
                }
            }
            _ => {
                if matches!(self.popup, Popup::Unknown(_)) {
                    self.popup = Popup::None;
                }
                PopupKey::Pass
            }
        }
    }

    fn popup_rows(&self) -> usize {
        match &self.popup {
            Popup::None => 0,
            Popup::Commands { items, .. } => items.len().min(POPUP_ROWS),
            Popup::Files { items, .. } => items.len().min(POPUP_ROWS),
            Popup::Unknown(_) => 1,
        }
    }

    fn render_popup(&self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        let rows: Vec<(String, String, bool)> = match &self.popup {
            Popup::None => return,
            Popup::Commands { items, selected } => {
                items.iter().enumerate().map(|(i, (n, d))| (format!("/{n}"), d.clone(), i == *selected)).collect()
            }
            Popup::Files { items, selected, .. } => {
                items.iter().enumerate().map(|(i, p)| (format!("@{p}"), String::new(), i == *selected)).collect()
            }
            Popup::Unknown(name) => {
                vec![(format!("/{}", clean(name)), "is not a command: /help lists them".into(), false)]
            }
        };
        let first = match &self.popup {
            Popup::Commands { selected, .. } | Popup::Files { selected, .. } => {
                (selected + 1).saturating_sub(area.height as usize)
            }
            _ => 0,
        };
        for (i, (label, detail, selected)) in rows.iter().skip(first).take(area.height as usize).enumerate() {
            let style = if *selected { theme.selected() } else { Style::default() };
            let line = Line::from(vec![
                Span::styled(format!("  {:<20}", clean(label)), style.patch(theme.strong())),
                Span::styled(format!(" {}", clean(detail)), theme.dim()),
            ]);
            line.render(Rect::new(area.x, area.y + i as u16, area.width, 1), buf);
        }
    }

    /// The text cut into rows of `width - 2` columns (after the marker).
    fn text_rows(&self, width: u16) -> Vec<text::Row> {
        text::rows(self.text.as_str(), usize::from(width.saturating_sub(2).max(1)))
    }

    /// The first row shown when `height` rows are available: the cursor stays visible.
    fn first_visible(&self, width: u16, height: u16) -> usize {
        let rows = self.text_rows(width);
        let (row, _) = cursor_in(&rows, self.text.cursor());
        (row + 1).saturating_sub(usize::from(height.max(1)))
    }

    fn visible_rows(&self, width: u16, height: u16) -> (Vec<text::Row>, usize) {
        let rows = self.text_rows(width);
        let first = self.first_visible(width, height);
        let (row, _) = cursor_in(&rows, self.text.cursor());
        (rows.into_iter().skip(first).take(usize::from(height)).collect(), row - first)
    }
}

enum PopupKey {
    Taken,
    Submit,
    Pass,
}

/// The cursor's row and column among `rows`.
fn cursor_in(rows: &[text::Row], cursor: usize) -> (usize, u16) {
    let mut found = (0, 0);
    for (i, row) in rows.iter().enumerate() {
        if cursor >= row.start && cursor <= row.start + row.text.len() {
            found = (i, text::width(&row.text[..cursor - row.start]) as u16);
            if cursor < row.start + row.text.len() || !row.wrapped {
                break;
            }
        }
    }
    found
}

/// A row's spans: placeholders dimmed, control characters made visible.
fn styled_row(row: &str, pastes: &[(String, String)], theme: &Theme) -> Vec<Span<'static>> {
    let mut spans = Vec::new();
    let mut rest = row;
    while !rest.is_empty() {
        let next = pastes.iter().filter_map(|(p, _)| rest.find(p.as_str()).map(|i| (i, p.len()))).min();
        match next {
            Some((at, len)) => {
                if at > 0 {
                    spans.push(Span::raw(clean(&rest[..at])));
                }
                spans.push(Span::styled(rest[at..at + len].to_string(), theme.dim()));
                rest = &rest[at + len..];
            }
            None => {
                spans.push(Span::raw(clean(rest)));
                break;
            }
        }
    }
    spans
}

/// `text` with control characters shown, not obeyed (a tab is four spaces): the one
/// sanitiser, as every widget's.
pub(crate) fn clean(text: &str) -> String {
    crate::dialog::clean(&text.replace('\t', "    "))
}

/// The `@paths` of `text` (`@"a b.txt"` quoted when they hold spaces).
pub fn mentions(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find('@') {
        let preceded = at == 0 || rest[..at].ends_with(char::is_whitespace);
        rest = &rest[at + 1..];
        if !preceded {
            continue;
        }
        let path = if let Some(quoted) = rest.strip_prefix('"') {
            quoted.split('"').next().unwrap_or_default()
        } else {
            rest.split(char::is_whitespace).next().unwrap_or_default()
        };
        let path = path.trim_end_matches([',', '.', ';', ':', ')', '?', '!']);
        if !path.is_empty() && !found.iter().any(|f| f == path) {
            found.push(path.to_string());
        }
    }
    found
}

/// Whether the chars of `needle` appear in `haystack` in order.
fn subsequence(needle: &str, haystack: &str) -> bool {
    let mut chars = haystack.chars();
    needle.chars().all(|n| chars.any(|h| h.eq_ignore_ascii_case(&n)))
}

/// `1234` as `1,234`.
fn group(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
#[path = "mod_tests.rs"]
mod tests;
