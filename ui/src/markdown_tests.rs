use super::*;

fn text(lines: &[Line<'static>]) -> String {
    lines.iter().map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect::<String>()).collect::<Vec<_>>().join("\n")
}

const DOC: &str = "# Title\n\nSome **bold**, *italic*, `code` and a [link](https://example.com/x).\n\n\
- one\n- two with a long tail that must wrap onto the next line at forty columns\n  - nested\n\n\
1. first\n2. second\n\n> quoted words\n\n```rust\nfn main() {\n    let x = 1;\n}\n```\n\n\
| name | size |\n|---|---|\n| a.rs | 12 |\n| longer.rs | 3 |\n\n---\n\nThe end.\n";

#[test]
fn renders_headings_lists_quotes_code_and_tables() {
    insta::assert_snapshot!("document_40", text(&render(DOC, 40, &Theme::PLAIN)));
}

#[test]
fn colours_mark_code_headings_and_links_and_no_color_removes_them() {
    let theme = Theme::COLOR;
    let lines = render(DOC, 80, &theme);
    let styled = |word: &str| {
        lines
            .iter()
            .flat_map(|l| l.spans.iter())
            .find(|s| s.content.contains(word))
            .map(|s| s.style)
            .unwrap_or_default()
    };
    assert_eq!(styled("code").fg, theme.code().fg);
    assert_eq!(styled("let").fg, theme.keyword().fg);
    assert!(styled("Title").fg.is_some());
    let plain = render(DOC, 80, &Theme::PLAIN);
    assert!(plain.iter().flat_map(|l| l.spans.iter()).all(|s| s.style.fg.is_none()));
}

#[test]
fn streaming_hands_out_each_block_once_and_adds_up_to_the_whole() {
    let theme = Theme::PLAIN;
    let whole = text(&render(DOC, 60, &theme));
    for step in [1, 3, 7, 50] {
        let mut stream = Stream::new();
        let mut got = Vec::new();
        let chars: Vec<char> = DOC.chars().collect();
        for chunk in chars.chunks(step) {
            stream.push(&chunk.iter().collect::<String>());
            got.extend(stream.take_stable(60, &theme));
        }
        got.extend(stream.finish(60, &theme));
        let streamed = text(&got);
        // Blocks rendered apart meet with one blank line between them, as in the whole.
        let squash = |s: &str| s.lines().filter(|l| !l.trim().is_empty()).collect::<Vec<_>>().join("\n");
        assert_eq!(squash(&streamed), squash(&whole), "chunks of {step}");
    }
}

#[test]
fn an_open_code_fence_stays_live_until_it_closes() {
    let theme = Theme::PLAIN;
    let mut stream = Stream::new();
    stream.push("Intro.\n\n```py\nx = 1\n\ny = 2\n");
    let stable = text(&stream.take_stable(40, &theme));
    assert!(stable.contains("Intro."));
    assert!(!stable.contains("x = 1"), "an open fence is not final: {stable}");
    assert!(text(&stream.tail(40, &theme)).contains("y = 2"));
    stream.push("```\n\nAfter.\n");
    let stable = text(&stream.take_stable(40, &theme));
    assert!(stable.contains("x = 1") && stable.contains("y = 2"), "{stable}");
}

#[test]
fn hostile_text_is_shown_not_obeyed_and_tiny_widths_do_not_panic() {
    let hostile = "a \x1b[2J b \x1b]52;c;AAAA\x07 c\r\n\n```\n\x1b[31mred\n```\n| \x1b |\n|---|\n| \x07 |\n";
    for width in [0, 1, 2, 10, 80] {
        for line in render(hostile, width, &Theme::COLOR) {
            for span in &line.spans {
                assert!(!span.content.chars().any(char::is_control), "{:?}", span.content);
            }
        }
    }
    assert!(text(&render(hostile, 80, &Theme::PLAIN)).contains(r"\x1b[2J"));
}

#[test]
fn long_words_are_cut_but_urls_are_kept_whole() {
    let lines = render(
        "https://example.com/a/very/long/path/that/does/not/fit and averyveryverylongwordthatdoesnotfit",
        20,
        &Theme::PLAIN,
    );
    let shown = text(&lines);
    assert!(shown.lines().any(|l| l.contains("https://example.com/a/very/long/path/that/does/not/fit")), "{shown}");
    assert!(shown.lines().filter(|l| !l.contains("https")).all(|l| UnicodeWidthStr::width(l) <= 20), "{shown}");
}
