//! A small lexical highlighter for code blocks: keywords, strings, comments, numbers and
//! type-like names, for the languages an agent shows most. No grammar files (syntect's would
//! double the build): a line scanner with each language's keywords and comment markers.
//! Block comments and strings carry over lines. Unknown languages are drawn in the code
//! colour. It never panics on any input, and shows control characters, never obeys them.

use ratatui::style::Style;
use ratatui::text::{Line, Span};

use crate::composer::clean;
use crate::style::Theme;

/// What a language looks like to the scanner.
struct Syntax {
    keywords: &'static [&'static str],
    line_comment: &'static [&'static str],
    block_comment: Option<(&'static str, &'static str)>,
    /// Quote chars that open strings.
    quotes: &'static str,
    /// Triple-quoted strings (Python).
    triple: bool,
}

const RUST: Syntax = Syntax {
    keywords: &[
        "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern", "false", "fn",
        "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref", "return", "self",
        "Self", "static", "struct", "super", "trait", "true", "type", "unsafe", "use", "where", "while",
    ],
    line_comment: &["//"],
    block_comment: Some(("/*", "*/")),
    quotes: "\"",
    triple: false,
};
const PYTHON: Syntax = Syntax {
    keywords: &[
        "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del", "elif", "else", "except",
        "False", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda", "None", "nonlocal", "not",
        "or", "pass", "raise", "return", "True", "try", "while", "with", "yield",
    ],
    line_comment: &["#"],
    block_comment: None,
    quotes: "\"'",
    triple: true,
};
const JS: Syntax = Syntax {
    keywords: &[
        "async",
        "await",
        "break",
        "case",
        "catch",
        "class",
        "const",
        "continue",
        "default",
        "delete",
        "do",
        "else",
        "export",
        "extends",
        "false",
        "finally",
        "for",
        "from",
        "function",
        "if",
        "import",
        "in",
        "instanceof",
        "interface",
        "let",
        "new",
        "null",
        "of",
        "return",
        "static",
        "super",
        "switch",
        "this",
        "throw",
        "true",
        "try",
        "type",
        "typeof",
        "undefined",
        "var",
        "void",
        "while",
        "yield",
    ],
    line_comment: &["//"],
    block_comment: Some(("/*", "*/")),
    quotes: "\"'`",
    triple: false,
};
const C: Syntax = Syntax {
    keywords: &[
        "auto",
        "bool",
        "break",
        "case",
        "char",
        "class",
        "const",
        "continue",
        "default",
        "delete",
        "do",
        "double",
        "else",
        "enum",
        "extern",
        "false",
        "float",
        "for",
        "if",
        "include",
        "int",
        "long",
        "namespace",
        "new",
        "nullptr",
        "private",
        "public",
        "return",
        "short",
        "signed",
        "sizeof",
        "static",
        "struct",
        "switch",
        "template",
        "true",
        "typedef",
        "union",
        "unsigned",
        "using",
        "void",
        "volatile",
        "while",
    ],
    line_comment: &["//"],
    block_comment: Some(("/*", "*/")),
    quotes: "\"'",
    triple: false,
};
const GO: Syntax = Syntax {
    keywords: &[
        "break",
        "case",
        "chan",
        "const",
        "continue",
        "default",
        "defer",
        "else",
        "fallthrough",
        "false",
        "for",
        "func",
        "go",
        "goto",
        "if",
        "import",
        "interface",
        "map",
        "nil",
        "package",
        "range",
        "return",
        "select",
        "struct",
        "switch",
        "true",
        "type",
        "var",
    ],
    line_comment: &["//"],
    block_comment: Some(("/*", "*/")),
    quotes: "\"'`",
    triple: false,
};
const SHELL: Syntax = Syntax {
    keywords: &[
        "case", "do", "done", "echo", "elif", "else", "esac", "exit", "export", "fi", "for", "function", "if", "in",
        "local", "return", "set", "then", "until", "while",
    ],
    line_comment: &["#"],
    block_comment: None,
    quotes: "\"'",
    triple: false,
};
const DATA: Syntax = Syntax {
    keywords: &["true", "false", "null", "yes", "no"],
    line_comment: &["#"],
    block_comment: None,
    quotes: "\"'",
    triple: false,
};

fn syntax(lang: &str) -> Option<&'static Syntax> {
    Some(match lang.to_ascii_lowercase().as_str() {
        "rust" | "rs" => &RUST,
        "python" | "py" => &PYTHON,
        "javascript" | "js" | "jsx" | "typescript" | "ts" | "tsx" | "mjs" => &JS,
        "c" | "h" | "cpp" | "c++" | "cc" | "hpp" | "java" | "cs" | "csharp" => &C,
        "go" => &GO,
        "sh" | "bash" | "shell" | "zsh" | "console" => &SHELL,
        "json" | "toml" | "yaml" | "yml" | "ini" => &DATA,
        _ => return None,
    })
}

/// What carries from one line to the next.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Carry {
    None,
    BlockComment,
    /// A string opened with this quote (tripled for Python's `"""`).
    Str(char, bool),
}

