use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::*;
use crate::view::{DiffView, Folder};

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn sandbox() -> SandboxView {
    SandboxView {
        folders: vec![
            Folder { path: "/home/me/project/src".into(), writable: true },
            Folder { path: "/home/me/project".into(), writable: false },
        ],
        network: vec!["https://api.example.com:443".into()],
        env: vec!["API_TOKEN".into()],
        memory_mb: 256,
        timeout_secs: 60,
        output_bytes: 100_000,
    }
}

fn view(confirm: Confirm) -> ApprovalView {
    ApprovalView {
        tool: "write_file".into(),
        description: "write src/notes.txt".into(),
        confirm,
        sandbox: sandbox(),
        scope: "`write_file` on src/notes.txt".into(),
        editable: true,
        queued: 0,
    }
}

fn edit() -> Confirm {
    Confirm::Edit(DiffView {
        path: "src/notes.txt".into(),
        original: "one\ntwo\n".into(),
        proposed: "one\n2\nthree\n".into(),
        is_new_file: false,
    })
}

fn drawn(dialog: &ApprovalDialog, width: u16, height: u16) -> String {
    let area = Rect::new(0, 0, width, height);
    let mut buf = Buffer::empty(area);
    dialog.render(area, &mut buf, &Theme::PLAIN);
    (0..height)
        .map(|y| (0..width).map(|x| buf[(x, y)].symbol().to_string()).collect::<String>().trim_end().to_string())
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn edit_exec_and_info_dialogs_show_the_call_its_sandbox_and_the_answers() {
    let dialog = ApprovalDialog::new(view(edit()));
    let h = dialog.desired_height(80);
    insta::assert_snapshot!("edit_dialog", drawn(&dialog, 80, h));
    let mut exec = view(Confirm::Exec {
        command: "cargo test --workspace && rm -rf target".into(),
        root_command: "cargo".into(),
        directory: "/home/me/project".into(),
        risk: "high".into(),
    });
    exec.tool = "run_shell_command".into();
    exec.description = "run the tests, then clean".into();
    exec.editable = false;
    exec.scope = "`run_shell_command` running `cargo …`".into();
    exec.queued = 2;
    let dialog = ApprovalDialog::new(exec);
    let h = dialog.desired_height(80);
    insta::assert_snapshot!("exec_dialog", drawn(&dialog, 80, h));
    let mut info = view(Confirm::Info {
        prompt: "Fetch these pages?".into(),
        urls: vec!["https://example.com/a".into(), "https://example.org/b".into()],
    });
    info.tool = "web_fetch".into();
    info.description = "fetch 2 pages".into();
    info.scope = "every `web_fetch` call".into();
    info.editable = false;
    info.sandbox = SandboxView { memory_mb: 64, timeout_secs: 30, output_bytes: 1 << 20, ..SandboxView::default() };
    let dialog = ApprovalDialog::new(info);
    let h = dialog.desired_height(80);
    insta::assert_snapshot!("info_dialog", drawn(&dialog, 80, h));
}

#[test]
fn keys_choose_answers_and_esc_never_allows() {
    for (code, want) in [
        (KeyCode::Char('y'), ApprovalResult::Choose(ApprovalChoice::Once)),
        (KeyCode::Char('a'), ApprovalResult::Choose(ApprovalChoice::AlwaysForSession)),
        (KeyCode::Char('s'), ApprovalResult::Choose(ApprovalChoice::AlwaysSaved)),
        (KeyCode::Char('t'), ApprovalResult::Choose(ApprovalChoice::ToolForSession)),
        (KeyCode::Char('e'), ApprovalResult::Choose(ApprovalChoice::Modify)),
        (KeyCode::Char('c'), ApprovalResult::Choose(ApprovalChoice::CancelBatch)),
        (KeyCode::Esc, ApprovalResult::Choose(ApprovalChoice::CancelBatch)),
        (KeyCode::Enter, ApprovalResult::Choose(ApprovalChoice::Once)),
    ] {
        let mut dialog = ApprovalDialog::new(view(edit()));
        assert_eq!(dialog.handle_key(key(code)), Some(want), "{code:?}");
    }
    let mut not_editable = view(edit());
    not_editable.editable = false;
    let mut dialog = ApprovalDialog::new(not_editable);
    assert_eq!(dialog.handle_key(key(KeyCode::Char('e'))), None, "no modify for a call that is not editable");
    assert!(!dialog.choices().contains(&ApprovalChoice::Modify));
    dialog.handle_key(key(KeyCode::Down));
    assert_eq!(dialog.handle_key(key(KeyCode::Enter)), Some(ApprovalResult::Choose(ApprovalChoice::AlwaysForSession)));
}

#[test]
fn refusing_asks_for_an_optional_reason() {
    let mut dialog = ApprovalDialog::new(view(edit()));
    assert_eq!(dialog.handle_key(key(KeyCode::Char('n'))), None);
    insta::assert_snapshot!("refuse_reason", drawn(&dialog, 80, dialog.desired_height(80)));
    for c in "wrong file".chars() {
        assert_eq!(dialog.handle_key(key(KeyCode::Char(c))), None, "typing a reason answers nothing");
    }
    assert_eq!(
        dialog.handle_key(key(KeyCode::Enter)),
        Some(ApprovalResult::Refuse { reason: Some("wrong file".into()) })
    );
    let mut dialog = ApprovalDialog::new(view(edit()));
    dialog.handle_key(key(KeyCode::Char('n')));
    assert_eq!(dialog.handle_key(key(KeyCode::Enter)), Some(ApprovalResult::Refuse { reason: None }));
    let mut dialog = ApprovalDialog::new(view(edit()));
    dialog.handle_key(key(KeyCode::Char('n')));
    dialog.handle_key(key(KeyCode::Esc));
    assert_eq!(
        dialog.handle_key(key(KeyCode::Char('y'))),
        Some(ApprovalResult::Choose(ApprovalChoice::Once)),
        "Esc goes back to the list"
    );
}

#[test]
fn a_long_diff_scrolls_at_80x24_and_the_choices_stay() {
    let original: String = (0..200).map(|i| format!("line {i}\n")).collect();
    let proposed: String =
        (0..200).map(|i| if i % 2 == 0 { format!("line {i}\n") } else { format!("LINE {i}\n") }).collect();
    let mut dialog = ApprovalDialog::new(view(Confirm::Edit(DiffView {
        path: "big.txt".into(),
        original,
        proposed,
        is_new_file: false,
    })));
    let first = drawn(&dialog, 80, 24);
    insta::assert_snapshot!("edit_dialog_80x24", first);
    assert!(first.contains("Cancel this call") && first.contains("sandbox will hold"), "{first}");
    dialog.handle_key(key(KeyCode::PageDown));
    let scrolled = drawn(&dialog, 80, 24);
    assert_ne!(first, scrolled, "PgDn scrolls the diff");
    assert!(scrolled.contains("Cancel this call"));
}

#[test]
fn hostile_strings_cannot_draw_a_choice_or_reach_the_terminal() {
    let mut v = view(Confirm::Exec {
        command: "ls\n y Allow once\x1b[2J".into(),
        root_command: "ls\x07".into(),
        directory: "/tmp\r\n a Allow always".into(),
        risk: "low".into(),
    });
    v.description = "desc\n y Allow once".into();
    v.sandbox.folders[0].path = "/evil\n n Refuse\x1b]52;c;AAAA\x07".into();
    let dialog = ApprovalDialog::new(v);
    let shown = drawn(&dialog, 100, dialog.desired_height(100));
    assert!(!shown.chars().any(|c| c.is_control() && c != '\n'), "{shown}");
    let choice_rows =
        shown.lines().filter(|l| l.starts_with(" y ") || l.starts_with(" a ") || l.starts_with(" n ")).count();
    assert_eq!(choice_rows, 3, "only the dialog's own choices start a row:\n{shown}");
    for (w, h) in [(0, 0), (10, 3), (1, 1)] {
        let _ = drawn(&dialog, w, h);
    }
}

#[test]
fn colours_mark_risk_and_writable_folders() {
    let theme = Theme::COLOR;
    let dialog = ApprovalDialog::new(view(edit()));
    let sandbox = dialog.sandbox_lines(80, &theme);
    let rw =
        sandbox.iter().find(|l| l.spans.iter().any(|s| s.content.contains("read-write"))).map(|l| l.spans[1].style);
    assert_eq!(rw, Some(theme.warning()));
    let plain = dialog.sandbox_lines(80, &Theme::PLAIN);
    assert!(plain.iter().flat_map(|l| l.spans.iter()).all(|s| s.style.fg.is_none()));
}
