use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;
use ratatui::style::Color;

use super::*;
use crate::dialog::{HOSTILE, assert_no_controls, buffer_text};
use airlock_protocol::{LeftOut, RewindTarget};

fn file(path: &str, change: FileChangeKind, added: u32, removed: u32) -> RewindFile {
    RewindFile { path: path.into(), change, added, removed, binary: false }
}

fn turn(prompt: u32, text: &str, at: &str, files: Vec<RewindFile>) -> RewindTurn {
    RewindTurn { prompt, text: text.into(), at: at.into(), calls: files.len() as u32, files }
}

/// Four prompts, oldest first as the engine lists them: edits with +/-, a created and a
/// deleted file, a binary one, a prompt that changed nothing, one with more files than
/// shown.
fn turns() -> Vec<RewindTurn> {
    vec![
        turn(
            1,
            "fix the failing test in scheduler",
            "2026-11-28T11:58:02Z",
            vec![
                file("src/lib.rs", FileChangeKind::Modified, 14, 3),
                file("src/new.rs", FileChangeKind::Created, 20, 0),
            ],
        ),
        turn(2, "explain what the policy loader does", "2026-11-28T12:01:40Z", Vec::new()),
        turn(
            3,
            "remove the old parser and regenerate the fixtures",
            "2026-11-28T12:03:11Z",
            vec![
                file("src/old_parser.rs", FileChangeKind::Deleted, 0, 7),
                RewindFile { binary: true, ..file("fixtures/logo.png", FileChangeKind::Modified, 0, 0) },
                file("fixtures/a.json", FileChangeKind::Modified, 1, 1),
                file("fixtures/b.json", FileChangeKind::Modified, 2, 0),
                file("fixtures/c.json", FileChangeKind::Modified, 0, 2),
            ],
        ),
        turn(
            4,
            "日本語のテキストを翻訳して 🙂",
            "2026-11-28T12:04:59Z",
            vec![file("docs/日本.md", FileChangeKind::Modified, 3, 0)],
        ),
    ]
}

fn plan() -> RewindPlan {
    RewindPlan {
        target: RewindTarget::Prompt { prompt: 3 },
        what: RestoreWhat::Both,
        files: vec![
            file("src/old_parser.rs", FileChangeKind::Created, 7, 0),
            file("src/lib.rs", FileChangeKind::Modified, 3, 14),
            file("notes.txt", FileChangeKind::Deleted, 0, 2),
        ],
        changed_outside: vec!["src/lib.rs".into()],
        left_out: vec![
            LeftOut { path: "target/".into(), reason: "ignored by .gitignore".into() },
            LeftOut { path: "data/dump.bin".into(), reason: "over 16 MiB".into() },
        ],
        messages_dropped: 6,
        prompt: Some("remove the old parser".into()),
    }
}

fn render(draw: impl Fn(Rect, &mut Buffer), w: u16, h: u16) -> Buffer {
    let area = Rect::new(0, 0, w, h);
    let mut buf = Buffer::empty(area);
    draw(area, &mut buf);
    buf
}

fn picker_buf(p: &TurnPicker, w: u16) -> Buffer {
    render(|a, b| p.render(a, b, &Theme::COLOR), w, p.desired_height(w))
}

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

#[test]
fn picker_lists_prompts_newest_first_with_their_files() {
    let p = TurnPicker::new(turns());
    let buf = picker_buf(&p, 80);
    let text = buffer_text(&buf);
    insta::assert_snapshot!(text);
    let order: Vec<usize> =
        ["4  日本語", "3  remove", "2  explain", "1  fix"].iter().map(|s| text.find(s).unwrap_or(usize::MAX)).collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "not newest first:\n{text}");
    assert!(text.contains("no file changes") && text.contains("… 2 more files"), "{text}");
    assert!(text.contains("src/new.rs  created +20") && text.contains("src/old_parser.rs  deleted −7"), "{text}");
    // The counts are coloured as a diff's lines are.
    let row_text = |y: u16| (0..80).map(|x| buf[(x, y)].symbol().to_string()).collect::<String>();
    let y = (0..buf.area.height).find(|y| row_text(*y).contains("src/lib.rs")).unwrap_or(0);
    let line = row_text(y);
    let plus = line.find("+14").map(|i| line[..i].chars().count() as u16).unwrap_or(0);
    assert_eq!(buf[(plus, y)].fg, Color::Green, "{line}");
}

#[test]
fn picker_at_a_narrow_width_cuts_prompts_and_paths_with_a_mark() {
    let p = TurnPicker::new(turns());
    let text = buffer_text(&picker_buf(&p, 40));
    insta::assert_snapshot!(text);
    assert!(text.lines().all(|l| width(l) <= 40), "{text}");
    assert!(text.contains('…'), "nothing was marked as cut:\n{text}");
}

