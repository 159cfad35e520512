use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::*;

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn ctrl(c: char) -> KeyEvent {
    KeyEvent::new(KeyCode::Char(c), KeyModifiers::CONTROL)
}

fn typed(composer: &mut Composer, text: &str) {
    for c in text.chars() {
        composer.handle_key(key(KeyCode::Char(c)));
    }
}

fn composer() -> Composer {
    let mut c = Composer::new(History::in_memory());
    c.set_commands(vec![("help".into(), "keys and commands".into()), ("resume".into(), "continue a session".into())]);
    c.set_file_index(FileIndex::from_paths(vec![
        "src/main.rs".into(),
        "src/ui/composer.rs".into(),
        "README.md".into(),
    ]));
    c
}

/// The composer drawn at `width` x its desired height, as text.
fn drawn(c: &Composer, width: u16) -> String {
    let height = c.desired_height(width);
    let area = Rect::new(0, 0, width, height);
    let mut buf = Buffer::empty(area);
    c.render(area, &mut buf, &Theme::PLAIN);
    (0..height)
        .map(|y| (0..width).map(|x| buf[(x, y)].symbol().to_string()).collect::<String>().trim_end().to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn enter_submits_and_ctrl_j_shift_enter_insert_newlines() {
    let mut c = composer();
    typed(&mut c, "one");
    c.handle_key(ctrl('j'));
    typed(&mut c, "two");
    c.handle_key(KeyEvent::new(KeyCode::Enter, KeyModifiers::SHIFT));
    typed(&mut c, "three");
    assert_eq!(c.text(), "one\ntwo\nthree");
    assert_eq!(c.desired_height(40), 3);
    let sent = c.handle_key(key(KeyCode::Enter));
    assert_eq!(sent, Some(ComposerAction::Submit { text: "one\ntwo\nthree".into(), mentions: vec![] }));
    assert!(c.is_empty());
    assert_eq!(c.handle_key(key(KeyCode::Enter)), None, "an empty composer sends nothing");
    typed(&mut c, "   ");
    assert_eq!(c.handle_key(key(KeyCode::Enter)), None, "whitespace is not a prompt");
}

#[test]
fn history_walks_back_and_keeps_the_draft_and_survives_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("history.jsonl");
    let (history, problem) = History::load(path.clone());
    assert!(problem.is_none());
    let mut c = Composer::new(history);
    for prompt in ["first", "second\nwith a newline", "third"] {
        c.set_text(prompt);
        c.handle_key(key(KeyCode::Enter));
    }
    typed(&mut c, "draft");
    c.handle_key(key(KeyCode::Up));
    assert_eq!(c.text(), "third");
    c.handle_key(key(KeyCode::Up));
    assert_eq!(c.text(), "second\nwith a newline");
    c.handle_key(key(KeyCode::Down));
    c.handle_key(key(KeyCode::Down));
    assert_eq!(c.text(), "draft", "the draft comes back after the newest entry");
    let (again, _) = History::load(path.clone());
    assert_eq!(again.entries(), ["first", "second\nwith a newline", "third"]);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        assert_eq!(std::fs::metadata(&path).unwrap().permissions().mode() & 0o777, 0o600);
    }
}

#[test]
fn a_large_paste_is_one_placeholder_expanded_on_submit_and_deleted_whole() {
    let mut c = composer();
    let pasted: String = (0..40).map(|i| format!("line {i}\r\n")).collect();
    typed(&mut c, "look: ");
    c.handle_paste(pasted.clone());
    assert!(c.text().starts_with("look: [Pasted "), "{}", c.text());
    assert!(!c.text().contains("line 39"));
    let sent = c.handle_key(key(KeyCode::Enter));
    let Some(ComposerAction::Submit { text, .. }) = sent else { panic!("not sent") };
    assert_eq!(text, format!("look: {}", pasted.replace("\r\n", "\n")));

    c.handle_paste(pasted);
    c.handle_key(key(KeyCode::Backspace));
    assert!(c.is_empty(), "one backspace removes the placeholder: {:?}", c.text());
    c.handle_paste("small paste".into());
    assert_eq!(c.text(), "small paste");
}

