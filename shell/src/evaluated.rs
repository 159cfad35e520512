//! What bash evaluates again when the line runs, so that no reading of the source can name what
//! it runs: each such construct adds a reason to [`Line::uncertain`] (bash's man page, "Shell
//! Builtin Commands", "EXPANSION" and "ARITHMETIC EVALUATION", is the list this follows).
//!
//! - Arithmetic evaluates a variable's value as an expression of its own, recursively, and an array
//!   subscript inside it runs substitutions (`x='a[$(rm y)]'; echo $((x))`). So arithmetic that
//!   names a variable (`$((x))`, `((x))`, `let x`, `for ((…))`, `[[ $x -eq 1 ]]`, `${s:x}`) and an
//!   array subscript that is not a plain number (`${a[i]}`, `a[i]=1`) are uncertain.
//! - Builtins that take a variable's *name* evaluate a subscript in it: `printf -v`, `read`,
//!   `mapfile`/`readarray`, `declare`/`typeset`/`local`/`export`/`readonly`, `unset`, `getopts`,
//!   `wait -p`, `[ -v ]`/`test -v`/`[[ -v ]]`; `declare -i` and `-n` make later assignments
//!   evaluate; a name known only at run time is uncertain too.
//! - `${!ref}` reads a variable named by a value, `${x@P}` expands a value as a prompt (running
//!   its substitutions); `mapfile -C`, `hash -p`, `enable -f`, `complete`/`compgen -C`, `fc`,
//!   `bind -x`, `alias NAME=…` and `source`/`.` run code the line does not show.
//! - Setting a variable that makes bash or a program it starts run code ([`code_variable`]:
//!   `PS4` with `set -x`, `BASH_ENV`, `PROMPT_COMMAND`, `BASH_CMDS`, `LD_PRELOAD`, git's
//!   configuration and program variables, pagers and editors), by any means (`X=…`, `declare`,
//!   `read`, `for X in`, `${X:=…}`, `env X=…`), or unsetting one, is uncertain.

use tree_sitter::Node;

use super::words::text;
use super::{Command, Line, Word, base_name};

/// Whether setting `name` can make bash, or a program the line starts, run code the line does not
/// show: prompts and hooks bash expands (`PS4` under `set -x`), files it sources (`BASH_ENV`,
/// `ENV`), its command and alias tables, the dynamic loader's variables, git's configuration and
/// program variables, and the pagers and editors programs start.
pub fn code_variable(name: &str) -> bool {
    const NAMES: &[&str] = &[
        "BASH_ENV",
        "ENV",
        "PS0",
        "PS1",
        "PS2",
        "PS3",
        "PS4",
        "PROMPT_COMMAND",
        "SHELLOPTS",
        "BASHOPTS",
        "BASH_CMDS",
        "BASH_ALIASES",
        "BASH_LOADABLES_PATH",
        "GLIBC_TUNABLES",
        "GCONV_PATH",
        "PAGER",
        "MANPAGER",
        "MANOPT",
        "EDITOR",
        "VISUAL",
        "LESSOPEN",
        "LESSCLOSE",
        "LESSKEYIN",
        "LESSKEY",
    ];
    NAMES.contains(&name) || name.starts_with("LD_") || name.starts_with("BASH_FUNC_") || git_variable(name)
}

/// git's variables that choose its configuration, its repository or a program it runs; the
/// author and committer identities and the like are harmless.
fn git_variable(name: &str) -> bool {
    const HARMLESS: &[&str] = &[
        "GIT_AUTHOR_NAME",
        "GIT_AUTHOR_EMAIL",
        "GIT_AUTHOR_DATE",
        "GIT_COMMITTER_NAME",
        "GIT_COMMITTER_EMAIL",
        "GIT_COMMITTER_DATE",
        "GIT_TERMINAL_PROMPT",
        "GIT_OPTIONAL_LOCKS",
        "GIT_FLUSH",
        "GIT_MERGE_AUTOEDIT",
        "GIT_DEFAULT_HASH",
        "GIT_PROGRESS_DELAY",
        "GIT_QUIET",
        "GIT_NO_REPLACE_OBJECTS",
        "GIT_LITERAL_PATHSPECS",
        "GIT_GLOB_PATHSPECS",
        "GIT_NOGLOB_PATHSPECS",
        "GIT_ICASE_PATHSPECS",
    ];
    name.starts_with("GIT_") && !HARMLESS.contains(&name)
}