#[test]
fn picker_answers_the_chosen_prompt_and_whether_it_changed_files() {
    let mut p = TurnPicker::new(turns());
    assert_eq!(p.handle_key(key(KeyCode::Down)), None);
    assert_eq!(p.handle_key(key(KeyCode::Down)), None);
    assert_eq!(p.selected(), Some(2));
    assert_eq!(p.handle_key(key(KeyCode::Enter)), Some(TurnsResult::Selected { prompt: 2, changed: false }));
    assert_eq!(p.handle_key(key(KeyCode::Up)), None);
    assert_eq!(p.handle_key(key(KeyCode::Enter)), Some(TurnsResult::Selected { prompt: 3, changed: true }));
    assert_eq!(p.handle_key(key(KeyCode::End)), None);
    assert_eq!(p.handle_key(key(KeyCode::Down)), None);
    assert_eq!(p.selected(), Some(1), "the selection stops at the oldest prompt");
    assert_eq!(p.handle_key(key(KeyCode::Esc)), Some(TurnsResult::Cancelled));
}

#[test]
fn picker_scrolls_to_keep_the_selected_prompt_whole() {
    let many: Vec<RewindTurn> = (1..=30)
        .map(|n| {
            turn(
                n,
                &format!("prompt number {n}"),
                "2026-11-28T12:00:00Z",
                vec![file("a.rs", FileChangeKind::Modified, n, 0)],
            )
        })
        .collect();
    let mut p = TurnPicker::new(many);
    for _ in 0..20 {
        p.handle_key(key(KeyCode::Down));
    }
    let text = buffer_text(&picker_buf(&p, 60));
    assert!(text.contains("› 10  prompt number 10"), "{text}");
    assert!(text.contains("+10"), "the selected prompt's file row is cut off:\n{text}");
    assert!(!text.contains("prompt number 30"), "{text}");
}

#[test]
fn the_empty_picker_says_there_is_nothing_to_rewind_to() {
    let mut p = TurnPicker::new(Vec::new());
    let text = buffer_text(&picker_buf(&p, 60));
    insta::assert_snapshot!(text);
    assert!(text.contains("no prompts to rewind to"), "{text}");
    assert_eq!(p.handle_key(key(KeyCode::Enter)), None, "Enter on nothing answers nothing");
    assert_eq!(p.handle_key(key(KeyCode::Esc)), Some(TurnsResult::Cancelled));
}

#[test]
fn hostile_prompt_and_path_are_drawn_escaped() {
    let hostile =
        vec![turn(1, HOSTILE, HOSTILE, vec![file(&format!("src/{HOSTILE}.rs"), FileChangeKind::Modified, 1, 1)])];
    let p = TurnPicker::new(hostile);
    let buf = render(|a, b| p.render(a, b, &Theme::COLOR), 200, p.desired_height(200));
    assert_no_controls(&buf);
    let text = buffer_text(&buf);
    insta::assert_snapshot!(text);
    assert!(text.contains(r"ok\x1b[2J"), "the escape is not shown escaped:\n{text}");
    assert!(text.contains(r"\u{202e}"), "the bidi override is not shown escaped:\n{text}");
    // The newline in the prompt drew no row of its own that looks like a choice.
    assert!(!text.lines().any(|l| l.trim_start().starts_with("y   Allow once")), "{text}");
    let mut plan = plan();
    plan.files[0].path = HOSTILE.into();
    plan.changed_outside = vec![HOSTILE.into()];
    plan.left_out[0] = LeftOut { path: HOSTILE.into(), reason: HOSTILE.into() };
    let preview = RewindPreview::new(HOSTILE, plan);
    assert_no_controls(&render(|a, b| preview.render(a, b, &Theme::COLOR), 120, preview.desired_height(120)));
}

#[test]
fn what_to_restore_offers_code_conversation_and_both() {
    let mut c = WhatChoice::new(3, true);
    let text = buffer_text(&render(|a, b| c.render(a, b, &Theme::COLOR), 80, c.desired_height(80)));
    insta::assert_snapshot!(text);
    assert!(text.contains("› b"), "both is the first choice when files changed:\n{text}");
    assert_eq!(c.handle_key(key(KeyCode::Char('c'))), Some(WhatResult::Chosen(RestoreWhat::Code)));
    assert_eq!(c.handle_key(key(KeyCode::Up)), None);
    assert_eq!(c.handle_key(key(KeyCode::Enter)), Some(WhatResult::Chosen(RestoreWhat::Conversation)));
    assert_eq!(c.handle_key(key(KeyCode::Esc)), Some(WhatResult::Cancelled));
}

