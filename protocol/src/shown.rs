//! The one sanitiser for untrusted text shown to a person on a terminal, and [`Shown`], a
//! text that can only be built by it. Whatever a plugin, the model or a repository wrote
//! (names, descriptions, errors, confirmations, paths, load problems, tool output,
//! `AIRLOCK.md`) passes through here before a terminal sees it: the headless printer, the
//! `--ask` prompt and every widget of the TUI call these functions and nothing else.
//! JSON outputs (`-o json`, `-o stream-json`, `--json`) are data, not terminal text: JSON
//! escaping already covers control characters there.
//!
//! # Contract
//!
//! - [`line`] returns one line: it contains no character for which [`is_hidden`] holds —
//!   no C0 control (so no newline, carriage return, tab or ESC, hence no escape sequence),
//!   no DEL, no C1 control, no bidi control (U+061C, U+200E/F, U+202A–U+202E,
//!   U+2066–U+2069), and no zero-width or invisible character (U+200B–U+200D, U+2060–U+2064,
//!   U+FEFF, soft hyphen, variation selectors, tag characters, line/paragraph separators,
//!   …). Each such character is *made visible* instead of dropped, as `\n`, `\r`, `\t`,
//!   `\x1b` (other ASCII controls) or `\u{202e}` (the rest), so a reader sees that it was
//!   there. The result has at most [`MAX_LINE_CHARS`] characters of the original, then `…`.
//! - [`block`] is for multi-line text (diffs, `--show-context`): newlines are kept (a
//!   `\r\n` pair counts as one newline), tabs are kept, every line is cleaned and bounded as
//!   by [`line`], and at most [`MAX_BLOCK_LINES`] lines are shown, then one line saying how
//!   many were left out.
//! - [`stream`] is for the model's answer as it streams: control characters (C0 but newline
//!   and tab, DEL, C1) and bidi controls are made visible; zero-width joiners and variation
//!   selectors are kept because emoji and scripts need them in prose. Not bounded (the caller
//!   prints deltas).
//! - Cleaning a clean text changes no character, since what is written for a hidden
//!   character is plain ASCII; only a bound can cut it again, where escapes made a line
//!   longer than the bound (so [`Shown`] is read back from JSON without a bound on lines).
//!
//! Printing a sanitised string must be the last step: code that adds its own text around it
//! adds only trusted text.

use std::fmt::Write as _;

/// Most characters of one line shown; the rest is replaced by `…`.
pub const MAX_LINE_CHARS: usize = 1000;
/// Most lines of a block shown.
pub const MAX_BLOCK_LINES: usize = 2000;
/// Most lines a [`Shown`] read from JSON keeps (a whole pager's worth).
pub const MAX_READ_LINES: usize = 20_000;

/// Whether `c` can move the cursor, change the terminal's state, reorder the text around it
/// or hide itself: such a character is never printed raw.
pub fn is_hidden(c: char) -> bool {
    c.is_control() || is_bidi(c) || is_invisible(c)
}

/// Bidi formatting characters (Trojan Source, CVE-2021-42574).
fn is_bidi(c: char) -> bool {
    matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
}

/// Characters that take no room or look like nothing: they hide text or make two names look
/// alike.
fn is_invisible(c: char) -> bool {
    matches!(
        c,
        '\u{00AD}'
            | '\u{034F}'
            | '\u{115F}'
            | '\u{1160}'
            | '\u{180E}'
            | '\u{200B}'..='\u{200D}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{2060}'..='\u{2064}'
            | '\u{206A}'..='\u{206F}'
            | '\u{3164}'
            | '\u{FE00}'..='\u{FE0F}'
            | '\u{FEFF}'
            | '\u{FFA0}'
            | '\u{FFF9}'..='\u{FFFB}'
            | '\u{E0000}'..='\u{E007F}'
            | '\u{E0100}'..='\u{E01EF}'
    )
}

/// Writes `c` made visible.
fn escape(c: char, out: &mut String) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if (c as u32) < 0x80 => {
            let _ = write!(out, "\\x{:02x}", c as u32);
        }
        c => {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
    }
}

/// `text` as one safe, bounded line (see the module's contract).
pub fn line(text: &str) -> String {
    line_bounded(text, MAX_LINE_CHARS)
}

