//! Words as bash sees them after quote removal: literal when certain, dynamic otherwise.
//!
//! Each piece keeps, beside its value, a "pattern" in which quoted or escaped characters are masked,
//! so that globs, brace expansion and `~` are found only where bash would expand them.

use tree_sitter::Node;

use super::{ShellError, Word};

/// Stands for a quoted or escaped character in a pattern: never special.
const MASK: char = '_';

/// A word's value so far, and the same text with quoted characters masked.
#[derive(Default)]
struct Piece {
    value: String,
    pattern: String,
}

impl Piece {
    fn quoted(&mut self, c: char) {
        self.value.push(c);
        self.pattern.push(MASK);
    }

    fn unquoted(&mut self, c: char) {
        self.value.push(c);
        self.pattern.push(c);
    }
}

/// The source text of a node.
pub(super) fn text<'s>(node: Node, src: &'s str) -> &'s str {
    src.get(node.byte_range()).unwrap_or("")
}

/// Reads one word (a command name, an argument, a redirect target, a declaration's operand).
pub(super) fn word(node: Node, src: &str) -> Result<Word, ShellError> {
    let mut piece = Piece::default();
    if !read(node, src, &mut piece)? || expands(&piece.pattern) {
        return Ok(Word::Dynamic(text(node, src).to_string()));
    }
    Ok(Word::Literal(piece.value))
}

/// Appends a node's value to `piece`; false when the value is only known at run time.
fn read(node: Node, src: &str, piece: &mut Piece) -> Result<bool, ShellError> {
    let source = text(node, src);
    match node.kind() {
        "command_name" => match node.named_child(0) {
            Some(child) if node.named_child_count() == 1 => read(child, src, piece),
            _ => Ok(false),
        },
        "concatenation" => {
            let mut cursor = node.walk();
            for child in node.children(&mut cursor) {
                if !read(child, src, piece)? {
                    return Ok(false);
                }
            }
            Ok(true)
        }
        "word" | "number" if node.named_child_count() == 0 => unquoted(source, piece),
        "raw_string" => {
            let inner = source.strip_prefix('\'').and_then(|s| s.strip_suffix('\'')).ok_or_else(|| misread(source))?;
            inner.chars().for_each(|c| piece.quoted(c));
            Ok(true)
        }
        "string" => {
            // `$"…"` is translated through the locale at run time.
            let mut cursor = node.walk();
            if source.starts_with('$') || node.named_children(&mut cursor).any(|c| c.kind() != "string_content") {
                return Ok(false);
            }
            let inner = source.strip_prefix('"').and_then(|s| s.strip_suffix('"')).ok_or_else(|| misread(source))?;
            double_quoted(inner, piece)
        }
        "ansi_c_string" => {
            let inner = source.strip_prefix("$'").and_then(|s| s.strip_suffix('\'')).ok_or_else(|| misread(source))?;
            Ok(ansi_c(inner, piece))
        }
        "variable_name" => {
            source.chars().for_each(|c| piece.unquoted(c));
            Ok(true)
        }
        "variable_assignment" => {
            let (Some(name), value) = (node.child_by_field_name("name"), node.child_by_field_name("value")) else {
                return Ok(false);
            };
            if name.kind() != "variable_name" || !read(name, src, piece)? {
                return Ok(false);
            }
            let operator_end = value.map_or(node.end_byte(), |v| v.start_byte());
            src.get(name.end_byte()..operator_end).unwrap_or("").chars().for_each(|c| piece.unquoted(c));
            value.map_or(Ok(true), |value| read(value, src, piece))
        }
        // Operators that tree-sitter keeps as arguments (`$` alone, `==` and `=~` in `test`).
        "$" | "==" | "=~" if !node.is_named() => {
            source.chars().for_each(|c| piece.quoted(c));
            Ok(true)
        }
        _ => Ok(false),
    }
}

/// Whether bash would expand a pattern: globs, brace expansion, `~` at a word's start or after `=`/`:`.
fn expands(pattern: &str) -> bool {
    if pattern.contains(['*', '?']) {
        return true;
    }
    let bracket = pattern.find('[').is_some_and(|at| pattern[at..].contains(']'));
    let brace = pattern.find('{').is_some_and(|at| pattern[at..].find('}').is_some_and(|close| close > 1));
    let tilde = pattern.starts_with('~') || pattern.contains("=~") || pattern.contains(":~");
    bracket || brace || tilde
}

