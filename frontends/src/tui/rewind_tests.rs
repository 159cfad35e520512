//! The rewind flow through the app's own key and output handling: the orders it sends, the
//! dialogs it opens, the notice and the composer after a rewind.

use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, Instant};

use airlock_door::events::{CallStatus, CallUpdate, Event};
use airlock_door::{Info, Output};
use airlock_protocol::{ApprovalMode, FileChangeKind, RewindFile};
use airlock_ui::composer::{Composer, History};
use crossterm::event::{KeyCode, KeyModifiers};

use super::*;
use crate::tui::app::OrderSink;

/// An app with no session behind it: its orders are kept for the test to read.
fn app() -> (App, Rc<RefCell<Vec<Order>>>) {
    let kept = Rc::new(RefCell::new(Vec::new()));
    let info = Info {
        id: "s1".into(),
        provider: "mock".into(),
        model: "test-model".into(),
        workspace: "/tmp/ws".into(),
        context_window: 0,
    };
    let mut composer = Composer::new(History::in_memory());
    composer.set_commands(crate::tui::commands::menu(&[]));
    let app =
        App::with(&info, None, OrderSink::Kept(kept.clone()), composer, ApprovalMode::Default, std::env::temp_dir());
    (app, kept)
}

fn press(app: &mut App, code: KeyCode) {
    app.key(KeyEvent::new(code, KeyModifiers::NONE));
}

fn typed(app: &mut App, text: &str) {
    for c in text.chars() {
        press(app, KeyCode::Char(c));
    }
}

fn event(app: &mut App, event: Event) {
    app.output(Output::Event(event));
}

fn history(app: &App) -> String {
    app.history
        .iter()
        .map(|l| l.spans.iter().map(|s| s.content.as_ref()).collect::<String>())
        .collect::<Vec<_>>()
        .join("\n")
}

fn front(app: &App) -> Option<&RewindDialog> {
    match app.dialogs.front() {
        Some(Dialog::Rewind(dialog)) => Some(dialog),
        _ => None,
    }
}

fn turns() -> Vec<RewindTurn> {
    let file = |path: &str| RewindFile {
        path: path.into(),
        change: FileChangeKind::Modified,
        added: 2,
        removed: 1,
        binary: false,
    };
    vec![
        RewindTurn {
            prompt: 1,
            text: "edit the notes".into(),
            at: "2026-11-28T12:00:00Z".into(),
            calls: 1,
            files: vec![file("notes.txt")],
        },
        RewindTurn {
            prompt: 2,
            text: "explain it".into(),
            at: "2026-11-28T12:01:00Z".into(),
            calls: 0,
            files: Vec::new(),
        },
    ]
}

fn plan(target: RewindTarget, what: RestoreWhat) -> RewindPlan {
    RewindPlan {
        target,
        what,
        files: vec![
            RewindFile {
                path: "notes.txt".into(),
                change: FileChangeKind::Modified,
                added: 1,
                removed: 2,
                binary: false,
            },
            RewindFile { path: "b.txt".into(), change: FileChangeKind::Deleted, added: 0, removed: 3, binary: false },
        ],
        changed_outside: vec!["notes.txt".into()],
        left_out: Vec::new(),
        messages_dropped: 4,
        prompt: Some("edit the notes".into()),
    }
}

fn rewind_order(target: RewindTarget, what: RestoreWhat, apply: bool, overwrite_changed: bool) -> Order {
    Order::Rewind { target, what, apply, overwrite_changed }
}

#[test]
fn esc_esc_on_an_empty_idle_composer_asks_for_the_prompts_and_opens_the_picker() {
    let (mut app, orders) = app();
    press(&mut app, KeyCode::Esc);
    assert!(orders.borrow().is_empty(), "a single Esc sent {:?}", orders.borrow());
    assert_eq!(app.hint.as_deref(), Some("press Esc again to rewind"));
    press(&mut app, KeyCode::Esc);
    assert_eq!(*orders.borrow(), [Order::RewindTurns]);
    assert!(app.hint.is_none() && app.esc_armed.is_none());
    event(&mut app, Event::RewindTurns(turns()));
    assert!(matches!(front(&app), Some(RewindDialog::Turns(_))), "{:?}", app.dialogs);
}

