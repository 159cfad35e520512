//! Rewind in the TUI: `/rewind` and Esc Esc open the picker of the session's prompts, then
//! the choice of what to restore, then the preview of the engine's plan, then the rewind;
//! `/undo [N]` and `u` in a card's pager undo one call; `/rewind undo` undoes the last
//! rewind. The engine does the work: this module sends the orders and turns its answers
//! (`RewindTurns`, `RewindPlan`, `Rewound`) into dialogs and a notice.
//!
//! Invariants:
//! - Nothing is restored without the preview: every path here sends `apply: false` first,
//!   and only the preview's confirmation sends `apply: true`, with the plan's own target.
//! - Files changed outside airlock are overwritten only when the person chose so in the
//!   preview (`overwrite_changed`).
//! - A call's number (`#N` on its card, `/undo N`) is its place among the calls of this UI
//!   that hold a checkpoint, from 1; it never changes while the UI runs.

use std::time::{Duration, Instant};

use airlock_protocol::{Order, RestoreWhat, RewindPlan, RewindTarget, RewindTurn, Rewound};
use airlock_ui::rewind::{PreviewResult, RewindPreview, TurnPicker, TurnsResult, WhatChoice, WhatResult};
use airlock_ui::style::Theme;
use airlock_ui::transcript::NoticeKind;
use crossterm::event::KeyEvent;
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;

use super::app::{App, Dialog};

/// How soon a second Esc must follow the first to open the rewind picker.
pub const ESC_ESC: Duration = Duration::from_millis(800);

/// The rewind dialog in front: one step of the flow.
#[derive(Debug)]
pub enum RewindDialog {
    Turns(TurnPicker),
    What(WhatChoice),
    Preview(RewindPreview),
}

impl RewindDialog {
    pub fn desired_height(&self, width: u16) -> u16 {
        match self {
            Self::Turns(picker) => picker.desired_height(width),
            Self::What(choice) => choice.desired_height(width),
            Self::Preview(preview) => preview.desired_height(width),
        }
    }

    pub fn render(&self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        match self {
            Self::Turns(picker) => picker.render(area, buf, theme),
            Self::What(choice) => choice.render(area, buf, theme),
            Self::Preview(preview) => preview.render(area, buf, theme),
        }
    }
}

/// Asks the engine for the session's prompts; the picker opens on its answer.
pub fn open(app: &mut App) {
    app.orders.submit(Order::RewindTurns);
}

/// Esc on an empty composer with nothing running: the second within [`ESC_ESC`] opens the
/// rewind picker; the first says so.
pub fn esc(app: &mut App, now: Instant) {
    match app.esc_armed.take() {
        Some(first) if now.duration_since(first) <= ESC_ESC => {
            app.hint = None;
            open(app);
        }
        _ => {
            app.esc_armed = Some(now);
            app.hint = Some("press Esc again to rewind".into());
        }
    }
}

/// Any other key between the two presses forgets the first.
pub fn other_key(app: &mut App) {
    if app.esc_armed.take().is_some() {
        app.hint = None;
    }
}

/// Forgets a first Esc once its window has passed.
pub fn tick(app: &mut App) {
    if app.esc_armed.is_some_and(|t| t.elapsed() > ESC_ESC) {
        app.esc_armed = None;
        app.hint = None;
    }
}

/// The engine listed the prompts: the picker opens.
pub fn turns(app: &mut App, turns: Vec<RewindTurn>) {
    app.flush_stream();
    app.dialogs.push_back(Dialog::Rewind(Box::new(RewindDialog::Turns(TurnPicker::new(turns)))));
}

/// The engine planned a rewind: the preview opens.
pub fn plan(app: &mut App, plan: RewindPlan) {
    app.flush_stream();
    let title = title(app, &plan);
    app.dialogs.push_back(Dialog::Rewind(Box::new(RewindDialog::Preview(RewindPreview::new(title, plan)))));
}

/// The engine rewound: a notice says what it did, and a rewound prompt goes back into the
/// composer (unless the person already typed something there).
pub fn rewound(app: &mut App, done: Rewound) {
    let plan = &done.plan;
    let mut parts = Vec::new();
    if plan.what.code() {
        let files = if done.restored == 1 { "file" } else { "files" };
        parts.push(format!("{} {files} restored", done.restored));
        if !done.kept.is_empty() {
            parts.push(format!("{} kept (changed outside airlock)", done.kept.len()));
        }
    }
    if plan.what.conversation() {
        let messages = if plan.messages_dropped == 1 { "message" } else { "messages" };
        parts.push(format!("{} {messages} dropped", plan.messages_dropped));
    }
    let head = match &plan.target {
        RewindTarget::Prompt { prompt } => format!("rewound to before prompt {prompt}"),
        RewindTarget::Call { call_id } => format!("undid call {}", call_name(app, call_id)),
        RewindTarget::Undo => "undid the last rewind".into(),
    };
    let mut text = format!("{head}: {}", parts.join(", "));
    if done.undo.is_some() {
        text.push_str("; /rewind undo puts it back");
    }
    app.notice(&text, NoticeKind::Info);
    if plan.what.conversation()
        && let Some(prompt) = &plan.prompt
    {
        if app.composer.is_empty() {
            app.composer.set_text(prompt);
        } else {
            app.notice("the rewound prompt was not put back: the composer holds your text", NoticeKind::Info);
        }
    }
}