/// Whether a literal could be evaluated again by the command that receives it (`printf -v 'a[$(…)]'`,
/// `[[ $x -eq 1 ]]`, `trap`): such words are treated as dynamic.
pub(super) fn risky(value: &str) -> bool {
    value.contains("$(") || value.contains("${") || value.contains("$[") || value.contains('`')
}

/// Unquoted text: a backslash quotes the next character; backslash-newline vanishes.
fn unquoted(source: &str, piece: &mut Piece) -> Result<bool, ShellError> {
    let mut literal = true;
    let mut chars = source.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('\n') => {}
                Some(next) => piece.quoted(next),
                None => piece.quoted('\\'),
            },
            '`' => return Err(misread(source)),
            // A line break ends a word in bash; tree-sitter joins `\n\\rm` to the word before it.
            '\n' => return Err(misread(source)),
            '$' if matches!(chars.peek(), Some('(')) => return Err(misread(source)),
            // A `$` tree-sitter left inside a word starts an expansion it did not see.
            '$' => {
                literal = false;
                piece.unquoted(c);
            }
            _ => piece.unquoted(c),
        }
    }
    Ok(literal)
}

/// The inside of `"…"` without expansions: a backslash quotes only `$`, `` ` ``, `"`, `\` and newline.
fn double_quoted(inner: &str, piece: &mut Piece) -> Result<bool, ShellError> {
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.peek() {
                Some('\n') => {
                    chars.next();
                }
                Some(&next @ ('$' | '`' | '"' | '\\')) => {
                    chars.next();
                    piece.quoted(next);
                }
                _ => piece.quoted('\\'),
            },
            '`' => return Err(misread(inner)),
            '$' => match chars.peek() {
                Some('(') => return Err(misread(inner)),
                Some(next) if next.is_ascii_alphanumeric() || "_{[@*#?$!-".contains(*next) => return Ok(false),
                _ => piece.quoted(c),
            },
            _ => piece.quoted(c),
        }
    }
    Ok(true)
}

/// The inside of `$'…'`, decoded; false for escapes this reader does not decode (`\c`, NUL).
fn ansi_c(inner: &str, piece: &mut Piece) -> bool {
    let mut chars = inner.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            piece.quoted(c);
            continue;
        }
        let Some(escape) = chars.next() else { return false };
        let decoded = match escape {
            'a' => '\u{7}',
            'b' => '\u{8}',
            'e' | 'E' => '\u{1b}',
            'f' => '\u{c}',
            'n' => '\n',
            'r' => '\r',
            't' => '\t',
            'v' => '\u{b}',
            '\\' | '\'' | '"' | '?' => escape,
            // A byte of 0x80 or more is not a character of its own, and `\u` depends on the locale.
            'x' => match number(&mut chars, 16, 2, escape) {
                Some(decoded) if decoded.is_ascii() => decoded,
                _ => return false,
            },
            '0'..='7' => match number(&mut chars, 8, 2, escape) {
                Some(decoded) if decoded.is_ascii() => decoded,
                _ => return false,
            },
            _ => return false,
        };
        if decoded == '\0' {
            return false;
        }
        piece.quoted(decoded);
    }
    true
}

/// Reads up to `max` digits of `radix` (after `first` when it is itself a digit); None when there is none.
fn number(chars: &mut std::iter::Peekable<std::str::Chars>, radix: u32, max: usize, first: char) -> Option<char> {
    let mut value = first.to_digit(radix);
    for _ in 0..max {
        let Some(digit) = chars.peek().and_then(|c| c.to_digit(radix)) else { break };
        chars.next();
        value = Some(value.unwrap_or(0) * radix + digit);
    }
    value.and_then(char::from_u32)
}

/// The error for text tree-sitter reads differently from bash.
pub(super) fn misread(source: &str) -> ShellError {
    let shown: String = source.chars().take(60).collect();
    ShellError(format!(
        "cannot read `{shown}` reliably (it may not run the way it looks); rewrite it more plainly, \
         e.g. with $( ) instead of backticks and without line continuations inside words"
    ))
}
