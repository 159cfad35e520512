use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;
use ratatui::style::{Color, Modifier};

use super::*;
use crate::dialog::{HOSTILE, assert_no_controls, buffer_text};
use crate::view::{CommandRow, Folder, Question, Risk};

fn sandbox() -> Sandbox {
    Sandbox {
        folders: vec![
            Folder { path: "/home/ann/project".into(), writable: true },
            Folder { path: "/home/ann/.cache/cargo".into(), writable: false },
            Folder { path: "/tmp/airlock-scratch".into(), writable: true },
        ],
        network: vec!["https://api.github.com:443".into(), "https://crates.io:443".into()],
        env: vec!["HOME".into(), "CARGO_HOME".into()],
        memory_mb: 256,
        timeout_secs: 60,
        output_bytes: 100_000,
        commands: None,
    }
}

fn edit_view(original: &str, proposed: &str) -> ApprovalView {
    ApprovalView {
        question: Question {
            id: 1,
            call_id: "c1".into(),
            tool: "write_file".into(),
            description: "Write src/main.rs (3 lines changed)".into(),
            confirm: Confirm::Edit(FileChange {
                path: "src/main.rs".into(),
                original: Shown::block(original),
                proposed: Shown::block(proposed),
                is_new_file: false,
            }),
            sandbox: sandbox(),
            scope: "`write_file` on src/main.rs".into(),
            always: true,
            editable: true,
        },
        queued: 0,
    }
}

fn small_edit() -> ApprovalView {
    edit_view("fn main() {\n    println!(\"hi\");\n}\n", "fn main() {\n    println!(\"hello\");\n    run();\n}\n")
}

fn exec_view() -> ApprovalView {
    ApprovalView {
        question: Question {
            id: 1,
            call_id: "c1".into(),
            tool: "shell".into(),
            description: "Run the tests".into(),
            confirm: Confirm::Exec {
                command:
                    "cargo test --workspace --locked -- --test-threads 2 && rm -rf target/debug/incremental/airlock-*"
                        .into(),
                root_command: "cargo".into(),
                directory: "/home/ann/project".into(),
                risk: Risk::High,
                commands: Vec::new(),
                rows: Vec::new(),
                warnings: Vec::new(),
            },
            sandbox: Sandbox {
                folders: vec![Folder { path: "/home/ann/project".into(), writable: true }],
                commands: Some("programs it starts run under Landlock ABI 7 + seccomp, no network".into()),
                ..sandbox()
            },
            scope: "`shell` running `cargo`".into(),
            always: true,
            editable: false,
        },
        queued: 0,
    }
}

fn info_view() -> ApprovalView {
    ApprovalView {
        question: Question {
            id: 1,
            call_id: "c1".into(),
            tool: "web_fetch".into(),
            description: "Fetch two pages".into(),
            confirm: Confirm::Info {
                prompt: Shown::block("Summarise the release notes of ratatui\nand compare them with the changelog"),
                urls: vec![
                    "https://ratatui.rs/highlights/v030/".into(),
                    "https://github.com/ratatui/ratatui/releases".into(),
                ],
            },
            sandbox: Sandbox {
                folders: Vec::new(),
                network: vec!["https://ratatui.rs:443".into()],
                env: Vec::new(),
                ..sandbox()
            },
            scope: "`web_fetch` of ratatui.rs".into(),
            always: true,
            editable: false,
        },
        queued: 0,
    }
}

fn render(d: &ApprovalDialog, w: u16, h: u16, theme: &Theme) -> Buffer {
    let area = Rect::new(0, 0, w, h);
    let mut buf = Buffer::empty(area);
    d.render(area, &mut buf, theme);
    buf
}

fn key(code: KeyCode) -> KeyEvent {
    KeyEvent::new(code, KeyModifiers::NONE)
}

fn find(buf: &Buffer, needle: &str) -> (u16, u16) {
    let text = buffer_text(buf);
    for (y, row) in text.lines().enumerate() {
        if let Some(i) = row.find(needle) {
            return (row[..i].chars().count() as u16, y as u16);
        }
    }
    panic!("{needle:?} not in\n{text}");
}