#[test]
fn esc_esc_opens_nothing_with_text_in_the_composer_or_two_presses_far_apart() {
    let (mut app, orders) = app();
    typed(&mut app, "half a prompt");
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Esc);
    assert!(orders.borrow().is_empty(), "{:?}", orders.borrow());
    assert_eq!(app.composer.text(), "half a prompt", "Esc changed the composer");
    app.composer.clear();
    press(&mut app, KeyCode::Esc);
    app.esc_armed = app.esc_armed.map(|t| t - Duration::from_secs(2));
    press(&mut app, KeyCode::Esc);
    assert!(orders.borrow().is_empty(), "two presses 2 s apart opened the rewind: {:?}", orders.borrow());
    // Another key between the two presses forgets the first.
    press(&mut app, KeyCode::Left);
    assert!(app.esc_armed.is_none() && app.hint.is_none());
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Left);
    press(&mut app, KeyCode::Esc);
    assert!(orders.borrow().is_empty(), "{:?}", orders.borrow());
    assert!(app.esc_armed.is_some(), "the last Esc is a first press again");
    // The window passing clears the first press and its hint.
    app.esc_armed = Some(Instant::now() - Duration::from_secs(2));
    app.tick();
    assert!(app.esc_armed.is_none() && app.hint.is_none());
}

#[test]
fn esc_during_a_turn_still_interrupts_and_never_opens_the_rewind() {
    let (mut app, orders) = app();
    app.send_prompt("go", "go".into(), Vec::new());
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Esc);
    let sent = orders.borrow();
    assert!(matches!(sent[0], Order::UserTurn { .. }), "{sent:?}");
    assert_eq!(sent[1..], [Order::Interrupt, Order::Interrupt]);
}

#[test]
fn esc_with_the_command_popup_open_closes_the_popup_only() {
    let (mut app, orders) = app();
    typed(&mut app, "/re");
    assert!(app.composer.has_popup());
    press(&mut app, KeyCode::Esc);
    press(&mut app, KeyCode::Esc);
    assert!(orders.borrow().is_empty(), "{:?}", orders.borrow());
}

#[test]
fn a_full_rewind_sends_list_preview_then_apply_and_says_what_it_did() {
    let (mut app, orders) = app();
    app.width = 200;
    typed(&mut app, "/rewind");
    press(&mut app, KeyCode::Enter);
    assert_eq!(*orders.borrow(), [Order::RewindTurns]);
    event(&mut app, Event::RewindTurns(turns()));
    // Newest first: prompt 2, then prompt 1.
    press(&mut app, KeyCode::Down);
    press(&mut app, KeyCode::Enter);
    assert!(matches!(front(&app), Some(RewindDialog::What(c)) if c.prompt() == 1), "{:?}", app.dialogs);
    press(&mut app, KeyCode::Char('c'));
    assert!(app.dialogs.is_empty());
    let target = RewindTarget::Prompt { prompt: 1 };
    assert_eq!(orders.borrow()[1], rewind_order(target.clone(), RestoreWhat::Code, false, false));
    event(&mut app, Event::RewindPlan(Box::new(plan(target.clone(), RestoreWhat::Code))));
    assert!(matches!(front(&app), Some(RewindDialog::Preview(_))));
    assert_eq!(orders.borrow().len(), 2, "the preview applied before it was confirmed");
    // The second choice overwrites the file changed outside airlock too.
    press(&mut app, KeyCode::Down);
    press(&mut app, KeyCode::Enter);
    assert_eq!(orders.borrow()[2], rewind_order(target.clone(), RestoreWhat::Code, true, true));
    assert!(app.dialogs.is_empty());
    let done = Rewound {
        plan: plan(target, RestoreWhat::Code),
        restored: 2,
        kept: vec!["notes.txt".into()],
        undo: Some("ck1".into()),
    };
    event(&mut app, Event::Rewound(Box::new(done)));
    let shown = history(&app);
    assert!(
        shown.contains(
            "rewound to before prompt 1: 2 files restored, 1 kept (changed outside airlock); /rewind undo puts it back"
        ),
        "{shown}"
    );
    assert!(app.composer.is_empty(), "a code rewind put a prompt into the composer");
}