#[test]
fn at_mentions_complete_from_the_index_and_are_listed_on_submit() {
    let mut c = composer();
    typed(&mut c, "explain @cmpsr");
    assert!(c.has_popup());
    insta::assert_snapshot!("mention_popup", drawn(&c, 60));
    c.handle_key(key(KeyCode::Tab));
    assert_eq!(c.text(), "explain @src/ui/composer.rs ");
    typed(&mut c, "and @nothing/here");
    let sent = c.handle_key(key(KeyCode::Enter));
    assert_eq!(
        sent,
        Some(ComposerAction::Submit {
            text: "explain @src/ui/composer.rs and @nothing/here".into(),
            mentions: vec!["src/ui/composer.rs".into()]
        })
    );
}

#[test]
fn slash_commands_complete_and_unknown_ones_stay_with_a_hint() {
    let mut c = composer();
    typed(&mut c, "/res");
    insta::assert_snapshot!("slash_popup", drawn(&c, 60));
    assert_eq!(
        c.handle_key(key(KeyCode::Enter)),
        Some(ComposerAction::Command { name: "resume".into(), args: String::new() })
    );
    typed(&mut c, "/help me");
    assert_eq!(
        c.handle_key(key(KeyCode::Enter)),
        Some(ComposerAction::Command { name: "help".into(), args: "me".into() })
    );
    typed(&mut c, "/nope");
    assert_eq!(c.handle_key(key(KeyCode::Enter)), None);
    assert!(drawn(&c, 60).contains("is not a command"));
    assert_eq!(c.text(), "/nope", "an unknown command is not sent to the model");
    c.set_text("/usr/bin is a path");
    assert!(matches!(c.handle_key(key(KeyCode::Enter)), Some(ComposerAction::Submit { .. })));
    assert!(c.handle_key(key(KeyCode::Esc)).is_none());
}

#[test]
fn editing_keys_move_and_delete_by_char_word_and_line() {
    let mut c = composer();
    typed(&mut c, "héllo wörld 🎉");
    c.handle_key(key(KeyCode::Backspace));
    assert_eq!(c.text(), "héllo wörld ");
    c.handle_key(ctrl('w'));
    assert_eq!(c.text(), "héllo ");
    c.handle_key(KeyEvent::new(KeyCode::Left, KeyModifiers::CONTROL));
    typed(&mut c, "¡");
    assert_eq!(c.text(), "¡héllo ");
    c.handle_key(ctrl('k'));
    assert_eq!(c.text(), "¡");
    c.handle_key(ctrl('u'));
    assert!(c.is_empty());
    assert_eq!(c.handle_key(ctrl('c')), None, "Ctrl-C belongs to the app");
}

#[test]
fn drawing_shows_controls_escaped_wraps_wide_text_and_survives_tiny_areas() {
    let mut c = composer();
    assert!(drawn(&c, 80).contains("Ask anything"));
    c.handle_paste("evil\x1b[2J\x07 text".into());
    let shown = drawn(&c, 80);
    assert!(shown.contains(r"evil\x1b[2J\x07 text"), "{shown}");
    c.clear();
    typed(&mut c, "漢字漢字漢字漢字漢字");
    insta::assert_snapshot!("wide_wrap", drawn(&c, 12));
    for (w, h) in [(0, 0), (1, 1), (5, 1), (3, 5)] {
        let area = Rect::new(0, 0, w, h);
        let mut buf = Buffer::empty(area);
        c.render(area, &mut buf, &Theme::COLOR);
        let _ = c.cursor(area);
    }
}

#[test]
fn any_key_sequence_keeps_the_cursor_on_the_text() {
    let mut c = composer();
    let keys = [
        key(KeyCode::Char('a')),
        key(KeyCode::Char('é')),
        key(KeyCode::Char('🎉')),
        ctrl('j'),
        key(KeyCode::Left),
        key(KeyCode::Up),
        key(KeyCode::Down),
        key(KeyCode::Backspace),
        key(KeyCode::Delete),
        key(KeyCode::Home),
        key(KeyCode::End),
        ctrl('w'),
        ctrl('u'),
        ctrl('k'),
        KeyEvent::new(KeyCode::Right, KeyModifiers::CONTROL),
        key(KeyCode::Char('@')),
        key(KeyCode::Tab),
        key(KeyCode::Char('/')),
    ];
    let mut seed = 7u64;
    for _ in 0..5_000 {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        let k = keys[(seed >> 33) as usize % keys.len()];
        if let Some(ComposerAction::Submit { .. } | ComposerAction::Command { .. }) = c.handle_key(k) {
            continue;
        }
        assert!(c.text().is_char_boundary(c.text.cursor()));
        assert!(c.text.cursor() <= c.text().len());
        let _ = drawn(&c, 17);
    }
}
