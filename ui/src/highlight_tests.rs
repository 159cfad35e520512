use super::*;

/// The style of every span whose text contains `needle`.
fn styles_of(lines: &[Line<'static>], needle: &str) -> Vec<Style> {
    lines.iter().flat_map(|l| l.spans.iter()).filter(|s| s.content.contains(needle)).map(|s| s.style).collect()
}

/// The one style of the text `needle`, which must lie inside a single span.
fn style_of(lines: &[Line<'static>], needle: &str) -> Style {
    let styles = styles_of(lines, needle);
    assert_eq!(styles.len(), 1, "`{needle}` should be in exactly one span: {lines:?}");
    styles[0]
}

fn text(lines: &[Line<'static>]) -> String {
    lines.iter().map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect::<String>()).collect::<Vec<_>>().join("\n")
}

#[test]
fn every_grammar_compiles_its_queries() {
    for name in grammars::names() {
        assert!(grammars::config(name).is_some(), "the queries of `{name}` do not compile");
    }
}

#[test]
fn keywords_strings_comments_and_numbers_get_their_colours() {
    let theme = Theme::COLOR;
    let code = "fn main() {\n    let n = 42; // the answer\n    println!(\"hi {n}\");\n}\n";
    let lines = highlight(code, "rust", &theme);
    assert_eq!(lines.len(), 4);
    assert_eq!(text(&lines), code.trim_end());
    assert_eq!(style_of(&lines, "fn"), theme.keyword());
    assert_eq!(style_of(&lines, "42"), theme.number());
    assert_eq!(style_of(&lines, "the answer"), theme.comment());
    assert_eq!(style_of(&lines, "hi {n}"), theme.string());
    let plain = highlight(code, "rust", &Theme::PLAIN);
    assert!(plain.iter().flat_map(|l| l.spans.iter()).all(|s| s.style.fg.is_none()), "NO_COLOR has no colours");
}

#[test]
fn a_rust_raw_string_holds_quotes_and_comment_markers() {
    let theme = Theme::COLOR;
    let lines = highlight("let s = r#\"a \"quoted\" // not a comment\"#; let n = 1;", "rs", &theme);
    assert_eq!(style_of(&lines, "// not a comment"), theme.string());
    assert_eq!(style_of(&lines, "quoted"), theme.string());
    assert_eq!(styles_of(&lines, "let"), vec![theme.keyword(); 2], "the code after the raw string is code again");
    assert_eq!(style_of(&lines, "1"), theme.number());
}

#[test]
fn a_lifetime_is_not_a_char_and_a_char_is_a_string() {
    let theme = Theme::COLOR;
    let code = "fn f<'a>(x: &'a str) -> char {\n    let c = 'x';\n    'outer: loop { break 'outer; }\n}";
    let lines = highlight(code, "rust", &theme);
    assert_eq!(style_of(&lines, "'x'"), theme.string());
    let lifetimes: Vec<Style> =
        lines.iter().flat_map(|l| l.spans.iter()).filter(|s| s.content == "a").map(|s| s.style).collect();
    assert_eq!(lifetimes, vec![theme.type_name(); 2], "`'a` is a lifetime twice: {lines:?}");
    assert_eq!(style_of(&lines, "str"), theme.type_name());
    assert_eq!(style_of(&lines, "loop"), theme.keyword(), "a lifetime does not open a string");
}

#[test]
fn nested_block_comments_end_at_their_own_close() {
    let theme = Theme::COLOR;
    let lines = highlight("/* outer /* inner */ still comment */ let after = 2;", "rust", &theme);
    assert_eq!(style_of(&lines, "still comment"), theme.comment());
    assert_eq!(style_of(&lines, "let"), theme.keyword());
    assert_eq!(style_of(&lines, "2"), theme.number());
}

#[test]
fn python_triple_quotes_and_js_template_strings_span_what_they_hold() {
    let theme = Theme::COLOR;
    let lines = highlight("s = \"\"\"doc 'x' \"inner\"\nstill doc\"\"\"\nif x:\n    pass", "python", &theme);
    assert_eq!(style_of(&lines, "still doc"), theme.string());
    assert_eq!(style_of(&lines, "doc 'x'"), theme.string());
    assert_eq!(style_of(&lines, "if"), theme.keyword());
    let lines = highlight("const t = `a ${b} // not a comment\nline two`;\nlet d = 3;", "js", &theme);
    assert_eq!(style_of(&lines, "// not a comment"), theme.string());
    assert_eq!(style_of(&lines, "line two"), theme.string());
    assert_eq!(style_of(&lines, "let"), theme.keyword());
    assert_eq!(style_of(&lines, "3"), theme.number());
}

#[test]
fn each_language_colours_its_own_constructs() {
    let theme = Theme::COLOR;
    let cases: &[(&str, &str, &str, Style)] = &[
        ("go", "s := `raw // not a comment`\nvar x = 1", "not a comment", theme.string()),
        ("go", "s := `raw // not a comment`\nvar x = 1", "var", theme.keyword()),
        ("c", "#include <stdio.h>\n/* c */ int main(void) { return 'a'; }", "return", theme.keyword()),
        ("c", "#include <stdio.h>\n/* c */ int main(void) { return 'a'; }", "/* c */", theme.comment()),
        ("bash", "if [ -n \"$X\" ]; then echo 'hi' # note\nfi", "# note", theme.comment()),
        ("bash", "if [ -n \"$X\" ]; then echo 'hi' # note\nfi", "'hi'", theme.string()),
        ("json", "{\"key\": [1, true, \"text\"]}", "\"text\"", theme.string()),
        ("json", "{\"key\": [1, true, \"text\"]}", "1", theme.number()),
        ("toml", "[package]\nname = \"x\" # note\nversion = 1", "# note", theme.comment()),
        ("toml", "[package]\nname = \"x\" # note\nversion = 1", "\"x\"", theme.string()),
        ("ts", "interface A { x: number }\nconst y: A = { x: 1 };", "interface", theme.keyword()),
        ("ts", "interface A { x: number }\nconst y: A = { x: 1 };", "number", theme.type_name()),
        ("tsx", "const e = <div>{`t`}</div>;", "`t`", theme.string()),
    ];
    for (lang, code, needle, expected) in cases {
        assert_eq!(style_of(&highlight(code, lang, &theme), needle), *expected, "{lang}: `{needle}` in {code:?}");
    }
}

#[test]
fn diffs_unknown_languages_and_huge_blocks_are_drawn_without_a_grammar() {
    let theme = Theme::COLOR;
    let lines = highlight("+added\n-removed\n@@ -1 +1 @@", "diff", &theme);
    assert_eq!(style_of(&lines, "added"), theme.added());
    assert_eq!(style_of(&lines, "removed"), theme.removed());
    let lines = highlight("fn main() {}", "klingon", &theme);
    assert_eq!(style_of(&lines, "fn main"), theme.code());
    let huge = "let x = 1;\n".repeat(MAX_HIGHLIGHT_BYTES / 11 + 1);
    let lines = highlight(&huge, "rust", &theme);
    assert_eq!(lines.len(), huge.lines().count());
    assert!(lines.iter().flat_map(|l| l.spans.iter()).all(|s| s.style == theme.code()), "above the cap: plain");
}

#[test]
fn a_long_minified_line_is_highlighted_whole() {
    let theme = Theme::COLOR;
    let line = "var a=function(b){return b+\"x\"/*c*/};".repeat(3000);
    let lines = highlight(&line, "js", &theme);
    assert_eq!(lines.len(), 1);
    assert_eq!(text(&lines), line);
    assert_eq!(styles_of(&lines, "/*c*/").len(), 3000);
}

#[test]
fn any_input_is_shown_without_control_characters_or_panics() {
    let inputs = [
        "\"unterminated",
        "'",
        "/*",
        "\\",
        "\x1b[2J\x07 evil",
        "tab\there\r\n",
        "🎉\"é\"🎉",
        "\"\"\"",
        "0x1F_u8",
        "",
        "r#\"",
        "`${",
        "\r\n\r\n",
        "\u{0}\u{7f}\u{9b}",
    ];
    let names: Vec<&str> = grammars::names().chain(["diff", "nope", "YAML"]).collect();
    for lang in names {
        for input in inputs {
            let lines = highlight(input, lang, &Theme::COLOR);
            for span in lines.iter().flat_map(|l| l.spans.iter()) {
                assert!(!span.content.chars().any(char::is_control), "{lang} {input:?}: {:?}", span.content);
            }
            assert_eq!(lines.len(), input.strip_suffix('\n').unwrap_or(input).split('\n').count(), "{lang} {input:?}");
        }
    }
}

/// The lines with each coloured span marked by what its colour means: `«k fn»`.
fn marked(lines: &[Line<'static>]) -> String {
    let theme = Theme::COLOR;
    let names = [
        (theme.keyword(), "k"),
        (theme.string(), "s"),
        (theme.comment(), "c"),
        (theme.number(), "n"),
        (theme.type_name(), "t"),
        (theme.code(), "code"),
    ];
    let line = |l: &Line<'static>| {
        l.spans
            .iter()
            .map(|s| match names.iter().find(|(style, _)| *style == s.style) {
                Some((_, name)) => format!("«{name} {}»", s.content),
                None => s.content.to_string(),
            })
            .collect::<String>()
    };
    lines.iter().map(line).collect::<Vec<_>>().join("\n")
}

#[test]
fn highlighted_code_snapshot() {
    let rust = "/// Doc.\nfn f<'a>(s: &'a str) -> Option<char> {\n    /* a /* nested */ comment */\n    \
                let raw = r#\"say \"hi\"\"#;\n    s.chars().next().or(Some('x')) // done\n}";
    let python = "def f(x: int) -> str:\n    \"\"\"Doc with \"quotes\".\"\"\"\n    return f\"{x:>3}\"  # note";
    let ts = "const t: string = `a ${b} // not a comment`;\nexport function g(n = 0x1f): void {}";
    let shown = [("rust", rust), ("python", python), ("ts", ts)]
        .map(|(lang, code)| format!("```{lang}\n{}", marked(&highlight(code, lang, &Theme::COLOR))))
        .join("\n");
    insta::assert_snapshot!(shown);
}