/// A key for the rewind dialog in front.
pub fn key(app: &mut App, key: KeyEvent) {
    let Some(Dialog::Rewind(dialog)) = app.dialogs.front_mut() else { return };
    match dialog.as_mut() {
        RewindDialog::Turns(picker) => match picker.handle_key(key) {
            None => {}
            Some(TurnsResult::Cancelled) => {
                app.dialogs.pop_front();
            }
            Some(TurnsResult::Selected { prompt, changed }) => {
                **dialog = RewindDialog::What(WhatChoice::new(prompt, changed));
            }
        },
        RewindDialog::What(choice) => {
            let prompt = choice.prompt();
            match choice.handle_key(key) {
                None => {}
                Some(WhatResult::Cancelled) => {
                    app.dialogs.pop_front();
                }
                Some(WhatResult::Chosen(what)) => {
                    app.dialogs.pop_front();
                    preview(app, RewindTarget::Prompt { prompt }, what);
                }
            }
        }
        RewindDialog::Preview(preview) => match preview.handle_key(key) {
            None => {}
            Some(PreviewResult::Cancelled) => {
                app.dialogs.pop_front();
                app.notice("rewind cancelled: nothing changed", NoticeKind::Info);
            }
            Some(PreviewResult::Apply { overwrite }) => {
                let plan = preview.plan();
                let order = Order::Rewind {
                    target: plan.target.clone(),
                    what: plan.what,
                    apply: true,
                    overwrite_changed: overwrite,
                };
                app.dialogs.pop_front();
                app.orders.submit(order);
            }
        },
    }
}

/// Asks the engine what rewinding to `target` would do.
fn preview(app: &mut App, target: RewindTarget, what: RestoreWhat) {
    app.orders.submit(Order::Rewind { target, what, apply: false, overwrite_changed: false });
}

/// `/rewind` opens the picker; `/rewind undo` undoes the last rewind.
pub fn command(app: &mut App, args: &str) {
    match args {
        "" => open(app),
        "undo" => preview(app, RewindTarget::Undo, RestoreWhat::Both),
        other => app.notice(
            &format!("unknown /rewind {other}: /rewind picks a prompt, /rewind undo undoes the last rewind"),
            NoticeKind::Warning,
        ),
    }
}

/// `/undo` undoes the latest call that holds a checkpoint, `/undo N` call `#N`.
pub fn undo(app: &mut App, args: &str) {
    let call = match args {
        "" => app.undo_calls.last().cloned(),
        n => match n.trim_start_matches('#').parse::<usize>() {
            Ok(n) if n >= 1 => app.undo_calls.get(n - 1).cloned(),
            _ => {
                app.notice(
                    &format!("/undo takes a call's number, as its card shows it (#4): not {n:?}"),
                    NoticeKind::Warning,
                );
                return;
            }
        },
    };
    match call {
        Some(call_id) => undo_call(app, call_id),
        None if args.is_empty() => {
            app.notice("no call to undo: only a call that could write files keeps a checkpoint", NoticeKind::Info)
        }
        None => app.notice(
            &format!(
                "no call #{} to undo: the cards that can be undone show their number",
                args.trim_start_matches('#')
            ),
            NoticeKind::Warning,
        ),
    }
}

/// Asks the engine what undoing call `call_id` would do (it answers with a warning when
/// the call holds no checkpoint).
pub fn undo_call(app: &mut App, call_id: String) {
    preview(app, RewindTarget::Call { call_id }, RestoreWhat::Code);
}

/// The number a call that holds a checkpoint gets (its place among them, from 1), given the
/// first time it is asked.
pub fn number(app: &mut App, call_id: &str) -> u32 {
    let at = match app.undo_calls.iter().position(|c| c == call_id) {
        Some(at) => at,
        None => {
            app.undo_calls.push(call_id.to_string());
            app.undo_calls.len() - 1
        }
    };
    u32::try_from(at + 1).unwrap_or(u32::MAX)
}

/// `#4` for a call with a number, else `a call`.
fn call_name(app: &App, call_id: &str) -> String {
    match app.undo_calls.iter().position(|c| c == call_id) {
        Some(at) => format!("#{}", at + 1),
        None => "a call".into(),
    }
}

/// The preview's title: what the plan goes back to, and what it restores.
fn title(app: &App, plan: &RewindPlan) -> String {
    let what = match plan.what {
        RestoreWhat::Code => "code",
        RestoreWhat::Conversation => "conversation",
        RestoreWhat::Both => "code and conversation",
    };
    match &plan.target {
        RewindTarget::Prompt { prompt } => format!("Rewind to before prompt {prompt}: {what}"),
        RewindTarget::Call { call_id } => format!("Undo call {}", call_name(app, call_id)),
        RewindTarget::Undo => "Undo the last rewind".into(),
    }
}

#[cfg(test)]
#[path = "rewind_tests.rs"]
mod tests;
