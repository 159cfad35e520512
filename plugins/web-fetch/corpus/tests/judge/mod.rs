//! The judge of a conversion: what a page's Markdown should hold, computed independently of
//! the converter from the page's DOM as html5ever (Servo's HTML parser, through `scraper`)
//! builds it, and the measures the corpus tests and the report share.
//!
//! The page's visible text is the text of its `<body>` outside the elements the converter
//! drops on purpose (scripts, styles, `noscript`, templates, SVG, canvases, frames,
//! objects, form controls) and outside `<math>` (written as TeX when the page has it).

use std::collections::HashMap;

use scraper::{Html, Node};

/// Elements whose text is not the page's visible text.
const HIDDEN: &[&str] = &[
    "head", "script", "style", "noscript", "template", "svg", "canvas", "iframe", "object", "select", "button", "math",
];

/// What the page holds, by the reference parser.
pub struct Reference {
    /// The words of its visible text.
    pub words: HashMap<String, usize>,
    /// Lines of its scripts and styles that are not in its visible text: none may show.
    pub hidden_lines: Vec<String>,
    /// `&name;` sequences its visible text shows as text (written `&amp;name;`).
    pub references_in_text: usize,
}

/// The measures of one conversion.
#[derive(Debug, Default)]
pub struct Judgement {
    /// Share of the visible text's words found in the Markdown.
    pub kept: f64,
    /// U+FFFD characters in the Markdown.
    pub replacement: usize,
    /// List markers on a line of their own.
    pub lone_markers: usize,
    /// Script or style lines found in the Markdown.
    pub leaked: Vec<String>,
    /// `&name;` sequences left in the Markdown beyond those the page shows as text.
    pub references_left: usize,
    /// Markdown tables, and those without a `| --- |` line under their first row.
    pub tables: usize,
    pub tables_without_header: usize,
}

pub fn reference(html: &str) -> Reference {
    let document = Html::parse_document(html);
    let mut visible = String::new();
    let mut hidden = String::new();
    walk(document.tree.root(), false, &mut visible, &mut hidden);
    let hidden_lines = hidden
        .lines()
        .map(str::trim)
        .filter(|line| line.len() >= 24 && !visible.contains(*line))
        .take(50)
        .map(str::to_string)
        .collect();
    Reference { words: count(&visible), hidden_lines, references_in_text: references(&visible) }
}

fn walk(node: ego_tree::NodeRef<'_, Node>, hide: bool, visible: &mut String, hidden: &mut String) {
    for child in node.children() {
        match child.value() {
            Node::Text(text) => {
                let into = if hide { &mut *hidden } else { &mut *visible };
                into.push_str(text);
                into.push('\n');
            }
            Node::Element(element) => {
                // An image's text is its `alt`, which the converter writes too.
                if let Some(alt) = element.attr("alt").filter(|_| !hide && element.name() == "img") {
                    visible.push_str(alt);
                    visible.push('\n');
                }
                let hide = hide || HIDDEN.contains(&element.name());
                walk(child, hide, visible, hidden);
            }
            _ => walk(child, hide, visible, hidden),
        }
    }
}

pub fn judge(reference: &Reference, markdown: &str) -> Judgement {
    let found = count(markdown);
    let total: usize = reference.words.values().sum();
    let kept: usize = reference.words.iter().map(|(word, n)| (*n).min(found.get(word).copied().unwrap_or(0))).sum();
    let (tables, tables_without_header) = tables(markdown);
    Judgement {
        kept: if total == 0 { 1.0 } else { kept as f64 / total as f64 },
        replacement: markdown.matches('\u{fffd}').count(),
        lone_markers: lone_markers(markdown),
        leaked: reference.hidden_lines.iter().filter(|line| markdown.contains(line.as_str())).cloned().collect(),
        references_left: references(markdown).saturating_sub(reference.references_in_text),
        tables,
        tables_without_header,
    }
}

