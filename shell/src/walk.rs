//! The walk over tree-sitter-bash's tree: every node is visited with an explicit stack (no recursion on
//! the tree's depth), every command and file redirect is collected in source order, every place where
//! tree-sitter is known to read bash differently is refused, and every construct bash evaluates again
//! at run time is noted ([`super::evaluated`]).

use std::rc::Rc;

use tree_sitter::{Node, ParseOptions, Parser, Tree};

use super::evaluated;
use super::words::{self, misread, text};
use super::wrappers::{self, Span};
use super::{Command, Line, MAX_DEPTH, MAX_LINE, Redirect, ShellError, Word};

/// Longest time spent parsing one line; tree-sitter's error recovery can be slow on hostile input.
const PARSE_BUDGET: std::time::Duration = std::time::Duration::from_secs(2);

/// Nodes that open a nesting level.
const NESTING: &[&str] = &[
    "command_substitution",
    "process_substitution",
    "subshell",
    "compound_statement",
    "if_statement",
    "while_statement",
    "for_statement",
    "c_style_for_statement",
    "case_statement",
    "function_definition",
    "arithmetic_expansion",
    "expansion",
    "test_command",
];

/// Words bash reserves where a command name is expected; tree-sitter reads some of them as commands
/// (`then rm x`, the `}` of `time { … }`). `time` and `coproc` are read as wrappers instead.
const RESERVED: &[&str] = &[
    "if", "then", "elif", "else", "fi", "case", "esac", "for", "select", "while", "until", "do", "done", "in",
    "function", "{", "}", "!", "[[", "]]",
];

/// Parents under which a variable assignment is a statement of its own (`PATH=/tmp; …`).
const STATEMENT_PARENTS: &[&str] = &[
    "program",
    "list",
    "pipeline",
    "compound_statement",
    "subshell",
    "do_group",
    "if_statement",
    "elif_clause",
    "else_clause",
    "case_item",
    "command_substitution",
    "process_substitution",
    "negated_command",
    "redirected_statement",
    "while_statement",
    "heredoc_redirect",
];

/// One node waiting to be visited.
#[derive(Clone)]
struct Frame<'t> {
    node: Node<'t>,
    parent: &'static str,
    depth: usize,
    /// Inside `"…"`: backticks there also unescape `\"`.
    quoted: bool,
    /// Inside `[[ ]]` or arithmetic, where text is evaluated again as an arithmetic expression.
    arithmetic: bool,
    /// The writing redirections of the statements around the node (`{ …; } > out`).
    writes: Rc<Vec<String>>,
}

/// Parses `line` (at nesting `depth`) and appends what it runs to `out`.
pub(super) fn parse_into(line: &str, depth: usize, out: &mut Line) -> Result<(), ShellError> {
    check_text(line)?;
    if depth > MAX_DEPTH {
        return Err(too_deep());
    }
    let tree = parse_tree(line)?;
    let root = tree.root_node();
    if root.has_error() {
        return Err(ShellError(format!("`{}` is not a complete bash command line: fix its syntax", preview(line))));
    }
    check_continuations(line, root)?;
    let writes = Rc::new(Vec::new());
    let mut stack = vec![Frame { node: root, parent: "", depth, quoted: false, arithmetic: false, writes }];
    while let Some(frame) = stack.pop() {
        visit(frame, line, out, &mut stack)?;
    }
    Ok(())
}

fn check_text(line: &str) -> Result<(), ShellError> {
    if line.len() > MAX_LINE {
        return Err(ShellError(format!(
            "the command line is {} bytes long, over the {MAX_LINE}-byte limit: write a script file and run it",
            line.len()
        )));
    }
    if line.contains('\0') {
        return Err(ShellError("the command line contains a NUL byte, which bash would not read as written".into()));
    }
    if line.contains('\r') {
        return Err(ShellError("the command line contains a carriage return (\\r): use plain newlines".into()));
    }
    Ok(())
}

fn parse_tree(line: &str) -> Result<Tree, ShellError> {
    let mut parser = Parser::new();
    parser
        .set_language(&tree_sitter_bash::LANGUAGE.into())
        .map_err(|e| ShellError(format!("the bash grammar could not be loaded: {e}")))?;
    let started = std::time::Instant::now();
    let mut give_up = |_: &tree_sitter::ParseState| started.elapsed() > PARSE_BUDGET;
    let bytes = line.as_bytes();
    parser
        .parse_with_options(
            &mut |at, _| bytes.get(at..).unwrap_or_default(),
            None,
            Some(ParseOptions::new().progress_callback(&mut give_up)),
        )
        .ok_or_else(|| ShellError("the command line took too long to read: simplify it".into()))
}

