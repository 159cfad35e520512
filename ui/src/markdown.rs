//! Markdown to terminal lines (pulldown-cmark): headings, paragraphs wrapped to the width,
//! nested lists with hanging indents, block quotes, inline code, emphasis, strikethrough,
//! links (the URL after the text, dimmed), fenced code with syntax colours
//! ([`crate::highlight`]), tables as aligned columns, rules.
//!
//! Streaming ([`Stream`]): the model's answer arrives in pieces. Only complete lines outside
//! an open code fence are final; they are rendered once and handed out by
//! [`Stream::take_stable`] (they go to the scrollback), the rest is the live tail. Splitting at
//! a blank line between blocks keeps each block whole, so what the stream hands out is what
//! rendering the whole text gives, block by block.
//!
//! Every char a line holds is shown, never obeyed: control characters become `\x1b`, `\u{202e}`.

use pulldown_cmark::{CodeBlockKind, Event, HeadingLevel, Options, Parser, Tag, TagEnd};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use unicode_width::UnicodeWidthStr;

use crate::composer::clean;
use crate::highlight;
use crate::style::Theme;

/// Renders `source` at `width` columns.
pub fn render(source: &str, width: u16, theme: &Theme) -> Vec<Line<'static>> {
    let mut renderer = Renderer::new(usize::from(width.max(4)), theme);
    let options = Options::ENABLE_STRIKETHROUGH | Options::ENABLE_TABLES;
    for event in Parser::new_ext(source, options) {
        renderer.event(event);
    }
    renderer.flush();
    renderer.lines
}

/// A streamed answer: complete blocks are final, the rest is a live tail.
#[derive(Debug, Default)]
pub struct Stream {
    text: String,
    /// Bytes of `text` already handed out.
    taken: usize,
}

impl Stream {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn push(&mut self, delta: &str) {
        self.text.push_str(delta);
    }

    /// The lines of the blocks completed since the last call (each handed out once).
    pub fn take_stable(&mut self, width: u16, theme: &Theme) -> Vec<Line<'static>> {
        let pending = &self.text[self.taken..];
        let Some(end) = stable_end(pending) else { return Vec::new() };
        let lines = render(&pending[..end], width, theme);
        self.taken += end;
        lines
    }

    /// The lines not yet final.
    pub fn tail(&self, width: u16, theme: &Theme) -> Vec<Line<'static>> {
        let pending = &self.text[self.taken..];
        if pending.trim().is_empty() { Vec::new() } else { render(pending, width, theme) }
    }

    /// Everything not yet handed out; the stream starts over.
    pub fn finish(&mut self, width: u16, theme: &Theme) -> Vec<Line<'static>> {
        let lines = self.tail(width, theme);
        self.text.clear();
        self.taken = 0;
        lines
    }
}

/// Where the final part of `pending` ends: after the last blank line that is outside a code
/// fence and not followed by an indented or list continuation (a block boundary).
fn stable_end(pending: &str) -> Option<usize> {
    let mut in_fence = false;
    let mut end = None;
    let mut offset = 0;
    let mut previous_blank = false;
    for line in pending.split_inclusive('\n') {
        if !line.ends_with('\n') {
            break;
        }
        let trimmed = line.trim_start();
        if trimmed.starts_with("```") || trimmed.starts_with("~~~") {
            in_fence = !in_fence;
            if !in_fence {
                end = Some(offset + line.len());
            }
        }
        let blank = line.trim().is_empty();
        if blank && !in_fence && !previous_blank {
            end = Some(offset + line.len());
        }
        previous_blank = blank;
        offset += line.len();
    }
    // A boundary right before a list item or an indented line may still join the block
    // above (a loose list): keep it live until something else follows.
    let end = end?;
    let after = &pending[end..];
    let next = after.lines().find(|l| !l.trim().is_empty());
    match next {
        Some(l) if l.starts_with(' ') || l.starts_with('\t') || is_list_item(l) => None,
        _ => Some(end),
    }
}