/// The words of `text`: runs of letters and digits; in scripts written without spaces
/// (Chinese, Japanese, Korean, Thai), each character.
fn count(text: &str) -> HashMap<String, usize> {
    let mut words = HashMap::new();
    let mut word = String::new();
    let mut flush = |word: &mut String| {
        if !word.is_empty() {
            *words.entry(std::mem::take(word)).or_insert(0) += 1;
        }
    };
    for c in text.chars() {
        if unspaced(c) {
            flush(&mut word);
            word.push(c);
            flush(&mut word);
        } else if c.is_alphanumeric() {
            word.push(c);
        } else {
            flush(&mut word);
        }
    }
    flush(&mut word);
    words
}

fn unspaced(c: char) -> bool {
    matches!(c,
        '\u{0e00}'..='\u{0eff}' // Thai, Lao
        | '\u{3040}'..='\u{30ff}' // kana
        | '\u{3400}'..='\u{4dbf}' | '\u{4e00}'..='\u{9fff}' | '\u{f900}'..='\u{faff}' // CJK ideographs
        | '\u{ac00}'..='\u{d7af}' // Hangul
    )
}

/// `&name;` sequences in `text`.
fn references(text: &str) -> usize {
    text.match_indices('&')
        .filter(|(at, _)| {
            let rest = &text[at + 1..];
            let name = rest.bytes().take_while(u8::is_ascii_alphanumeric).count();
            name >= 2 && rest.as_bytes()[0].is_ascii_alphabetic() && rest[name..].starts_with(';')
        })
        .count()
}

/// Lines outside code blocks that hold a list marker and nothing else.
fn lone_markers(markdown: &str) -> usize {
    let mut fenced = false;
    let mut lone = 0;
    for line in markdown.lines() {
        let line = line.trim_start_matches([' ', '>']).trim_end();
        if line.starts_with("```") {
            fenced = !fenced;
            continue;
        }
        let marker = line.strip_suffix('.').is_some_and(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()));
        if !fenced && (matches!(line, "-" | "*" | "+") || marker) {
            lone += 1;
        }
    }
    lone
}

/// Markdown tables (runs of lines starting with `|`), and those whose second line is not
/// a header line.
fn tables(markdown: &str) -> (usize, usize) {
    let lines: Vec<&str> = markdown.lines().map(|l| l.trim_start_matches([' ', '>'])).collect();
    let mut tables = 0;
    let mut without = 0;
    let mut fenced = false;
    for (i, line) in lines.iter().enumerate() {
        if line.starts_with("```") {
            fenced = !fenced;
        }
        let starts = !fenced && line.starts_with('|') && (i == 0 || !lines[i - 1].starts_with('|'));
        if starts {
            tables += 1;
            let header = lines.get(i + 1).is_some_and(|next| {
                next.starts_with('|') && next.split('|').filter(|c| !c.is_empty()).all(|c| c.trim() == "---")
            });
            if !header {
                without += 1;
            }
        }
    }
    (tables, without)
}

/// The pages of `legacy/`: (file, the page of `pages/` it was made from, its `Content-Type`).
pub const LEGACY: &[(&str, &str, &str)] = &[
    ("qq.gbk.html", "qq", "text/html"),
    ("hukumusume.shift_jis.html", "hukumusume", "text/html"),
    ("aktualne.windows-1250.html", "aktualne", "text/html"),
    ("lemonde-1.iso-8859-1.html", "lemonde-1", "text/html"),
    ("heise.iso-8859-1.header.html", "heise", "text/html; charset=ISO-8859-1"),
    ("ol.utf-16le.bom.html", "ol", "text/html"),
];

/// The `Content-Type` the UTF-8 pages of `pages/` are read with (some of them declare
/// another charset in a `<meta>`: they were saved as UTF-8 after they were fetched).
pub const UTF8: &str = "text/html; charset=utf-8";

/// The pages of `pages/`, by name, sorted.
pub fn pages(dir: &std::path::Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir.join("pages"))
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.strip_suffix(".html").map(str::to_string))
        .collect();
    names.sort();
    names
}