/// Notes a variable the line sets, by any means: uncertain when its name holds a subscript, is
/// known only at run time, or is a [`code_variable`].
pub(super) fn sets(name: &str, how: &str, out: &mut Line) {
    let how = preview(how);
    let (base, subscript) = match name.split_once('[') {
        Some((base, rest)) => (base, Some(rest.strip_suffix(']').unwrap_or(rest))),
        None => (name, None),
    };
    if !out.sets.iter().any(|known| known == base) {
        out.sets.push(base.to_string());
    }
    if code_variable(base) {
        out.note_uncertain(format!("`{how}` changes {base}, which makes bash or the programs it starts run code"));
    } else if subscript.is_some_and(|index| !plain_index(index)) {
        out.note_uncertain(format!("`{how}` evaluates the array subscript of `{}` when it runs", preview(name)));
    } else if !is_name(base) {
        out.note_uncertain(format!("`{how}` sets a variable whose name is known only when it runs"));
    }
}

/// Notes a word given where a variable's name is expected (`read NAME`, `unset NAME`).
fn sets_word(word: &Word, how: &str, out: &mut Line) {
    match word {
        Word::Literal(name) => sets(name.split_once(['=', '+']).map_or(name, |(n, _)| n), how, out),
        // `arr=(1 2)`, `X=$(cmd)`: the value is known only at run time, the name is not.
        Word::Dynamic(text) => match text.split_once('=').map(|(name, _)| name.trim_end_matches('+')) {
            Some(name) if is_name(name.split_once('[').map_or(name, |(base, _)| base)) => sets(name, how, out),
            _ => {
                out.note_uncertain(format!("`{}` sets a variable whose name is known only when it runs", preview(how)))
            }
        },
    }
}

/// A subscript bash reads without evaluating: a plain number, `@` or `*`.
fn plain_index(index: &str) -> bool {
    matches!(index, "@" | "*") || (!index.is_empty() && index.bytes().all(|b| b.is_ascii_digit()))
}

fn is_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// A `variable_assignment` node (`X=1`, `a[i]=1`, `X+=1`, an operand of `declare`).
pub(super) fn assignment(node: Node, src: &str, out: &mut Line) {
    let Some(name) = node.child_by_field_name("name") else { return };
    sets(text(name, src), text(node, src), out);
}

/// An arithmetic text (`$((…))`, `((…))`, `$[…]`, a `for ((…))` header): uncertain when it names a
/// variable, whose value bash would evaluate as an expression of its own.
pub(super) fn arithmetic(source: &str, out: &mut Line) {
    let body = source.strip_prefix("for").unwrap_or(source).trim_start().trim_start_matches('$');
    if let Some(name) = variable_in_arithmetic(body.trim_start_matches(['(', '['])) {
        out.note_uncertain(format!(
            "`{}` evaluates `{name}` as arithmetic when it runs, and a value there can run commands",
            preview(source)
        ));
    }
}

/// The first variable (or expansion) an arithmetic text reads; numbers in any base are not.
fn variable_in_arithmetic(source: &str) -> Option<String> {
    let mut chars = source.char_indices().peekable();
    while let Some((at, c)) = chars.next() {
        if c.is_ascii_digit() {
            // `10`, `0x1f`, `16#ff`, `64#_@`: a number's digits may be letters.
            while chars.peek().is_some_and(|(_, c)| c.is_ascii_alphanumeric() || matches!(c, '#' | '@' | '_')) {
                chars.next();
            }
        } else if c.is_ascii_alphabetic() || c == '_' || c == '$' || c == '`' || c == '\'' || c == '"' || c == '\\' {
            let end = source[at..]
                .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '$'))
                .unwrap_or(source.len() - at);
            return Some(source[at..at + end.max(1)].to_string());
        }
    }
    None
}

