//! Syntax colours for code blocks, from tree-sitter grammars (the parser the host already
//! links for its command gate) and the highlight queries each grammar ships ([`grammars`]).
//! A grammar parses the whole block, so raw strings, lifetimes, nested comments, triple
//! quotes and template strings are coloured as the language reads them, and the work is
//! linear in the block's size (BENCHMARKS.md, "Syntax highlighting").
//!
//! Invariants: it never panics and never stalls the UI: a block larger than
//! [`MAX_HIGHLIGHT_BYTES`], a language no grammar knows, or a grammar that fails is drawn
//! plain in the code colour. Every char is shown, never obeyed: control characters become
//! `␛` / `^X`. The colours are the theme's (`style.rs`), so `NO_COLOR` removes them all.

mod grammars;

use ratatui::style::Style;
use ratatui::text::{Line, Span};
use tree_sitter_highlight::{HighlightEvent, Highlighter};

use crate::composer::clean;
use crate::style::Theme;
use grammars::Category;

/// Blocks above this size are drawn plain. Highlighting ran at 3.7 MB/s on real Rust
/// sources and 1.5 MB/s on minified JavaScript on the loaded 2-core machine, so the largest
/// block costs 35–90 ms. A block still streaming is highlighted again on each render, which
/// is why the cap is a quarter of codex's 512 KB. A whole source file pasted into an answer
/// (the host's largest is 30 KB) stays coloured.
pub const MAX_HIGHLIGHT_BYTES: usize = 128 * 1024;

/// `code` as highlighted lines, for the language a fence names (`rust`, `py`, `tsx`, …).
pub fn highlight(code: &str, lang: &str, theme: &Theme) -> Vec<Line<'static>> {
    let code = code.strip_suffix('\n').unwrap_or(code);
    let lang = lang.to_ascii_lowercase();
    if lang == "diff" || lang == "patch" {
        return code.split('\n').map(|l| diff_line(l, theme)).collect();
    }
    match (code.len() <= MAX_HIGHLIGHT_BYTES).then(|| grammars::config(&lang)).flatten().and_then(|c| spans(code, c)) {
        Some(ranges) => lines(code, &ranges, theme),
        None => plain(code, theme),
    }
}

/// `code` in the code colour, line by line.
fn plain(code: &str, theme: &Theme) -> Vec<Line<'static>> {
    code.split('\n').map(|l| Line::from(Span::styled(clean(l.trim_end_matches('\r')), theme.code()))).collect()
}

fn diff_line(line: &str, theme: &Theme) -> Line<'static> {
    let style = if line.starts_with('+') {
        theme.added()
    } else if line.starts_with('-') {
        theme.removed()
    } else if line.starts_with("@@") {
        theme.accent()
    } else {
        Style::default()
    };
    Line::from(Span::styled(clean(line), style))
}

/// The byte ranges of `code` in order, each with its category, or `None` if the grammar
/// failed (the caller then draws the block plain).
fn spans(code: &str, config: &tree_sitter_highlight::HighlightConfiguration) -> Option<Vec<(usize, usize, Category)>> {
    let mut highlighter = Highlighter::new();
    let events = highlighter.highlight(config, code.as_bytes(), None, |_| None).ok()?;
    let mut stack = vec![Category::Plain];
    let mut ranges = Vec::new();
    for event in events {
        match event.ok()? {
            HighlightEvent::HighlightStart(capture) => {
                let inner = grammars::category(capture.0);
                let outer = stack.last().copied().unwrap_or(Category::Plain);
                stack.push(if inner == Category::Plain { outer } else { inner });
            }
            HighlightEvent::HighlightEnd => {
                stack.pop();
            }
            HighlightEvent::Source { start, end } => {
                ranges.push((start, end, stack.last().copied().unwrap_or(Category::Plain)));
            }
        }
    }
    Some(ranges)
}

/// Cuts the ranges into lines of spans, joining neighbours of one category.
fn lines(code: &str, ranges: &[(usize, usize, Category)], theme: &Theme) -> Vec<Line<'static>> {
    let mut lines = Vec::new();
    let mut current: Vec<(Category, String)> = Vec::new();
    let mut finish = |current: &mut Vec<(Category, String)>| {
        if let Some((_, last)) = current.last_mut()
            && last.ends_with('\r')
        {
            last.pop();
        }
        let spans = current.drain(..).map(|(category, text)| Span::styled(clean(&text), style(category, theme)));
        lines.push(Line::from(spans.collect::<Vec<_>>()));
    };
    for &(start, end, category) in ranges {
        let Some(text) = code.get(start..end) else { continue };
        for (i, piece) in text.split('\n').enumerate() {
            if i > 0 {
                finish(&mut current);
            }
            if piece.is_empty() {
                continue;
            }
            match current.last_mut() {
                Some((last, text)) if *last == category => text.push_str(piece),
                _ => current.push((category, piece.to_string())),
            }
        }
    }
    finish(&mut current);
    lines
}

fn style(category: Category, theme: &Theme) -> Style {
    match category {
        Category::Plain => Style::default(),
        Category::Keyword => theme.keyword(),
        Category::Str => theme.string(),
        Category::Comment => theme.comment(),
        Category::Number => theme.number(),
        Category::Type => theme.type_name(),
    }
}

#[cfg(test)]
#[path = "highlight_tests.rs"]
mod tests;
