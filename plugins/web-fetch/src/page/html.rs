//! HTML to Markdown, tolerant of whatever the web sends: a single pass over the text that
//! knows tags, comments and character references, keeps the structure a reader needs
//! (headings, paragraphs, lists, links, emphasis, code, quotes, tables, formulas) and
//! drops what is not content (scripts, styles, templates, SVG, forms' controls).
//!
//! The pass is linear in the page: an element skipped whole (a script) is searched for its
//! end once, case-insensitively in place, and what is looked ahead at (whether a table
//! holds another table, a formula's TeX) is never looked at again. Links are resolved
//! against the page's address, or its `<base href>`, by the `url` crate.

use url::Url;

use super::refs::decode;
use super::writer::{MAX_DEPTH, Writer};

/// The result of a conversion.
pub struct Converted {
    pub title: Option<String>,
    pub markdown: String,
}

/// Elements whose content is never text for a reader. (A formula's `annotation` is its
/// source in another notation, read only when it is TeX: see [`math`].)
const SKIPPED: &[&str] = &[
    "script",
    "style",
    "noscript",
    "template",
    "svg",
    "canvas",
    "iframe",
    "object",
    "select",
    "button",
    "annotation",
    "annotation-xml",
];
/// Longest `<base href>` taken, as long as the longest URL web_fetch fetches: every link
/// of the page is written with it.
pub const MAX_BASE: usize = 4096;
/// Most columns one cell is counted for.
const MAX_SPAN: usize = 20;
/// Elements that end a line of text.
const BLOCKS: &[&str] = &[
    "p",
    "div",
    "section",
    "article",
    "main",
    "header",
    "footer",
    "aside",
    "nav",
    "form",
    "fieldset",
    "figure",
    "figcaption",
    "caption",
    "dl",
    "dt",
    "dd",
    "address",
    "details",
    "summary",
    "body",
    "html",
    "center",
];

/// Converts `html` (a page fetched from `base`) to Markdown.
pub fn to_markdown(html: &str, base: &Url) -> Converted {
    let mut w = Writer::default();
    let mut base = base.clone();
    let mut based = false;
    let mut title: Option<String> = None;
    let mut rest = html;
    while !rest.is_empty() {
        let Some(open) = rest.find('<') else {
            w.text(&decode(rest, false));
            break;
        };
        if open > 0 {
            w.text(&decode(&rest[..open], false));
        }
        rest = &rest[open..];
        if let Some(comment) = rest.strip_prefix("<!--") {
            rest = comment.find("-->").map_or("", |end| &comment[end + 3..]);
            continue;
        }
        if rest.starts_with("<!") || rest.starts_with("<?") {
            rest = rest.find('>').map_or("", |end| &rest[end + 1..]);
            continue;
        }
        let Some(tag) = Tag::parse(rest) else {
            // A `<` that starts no tag is text.
            w.text("<");
            rest = &rest[1..];
            continue;
        };
        rest = &rest[tag.len..];
        if tag.closing || tag.self_closing {
            if !tag.closing && tag.name == "math" {
                continue;
            }
            element(&mut w, &tag, &base);
            continue;
        }
        match tag.name.as_str() {
            "title" if title.is_none() => {
                let end = find_close(rest, "title");
                let text = decode(&rest[..end], false).split_whitespace().collect::<Vec<_>>().join(" ");
                title = (!text.is_empty()).then_some(text);
                rest = skip_close(&rest[end..]);
            }
            name if SKIPPED.contains(&name) => {
                let end = find_close(rest, name);
                rest = skip_close(&rest[end..]);
            }
            "base" if !based => {
                if let Some(href) = tag.attr("href")
                    && let Ok(resolved) = base.join(decode(href, true).trim())
                    && resolved.as_str().len() <= MAX_BASE
                {
                    base = resolved;
                    based = true;
                }
            }
            "table" => w.open_table(holds_table(rest)),
            "math" => rest = math(&mut w, &tag, rest),
            _ => element(&mut w, &tag, &base),
        }
    }
    w.close_link();
    while !w.tables.is_empty() {
        w.close_table();
    }
    Converted { title, markdown: tidy(&w.out) }
}