#[test]
fn edit_dialog_snapshot() {
    let d = ApprovalDialog::new(small_edit());
    insta::assert_snapshot!(buffer_text(&render(&d, 80, 24, &Theme::COLOR)));
}

#[test]
fn exec_dialog_snapshot() {
    let d = ApprovalDialog::new(exec_view());
    insta::assert_snapshot!(buffer_text(&render(&d, 80, 24, &Theme::COLOR)));
}

#[test]
fn info_dialog_snapshot() {
    let d = ApprovalDialog::new(info_view());
    insta::assert_snapshot!(buffer_text(&render(&d, 80, 24, &Theme::COLOR)));
}

#[test]
fn queued_dialog_says_how_many_wait() {
    let d = ApprovalDialog::new(ApprovalView { queued: 3, ..exec_view() });
    let buf = render(&d, 80, 24, &Theme::COLOR);
    assert!(buffer_text(&buf).lines().next().is_some_and(|l| l.contains("3 more calls waiting")));
    insta::assert_snapshot!(buffer_text(&buf));
}

#[test]
fn refuse_opens_reason_input_and_sends_it() {
    let mut d = ApprovalDialog::new(small_edit());
    assert_eq!(d.handle_key(key(KeyCode::Char('n'))), None);
    for c in "use a test".chars() {
        assert_eq!(d.handle_key(key(KeyCode::Char(c))), None);
    }
    insta::assert_snapshot!(buffer_text(&render(&d, 80, 24, &Theme::COLOR)));
    assert_eq!(d.handle_key(key(KeyCode::Enter)), Some(ApprovalResult::Refuse { reason: Some("use a test".into()) }));
}

#[test]
fn empty_reason_is_none_and_esc_goes_back_to_the_list() {
    let mut d = ApprovalDialog::new(small_edit());
    d.handle_key(key(KeyCode::Char('n')));
    assert_eq!(d.handle_key(key(KeyCode::Esc)), None, "esc in the input only leaves it");
    assert!(buffer_text(&render(&d, 80, 24, &Theme::PLAIN)).contains("Allow once"));
    d.handle_key(key(KeyCode::Char('n')));
    assert_eq!(d.handle_key(key(KeyCode::Enter)), Some(ApprovalResult::Refuse { reason: None }));
}

#[test]
fn shortcuts_and_arrows_choose() {
    let mut d = ApprovalDialog::new(small_edit());
    assert_eq!(d.handle_key(key(KeyCode::Char('y'))), Some(ApprovalResult::Choose(ApprovalChoice::Once)));
    assert_eq!(d.handle_key(key(KeyCode::Char('a'))), Some(ApprovalResult::Choose(ApprovalChoice::AlwaysForSession)));
    assert_eq!(d.handle_key(key(KeyCode::Char('s'))), Some(ApprovalResult::Choose(ApprovalChoice::AlwaysSaved)));
    assert_eq!(d.handle_key(key(KeyCode::Char('t'))), Some(ApprovalResult::Choose(ApprovalChoice::ToolForSession)));
    assert_eq!(d.handle_key(key(KeyCode::Char('e'))), Some(ApprovalResult::Choose(ApprovalChoice::Modify)));
    assert_eq!(d.handle_key(key(KeyCode::Char('c'))), Some(ApprovalResult::Choose(ApprovalChoice::CancelBatch)));
    assert_eq!(d.handle_key(key(KeyCode::Char('x'))), None);
    d.handle_key(key(KeyCode::Down));
    d.handle_key(key(KeyCode::Down));
    assert_eq!(d.handle_key(key(KeyCode::Enter)), Some(ApprovalResult::Choose(ApprovalChoice::AlwaysSaved)));
    d.handle_key(key(KeyCode::Up));
    d.handle_key(key(KeyCode::Up));
    d.handle_key(key(KeyCode::Up));
    assert_eq!(d.handle_key(key(KeyCode::Enter)), Some(ApprovalResult::Choose(ApprovalChoice::CancelBatch)));
}

