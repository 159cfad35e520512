use super::*;

fn styles_of(lines: &[Line<'static>], word: &str) -> Vec<Style> {
    lines.iter().flat_map(|l| l.spans.iter()).filter(|s| s.content.contains(word)).map(|s| s.style).collect()
}

#[test]
fn keywords_strings_comments_and_numbers_get_their_colours() {
    let theme = Theme::COLOR;
    let code = "fn main() {\n    let n = 42; // the answer\n    println!(\"hi {n}\");\n}\n";
    let lines = highlight(code, "rust", &theme);
    assert_eq!(lines.len(), 4);
    assert_eq!(styles_of(&lines, "fn"), vec![theme.keyword()]);
    assert_eq!(styles_of(&lines, "42"), vec![theme.number()]);
    assert_eq!(styles_of(&lines, "the answer"), vec![theme.comment()]);
    assert_eq!(styles_of(&lines, "hi {n}"), vec![theme.string()]);
    let plain = highlight(code, "rust", &Theme::PLAIN);
    assert!(plain.iter().flat_map(|l| l.spans.iter()).all(|s| s.style.fg.is_none()), "NO_COLOR has no colours");
}

#[test]
fn block_comments_and_triple_strings_carry_over_lines() {
    let theme = Theme::COLOR;
    let lines = highlight("/* one\ntwo */ let x", "c", &theme);
    assert_eq!(styles_of(&lines, "two */"), vec![theme.comment()]);
    let lines = highlight("s = \"\"\"doc\nstill doc\"\"\"\nif x:", "python", &theme);
    assert_eq!(styles_of(&lines, "still doc"), vec![theme.string()]);
    assert_eq!(styles_of(&lines, "if"), vec![theme.keyword()]);
    let lines = highlight("+added\n-removed\n@@ -1 +1 @@", "diff", &theme);
    assert_eq!(styles_of(&lines, "added"), vec![theme.added()]);
    assert_eq!(styles_of(&lines, "removed"), vec![theme.removed()]);
}

#[test]
fn any_input_is_shown_without_control_characters_or_panics() {
    let inputs =
        ["\"unterminated", "'", "/*", "\\", "\x1b[2J\x07 evil", "tab\there\r\n", "🎉\"é\"🎉", "\"\"\"", "0x1F_u8", ""];
    for lang in ["rust", "python", "js", "c", "go", "sh", "json", "yaml", "toml", "diff", "nope"] {
        for input in inputs {
            for line in highlight(input, lang, &Theme::COLOR) {
                for span in &line.spans {
                    assert!(!span.content.chars().any(char::is_control), "{lang} {input:?}: {:?}", span.content);
                }
            }
        }
    }
}
