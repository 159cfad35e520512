//! HTML to Markdown, tolerant of whatever the web sends: a single pass over the text that
//! knows tags, comments and character references, keeps the structure a reader needs
//! (headings, paragraphs, lists, links, emphasis, code, quotes, table rows) and drops what
//! is not content (scripts, styles, templates, SVG, forms' controls).

use crate::url::Url;

/// The result of a conversion.
pub struct Converted {
    pub title: Option<String>,
    pub markdown: String,
}

/// Elements whose content is never text for a reader.
const SKIPPED: &[&str] =
    &["script", "style", "noscript", "template", "svg", "math", "canvas", "iframe", "object", "select", "button"];
/// Elements that end a line of text.
const BLOCKS: &[&str] = &[
    "p", "div", "section", "article", "main", "header", "footer", "aside", "nav", "form", "fieldset", "figure",
    "figcaption", "table", "thead", "tbody", "tfoot", "tr", "ul", "ol", "dl", "dt", "dd", "address", "details",
    "summary", "body", "html", "center",
];

struct Writer<'a> {
    out: String,
    base: &'a Url,
    /// Open lists: `None` for `ul`, the next number for `ol`.
    lists: Vec<Option<u32>>,
    /// Depth of `pre`.
    pre: usize,
    /// Depth of `blockquote`.
    quote: usize,
    /// The open link's target, and where its text starts in `out`.
    link: Option<(String, usize)>,
    /// Cells written in the current table row.
    cells: usize,
}

impl Writer<'_> {
    fn at_line_start(&self) -> bool {
        self.out.is_empty() || self.out.ends_with('\n')
    }

    /// Ends the current line and leaves `blank` empty lines (0 or 1) after it.
    fn newline(&mut self, blank: bool) {
        while self.out.ends_with(' ') {
            self.out.pop();
        }
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

    fn prefix(&mut self) {
        if self.at_line_start() && self.quote > 0 {
            self.out.push_str(&"> ".repeat(self.quote));
        }
    }

    fn text(&mut self, text: &str) {
        if self.pre > 0 {
            self.out.push_str(text);
            return;
        }
        for (i, word) in text.split(|c: char| c.is_ascii_whitespace()).enumerate() {
            let space_before = i > 0 || text.starts_with(|c: char| c.is_ascii_whitespace());
            if space_before && !self.at_line_start() && !self.out.ends_with(' ') {
                self.out.push(' ');
            }
            if !word.is_empty() {
                self.prefix();
                self.out.push_str(word);
            }
        }
    }

    fn raw(&mut self, text: &str) {
        self.prefix();
        self.out.push_str(text);
    }
}

/// Converts `html` (a page fetched from `base`) to Markdown.
pub fn to_markdown(html: &str, base: &Url) -> Converted {
    let mut w = Writer { out: String::new(), base, lists: Vec::new(), pre: 0, quote: 0, link: None, cells: 0 };
    let mut title: Option<String> = None;
    let mut rest = html;
    while !rest.is_empty() {
        let Some(open) = rest.find('<') else {
            w.text(&decode(rest));
            break;
        };
        if open > 0 {
            w.text(&decode(&rest[..open]));
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
        if !tag.closing && tag.name == "title" && title.is_none() {
            let end = find_close(rest, "title");
            let text = decode(&rest[..end]).split_whitespace().collect::<Vec<_>>().join(" ");
            title = (!text.is_empty()).then_some(text);
            rest = skip_close(&rest[end..], "title");
            continue;
        }
        if !tag.closing && SKIPPED.contains(&tag.name.as_str()) && !tag.self_closing {
            let end = find_close(rest, &tag.name);
            rest = skip_close(&rest[end..], &tag.name);
            continue;
        }
        element(&mut w, &tag);
    }
    Converted { title, markdown: tidy(&w.out) }
}

/// Writes what an opening or closing tag means.
fn element(w: &mut Writer<'_>, tag: &Tag) {
    let name = tag.name.as_str();
    match (name, tag.closing) {
        ("br", _) => {
            w.out.push('\n');
        }
        ("hr", false) => {
            w.newline(true);
            w.raw("---");
            w.newline(true);
        }
        ("h1" | "h2" | "h3" | "h4" | "h5" | "h6", false) => {
            w.newline(true);
            let level = usize::from(name.as_bytes()[1] - b'0');
            w.raw(&format!("{} ", "#".repeat(level)));
        }
        ("h1" | "h2" | "h3" | "h4" | "h5" | "h6", true) => w.newline(true),
        ("ul", false) => {
            w.newline(w.lists.is_empty());
            w.lists.push(None);
        }
        ("ol", false) => {
            w.newline(w.lists.is_empty());
            let start = tag.attr("start").and_then(|s| s.trim().parse().ok()).unwrap_or(1);
            w.lists.push(Some(start));
        }
        ("ul" | "ol", true) => {
            w.lists.pop();
            w.newline(w.lists.is_empty());
        }
        ("li", false) => {
            w.newline(false);
            let depth = w.lists.len().saturating_sub(1);
            let marker = match w.lists.last_mut() {
                Some(Some(n)) => {
                    let marker = format!("{n}. ");
                    *n += 1;
                    marker
                }
                _ => "- ".to_string(),
            };
            w.raw(&format!("{}{marker}", "  ".repeat(depth)));
        }
        ("li", true) => w.newline(false),
        ("pre", false) => {
            w.newline(true);
            w.raw("```\n");
            w.pre += 1;
        }
        ("pre", true) if w.pre > 0 => {
            w.pre -= 1;
            if !w.out.ends_with('\n') {
                w.out.push('\n');
            }
            w.out.push_str("```");
            w.newline(true);
        }
        ("code" | "kbd" | "samp" | "tt", _) if w.pre == 0 => w.out.push('`'),
        ("strong" | "b", _) => w.raw("**"),
        ("em" | "i", _) => w.raw("*"),
        ("blockquote", false) => {
            w.newline(true);
            w.quote += 1;
        }
        ("blockquote", true) => {
            w.quote = w.quote.saturating_sub(1);
            w.newline(true);
        }
        ("a", false) => {
            let href = tag.attr("href").map(|h| decode(h).trim().to_string()).unwrap_or_default();
            let target = if href.is_empty() || href.starts_with('#') || href.to_ascii_lowercase().starts_with("javascript:")
            {
                None
            } else if href.starts_with("mailto:") {
                Some(href)
            } else {
                w.base.join(&href).ok().map(|u| u.to_string())
            };
            if let Some(target) = target {
                w.raw("[");
                let start = w.out.len();
                w.link = Some((target, start));
            }
        }
        ("a", true) => {
            if let Some((target, start)) = w.link.take() {
                let text = w.out[start..].trim().to_string();
                if text.is_empty() {
                    // A link with no text (an icon): drop it.
                    w.out.truncate(start - 1);
                } else {
                    w.out.truncate(start);
                    w.out.push_str(&text);
                    w.out.push_str(&format!("]({target})"));
                }
            }
        }
        ("img", false) => {
            let alt = tag.attr("alt").map(|a| decode(a).trim().to_string()).unwrap_or_default();
            if !alt.is_empty() {
                w.text(&format!("[image: {alt}]"));
            }
        }
        ("tr", false) => {
            w.newline(false);
            w.cells = 0;
        }
        ("td" | "th", false) => {
            if w.cells > 0 {
                w.out.push_str(" | ");
            }
            w.cells += 1;
        }
        ("p", _) => w.newline(true),
        (block, _) if BLOCKS.contains(&block) => w.newline(false),
        _ => {}
    }
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

/// Where `</name` starts in `text` (case-insensitive), or its end.
fn find_close(text: &str, name: &str) -> usize {
    let needle = format!("</{name}");
    let lower = text.to_ascii_lowercase();
    lower.find(&needle).unwrap_or(text.len())
}

/// `text` after the closing tag it starts with.
fn skip_close<'a>(text: &'a str, name: &str) -> &'a str {
    if text.len() < name.len() + 2 {
        return "";
    }
    text.find('>').map_or("", |end| &text[end + 1..])
}