#[test]
fn esc_cancels_the_batch_and_never_allows() {
    let mut d = ApprovalDialog::new(small_edit());
    assert_eq!(d.handle_key(key(KeyCode::Esc)), Some(ApprovalResult::Choose(ApprovalChoice::CancelBatch)));
}

#[test]
fn modify_only_offered_when_editable() {
    let mut d = ApprovalDialog::new(exec_view());
    assert!(!d.choices().contains(&ApprovalChoice::Modify));
    assert_eq!(d.handle_key(key(KeyCode::Char('e'))), None);
    assert!(!buffer_text(&render(&d, 80, 24, &Theme::PLAIN)).contains("$EDITOR"));
    assert!(ApprovalDialog::new(small_edit()).choices().contains(&ApprovalChoice::Modify));
}

#[test]
fn long_diff_fits_80x24_and_scrolls() {
    let original: String = (0..200).map(|i| format!("line {i}\n")).collect();
    let proposed: String =
        (0..200).map(|i| if i % 2 == 0 { format!("LINE {i}\n") } else { format!("line {i}\n") }).collect();
    let mut d = ApprovalDialog::new(edit_view(&original, &proposed));
    let buf = render(&d, 80, 24, &Theme::COLOR);
    let text = buffer_text(&buf);
    insta::assert_snapshot!(text);
    assert!(text.contains("lines 1–"), "{text}");
    assert!(text.contains("This call's sandbox will hold:") && text.contains("Cancel this call"));
    d.handle_key(key(KeyCode::PageDown));
    let after = buffer_text(&render(&d, 80, 24, &Theme::COLOR));
    assert!(!after.contains("lines 1–"), "{after}");
    d.handle_key(KeyEvent::new(KeyCode::Up, KeyModifiers::SHIFT));
    for _ in 0..1000 {
        d.handle_key(key(KeyCode::PageDown));
    }
    let end = buffer_text(&render(&d, 80, 24, &Theme::COLOR));
    assert!(end.contains("+LINE 198") && end.contains(" line 199"), "{end}");
    d.handle_key(key(KeyCode::PageUp));
    assert_ne!(buffer_text(&render(&d, 80, 24, &Theme::COLOR)), end, "page up right after the end moves");
}

#[test]
fn colours_and_no_color() {
    let d = ApprovalDialog::new(small_edit());
    let buf = render(&d, 80, 24, &Theme::COLOR);
    let (x, y) = find(&buf, "+    run();");
    assert_eq!(buf[(x, y)].fg, Color::Green);
    let (x, y) = find(&buf, "-    println!(\"hi\");");
    assert_eq!(buf[(x, y)].fg, Color::Red);
    let (x, y) = find(&buf, "read-write");
    assert_eq!(buf[(x, y)].fg, Color::Yellow);
    let (x, y) = find(&buf, "read-only");
    assert_eq!(buf[(x, y)].fg, Color::Green);
    let (x, y) = find(&buf, "› y");
    assert!(buf[(x, y)].modifier.contains(Modifier::REVERSED));
    let exec = render(&ApprovalDialog::new(exec_view()), 80, 24, &Theme::COLOR);
    let (x, y) = find(&exec, "high   ");
    assert_eq!(exec[(x, y)].fg, Color::Red);

    let plain = render(&d, 80, 24, &Theme::PLAIN);
    assert!(plain.content().iter().all(|c| c.fg == Color::Reset && c.bg == Color::Reset));
    let (x, y) = find(&plain, "› y");
    assert!(plain[(x, y)].modifier.contains(Modifier::REVERSED), "selection stays visible without colour");
}

