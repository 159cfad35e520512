//! The text being edited and its cursor (a byte index, always on a char boundary), with
//! the moves and edits of a terminal line editor, and its layout in rows of a width.

use unicode_width::UnicodeWidthChar;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Text {
    text: String,
    cursor: usize,
}

impl From<&str> for Text {
    fn from(text: &str) -> Self {
        Self { text: text.to_string(), cursor: text.len() }
    }
}

impl From<&String> for Text {
    fn from(text: &String) -> Self {
        Self::from(text.as_str())
    }
}

impl Text {
    pub fn as_str(&self) -> &str {
        &self.text
    }

    pub fn cursor(&self) -> usize {
        self.cursor
    }

    pub fn insert(&mut self, s: &str) {
        self.text.insert_str(self.cursor, s);
        self.cursor += s.len();
    }

    pub fn backspace(&mut self) {
        if let Some(c) = self.text[..self.cursor].chars().next_back() {
            self.cursor -= c.len_utf8();
            self.text.remove(self.cursor);
        }
    }

    /// Deletes the `len` bytes before the cursor (a placeholder the caller found there).
    pub fn delete_before(&mut self, len: usize) {
        let start = self.cursor - len;
        self.text.replace_range(start..self.cursor, "");
        self.cursor = start;
    }

    pub fn delete(&mut self) {
        if self.cursor < self.text.len() {
            self.text.remove(self.cursor);
        }
    }

    pub fn replace_range(&mut self, start: usize, end: usize, with: &str) {
        self.text.replace_range(start..end, with);
        self.cursor = start + with.len();
    }

    pub fn left(&mut self) {
        if let Some(c) = self.text[..self.cursor].chars().next_back() {
            self.cursor -= c.len_utf8();
        }
    }

    pub fn right(&mut self) {
        if let Some(c) = self.text[self.cursor..].chars().next() {
            self.cursor += c.len_utf8();
        }
    }

    fn line_start(&self) -> usize {
        self.text[..self.cursor].rfind('\n').map_or(0, |i| i + 1)
    }

    fn line_end(&self) -> usize {
        self.text[self.cursor..].find('\n').map_or(self.text.len(), |i| self.cursor + i)
    }

    pub fn home(&mut self) {
        self.cursor = self.line_start();
    }

    pub fn end(&mut self) {
        self.cursor = self.line_end();
    }

    pub fn kill_to_line_start(&mut self) {
        let start = self.line_start();
        self.text.replace_range(start..self.cursor, "");
        self.cursor = start;
    }

    pub fn kill_to_line_end(&mut self) {
        let end = self.line_end();
        self.text.replace_range(self.cursor..end, "");
    }

    pub fn word_left(&mut self) {
        let before = &self.text[..self.cursor];
        let trimmed = before.trim_end_matches(|c: char| !c.is_alphanumeric());
        self.cursor = trimmed
            .rfind(|c: char| !c.is_alphanumeric())
            .map_or(0, |i| i + trimmed[i..].chars().next().map_or(1, char::len_utf8));
    }

    pub fn word_right(&mut self) {
        let after = &self.text[self.cursor..];
        let skipped = after.len() - after.trim_start_matches(|c: char| !c.is_alphanumeric()).len();
        let rest = &after[skipped..];
        let word = rest.find(|c: char| !c.is_alphanumeric()).unwrap_or(rest.len());
        self.cursor += skipped + word;
    }

    pub fn delete_word_back(&mut self) {
        let end = self.cursor;
        self.word_left();
        self.text.replace_range(self.cursor..end, "");
    }

    /// Moves to the line above at the same column; false on the first line.
    pub fn up(&mut self) -> bool {
        let start = self.line_start();
        if start == 0 {
            return false;
        }
        let column = self.text[start..self.cursor].chars().count();
        let above_start = self.text[..start - 1].rfind('\n').map_or(0, |i| i + 1);
        self.cursor = advance(&self.text, above_start, start - 1, column);
        true
    }

    /// Moves to the line below at the same column; false on the last line.
    pub fn down(&mut self) -> bool {
        let end = self.line_end();
        if end == self.text.len() {
            return false;
        }
        let column = self.text[self.line_start()..self.cursor].chars().count();
        let below_end = self.text[end + 1..].find('\n').map_or(self.text.len(), |i| end + 1 + i);
        self.cursor = advance(&self.text, end + 1, below_end, column);
        true
    }
}

/// The byte index `column` chars after `from`, but not past `limit`.
fn advance(text: &str, from: usize, limit: usize, column: usize) -> usize {
    text[from..limit].char_indices().nth(column).map_or(limit, |(i, _)| from + i)
}

/// One row of the layout: its text, where it starts in the whole text, and whether it was
/// cut by the width (rather than ended by a newline).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Row {
    pub text: String,
    pub start: usize,
    pub wrapped: bool,
}

/// Columns `s` takes (hidden characters count as the sanitiser shows them: tab 4, `\x1b` 4,
/// `\u{202e}` 8).
pub fn width(s: &str) -> usize {
    s.chars().map(char_width).sum()
}

fn char_width(c: char) -> usize {
    match c {
        '\t' => 4,
        c if airlock_protocol::shown::is_hidden(c) => airlock_protocol::shown::line(&c.to_string()).len(),
        c => c.width().unwrap_or(0),
    }
}

/// `text` in rows of at most `width` columns (hard wrap; newlines end rows).
pub fn rows(text: &str, width: usize) -> Vec<Row> {
    let mut rows = Vec::new();
    let mut start = 0;
    for line in text.split('\n') {
        let mut row_start = start;
        let mut used = 0;
        for (i, c) in line.char_indices() {
            let w = char_width(c);
            if used + w > width && used > 0 {
                rows.push(Row { text: line[row_start - start..i].to_string(), start: row_start, wrapped: true });
                row_start = start + i;
                used = 0;
            }
            used += w;
        }
        rows.push(Row { text: line[row_start - start..].to_string(), start: row_start, wrapped: false });
        start += line.len() + 1;
    }
    rows
}