/// Character references decoded: numeric ones and the common named ones.
fn decode(text: &str) -> String {
    if !text.contains('&') {
        return text.to_string();
    }
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find('&') {
        out.push_str(&rest[..at]);
        rest = &rest[at..];
        let end = rest[1..].find(|c: char| !(c.is_ascii_alphanumeric() || c == '#')).map_or(rest.len(), |e| e + 1);
        let name = &rest[1..end];
        let decoded = if let Some(number) = name.strip_prefix("#x").or_else(|| name.strip_prefix("#X")) {
            u32::from_str_radix(number, 16).ok().and_then(char::from_u32)
        } else if let Some(number) = name.strip_prefix('#') {
            number.parse::<u32>().ok().and_then(char::from_u32)
        } else {
            named(name)
        };
        match decoded {
            Some(c) => {
                out.push(if c == '\u{a0}' { ' ' } else { c });
                rest = rest[end..].strip_prefix(';').unwrap_or(&rest[end..]);
            }
            None => {
                out.push('&');
                rest = &rest[1..];
            }
        }
    }
    out.push_str(rest);
    out
}

fn named(name: &str) -> Option<char> {
    Some(match name {
        "amp" => '&',
        "lt" => '<',
        "gt" => '>',
        "quot" => '"',
        "apos" => '\'',
        "nbsp" => '\u{a0}',
        "mdash" => '—',
        "ndash" => '–',
        "hellip" => '…',
        "copy" => '©',
        "reg" => '®',
        "trade" => '™',
        "lsquo" => '‘',
        "rsquo" => '’',
        "ldquo" => '“',
        "rdquo" => '”',
        "laquo" => '«',
        "raquo" => '»',
        "middot" => '·',
        "bull" => '•',
        "times" => '×',
        "deg" => '°',
        "euro" => '€',
        "pound" => '£',
        "rarr" => '→',
        "aacute" => 'á',
        "agrave" => 'à',
        "acirc" => 'â',
        "auml" => 'ä',
        "aring" => 'å',
        "eacute" => 'é',
        "egrave" => 'è',
        "ecirc" => 'ê',
        "euml" => 'ë',
        "iacute" => 'í',
        "icirc" => 'î',
        "iuml" => 'ï',
        "oacute" => 'ó',
        "ocirc" => 'ô',
        "ouml" => 'ö',
        "oslash" => 'ø',
        "uacute" => 'ú',
        "ucirc" => 'û',
        "uuml" => 'ü',
        "ccedil" => 'ç',
        "ntilde" => 'ñ',
        "szlig" => 'ß',
        "Eacute" => 'É',
        "Auml" => 'Ä',
        "Ouml" => 'Ö',
        "Uuml" => 'Ü',
        "thinsp" | "ensp" | "emsp" => ' ',
        "larr" => '←',
        _ => return None,
    })
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