fn is_list_item(line: &str) -> bool {
    let t = line.trim_start();
    t.starts_with("- ") || t.starts_with("* ") || t.starts_with("+ ") || {
        let digits = t.chars().take_while(char::is_ascii_digit).count();
        digits > 0 && (t[digits..].starts_with(". ") || t[digits..].starts_with(") "))
    }
}

/// A list being written: its next number (`None` for bullets).
struct List {
    next: Option<u64>,
}

struct Renderer<'t> {
    width: usize,
    theme: &'t Theme,
    lines: Vec<Line<'static>>,
    /// The inline spans of the block being written.
    spans: Vec<Span<'static>>,
    styles: Vec<Style>,
    lists: Vec<List>,
    /// The marker of the list item whose first line is not written yet.
    item_marker: Option<String>,
    quote: usize,
    code: Option<(String, String)>,
    heading: Option<HeadingLevel>,
    link: Option<String>,
    table: Option<Table>,
}

#[derive(Default)]
struct Table {
    rows: Vec<Vec<String>>,
    cell: String,
    row: Vec<String>,
}

impl<'t> Renderer<'t> {
    fn new(width: usize, theme: &'t Theme) -> Self {
        Self {
            width,
            theme,
            lines: Vec::new(),
            spans: Vec::new(),
            styles: vec![Style::default()],
            lists: Vec::new(),
            item_marker: None,
            quote: 0,
            code: None,
            heading: None,
            link: None,
            table: None,
        }
    }

    fn style(&self) -> Style {
        self.styles.last().copied().unwrap_or_default()
    }

    fn push_style(&mut self, style: Style) {
        let combined = self.style().patch(style);
        self.styles.push(combined);
    }

    fn pop_style(&mut self) {
        if self.styles.len() > 1 {
            self.styles.pop();
        }
    }

    fn text(&mut self, text: &str) {
        if let Some(table) = &mut self.table {
            table.cell.push_str(text);
            return;
        }
        if let Some((_, code)) = &mut self.code {
            code.push_str(text);
            return;
        }
        let style = self.style();
        self.spans.push(Span::styled(clean(text), style));
    }

    fn event(&mut self, event: Event<'_>) {
        match event {
            Event::Start(tag) => self.start(tag),
            Event::End(tag) => self.end(tag),
            Event::Text(text) => self.text(&text),
            Event::Code(code) => {
                if let Some(table) = &mut self.table {
                    table.cell.push_str(&code);
                } else {
                    let style = self.style().patch(self.theme.code());
                    self.spans.push(Span::styled(clean(&code), style));
                }
            }
            Event::SoftBreak => self.text(" "),
            Event::HardBreak => self.flush(),
            Event::Rule => {
                self.flush();
                self.blank();
                self.lines.push(Line::styled("─".repeat(self.width.min(40)), self.theme.dim()));
            }
            Event::Html(html) | Event::InlineHtml(html) => self.text(&html),
            Event::TaskListMarker(done) => self.text(if done { "[x] " } else { "[ ] " }),
            Event::FootnoteReference(name) => self.text(&format!("[{name}]")),
            Event::InlineMath(m) | Event::DisplayMath(m) => self.text(&m),
        }
    }