/// Writes what an opening or closing tag means.
fn element(w: &mut Writer, tag: &Tag, base: &Url) {
    let name = tag.name.as_str();
    match (name, tag.closing) {
        ("br", _) => w.line_break(),
        ("hr", false) => {
            w.newline(true);
            w.raw("---");
            w.newline(true);
        }
        ("h1" | "h2" | "h3" | "h4" | "h5" | "h6", false) => {
            if w.in_cell() {
                return;
            }
            if w.heading {
                w.heading = false;
                w.drop_line_start();
            }
            w.newline(true);
            let level = usize::from(name.as_bytes()[1] - b'0');
            w.add_to_line_start(&format!("{} ", "#".repeat(level)));
            w.heading = true;
        }
        ("h1" | "h2" | "h3" | "h4" | "h5" | "h6", true) => {
            if w.in_cell() || !w.heading {
                return;
            }
            w.heading = false;
            w.drop_line_start();
            w.newline(true);
        }
        ("ul" | "ol", false) if !w.one_line() => {
            w.newline(w.lists.is_empty());
            let start = if name == "ol" {
                Some(tag.attr("start").and_then(|s| s.trim().parse().ok()).unwrap_or(1))
            } else {
                None
            };
            w.lists.push(start);
        }
        ("ul" | "ol", true) if !w.one_line() => {
            w.lists.pop();
            w.drop_line_start();
            w.newline(w.lists.is_empty());
        }
        ("li", false) if !w.one_line() => {
            w.newline(false);
            let depth = w.lists.len().saturating_sub(1).min(MAX_DEPTH);
            let marker = match w.lists.last_mut() {
                Some(Some(n)) => {
                    let marker = format!("{n}. ");
                    *n += 1;
                    marker
                }
                _ => "- ".to_string(),
            };
            w.start_line(&format!("{}{marker}", "  ".repeat(depth)));
        }
        ("li", true) if !w.one_line() => {
            w.drop_line_start();
            w.newline(false);
        }
        ("pre", false) if !w.one_line() => {
            w.newline(true);
            w.raw("```\n");
            w.pre += 1;
        }
        ("pre", true) if w.pre > 0 => {
            w.pre -= 1;
            if !w.out.ends_with('\n') {
                w.out.push('\n');
            }
            w.raw("```");
            w.newline(true);
        }
        ("code" | "kbd" | "samp" | "tt", _) if w.pre == 0 => w.mark("`"),
        ("strong" | "b", _) => w.mark("**"),
        ("em" | "i", _) => w.mark("*"),
        ("blockquote", false) if !w.one_line() => {
            w.newline(true);
            w.quote += 1;
        }
        ("blockquote", true) if !w.one_line() => {
            w.quote = w.quote.saturating_sub(1);
            w.newline(true);
        }
        ("a", false) => {
            if let Some(target) = tag.attr("href").and_then(|href| link_target(&decode(href, true), base)) {
                w.open_link(target);
            }
        }
        ("a", true) => w.close_link(),
        ("img", false) => {
            let alt = tag.attr("alt").map(|a| decode(a, true).trim().to_string()).unwrap_or_default();
            if !alt.is_empty() {
                w.text(&format!("[image: {alt}]"));
            }
        }
        ("tr", _) if w.tables.is_empty() => w.newline(false),
        ("tr", _) => w.end_row(),
        ("td" | "th", false) => {
            // Bounded: each column spanned adds ` --- |` to the header line.
            let span = tag.attr("colspan").and_then(|s| s.trim().parse().ok()).unwrap_or(1).min(MAX_SPAN);
            w.open_cell(span);
        }
        ("td" | "th", true) => w.close_cell(),
        ("table", true) => w.close_table(),
        // Paragraphs in a list item stay in it, without a blank line.
        ("p", _) => w.newline(w.lists.is_empty()),
        // Blocks on a line that cannot end (a list in a table cell) are set apart by a space.
        ("ul" | "ol" | "li" | "pre" | "blockquote", _) => w.newline(false),
        (block, _) if BLOCKS.contains(&block) => w.newline(false),
        _ => {}
    }
}