/// Backslash-newline is removed by bash before words are split; tree-sitter treats it as a space. The two
/// agree only where it already stands between words (after a space or a tab) or inside a token whose
/// text is decoded here (a word, a string, a comment, a heredoc body).
fn check_continuations(line: &str, root: Node) -> Result<(), ShellError> {
    let bytes = line.as_bytes();
    for (at, _) in line.match_indices("\\\n") {
        let run = bytes[..=at].iter().rev().take_while(|&&b| b == b'\\').count();
        if run % 2 == 0 {
            continue;
        }
        let holder = root.descendant_for_byte_range(at, at + 1).map_or("", |n| n.kind());
        let inside_token = matches!(
            holder,
            "word" | "string_content" | "raw_string" | "comment" | "heredoc_body" | "heredoc_content" | "ansi_c_string"
        );
        let start = at + 1 - run;
        let after_blank = start == 0 || matches!(bytes[start - 1], b' ' | b'\t' | b'\n');
        if !inside_token && !after_blank {
            let from = line[..at].rfind(char::is_whitespace).map_or(0, |i| i + 1);
            return Err(misread(&line[from..]));
        }
    }
    Ok(())
}

fn visit<'t>(frame: Frame<'t>, src: &str, out: &mut Line, stack: &mut Vec<Frame<'t>>) -> Result<(), ShellError> {
    let node = frame.node;
    let kind = node.kind();
    let depth = frame.depth + usize::from(NESTING.contains(&kind));
    if depth > MAX_DEPTH {
        return Err(too_deep());
    }
    let mut push_children = true;
    let mut arithmetic =
        frame.arithmetic || matches!(kind, "test_command" | "arithmetic_expansion" | "c_style_for_statement");
    let mut writes = Rc::clone(&frame.writes);
    match kind {
        "command" => command(node, src, depth, &frame.writes, out)?,
        "declaration_command" | "unset_command" => declaration(node, src, depth, &frame.writes, out)?,
        "variable_assignments" => out.commands.push(assignment(node, src)),
        "variable_assignment" => {
            evaluated::assignment(node, src, out);
            if STATEMENT_PARENTS.contains(&frame.parent) {
                out.commands.push(assignment(node, src));
            }
        }
        "compound_statement" if text(node, src).starts_with("((") => {
            arithmetic = true;
            evaluated::arithmetic(text(node, src), out);
        }
        "arithmetic_expansion" => evaluated::arithmetic(text(node, src), out),
        "c_style_for_statement" => {
            let body = node.child_by_field_name("body").map_or(node.end_byte(), |b| b.start_byte());
            evaluated::arithmetic(src.get(node.start_byte()..body).unwrap_or_default(), out);
        }
        "expansion" => evaluated::expansion(text(node, src), out),
        "test_command" => evaluated::test(node, src, out),
        "for_statement" => {
            if let Some(variable) = node.child_by_field_name("variable") {
                evaluated::sets(text(variable, src), text(node, src), out);
            }
        }
        "redirected_statement" => writes = Rc::new(with_own_writes(&frame.writes, node, src)),
        "command_substitution" | "process_substitution" => {
            // What runs inside writes to the substitution, not to the redirections around it.
            writes = Rc::new(Vec::new());
        }
        "file_redirect" => redirect(node, src, out)?,
        // bash reads `;;` only as the end of a case item; tree-sitter lets it pass elsewhere.
        ";;" | ";&" | ";;&" if frame.parent != "case_item" => return Err(misread(text(node, src))),
        _ => {}
    }
    match kind {
        "command_substitution" if text(node, src).starts_with('`') => {
            backticks(node, src, depth, frame.quoted, out)?;
            push_children = false;
        }
        "heredoc_redirect" => {
            // A quoted delimiter (`<<'EOF'`, `<<"EOF"`, `<<\EOF`) keeps the body literal.
            let start = node.named_child(0).filter(|c| c.kind() == "heredoc_start");
            if start.is_some_and(|s| text(s, src).contains(['\'', '"', '\\'])) {
                push(stack, node, &frame, depth, arithmetic, &writes, |c| c.kind() != "heredoc_body");
                push_children = false;
            }
        }
        "command"
        | "declaration_command"
        | "unset_command"
        | "variable_assignments"
        | "variable_assignment"
        | "compound_statement"
        | "arithmetic_expansion"
        | "c_style_for_statement"
        | "expansion"
        | "test_command"
        | "for_statement"
        | "redirected_statement"
        | "command_substitution"
        | "process_substitution"
        | "file_redirect" => {}
        _ => leaf(node, src, frame.arithmetic)?,
    }
    if push_children {
        push(stack, node, &frame, depth, arithmetic, &writes, |_| true);
    }
    Ok(())
}