    fn start(&mut self, tag: Tag<'_>) {
        match tag {
            Tag::Paragraph => self.blank_unless_item(),
            Tag::Heading { level, .. } => {
                self.flush();
                self.blank();
                self.heading = Some(level);
                let mut style = self.theme.strong();
                if level == HeadingLevel::H1 {
                    style = style.add_modifier(Modifier::UNDERLINED);
                }
                self.push_style(style.patch(self.theme.accent()));
            }
            Tag::BlockQuote(_) => {
                self.flush();
                self.quote += 1;
                self.push_style(self.theme.dim().add_modifier(Modifier::ITALIC));
            }
            Tag::CodeBlock(kind) => {
                self.flush();
                self.blank_unless_item();
                let lang = match kind {
                    CodeBlockKind::Fenced(info) => info.split_whitespace().next().unwrap_or_default().to_string(),
                    CodeBlockKind::Indented => String::new(),
                };
                self.code = Some((lang, String::new()));
            }
            Tag::List(start) => {
                self.flush();
                if self.lists.is_empty() {
                    self.blank();
                }
                self.lists.push(List { next: start });
            }
            Tag::Item => {
                self.flush();
                let marker = match self.lists.last_mut() {
                    Some(List { next: Some(n) }) => {
                        *n += 1;
                        format!("{}. ", *n - 1)
                    }
                    _ => ["• ", "◦ ", "▪ "][(self.lists.len().saturating_sub(1)) % 3].to_string(),
                };
                self.item_marker = Some(marker);
            }
            Tag::Emphasis => self.push_style(Style::default().add_modifier(Modifier::ITALIC)),
            Tag::Strong => self.push_style(Style::default().add_modifier(Modifier::BOLD)),
            Tag::Strikethrough => self.push_style(Style::default().add_modifier(Modifier::CROSSED_OUT)),
            Tag::Link { dest_url, .. } => {
                self.link = Some(dest_url.to_string());
                self.push_style(self.theme.accent().add_modifier(Modifier::UNDERLINED));
            }
            Tag::Image { dest_url, .. } => self.text(&format!("[image {dest_url}] ")),
            Tag::Table(_) => {
                self.flush();
                self.blank();
                self.table = Some(Table::default());
            }
            _ => {}
        }
    }

    fn end(&mut self, tag: TagEnd) {
        match tag {
            TagEnd::Paragraph => self.flush(),
            TagEnd::Heading(_) => {
                let level = self.heading.take();
                if level.is_some_and(|l| l >= HeadingLevel::H3) {
                    self.spans.insert(0, Span::styled("### ".to_string(), self.theme.dim()));
                }
                self.flush();
                self.pop_style();
            }
            TagEnd::BlockQuote(_) => {
                self.flush();
                self.quote = self.quote.saturating_sub(1);
                self.pop_style();
            }
            TagEnd::CodeBlock => {
                if let Some((lang, code)) = self.code.take() {
                    let prefix = self.prefix_width();
                    for line in highlight::highlight(&code, &lang, self.theme) {
                        let mut spans = vec![Span::styled(format!("{}│ ", " ".repeat(prefix)), self.theme.dim())];
                        spans.extend(line.spans);
                        self.lines.push(Line::from(spans));
                    }
                }
            }
            TagEnd::List(_) => {
                self.flush();
                self.lists.pop();
            }
            TagEnd::Item => self.flush(),
            TagEnd::Emphasis | TagEnd::Strong | TagEnd::Strikethrough => self.pop_style(),
            TagEnd::Link => {
                self.pop_style();
                if let Some(url) = self.link.take() {
                    let shown: String = self.spans.iter().map(|s| s.content.as_ref()).collect();
                    if !shown.ends_with(url.as_str()) {
                        self.spans.push(Span::styled(format!(" ({})", clean(&url)), self.theme.dim()));
                    }
                }
            }
            TagEnd::TableCell => {
                if let Some(table) = &mut self.table {
                    let cell = std::mem::take(&mut table.cell);
                    table.row.push(clean(cell.trim()));
                }
            }
            TagEnd::TableHead | TagEnd::TableRow => {
                if let Some(table) = &mut self.table {
                    let row = std::mem::take(&mut table.row);
                    table.rows.push(row);
                }
            }
            TagEnd::Table => {
                if let Some(table) = self.table.take() {
                    self.table_lines(&table);
                }
            }
            _ => {}
        }
    }

    /// Columns taken by list indents and quote bars before the text.
    fn prefix_width(&self) -> usize {
        self.lists.len().saturating_sub(1) * 2 + self.quote * 2 + if self.lists.is_empty() { 0 } else { 2 }
    }

    fn blank(&mut self) {
        if self.lines.last().is_some_and(|l| l.width() > 0) {
            self.lines.push(Line::default());
        }
    }

    fn blank_unless_item(&mut self) {
        self.flush();
        if self.lists.is_empty() && self.item_marker.is_none() {
            self.blank();
        }
    }