/// A `${…}` expansion.
pub(super) fn expansion(source: &str, out: &mut Line) {
    let Some(inner) = source.strip_prefix("${").and_then(|s| s.strip_suffix('}')) else { return };
    if let Some(indirect) = inner.strip_prefix('!') {
        let name_end = indirect.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(indirect.len());
        // `${!prefix*}`, `${!prefix@}` list names and `${!a[@]}` lists keys: nothing is evaluated.
        if !matches!(&indirect[name_end..], "*" | "@" | "[@]" | "[*]") {
            out.note_uncertain(format!("`{}` reads a variable named only when it runs", preview(source)));
        }
        return;
    }
    let inner = if inner.len() > 1 { inner.strip_prefix('#').unwrap_or(inner) } else { inner };
    let special = inner.starts_with(|c: char| "@*#?$!-0123456789".contains(c));
    let name_end =
        if special { 1 } else { inner.find(|c: char| !(c.is_ascii_alphanumeric() || c == '_')).unwrap_or(inner.len()) };
    let name = &inner[..name_end];
    let mut rest = &inner[name_end..];
    if let Some(after) = rest.strip_prefix('[') {
        let close = after.find(']').unwrap_or(after.len());
        if !plain_index(&after[..close]) {
            out.note_uncertain(format!("`{}` evaluates an array subscript when it runs", preview(source)));
        }
        rest = after.get(close + 1..).unwrap_or_default();
    }
    if rest.starts_with('@') && rest.contains('P') {
        out.note_uncertain(format!("`{}` expands a value as a prompt, running what it holds", preview(source)));
    } else if let Some(after) = rest.strip_prefix(':').filter(|after| !after.starts_with(['-', '=', '?', '+'])) {
        // `${x:offset:length}`: both are arithmetic.
        if let Some(variable) = variable_in_arithmetic(after) {
            out.note_uncertain(format!(
                "`{}` evaluates `{variable}` as arithmetic when it runs, and a value there can run commands",
                preview(source)
            ));
        }
    } else if rest.starts_with('=') || rest.starts_with(":=") {
        sets(name, source, out);
    }
}

/// A `[[ … ]]` test: its arithmetic comparisons evaluate both sides, `-v` evaluates a subscript.
pub(super) fn test(node: Node, src: &str, out: &mut Line) {
    let mut stack = vec![node];
    while let Some(node) = stack.pop() {
        match node.kind() {
            "command_substitution" | "process_substitution" => continue,
            "binary_expression" => {
                let operator = node.child_by_field_name("operator").map(|o| text(o, src));
                if operator.is_some_and(|o| matches!(o, "-eq" | "-ne" | "-lt" | "-le" | "-gt" | "-ge")) {
                    for side in ["left", "right"].iter().filter_map(|f| node.child_by_field_name(f)) {
                        let value = text(side, src);
                        let number = value.trim_start_matches(['-', '+']);
                        if variable_in_arithmetic(number).is_some() || number.is_empty() {
                            out.note_uncertain(format!(
                                "`{}` compares `{}` as arithmetic when it runs, and a value there can run commands",
                                preview(text(node, src)),
                                preview(value)
                            ));
                        }
                    }
                }
            }
            "unary_expression" => {
                let mut cursor = node.walk();
                let parts: Vec<Node> = node.children(&mut cursor).collect();
                if let [operator, operand] = parts.as_slice()
                    && text(*operator, src) == "-v"
                {
                    sets_word(&Word::Literal(text(*operand, src).to_string()), text(node, src), out);
                }
            }
            _ => {}
        }
        let mut cursor = node.walk();
        stack.extend(node.children(&mut cursor));
    }
}