#[test]
fn code_is_greyed_and_never_chosen_when_the_prompt_changed_no_file() {
    let mut c = WhatChoice::new(2, false);
    let buf = render(|a, b| c.render(a, b, &Theme::COLOR), 80, c.desired_height(80));
    let text = buffer_text(&buf);
    insta::assert_snapshot!(text);
    assert!(text.contains("(no file changed)"), "{text}");
    assert_eq!(c.handle_key(key(KeyCode::Char('c'))), None, "a greyed choice answered");
    // Moving skips it both ways.
    assert_eq!(c.handle_key(key(KeyCode::Up)), None);
    assert_eq!(c.handle_key(key(KeyCode::Up)), None);
    assert_eq!(c.handle_key(key(KeyCode::Enter)), Some(WhatResult::Chosen(RestoreWhat::Conversation)));
    assert_eq!(c.handle_key(key(KeyCode::Down)), None);
    assert_eq!(c.handle_key(key(KeyCode::Enter)), Some(WhatResult::Chosen(RestoreWhat::Both)));
}

#[test]
fn preview_marks_files_changed_outside_and_lists_what_was_left_out() {
    let mut p = RewindPreview::new("Rewind to before prompt 3: code and conversation", plan());
    let buf = render(|a, b| p.render(a, b, &Theme::COLOR), 90, p.desired_height(90));
    let text = buffer_text(&buf);
    insta::assert_snapshot!(text);
    assert!(text.contains("⚠ src/lib.rs") && text.contains("changed outside airlock"), "{text}");
    assert!(text.contains("target/  ignored by .gitignore"), "{text}");
    assert!(text.contains("drops 6 messages"), "{text}");
    assert_eq!(p.handle_key(key(KeyCode::Enter)), Some(PreviewResult::Apply { overwrite: false }));
    assert_eq!(p.handle_key(key(KeyCode::Down)), None);
    assert_eq!(p.handle_key(key(KeyCode::Enter)), Some(PreviewResult::Apply { overwrite: true }));
    assert_eq!(p.handle_key(key(KeyCode::Char('o'))), Some(PreviewResult::Apply { overwrite: true }));
    assert_eq!(p.handle_key(key(KeyCode::Esc)), Some(PreviewResult::Cancelled));
}

#[test]
fn preview_without_changes_outside_offers_no_overwrite() {
    let mut plain = plan();
    plain.changed_outside.clear();
    plain.what = RestoreWhat::Code;
    let mut p = RewindPreview::new("Undo call #4", plain);
    let text = buffer_text(&render(|a, b| p.render(a, b, &Theme::COLOR), 80, p.desired_height(80)));
    assert!(!text.contains("overwrite") && !text.contains('⚠'), "{text}");
    assert!(!text.contains("conversation drops"), "a code rewind speaks of no messages:\n{text}");
    assert_eq!(p.handle_key(key(KeyCode::Char('o'))), None);
    assert_eq!(p.handle_key(key(KeyCode::Char('y'))), Some(PreviewResult::Apply { overwrite: false }));
}

#[test]
fn a_long_preview_scrolls_and_keeps_its_choices_drawn() {
    let mut long = plan();
    long.files = (0..40).map(|n| file(&format!("src/f{n:02}.rs"), FileChangeKind::Modified, n, 1)).collect();
    let mut p = RewindPreview::new("Rewind to before prompt 1: code", long);
    let text = buffer_text(&render(|a, b| p.render(a, b, &Theme::COLOR), 80, 14));
    assert!(text.contains("Cancel") && text.contains("rows above"), "{text}");
    assert!(text.contains("src/f00.rs") && !text.contains("src/f30.rs"), "{text}");
    p.handle_key(key(KeyCode::PageDown));
    p.handle_key(key(KeyCode::PageDown));
    p.handle_key(key(KeyCode::PageDown));
    let text = buffer_text(&render(|a, b| p.render(a, b, &Theme::COLOR), 80, 14));
    assert!(!text.contains("src/f00.rs") && text.contains("Cancel"), "{text}");
}

#[test]
fn a_narrow_preview_keeps_the_mark_and_its_choices() {
    let p = RewindPreview::new("Rewind to before prompt 3: code and conversation", plan());
    let text = buffer_text(&render(|a, b| p.render(a, b, &Theme::COLOR), 50, p.desired_height(50)));
    insta::assert_snapshot!(text);
    assert!(text.lines().all(|l| width(l) <= 50), "{text}");
    assert!(text.contains("⚠ src/lib.rs") && text.contains("n   Cancel"), "{text}");
}
