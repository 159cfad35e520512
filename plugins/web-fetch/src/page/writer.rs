//! The Markdown being written, a line at a time, and the state of the blocks open around
//! it (lists, quotes, code, headings, tables, a link).
//!
//! Invariants: a line's prefix (a list marker, a heading's hashes) is written with the
//! line's first text, never alone, so an item or a heading that holds no text leaves
//! nothing and one that starts with a block (`<li><p>…`) keeps its marker on the text's
//! line; inside a heading or a table cell what would end a line is a space, so a heading
//! and a table row stay on one line; a mark or a link with nothing inside is taken back.

/// One open table.
pub struct Table {
    /// A table holding another table lays the page out: its cells are written as blocks.
    pub layout: bool,
    /// Rows written so far (the first one gets the `| --- |` line under it).
    rows: usize,
    /// Columns of the row being written (a cell spanning columns counts for each).
    columns: usize,
    /// Whether a cell is open.
    in_cell: bool,
    /// Where the table starts in `out`: a table with no text in any cell is taken back.
    start: usize,
}

/// An emphasis or code mark just written: taken back if its closing mark comes next.
struct Mark {
    mark: &'static str,
    /// `out`'s length after the opening mark.
    after: usize,
    /// `out`'s length and the pending prefix before it.
    before: usize,
    pending: String,
}

/// The open link.
pub struct Link {
    target: String,
    /// Where its text starts in `out`.
    start: usize,
    before: usize,
    pending: String,
}

/// Deepest nesting of lists and quotes that is indented: past it, deeper levels are
/// written as this one, so a page of thousands of nested lists cannot make every line of it
/// thousands of spaces long.
pub const MAX_DEPTH: usize = 8;

#[derive(Default)]
pub struct Writer {
    pub out: String,
    /// Open lists: `None` for `ul`, the next number for `ol`.
    pub lists: Vec<Option<u32>>,
    /// What the current line starts with once it has text: a list marker, a heading's hashes.
    pending: String,
    /// Depth of `pre`.
    pub pre: usize,
    /// Depth of `blockquote`.
    pub quote: usize,
    /// Inside a heading.
    pub heading: bool,
    pub tables: Vec<Table>,
    link: Option<Link>,
    mark: Option<Mark>,
}

impl Writer {
    fn at_line_start(&self) -> bool {
        self.out.is_empty() || self.out.ends_with('\n')
    }

    /// Inside a cell of a table written as a Markdown table.
    pub fn in_cell(&self) -> bool {
        self.tables.last().is_some_and(|t| !t.layout && t.in_cell)
    }

    /// Whether lines cannot end here (a heading, a table cell).
    pub fn one_line(&self) -> bool {
        self.heading || self.in_cell()
    }

    fn trim_spaces(&mut self) {
        while self.out.ends_with(' ') {
            self.out.pop();
        }
    }

    /// Cuts `out` back to `len`, if that is still a place in it: a link's text is written
    /// again trimmed when the link closes, which moves what came after its start.
    fn take_back(&mut self, len: usize) -> bool {
        let possible = self.out.is_char_boundary(len);
        if possible {
            self.out.truncate(len);
        }
        possible
    }

    /// Ends the current line and leaves `blank` empty lines (0 or 1) after it; on a line
    /// that cannot end, a space.
    pub fn newline(&mut self, blank: bool) {
        if self.one_line() {
            if !self.at_line_start() && !self.out.ends_with(' ') {
                self.out.push(' ');
            }
            return;
        }
        self.trim_spaces();
        if self.out.is_empty() {
            return;
        }
        if !self.out.ends_with('\n') {
            self.out.push('\n');
        }
        if blank && !self.out.ends_with("\n\n") {
            self.out.push('\n');
        }
    }

    /// A `<br>`: a new line, kept even when the line is empty.
    pub fn line_break(&mut self) {
        if self.one_line() {
            self.newline(false);
        } else {
            self.trim_spaces();
            self.out.push('\n');
        }
    }

    /// Sets what the next line with text starts with.
    pub fn start_line(&mut self, prefix: &str) {
        self.pending.clear();
        self.pending.push_str(prefix);
    }

    /// Adds to what the next line with text starts with (a heading inside a list item).
    pub fn add_to_line_start(&mut self, prefix: &str) {
        self.pending.push_str(prefix);
    }

    /// Forgets a prefix no text came for.
    pub fn drop_line_start(&mut self) {
        self.pending.clear();
    }

    /// At the start of a line, what starts it: quote marks, then the pending prefix or the
    /// indentation that keeps a list item's later lines inside it.
    fn prefix(&mut self) {
        if !self.at_line_start() {
            return;
        }
        for _ in 0..self.quote.min(MAX_DEPTH) {
            self.out.push_str("> ");
        }
        if !self.pending.is_empty() {
            self.out.push_str(&self.pending);
            self.pending.clear();
        } else if self.pre == 0 {
            for _ in 0..self.lists.len().min(MAX_DEPTH) {
                self.out.push_str("  ");
            }
        }
    }