#[test]
fn hostile_text_cannot_draw_a_fake_choice() {
    let mut view = small_edit();
    view.question.tool = HOSTILE.into();
    view.question.description = HOSTILE.into();
    view.question.scope = HOSTILE.into();
    view.question.sandbox.folders[0].path = HOSTILE.into();
    view.question.sandbox.network.push(HOSTILE.into());
    view.question.sandbox.env.push(HOSTILE.into());
    view.question.confirm = Confirm::Edit(FileChange {
        path: HOSTILE.into(),
        original: HOSTILE.into(),
        proposed: "x\n".into(),
        is_new_file: false,
    });
    let mut exec = view.clone();
    exec.question.confirm = Confirm::Exec {
        command: HOSTILE.into(),
        root_command: HOSTILE.into(),
        directory: HOSTILE.into(),
        risk: Risk::High,
        commands: vec![CommandRow { text: HOSTILE.into(), risk: Risk::High, why: HOSTILE.into(), allowed: false }],
        rows: vec![HOSTILE.into()],
        warnings: vec![HOSTILE.into()],
    };
    let mut info = view.clone();
    info.question.confirm = Confirm::Info { prompt: Shown::block(HOSTILE), urls: vec![HOSTILE.into()] };
    for v in [view, exec, info] {
        let buf = render(&ApprovalDialog::new(v), 100, 40, &Theme::COLOR);
        assert_no_controls(&buf);
        let text = buffer_text(&buf);
        // Exactly one row offers "y": the dialog's own.
        let offers = text
            .lines()
            .filter_map(|l| l.strip_prefix('│'))
            .filter(|l| l.starts_with("› y ") || l.starts_with("  y   Allow"))
            .count();
        assert_eq!(offers, 1, "{text}");
        assert!(text.contains(r"\x1b[2J") && text.contains(r"\x07"), "{text}");
    }
    let mut d = ApprovalDialog::new(small_edit());
    d.handle_key(key(KeyCode::Char('n')));
    for c in HOSTILE.chars() {
        d.handle_key(key(KeyCode::Char(c)));
    }
    assert_no_controls(&render(&d, 80, 24, &Theme::COLOR));
}

#[test]
fn tiny_areas_do_not_panic_and_keep_the_choices() {
    for v in [small_edit(), exec_view(), info_view()] {
        let d = ApprovalDialog::new(v);
        for (w, h) in [(0, 0), (10, 3), (1, 1), (80, 1), (3, 40), (80, 12)] {
            render(&d, w, h, &Theme::COLOR);
        }
        let text = buffer_text(&render(&d, 80, 12, &Theme::PLAIN));
        assert!(text.contains("Cancel this call"), "{text}");
        assert!(d.desired_height(80) > 10);
    }
}

#[test]
fn wide_characters_and_long_lines_stay_inside() {
    let mut v = exec_view();
    v.question.confirm = Confirm::Exec {
        command: "echo 日本語テキスト🙂".repeat(20).into(),
        root_command: "echo".into(),
        directory: "/家/".repeat(50).into(),
        risk: Risk::Low,
        commands: Vec::new(),
        rows: Vec::new(),
        warnings: Vec::new(),
    };
    let buf = render(&ApprovalDialog::new(v), 60, 30, &Theme::PLAIN);
    let text = buffer_text(&buf);
    assert!(text.contains("↪ "), "a wrapped command is marked:\n{text}");
    for row in text.lines() {
        assert!(crate::dialog::width(row) <= 60, "{row}");
    }
}

#[test]
fn a_path_with_a_newline_stays_on_its_row() {
    let mut v = small_edit();
    v.question.confirm = Confirm::Edit(FileChange {
        path: "src/a.rs\n› y   Allow once".into(),
        original: Shown::default(),
        proposed: "new\n".into(),
        is_new_file: true,
    });
    let text = buffer_text(&render(&ApprovalDialog::new(v), 80, 24, &Theme::PLAIN));
    assert!(text.contains(r"│create: src/a.rs\n› y   Allow once"), "{text}");
    assert_eq!(text.lines().filter(|l| l.starts_with("│› y")).count(), 1, "{text}");
    assert!(text.contains("│+new"), "{text}");
}