#[test]
fn esc_in_the_preview_cancels_and_applies_nothing() {
    let (mut app, orders) = app();
    event(&mut app, Event::RewindPlan(Box::new(plan(RewindTarget::Prompt { prompt: 1 }, RestoreWhat::Both))));
    press(&mut app, KeyCode::Esc);
    assert!(app.dialogs.is_empty() && orders.borrow().is_empty(), "{:?}", orders.borrow());
    assert!(history(&app).contains("rewind cancelled: nothing changed"));
}

#[test]
fn a_conversation_rewind_puts_the_prompt_back_into_the_composer() {
    let (mut app, _) = app();
    app.width = 200;
    let done = Rewound {
        plan: plan(RewindTarget::Prompt { prompt: 1 }, RestoreWhat::Both),
        restored: 2,
        kept: Vec::new(),
        undo: Some("ck1".into()),
    };
    event(&mut app, Event::Rewound(Box::new(done.clone())));
    assert_eq!(app.composer.text(), "edit the notes");
    assert!(
        history(&app).contains("rewound to before prompt 1: 2 files restored, 4 messages dropped"),
        "{}",
        history(&app)
    );
    // Text the person typed meanwhile is never replaced.
    app.composer.set_text("my own words");
    event(&mut app, Event::Rewound(Box::new(done)));
    assert_eq!(app.composer.text(), "my own words");
    assert!(history(&app).contains("the rewound prompt was not put back"));
}

/// Ends call `id` in the app, holding a checkpoint or not.
fn ended(app: &mut App, id: &str, undoable: bool) {
    event(app, Event::ToolCall(Box::new(CallUpdate::new(id, "write_file", CallStatus::Validating))));
    let mut end = CallUpdate::new(id, "write_file", CallStatus::Success);
    end.undoable = undoable;
    event(app, Event::ToolCall(Box::new(end)));
}

#[test]
fn calls_that_hold_a_checkpoint_are_numbered_and_undo_sends_a_preview_for_them() {
    let (mut app, orders) = app();
    ended(&mut app, "c1", true);
    ended(&mut app, "c2", false);
    ended(&mut app, "c3", true);
    let shown = history(&app);
    assert!(shown.contains("#1") && shown.contains("#2") && !shown.contains("#3"), "{shown}");
    assert_eq!(app.undo_calls, ["c1", "c3"]);
    let call = |id: &str| rewind_order(RewindTarget::Call { call_id: id.into() }, RestoreWhat::Code, false, false);
    crate::tui::commands::run(&mut app, "undo", "");
    crate::tui::commands::run(&mut app, "undo", "1");
    crate::tui::commands::run(&mut app, "undo", "#2");
    assert_eq!(*orders.borrow(), [call("c3"), call("c1"), call("c3")]);
    crate::tui::commands::run(&mut app, "undo", "7");
    crate::tui::commands::run(&mut app, "undo", "x");
    assert_eq!(orders.borrow().len(), 3, "an unknown number sent an order");
    assert!(history(&app).contains("no call #7 to undo"), "{}", history(&app));
    // The preview of a call names it by its number.
    event(&mut app, Event::RewindPlan(Box::new(plan(RewindTarget::Call { call_id: "c3".into() }, RestoreWhat::Code))));
    press(&mut app, KeyCode::Char('y'));
    assert_eq!(
        orders.borrow()[3],
        rewind_order(RewindTarget::Call { call_id: "c3".into() }, RestoreWhat::Code, true, false)
    );
}

#[test]
fn u_in_the_pager_undoes_the_call_it_shows() {
    let (mut app, orders) = app();
    ended(&mut app, "c1", true);
    ended(&mut app, "c2", true);
    app.key(KeyEvent::new(KeyCode::Char('o'), KeyModifiers::CONTROL));
    press(&mut app, KeyCode::Left);
    assert!(app.pager.is_some());
    press(&mut app, KeyCode::Char('u'));
    assert!(app.pager.is_none(), "the pager stays open over the preview");
    let want = rewind_order(RewindTarget::Call { call_id: "c1".into() }, RestoreWhat::Code, false, false);
    assert_eq!(*orders.borrow(), [want]);
}

#[test]
fn rewind_undo_asks_to_undo_the_last_rewind() {
    let (mut app, orders) = app();
    crate::tui::commands::run(&mut app, "rewind", "undo");
    assert_eq!(*orders.borrow(), [rewind_order(RewindTarget::Undo, RestoreWhat::Both, false, false)]);
}
