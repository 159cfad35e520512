use super::*;
use airlock_shell as shell;

fn view(source: &str) -> LineView {
    let line = shell::parse(source).unwrap_or_else(|e| panic!("{source:?}: {e}"));
    let uncertain = line.uncertainty();
    LineView::build(source, &line, |_| false, uncertain, Vec::new())
}

#[test]
fn a_command_hidden_behind_blanks_is_named_first_and_the_blanks_are_counted() {
    let source = format!("echo harmless{}; rm -f x", " ".repeat(1100));
    let shown = view(&source);
    assert_eq!(shown.commands[0].text, "rm -f x");
    assert_eq!(shown.commands[0].risk, Risk::High);
    assert_eq!(shown.commands[1].text, "echo harmless");
    assert_eq!(shown.rows, ["echo harmless␣×1100; rm -f x"]);
    assert_eq!(shown.riskiest_program(), "rm");
    // Tabs count as blanks, and so does a short run holding one.
    assert_eq!(view("echo a\t\tb").rows, ["echo a␣×2b"]);
    assert_eq!(view("echo a  b").rows, ["echo a  b"]);
}

#[test]
fn newlines_and_control_characters_are_made_visible() {
    let shown = view("ls\nrm x");
    assert_eq!(shown.rows, ["ls⏎", "rm x"]);
    let shown = view("echo '\u{1b}[2J\u{202e}'");
    assert!(!shown.rows[0].contains('\u{1b}') && !shown.rows[0].contains('\u{202e}'), "{:?}", shown.rows);
    assert!(shown.rows[0].contains("\\x1b"), "{:?}", shown.rows);
    assert!(!shown.commands[0].text.contains('\u{1b}'));
}

#[test]
fn a_long_command_row_is_cut_but_the_whole_line_is_kept() {
    let word = "a".repeat(500);
    let shown = view(&format!("echo {word} && rm -rf x"));
    assert_eq!(shown.commands[0].text, "rm -rf x");
    assert!(shown.commands[1].text.chars().count() <= MAX_COMMAND_CHARS + 1);
    assert!(shown.rows[0].contains(&word));
}

#[test]
fn riskiest_first_then_in_the_lines_order() {
    let shown = view("ls; cat a; cp a b; git status; curl https://x; mv b c");
    let order: Vec<(&str, Risk)> = shown.commands.iter().map(|c| (c.text.as_str(), c.risk)).collect();
    assert_eq!(
        order,
        [
            ("curl https://x", Risk::High),
            ("cp a b", Risk::Medium),
            ("mv b c", Risk::Medium),
            ("ls", Risk::Low),
            ("cat a", Risk::Low),
            ("git status", Risk::Low),
        ]
    );
    assert_eq!(view("while true; do rm -f x; done").riskiest_program(), "rm");
}

#[test]
fn always_remembers_every_command_it_shows_and_nothing_else() {
    assert_eq!(view("python3 x.py && wc -l notes.txt").always, ["python3", "wc"]);
    assert_eq!(view("echo hi; rm -f x").always, ["rm", "echo"], "riskiest first, as the question lists them");
    assert_eq!(view("git status && git diff && git status -s").always, ["git status", "git diff"]);
    assert_eq!(view("cargo test -- --nocapture").always, ["cargo test"]);
    assert_eq!(view("/usr/bin/python3 -V").always, ["/usr/bin/python3"]);
    // A command a rule already allows gets no new rule.
    let line = shell::parse("ls && rm -rf x").unwrap_or_else(|e| panic!("{e}"));
    let shown = LineView::build("ls && rm -rf x", &line, |c| c.program() == Some("ls"), None, Vec::new());
    assert_eq!(shown.always, ["rm"]);
    assert!(shown.commands.iter().any(|c| c.text == "ls" && c.allowed));
}

#[test]
fn no_always_for_a_line_a_rule_could_not_cover_again() {
    for source in
        ["echo hi > out.txt", "FOO=1 make", "x=1; ls", "rm $f", "find . -delete", "git log --output=x", "cat <(ls)"]
    {
        let shown = view(source);
        assert!(shown.always.is_empty(), "{source}: {:?}", shown.always);
        assert!(shown.no_always.is_some(), "{source}");
    }
    let uncertain = view("${!ref} x");
    assert!(uncertain.uncertain.is_some());
    assert!(uncertain.always.is_empty());
    assert!(uncertain.no_always.as_deref().is_some_and(|w| w.contains("cannot name")));
}