/// `code` as highlighted lines.
pub fn highlight(code: &str, lang: &str, theme: &Theme) -> Vec<Line<'static>> {
    let code = code.strip_suffix('\n').unwrap_or(code);
    let lang = lang.to_ascii_lowercase();
    if lang == "diff" || lang == "patch" {
        return code.split('\n').map(|l| diff_line(l, theme)).collect();
    }
    let Some(syntax) = syntax(&lang) else {
        return code
            .split('\n')
            .map(|l| Line::from(Span::styled(clean(l.trim_end_matches('\r')), theme.code())))
            .collect();
    };
    let mut carry = Carry::None;
    code.split('\n')
        .map(|line| {
            let (spans, next) = scan(line.trim_end_matches('\r'), syntax, carry, theme);
            carry = next;
            Line::from(spans)
        })
        .collect()
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

/// Scans one line from state `carry`; its spans and the state after it.
fn scan(line: &str, syntax: &Syntax, mut carry: Carry, theme: &Theme) -> (Vec<Span<'static>>, Carry) {
    let mut spans = Vec::new();
    let chars: Vec<(usize, char)> = line.char_indices().collect();
    let mut i = 0;
    let at = |i: usize| chars.get(i).map_or(line.len(), |(b, _)| *b);
    let push = |spans: &mut Vec<Span<'static>>, text: &str, style: Style| {
        if !text.is_empty() {
            spans.push(Span::styled(clean(text), style));
        }
    };
    while i < chars.len() {
        let rest = &line[at(i)..];
        match carry {
            Carry::BlockComment => {
                let close = syntax.block_comment.map_or("*/", |(_, c)| c);
                match rest.find(close) {
                    Some(end) => {
                        push(&mut spans, &rest[..end + close.len()], theme.comment());
                        i = index_of(&chars, at(i) + end + close.len());
                        carry = Carry::None;
                    }
                    None => {
                        push(&mut spans, rest, theme.comment());
                        return (spans, carry);
                    }
                }
                continue;
            }
            Carry::Str(quote, triple) => {
                let (end, closed) = string_end(rest, quote, triple);
                push(&mut spans, &rest[..end], theme.string());
                i = index_of(&chars, at(i) + end);
                if closed {
                    carry = Carry::None;
                    continue;
                }
                return (spans, carry);
            }
            Carry::None => {}
        }
        if syntax.line_comment.iter().any(|m| rest.starts_with(m)) {
            push(&mut spans, rest, theme.comment());
            return (spans, Carry::None);
        }
        if let Some((open, _)) = syntax.block_comment.filter(|(o, _)| rest.starts_with(o)) {
            push(&mut spans, open, theme.comment());
            i = index_of(&chars, at(i) + open.len());
            carry = Carry::BlockComment;
            continue;
        }
        let c = chars[i].1;
        if syntax.quotes.contains(c) {
            let triple = syntax.triple && rest.starts_with(&c.to_string().repeat(3));
            let open = if triple { 3 } else { 1 };
            push(&mut spans, &rest[..open * c.len_utf8()], theme.string());
            i = index_of(&chars, at(i) + open * c.len_utf8());
            carry = Carry::Str(c, triple);
            continue;
        }
        if c.is_ascii_digit() {
            let end = rest.find(|c: char| !(c.is_ascii_alphanumeric() || c == '.' || c == '_')).unwrap_or(rest.len());
            push(&mut spans, &rest[..end], theme.number());
            i = index_of(&chars, at(i) + end);
            continue;
        }
        if c.is_alphabetic() || c == '_' {
            let end = rest.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(rest.len());
            let word = &rest[..end];
            let style = if syntax.keywords.contains(&word) {
                theme.keyword()
            } else if word.chars().next().is_some_and(char::is_uppercase) {
                theme.type_name()
            } else {
                Style::default()
            };
            push(&mut spans, word, style);
            i = index_of(&chars, at(i) + end);
            continue;
        }
        let end = rest.char_indices().nth(1).map_or(rest.len(), |(b, _)| b);
        push(&mut spans, &rest[..end], Style::default());
        i += 1;
    }
    (spans, carry)
}

/// Where a string opened with `quote` ends in `rest` (after its closing quote), and whether
/// it closed on this line. Backslash escapes are skipped.
fn string_end(rest: &str, quote: char, triple: bool) -> (usize, bool) {
    let closing: String = if triple { quote.to_string().repeat(3) } else { quote.to_string() };
    let mut escaped = false;
    for (b, c) in rest.char_indices() {
        if escaped {
            escaped = false;
            continue;
        }
        if c == '\\' {
            escaped = true;
            continue;
        }
        if rest[b..].starts_with(&closing) {
            return (b + closing.len(), true);
        }
    }
    (rest.len(), false)
}

/// The index in `chars` of the char starting at byte `byte` (or the end).
fn index_of(chars: &[(usize, char)], byte: usize) -> usize {
    chars.iter().position(|(b, _)| *b >= byte).unwrap_or(chars.len())
}

#[cfg(test)]
#[path = "highlight_tests.rs"]
mod tests;