/// A command as listed (after wrappers): the builtins that evaluate their operands, run code or
/// set variables by name.
pub(super) fn command(command: &Command, out: &mut Line) {
    let words = &command.words;
    if words.is_empty() {
        return;
    }
    let Some(program) = command.program() else {
        out.note_uncertain(format!("`{}` names its program only when it runs", preview(&command.text)));
        return;
    };
    let how = command.text.as_str();
    let literal = |at: usize| words.get(at).and_then(Word::literal);
    let has = |flag: &str| words.iter().skip(1).filter_map(Word::literal).any(|w| w == flag);
    let runs_unseen = |out: &mut Line, what: &str| {
        out.note_uncertain(format!("`{}` {what}", preview(how)));
    };
    match base_name(program) {
        // `printf $opt …` or `printf -v"$n"`: the option could be `-v`, naming a variable.
        "printf" if words.get(1).is_some_and(|w| w.literal().is_none()) => {
            runs_unseen(out, "may set a variable whose name is known only when it runs (`-v`)");
        }
        "printf" => {
            let mut at = 1;
            while let Some(word) = literal(at) {
                match word {
                    "-v" => {
                        if let Some(name) = words.get(at + 1) {
                            sets_word(name, how, out);
                        }
                        at += 2;
                    }
                    _ if word.starts_with("-v") => {
                        sets(&word[2..], how, out);
                        at += 1;
                    }
                    _ => break,
                }
            }
        }
        "read" => operands(words, "ers", "adinNptu", "a", how, out),
        "mapfile" | "readarray" => {
            if options(words, "t", "dnOsuCc").0.iter().any(|(flag, _)| *flag == 'C') {
                runs_unseen(out, "runs a callback read from its input (`-C`)");
            }
            operands(words, "t", "dnOsuCc", "", how, out);
        }
        "declare" | "typeset" | "local" | "readonly" | "export" => {
            let export = base_name(program) == "export";
            for word in words.iter().skip(1) {
                match word.literal() {
                    Some(flags) if flags.starts_with(['-', '+']) && flags.len() > 1 => {
                        let evaluates = flags.contains('i') || (!export && flags.contains('n'));
                        if evaluates {
                            runs_unseen(out, "gives variables an attribute that evaluates their values when set");
                        }
                        if export && flags.contains('n') {
                            out.clears_env.push(command.text.clone());
                        }
                    }
                    _ => sets_word(word, how, out),
                }
            }
        }
        "unset" if !has("-f") => {
            for word in words.iter().skip(1).filter(|w| !w.literal().is_some_and(|w| w.starts_with('-'))) {
                sets_word(word, how, out);
            }
        }
        "let" => {
            for word in words.iter().skip(1) {
                match word.literal() {
                    Some(expression) => arithmetic(expression, out),
                    None => runs_unseen(out, "evaluates arithmetic known only when it runs"),
                }
            }
        }
        "test" | "[" => {
            for pair in words.windows(2) {
                if pair[0].literal() == Some("-v") {
                    sets_word(&pair[1], how, out);
                }
                // `[ $op 'a[…]' ]`: an operator known only at run time could be `-v`.
                let next = match &pair[1] {
                    Word::Literal(text) | Word::Dynamic(text) => text,
                };
                if pair[0].literal().is_none() && next.contains('[') {
                    runs_unseen(out, "may test a variable named by a subscript when it runs (`-v`)");
                }
            }
        }
        "getopts" => {
            if let Some(name) = words.get(2) {
                sets_word(name, how, out);
            }
        }
        "wait" => {
            for pair in words.windows(2) {
                if pair[0].literal() == Some("-p") {
                    sets_word(&pair[1], how, out);
                }
            }
        }
        "source" | "." if words.len() > 1 => runs_unseen(out, "runs the commands of a file"),
        "hash" if has("-p") => runs_unseen(out, "makes a command name run another program (`hash -p`)"),
        "enable" if words.iter().filter_map(Word::literal).any(|w| w.starts_with("-f")) => {
            runs_unseen(out, "loads a builtin from a shared library")
        }
        "complete" | "compgen" if words.iter().filter_map(Word::literal).any(|w| w.starts_with("-C")) => {
            runs_unseen(out, "runs a completion command (`-C`)")
        }
        "fc" => runs_unseen(out, "runs commands from the history"),
        "bind" if has("-x") => runs_unseen(out, "binds a key to a command"),
        "alias" if words.iter().skip(1).any(|w| w.literal().is_none_or(|w| w.contains('='))) => {
            runs_unseen(out, "defines an alias, whose value runs where its name is used")
        }
        "exec" if has("-c") => out.clears_env.push(command.text.clone()),
        _ => {}
    }
}

/// The options of a builtin (bash's `internal_getopt`): flags, and options that take a value
/// (attached or the next word), with their value; and the index of the first operand (reading
/// stops at `--` or the first word that is not an option).
fn options(words: &[Word], flags: &str, with_value: &str) -> (Vec<(char, Option<Word>)>, usize) {
    let mut seen = Vec::new();
    let mut at = 1;
    while let Some(word) = words.get(at).and_then(Word::literal) {
        if word == "--" {
            at += 1;
            break;
        }
        if !word.starts_with('-') || word == "-" {
            break;
        }
        for (offset, flag) in word.char_indices().skip(1) {
            if with_value.contains(flag) {
                let rest = &word[offset + flag.len_utf8()..];
                let value = if rest.is_empty() {
                    at += 1;
                    words.get(at).cloned()
                } else {
                    Some(Word::Literal(rest.to_string()))
                };
                seen.push((flag, value));
                break;
            }
            if flags.contains(flag) {
                seen.push((flag, None));
            }
        }
        at += 1;
    }
    (seen, at)
}

/// The operands after a builtin's options are variable names (`read a b`); so are the values of
/// the options in `names` (`read -a arr`).
fn operands(words: &[Word], flags: &str, with_value: &str, names: &str, how: &str, out: &mut Line) {
    let (seen, first) = options(words, flags, with_value);
    for (_, value) in seen.iter().filter(|(flag, _)| names.contains(*flag)) {
        if let Some(value) = value {
            sets_word(value, how, out);
        }
    }
    for word in words.iter().skip(first) {
        sets_word(word, how, out);
    }
}

/// The start of a text, for messages.
fn preview(text: &str) -> String {
    super::walk::preview(text)
}