/// Where a link goes, as written in the Markdown: absolute, its fragment kept; `None` for
/// a link within the page (`#top`), a script, or a scheme a reader cannot follow.
fn link_target(href: &str, base: &Url) -> Option<String> {
    let href = href.trim();
    if href.is_empty() || href.starts_with('#') {
        return None;
    }
    let target = base.join(href).ok()?;
    matches!(target.scheme(), "http" | "https" | "mailto").then(|| target.to_string())
}

/// Whether the table whose content starts `rest` holds another table: whether the next
/// table tag is an opening one. Each table's look stops at the next table tag, so the
/// looks of all the tables of a page cover it once.
fn holds_table(rest: &str) -> bool {
    let bytes = rest.as_bytes();
    let mut from = 0;
    while let Some(at) = rest[from..].find('<') {
        let at = from + at;
        let closing = bytes.get(at + 1) == Some(&b'/');
        let name = at + 1 + usize::from(closing);
        if bytes.get(name..name + 5).is_some_and(|n| n.eq_ignore_ascii_case(b"table"))
            && bytes.get(name + 5).is_none_or(|b| !b.is_ascii_alphanumeric())
        {
            return !closing;
        }
        from = at + 1;
    }
    false
}

/// A `<math>` formula: its TeX when the page gives it (an `alttext`, or a TeX
/// `annotation`) between `$` (`$$` on a line of its own for a displayed one), else its
/// text as it comes. Returns the page after what was read.
fn math<'a>(w: &mut Writer, tag: &Tag, rest: &'a str) -> &'a str {
    let end = find_close(rest, "math");
    let tex = tag
        .attr("alttext")
        .map(|alt| decode(alt, true).trim().to_string())
        .filter(|alt| !alt.is_empty())
        .or_else(|| tex_annotation(&rest[..end]));
    let Some(tex) = tex else { return rest };
    let tex = tex.split_whitespace().collect::<Vec<_>>().join(" ");
    if tag.attr("display").is_some_and(|d| d.eq_ignore_ascii_case("block")) && !w.one_line() {
        w.newline(true);
        w.raw(&format!("$${tex}$$"));
        w.newline(true);
    } else {
        w.text(" ");
        w.raw(&format!("${tex}$"));
        w.text(" ");
    }
    skip_close(&rest[end..])
}

/// The text of the first `<annotation encoding="application/x-tex">` in a formula.
fn tex_annotation(formula: &str) -> Option<String> {
    let mut from = 0;
    while let Some(at) = find_open(&formula[from..], "annotation") {
        let start = from + at;
        let tag = Tag::parse(&formula[start..])?;
        let body = &formula[(start + tag.len).min(formula.len())..];
        if tag.attr("encoding").is_some_and(|e| e.to_ascii_lowercase().contains("tex")) {
            let end = find_close(body, "annotation");
            return Some(decode(&body[..end], false).trim().to_string()).filter(|tex| !tex.is_empty());
        }
        from = start + tag.len.max(1);
    }
    None
}

/// Where `<name` (a whole tag name, any case) starts in `text`.
fn find_open(text: &str, name: &str) -> Option<usize> {
    find_tag(text, "<", name)
}

/// Where `</name` (any case) starts in `text`, or its end.
fn find_close(text: &str, name: &str) -> usize {
    find_tag(text, "</", name).unwrap_or(text.len())
}