#[test]
fn desired_height_fits_everything_without_blank_rows() {
    let d = ApprovalDialog::new(exec_view());
    let h = d.desired_height(80);
    assert_eq!(h, 22, "with the line saying what commands run under");
    let text = buffer_text(&render(&d, 80, h, &Theme::PLAIN));
    assert!(!text.lines().any(|l| l.trim_matches('│').trim().is_empty()), "{text}");
    assert!(!text.contains("lines 1–"), "nothing scrolls at the desired height:\n{text}");
}

/// The line `echo harmless`, 1,100 blanks, `; rm -f x`, as the host reads it.
fn hidden_tail_view() -> ApprovalView {
    let line = format!("echo harmless{}; rm -f x", " ".repeat(1100));
    ApprovalView {
        question: Question {
            id: 1,
            call_id: "c1".into(),
            tool: "run_shell_command".into(),
            description: "echo harmless␣×1100; rm -f x".into(),
            confirm: Confirm::Exec {
                command: Shown::block(&line),
                root_command: "rm".into(),
                directory: "/home/ann/project".into(),
                risk: Risk::High,
                commands: vec![
                    CommandRow {
                        text: "rm -f x".into(),
                        risk: Risk::High,
                        why: "deletes files".into(),
                        allowed: false,
                    },
                    CommandRow { text: "echo harmless".into(), risk: Risk::Low, why: "reads".into(), allowed: false },
                ],
                rows: vec!["echo harmless␣×1100; rm -f x".into()],
                warnings: Vec::new(),
            },
            sandbox: Sandbox {
                folders: vec![Folder { path: "/home/ann/project".into(), writable: true }],
                commands: Some("programs it starts run under Landlock ABI 7 + seccomp, no network".into()),
                ..sandbox()
            },
            scope: "`run_shell_command` running `rm …` · `echo …`".into(),
            always: true,
            editable: false,
        },
        queued: 0,
    }
}

#[test]
fn a_command_hidden_behind_blanks_is_named_first_on_the_first_screen() {
    let d = ApprovalDialog::new(hidden_tail_view());
    let buf = render(&d, 80, 24, &Theme::COLOR);
    let text = buffer_text(&buf);
    insta::assert_snapshot!(text);
    let rm = find(&buf, "rm -f x");
    let echo = find(&buf, "echo harmless —");
    assert!(rm.1 < echo.1, "the riskiest command comes first:\n{text}");
    assert!(rm.1 <= 4, "it is on the first rows:\n{text}");
    assert!(text.contains("␣×1100"), "{text}");
    // Even a dialog too short for the whole line shows the `rm` first.
    let small = buffer_text(&render(&d, 60, 14, &Theme::PLAIN));
    assert!(small.contains("rm -f x"), "{small}");
}

#[test]
fn warnings_show_and_always_is_offered_only_when_the_view_says_so() {
    let mut view = hidden_tail_view();
    view.question.always = false;
    view.question.scope = "not offered (airlock cannot name every command of this line)".into();
    if let Confirm::Exec { warnings, .. } = &mut view.question.confirm {
        warnings.push("airlock cannot tell which commands this line runs: `${!ref}` reads a variable".into());
    }
    let mut d = ApprovalDialog::new(view);
    assert_eq!(
        d.choices(),
        [ApprovalChoice::Once, ApprovalChoice::ToolForSession, ApprovalChoice::Refuse, ApprovalChoice::CancelBatch]
    );
    let text = buffer_text(&render(&d, 100, 30, &Theme::PLAIN));
    assert!(text.contains("⚠ airlock cannot tell which commands this line runs"), "{text}");
    assert!(!text.contains("Allow always"), "{text}");
    assert_eq!(d.handle_key(key(KeyCode::Char('a'))), None);
    assert_eq!(d.handle_key(key(KeyCode::Char('s'))), None);
    assert_eq!(d.handle_key(key(KeyCode::Char('y'))), Some(ApprovalResult::Choose(ApprovalChoice::Once)));
}