    /// Writes the inline spans gathered so far as wrapped lines.
    fn flush(&mut self) {
        if self.spans.is_empty() {
            return;
        }
        let spans = std::mem::take(&mut self.spans);
        let indent = self.lists.len().saturating_sub(1) * 2;
        let quote = "│ ".repeat(self.quote);
        let (first, rest) = match self.item_marker.take() {
            Some(marker) => {
                let hang = " ".repeat(UnicodeWidthStr::width(marker.as_str()));
                (format!("{}{quote}{marker}", " ".repeat(indent)), format!("{}{quote}{hang}", " ".repeat(indent)))
            }
            None if !self.lists.is_empty() => {
                let pad = format!("{}{quote}  ", " ".repeat(indent));
                (pad.clone(), pad)
            }
            None => (quote.clone(), quote),
        };
        for (i, row) in wrap(&spans, self.width.saturating_sub(UnicodeWidthStr::width(first.as_str())).max(8))
            .into_iter()
            .enumerate()
        {
            let prefix = if i == 0 { first.clone() } else { rest.clone() };
            let mut line = vec![Span::styled(prefix, self.theme.dim())];
            line.extend(row);
            self.lines.push(Line::from(line));
        }
    }

    fn table_lines(&mut self, table: &Table) {
        let columns = table.rows.iter().map(Vec::len).max().unwrap_or(0);
        let mut widths = vec![0; columns];
        for row in &table.rows {
            for (i, cell) in row.iter().enumerate() {
                widths[i] = widths[i].max(UnicodeWidthStr::width(cell.as_str()));
            }
        }
        let total: usize = widths.iter().sum::<usize>() + columns.saturating_sub(1) * 3;
        for (r, row) in table.rows.iter().enumerate() {
            if total > self.width {
                // Too wide for columns: one row per line, cells separated.
                self.lines.push(Line::raw(row.join(" │ ")));
                continue;
            }
            let cells: Vec<String> = row
                .iter()
                .enumerate()
                .map(|(i, c)| format!("{c}{}", " ".repeat(widths[i] - UnicodeWidthStr::width(c.as_str()))))
                .collect();
            let style = if r == 0 { self.theme.strong() } else { Style::default() };
            self.lines.push(Line::styled(cells.join(" │ ").trim_end().to_string(), style));
            if r == 0 {
                let rule: Vec<String> = widths.iter().map(|w| "─".repeat(*w)).collect();
                self.lines.push(Line::styled(rule.join("─┼─"), self.theme.dim()));
            }
        }
    }
}

/// Word-wraps `spans` to `width` columns, styles kept. A word longer than the width is cut;
/// a line holding only a URL is left whole so terminals keep it clickable.
fn wrap(spans: &[Span<'static>], width: usize) -> Vec<Vec<Span<'static>>> {
    let mut rows: Vec<Vec<Span<'static>>> = vec![Vec::new()];
    let mut used = 0;
    for span in spans {
        for word in span.content.split_inclusive(' ') {
            let w = UnicodeWidthStr::width(word);
            let bare = UnicodeWidthStr::width(word.trim_end());
            if used > 0 && used + bare > width {
                rows.push(Vec::new());
                used = 0;
            }
            let is_url = word.starts_with("http://") || word.starts_with("https://");
            if w > width && !is_url {
                let mut piece = String::new();
                for c in word.chars() {
                    let cw = UnicodeWidthStr::width(c.encode_utf8(&mut [0; 4]) as &str);
                    if used + cw > width && used > 0 {
                        push(&mut rows, std::mem::take(&mut piece), span.style);
                        rows.push(Vec::new());
                        used = 0;
                    }
                    piece.push(c);
                    used += cw;
                }
                push(&mut rows, piece, span.style);
                continue;
            }
            if used == 0 && word.trim().is_empty() {
                continue;
            }
            push(&mut rows, word.to_string(), span.style);
            used += w;
        }
    }
    for row in &mut rows {
        if let Some(last) = row.last_mut() {
            let trimmed = last.content.trim_end().to_string();
            last.content = trimmed.into();
        }
    }
    rows.retain(|r| !r.is_empty());
    rows
}

fn push(rows: &mut [Vec<Span<'static>>], text: String, style: Style) {
    if let Some(row) = rows.last_mut() {
        row.push(Span::styled(text, style));
    }
}

#[cfg(test)]
#[path = "markdown_tests.rs"]
mod tests;