/// Where `start` followed by the tag name `name` (any case) first comes in `text`,
/// looking at each byte once: no lower-cased copy of the rest of the page.
fn find_tag(text: &str, start: &str, name: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut from = 0;
    while let Some(at) = text[from..].find(start) {
        let at = from + at;
        let after = at + start.len();
        if bytes.get(after..after + name.len()).is_some_and(|n| n.eq_ignore_ascii_case(name.as_bytes()))
            && bytes.get(after + name.len()).is_none_or(|b| !b.is_ascii_alphanumeric() && *b != b'-')
        {
            return Some(at);
        }
        from = after;
    }
    None
}

/// `text` after the closing tag it starts with.
fn skip_close(text: &str) -> &str {
    text.find('>').map_or("", |end| &text[end + 1..])
}

/// One tag, parsed from the start of the text.
struct Tag {
    name: String,
    closing: bool,
    self_closing: bool,
    attrs: Vec<(String, String)>,
    /// Bytes the tag spans.
    len: usize,
}

impl Tag {
    fn parse(text: &str) -> Option<Tag> {
        let bytes = text.as_bytes();
        let mut at = 1;
        let closing = bytes.get(at) == Some(&b'/');
        if closing {
            at += 1;
        }
        let name_start = at;
        while at < bytes.len() && (bytes[at].is_ascii_alphanumeric() || bytes[at] == b'-' || bytes[at] == b':') {
            at += 1;
        }
        if at == name_start || !bytes[name_start].is_ascii_alphabetic() {
            return None;
        }
        let name = text[name_start..at].to_ascii_lowercase();
        let mut attrs = Vec::new();
        let mut self_closing = false;
        loop {
            while at < bytes.len() && bytes[at].is_ascii_whitespace() {
                at += 1;
            }
            match bytes.get(at) {
                None => return Some(Tag { name, closing, self_closing, attrs, len: text.len() }),
                Some(b'>') => {
                    at += 1;
                    break;
                }
                Some(b'/') => {
                    self_closing = true;
                    at += 1;
                    continue;
                }
                _ => {}
            }
            let key_start = at;
            while at < bytes.len() && !bytes[at].is_ascii_whitespace() && !matches!(bytes[at], b'=' | b'>' | b'/') {
                at += 1;
            }
            let key = text[key_start..at].to_ascii_lowercase();
            while at < bytes.len() && bytes[at].is_ascii_whitespace() {
                at += 1;
            }
            let mut value = String::new();
            if bytes.get(at) == Some(&b'=') {
                at += 1;
                while at < bytes.len() && bytes[at].is_ascii_whitespace() {
                    at += 1;
                }
                match bytes.get(at) {
                    Some(&quote @ (b'"' | b'\'')) => {
                        let end = text[at + 1..].find(char::from(quote)).map_or(text.len(), |e| at + 1 + e);
                        value = text[at + 1..end].to_string();
                        at = (end + 1).min(text.len());
                    }
                    _ => {
                        let start = at;
                        while at < bytes.len() && !bytes[at].is_ascii_whitespace() && bytes[at] != b'>' {
                            at += 1;
                        }
                        value = text[start..at].to_string();
                    }
                }
            }
            if key.is_empty() {
                // Skip the stray character whole: a byte of it would split a UTF-8 sequence.
                at += text[at..].chars().next().map_or(1, char::len_utf8);
            } else {
                attrs.push((key, value));
            }
        }
        Some(Tag { name, closing, self_closing, attrs, len: at })
    }

    fn attr(&self, name: &str) -> Option<&str> {
        self.attrs.iter().find(|(key, _)| key == name).map(|(_, value)| value.as_str())
    }
}

/// Trailing spaces gone, at most one blank line in a row, no blank lines at the ends;
/// code blocks kept as they are.
fn tidy(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut blank = 0;
    let mut fenced = false;
    for line in text.lines() {
        let line = if fenced && !line.starts_with("```") { line } else { line.trim_end() };
        if line.is_empty() && !fenced {
            blank += 1;
            continue;
        }
        if !out.is_empty() {
            out.push_str(if blank > 0 { "\n\n" } else { "\n" });
        }
        blank = 0;
        out.push_str(line);
        if line.starts_with("```") {
            fenced = !fenced;
        }
    }
    out
}