/// Pushes a node's children so that they pop in source order.
fn push<'t>(
    stack: &mut Vec<Frame<'t>>,
    node: Node<'t>,
    frame: &Frame<'t>,
    depth: usize,
    arithmetic: bool,
    writes: &Rc<Vec<String>>,
    keep: impl Fn(Node<'t>) -> bool,
) {
    let quoted = frame.quoted || node.kind() == "string";
    let mut cursor = node.walk();
    let children: Vec<Node<'t>> = node.children(&mut cursor).filter(|c| keep(*c)).collect();
    for child in children.into_iter().rev() {
        let writes = Rc::clone(writes);
        stack.push(Frame { node: child, parent: node.kind(), depth, quoted, arithmetic, writes });
    }
}

/// `around` and the writing redirections among `node`'s own `redirect` children.
fn with_own_writes(around: &[String], node: Node, src: &str) -> Vec<String> {
    let mut writes = around.to_vec();
    let mut cursor = node.walk();
    for redirect in node.children_by_field_name("redirect", &mut cursor) {
        if redirect.kind() == "file_redirect" && writing(redirect, src) {
            writes.push(text(redirect, src).to_string());
        }
    }
    writes
}

/// Whether a file redirection writes a file (not `2>&1`, `>&-` or `> >(cmd)`).
fn writing(node: Node, src: &str) -> bool {
    let mut cursor = node.walk();
    let operator = node.children(&mut cursor).find(|c| !c.is_named()).map_or("", |c| c.kind());
    let Some(destination) = node.child_by_field_name("destination") else { return false };
    if destination.kind() == "process_substitution" {
        return false;
    }
    let target = text(destination, src);
    let duplicates = matches!(operator, ">&" | "<&")
        && (target == "-" || (!target.is_empty() && target.bytes().all(|b| b.is_ascii_digit())));
    // `> /dev/null` discards; it writes no file.
    let device =
        words::word(destination, src).ok().and_then(|w| w.literal().map(super::matching::is_device)) == Some(true);
    matches!(operator, ">" | ">>" | ">|" | "&>" | "&>>" | "<>" | ">&") && !duplicates && !device
}

/// Checks a token tree-sitter read as plain text: a `$(` or backtick left in it is a substitution bash
/// would run and tree-sitter did not see.
fn leaf(node: Node, src: &str, arithmetic: bool) -> Result<(), ShellError> {
    if node.child_count() > 0 || !node.is_named() {
        return Ok(());
    }
    let source = text(node, src);
    if arithmetic
        && matches!(node.kind(), "raw_string" | "string_content" | "ansi_c_string" | "word")
        && words::risky(source)
    {
        return Err(ShellError(format!(
            "`{}` is evaluated as arithmetic, where a substitution inside text still runs: airlock refuses it",
            preview(source)
        )));
    }
    if matches!(node.kind(), "raw_string" | "ansi_c_string" | "comment" | "heredoc_start" | "heredoc_end") {
        return Ok(());
    }
    if unescaped(source, "`") || unescaped(source, "$(") {
        return Err(misread(source));
    }
    Ok(())
}

/// Whether `needle` occurs in `source` not preceded by an odd run of backslashes.
fn unescaped(source: &str, needle: &str) -> bool {
    source
        .match_indices(needle)
        .any(|(at, _)| source.as_bytes()[..at].iter().rev().take_while(|&&b| b == b'\\').count() % 2 == 0)
}

fn command(node: Node, src: &str, depth: usize, around: &[String], out: &mut Line) -> Result<(), ShellError> {
    let name = node.child_by_field_name("name");
    if let Some(name) = name {
        let plain = name.named_child(0).filter(|w| w.kind() == "word" && name.named_child_count() == 1);
        if let Some(word) = plain.map(|w| text(w, src)).filter(|w| RESERVED.contains(w)) {
            return Err(ShellError(format!(
                "`{word}` is a reserved word where a command is expected: fix the syntax of `{}`",
                preview(text(node, src))
            )));
        }
    }
    let mut cursor = node.walk();
    let mut parts: Vec<Node> = name.into_iter().collect();
    parts.extend(node.children_by_field_name("argument", &mut cursor));
    let mut cursor = node.walk();
    let assignments = node.children(&mut cursor).any(|c| c.kind() == "variable_assignment");
    // Bash ends a command at a line break; tree-sitter sometimes carries one on (after `[[ … ]] | a | b`,
    // a next line holding a heredoc became arguments of `b`).
    for pair in parts.windows(2) {
        if let [before, after] = pair
            && line_break(src, before.end_byte()..after.start_byte())
        {
            return Err(misread(text(node, src)));
        }
    }
    let spans: Vec<Span> =
        parts.iter().map(|p| words::word(*p, src).map(|w| (w, p.byte_range()))).collect::<Result<_, _>>()?;
    let writes = with_own_writes(around, node, src);
    wrappers::expand(spans, assignments, text(node, src), src, depth, &writes, out)
}