/// [`line`] with its own bound, for a field a person reviews whole (a parameter schema), or
/// `usize::MAX` for a widget that fits the line to its width itself.
pub fn line_bounded(text: &str, max_chars: usize) -> String {
    let mut out = String::with_capacity(text.len().min(max_chars.saturating_mul(2)));
    for (count, c) in text.chars().enumerate() {
        if count == max_chars {
            out.push('…');
            break;
        }
        if is_hidden(c) { escape(c, &mut out) } else { out.push(c) }
    }
    out
}

/// `text` as safe lines: newlines and tabs kept, each line bounded, the line count bounded.
pub fn block(text: &str) -> String {
    block_bounded(text, MAX_BLOCK_LINES)
}

/// [`block`] with its own bound on the number of lines.
pub fn block_bounded(text: &str, max_lines: usize) -> String {
    lines(text, max_lines, MAX_LINE_CHARS)
}

/// [`block`] with its bounds on the number of lines and on the characters of each.
fn lines(text: &str, max_lines: usize, max_chars: usize) -> String {
    let mut out = String::with_capacity(text.len().min(1 << 20));
    let mut lines = text.split('\n');
    let ends_with_newline = text.ends_with('\n');
    let total = text.split('\n').count() - usize::from(ends_with_newline);
    for (index, raw) in lines.by_ref().enumerate() {
        if index == total {
            break;
        }
        if index == max_lines {
            let more = total - max_lines;
            let _ = writeln!(out, "… ({more} more {} not shown)", if more == 1 { "line" } else { "lines" });
            return out;
        }
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        // Tabs are layout, not control, in a block: clean the pieces between them.
        let cleaned: Vec<String> = raw.split('\t').map(|piece| line_bounded(piece, max_chars)).collect();
        out.push_str(&cleaned.join("\t"));
        if index + 1 < total || ends_with_newline {
            out.push('\n');
        }
    }
    out
}

/// The model's streamed answer made safe for a terminal (see the module's contract).
pub fn stream(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        if c != '\n' && c != '\t' && (c.is_control() || is_bidi(c)) { escape(c, &mut out) } else { out.push(c) }
    }
    out
}

/// A text safe to show on a terminal: it can only be built by the sanitiser above, and
/// reading one from JSON sanitises it too, so a value of this type never holds a control
/// character, an escape sequence, a bidi control or an invisible character (but the
/// newlines and tabs of a [`Shown::block`]).
///
/// It serialises as a plain string. It dereferences to `&str` for drawing.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize)]
#[serde(transparent)]
pub struct Shown(String);

impl Shown {
    /// `text` as one line ([`line`]).
    pub fn line(text: &str) -> Self {
        Self(line(text))
    }

    /// `text` as one line of at most `max_chars` characters ([`line_bounded`]).
    pub fn line_bounded(text: &str, max_chars: usize) -> Self {
        Self(line_bounded(text, max_chars))
    }

    /// `text` as lines ([`block`]).
    pub fn block(text: &str) -> Self {
        Self(block(text))
    }

    /// `text` as at most `max_lines` lines ([`block_bounded`]).
    pub fn block_bounded(text: &str, max_lines: usize) -> Self {
        Self(block_bounded(text, max_lines))
    }

    /// The text, for drawing.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The text, for a widget that owns its strings.
    pub fn into_string(self) -> String {
        self.0
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl std::ops::Deref for Shown {
    type Target = str;

    fn deref(&self) -> &str {
        &self.0
    }
}

impl AsRef<str> for Shown {
    fn as_ref(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for Shown {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// One line: the strictest reading, for the names and labels most fields hold.
impl From<&str> for Shown {
    fn from(text: &str) -> Self {
        Self::line(text)
    }
}

/// One line, as `From<&str>`.
impl From<String> for Shown {
    fn from(text: String) -> Self {
        Self::line(&text)
    }
}

/// What a program sent is sanitised on arrival, as lines (a field read as one line is
/// cleaned again as one line where it is drawn), and at most [`MAX_READ_LINES`] of them.
/// Lines are not cut: the sender bounded them, and its escapes may have made them longer.
impl<'de> serde::Deserialize<'de> for Shown {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        Ok(Self(lines(&text, MAX_READ_LINES, usize::MAX)))
    }
}

impl schemars::JsonSchema for Shown {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Shown".into()
    }

    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "description": "Text for a person, already sanitised: no control character (but newline and tab in multi-line texts), escape sequence, bidi control or invisible character; each one the source held is written visibly (`\\x1b`, `\\u{202e}`). A reader sanitises it again on arrival."
        })
    }
}

#[cfg(test)]
#[path = "shown_tests.rs"]
mod tests;