    pub fn text(&mut self, text: &str) {
        if self.pre > 0 {
            self.prefix();
            self.out.push_str(text);
            return;
        }
        let cell = self.in_cell();
        for (i, word) in text.split(|c: char| c.is_ascii_whitespace()).enumerate() {
            let space_before = i > 0 || text.starts_with(|c: char| c.is_ascii_whitespace());
            if space_before && !self.at_line_start() && !self.out.ends_with(' ') {
                self.out.push(' ');
            }
            if !word.is_empty() {
                let line_start = self.at_line_start();
                self.prefix();
                if line_start && reads_as_marker(word) {
                    // Text such as a lone `-` would read as a list marker.
                    self.out.push('\\');
                }
                if cell && word.contains('|') {
                    self.out.push_str(&word.replace('|', "\\|"));
                } else {
                    self.out.push_str(word);
                }
            }
        }
    }

    /// Markup, written where text would be.
    pub fn raw(&mut self, text: &str) {
        self.prefix();
        self.out.push_str(text);
    }

    /// An emphasis or code mark (`**`, `*`, `` ` ``), opening or closing as the last one left.
    pub fn mark(&mut self, mark: &'static str) {
        if let Some(open) = self.mark.take_if(|m| m.mark == mark) {
            if open.after == self.out.len() && self.take_back(open.before) {
                // Nothing between the marks.
                self.pending = open.pending;
                return;
            }
            // `**bold **` is not emphasis in Markdown: the space goes after the mark.
            let space = self.out.ends_with(' ');
            self.trim_spaces();
            self.out.push_str(mark);
            if space {
                self.out.push(' ');
            }
            return;
        }
        let before = self.out.len();
        let pending = self.pending.clone();
        self.raw(mark);
        self.mark = Some(Mark { mark, after: self.out.len(), before, pending });
    }

    pub fn open_link(&mut self, target: String) {
        let before = self.out.len();
        let pending = self.pending.clone();
        self.raw("[");
        self.link = Some(Link { target, start: self.out.len(), before, pending });
    }

    pub fn close_link(&mut self) {
        let Some(link) = self.link.take() else { return };
        // Whatever takes text back (a table of empty cells) keeps a link's start in `out`;
        // were it not so, the link would be dropped here rather than the page.
        let Some(text) = self.out.get(link.start..).map(|text| text.trim().to_string()) else { return };
        if text.is_empty() && self.take_back(link.before) {
            // A link with no text (an icon): nothing of it stays, not even the line's marker.
            self.pending = link.pending;
        } else if !text.is_empty() {
            self.out.truncate(link.start);
            self.out.push_str(&text);
            self.out.push_str("](");
            self.out.push_str(&link.target);
            self.out.push(')');
        }
    }

    /// A `<table>`; `layout` when it holds another table.
    pub fn open_table(&mut self, layout: bool) {
        self.close_cell();
        self.newline(true);
        self.tables.push(Table { layout, rows: 0, columns: 0, in_cell: false, start: self.out.len() });
    }

    pub fn close_table(&mut self) {
        self.end_row();
        let Some(table) = self.tables.pop() else { return };
        let empty =
            self.out.get(table.start..).is_some_and(|t| t.chars().all(|c| matches!(c, '|' | '-' | ' ' | '\n' | '>')));
        if !table.layout && empty {
            // Only empty cells: spacers and image-only layout, nothing for a reader.
            self.take_back(table.start);
        }
        self.newline(true);
    }

    /// A `<td>` or `<th>` spanning `span` columns.
    pub fn open_cell(&mut self, span: usize) {
        let Some(table) = self.tables.last() else {
            self.newline(false);
            return;
        };
        if table.layout {
            self.newline(false);
            return;
        }
        self.close_cell();
        let first = self.tables.last().is_some_and(|t| t.columns == 0);
        self.trim_spaces();
        if first {
            self.newline(false);
            self.raw("| ");
        } else {
            self.out.push_str(" | ");
        }
        if let Some(table) = self.tables.last_mut() {
            table.columns += span.max(1);
            table.in_cell = true;
        }
    }

    pub fn close_cell(&mut self) {
        if let Some(table) = self.tables.last_mut() {
            table.in_cell = false;
        }
        if self.tables.last().is_some_and(|t| t.layout) {
            self.newline(false);
        }
    }

    /// A `<tr>` or `</tr>`: the row written so far ends, with the header line under the first.
    pub fn end_row(&mut self) {
        self.close_cell();
        let Some(table) = self.tables.last_mut() else { return };
        if table.layout || table.columns == 0 {
            return;
        }
        let (columns, first) = (table.columns, table.rows == 0);
        table.rows += 1;
        table.columns = 0;
        self.trim_spaces();
        self.out.push_str(" |");
        if first {
            self.out.push('\n');
            self.prefix();
            self.out.push('|');
            for _ in 0..columns {
                self.out.push_str(" --- |");
            }
        }
        self.newline(false);
    }
}

/// Whether `word` at the start of a line would be read as a list marker (`-`, `*`, `+`,
/// `1.`) or a heading (`#`).
fn reads_as_marker(word: &str) -> bool {
    matches!(word, "-" | "*" | "+" | "#")
        || word.strip_suffix(['.', ')']).is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))
}
