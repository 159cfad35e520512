use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::*;

fn view() -> GrantView {
    GrantView {
        plugin: "fs_probe".into(),
        tool: "read_path".into(),
        missing: vec!["read-only . (the workspace)".into(), "https://api.example.com".into()],
        policy_file: "~/.airlock/policy.toml".into(),
    }
}

#[test]
fn the_grant_prompt_offers_four_answers_and_esc_is_no() {
    let prompt = GrantPrompt::new(view());
    let area = Rect::new(0, 0, 90, prompt.desired_height(90));
    let mut buf = Buffer::empty(area);
    prompt.render(area, &mut buf, &Theme::PLAIN);
    let shown = (0..area.height)
        .map(|y| (0..area.width).map(|x| buf[(x, y)].symbol().to_string()).collect::<String>().trim_end().to_string())
        .collect::<Vec<_>>()
        .join("\n");
    insta::assert_snapshot!("grant_prompt", shown);
    for (code, want) in [
        (KeyCode::Char('o'), GrantChoice::ThisCall),
        (KeyCode::Char('s'), GrantChoice::Session),
        (KeyCode::Char('a'), GrantChoice::Always),
        (KeyCode::Char('n'), GrantChoice::No),
        (KeyCode::Esc, GrantChoice::No),
        (KeyCode::Enter, GrantChoice::ThisCall),
    ] {
        let mut prompt = GrantPrompt::new(view());
        assert_eq!(prompt.handle_key(KeyEvent::new(code, KeyModifiers::NONE)), Some(want));
    }
    let mut prompt = GrantPrompt::new(view());
    assert_eq!(
        prompt.handle_key(KeyEvent::new(KeyCode::Char('y'), KeyModifiers::NONE)),
        None,
        "y is not an answer here"
    );
}