/// Whether `src[range]` holds a line break that is not a line continuation (`\` before it).
fn line_break(src: &str, range: std::ops::Range<usize>) -> bool {
    let bytes = src.as_bytes();
    range
        .filter(|&at| bytes.get(at) == Some(&b'\n'))
        .any(|at| bytes[..at].iter().rev().take_while(|&&b| b == b'\\').count() % 2 == 0)
}

fn declaration(node: Node, src: &str, depth: usize, around: &[String], out: &mut Line) -> Result<(), ShellError> {
    let mut cursor = node.walk();
    let mut spans = Vec::new();
    for child in node.children(&mut cursor) {
        let word =
            if child.is_named() { words::word(child, src)? } else { Word::Literal(text(child, src).to_string()) };
        spans.push((word, child.byte_range()));
    }
    wrappers::expand(spans, false, text(node, src), src, depth, around, out)
}

fn assignment(node: Node, src: &str) -> Command {
    Command { words: Vec::new(), assignments: true, text: text(node, src).to_string(), writes: Vec::new() }
}

fn redirect(node: Node, src: &str, out: &mut Line) -> Result<(), ShellError> {
    let mut cursor = node.walk();
    let operator = node.children(&mut cursor).find(|c| !c.is_named()).map_or("", |c| c.kind());
    let Some(destination) = node.child_by_field_name("destination") else {
        return Ok(()); // `>&-` closes a descriptor
    };
    // tree-sitter gives a redirection every word after it, up to the end of the command and even
    // across a line break (`ls 2> e` + line break + `\rm x`), where bash reads the first as the
    // file and the rest as arguments of the command or a command of its own (found by the
    // `gate_grammar` fuzz target).
    let mut cursor = node.walk();
    if node.children_by_field_name("destination", &mut cursor).nth(1).is_some() {
        let shown: String = text(node, src).chars().take(60).collect();
        return Err(ShellError(format!(
            "cannot read `{shown}` reliably: words follow the redirection's file (bash takes them as \
             arguments, or after a line break as the next command); put redirections after the \
             command's words"
        )));
    }
    if destination.kind() == "process_substitution" {
        return Ok(()); // `> >(cmd)` feeds a command, listed on its own, not a file
    }
    let target = words::word(destination, src)?;
    let duplicates = matches!(operator, ">&" | "<&")
        && target.literal().is_some_and(|t| t == "-" || (!t.is_empty() && t.bytes().all(|b| b.is_ascii_digit())));
    if duplicates {
        return Ok(()); // `2>&1` points at a descriptor, not a file
    }
    let writes = match operator {
        ">" | ">>" | ">|" | "&>" | "&>>" | "<>" | ">&" => true,
        "<" | "<&" => false,
        other => return Err(ShellError(format!("unknown redirection `{other}` in `{}`", preview(text(node, src))))),
    };
    out.redirects.push(Redirect { target, writes, text: text(node, src).to_string() });
    Ok(())
}

/// Backticks: bash finds the closing backtick itself and parses the text between them again after
/// unescaping `\\`, `` \` ``, `\$` (and `\"` inside double quotes). tree-sitter does not (adjacent
/// backticks read as one substitution), so the script is cut and parsed here the way bash does it.
fn backticks(node: Node, src: &str, depth: usize, quoted: bool, out: &mut Line) -> Result<(), ShellError> {
    let source = text(node, src);
    let mut script = String::new();
    let mut chars = source.char_indices().skip(1);
    let mut close = None;
    while let Some((at, c)) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some((_, next @ ('$' | '`' | '\\'))) => script.push(next),
                Some((_, '"')) if quoted => script.push('"'),
                Some((_, next)) => {
                    script.push('\\');
                    script.push(next);
                }
                None => script.push('\\'),
            },
            '`' => {
                close = Some(at);
                break;
            }
            _ => script.push(c),
        }
    }
    if close != Some(source.len() - 1) {
        return Err(misread(source));
    }
    parse_into(&script, depth, out)
}

fn too_deep() -> ShellError {
    ShellError(format!("the command line nests deeper than {MAX_DEPTH} levels: flatten it or use a script file"))
}

/// The start of a text, for messages.
pub(super) fn preview(text: &str) -> String {
    let mut shown: String = text.chars().take(80).collect();
    if shown.len() < text.len() {
        shown.push('…');
    }
    shown
}
