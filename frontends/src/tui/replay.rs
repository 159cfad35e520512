//! A resumed session drawn as the live one was: the user's turns, the model's text, and
//! each call as the card it ended as — its state, the tool's summary or its output's last
//! lines, how its commands ended and what its execution cost, from the session's `calls`
//! records. A call the file has no record of (a session written before they existed) is
//! drawn from the history alone: its arguments, success or error, and the end of what the
//! model was told. Every card's whole output, as the model was told it, opens in the pager.
//! The session's token counts come back to the status line.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use airlock_ui::view::{CallStatus, Card, Shown as Text};
use airlock_ui::{card, markdown, transcript};
use ratatui::text::Line;

use super::app::App;
use super::{attach, views};
use airlock_door::Replay;
use airlock_door::events::Shown;
use airlock_door::session::RecordedCall;
use airlock_door::session::{FunctionCall, FunctionResponse, Part, Role};
use airlock_protocol::shown as sanitize;
use airlock_ui::transcript::NoticeKind;

/// Most messages of a resumed session shown.
const REPLAY_MESSAGES: usize = 2_000;

/// Shows the resumed conversation (the latest [`REPLAY_MESSAGES`] messages) and takes its
/// token counts.
pub fn replay(app: &mut App, replay: &Replay) {
    let started = Instant::now();
    let messages = &replay.messages;
    let skipped = messages.len().saturating_sub(REPLAY_MESSAGES);
    if skipped > 0 {
        app.notice(&format!("… {skipped} earlier messages of this session are not shown"), NoticeKind::Info);
    }
    let responses: HashMap<&str, &FunctionResponse> = messages
        .iter()
        .flat_map(|m| &m.parts)
        .filter_map(|part| match part {
            Part::FunctionResponse(response) => Some((response.id.as_str(), response)),
            _ => None,
        })
        .collect();
    let recorded: HashMap<&str, &RecordedCall> = replay.calls.iter().map(|c| (c.id.as_str(), c)).collect();
    for message in &messages[skipped..] {
        for part in &message.parts {
            match (message.role, part) {
                (Role::User, Part::Text { text }) => {
                    app.history.push(Line::default());
                    let lines = transcript::user_lines(&sanitize::block(text), app.width, &app.theme);
                    app.history.extend(lines);
                }
                (Role::Model, Part::Text { text }) => {
                    let lines = markdown::render(&sanitize::stream(text), app.width, &app.theme);
                    app.history.extend(lines);
                }
                (_, Part::FunctionCall(call)) => {
                    let response = responses.get(call.id.as_str()).copied();
                    let record = recorded.get(call.id.as_str()).copied();
                    let mut card = card_of(call, record, response);
                    // A resumed session keeps its checkpoints: its calls can still be undone.
                    if record.is_some_and(|r| r.checkpoint.is_some()) {
                        card.undo = Some(super::rewind::number(app, &call.id));
                    }
                    app.history.extend(card::lines(&card, app.width, &app.theme));
                    let told = response.map_or("", |r| r.content.as_str());
                    app.keep_output(&call.id, views::output_view(&card, told));
                }
                (_, Part::Media(media)) => {
                    let label = attach::media_label(media.name.as_deref(), &media.mime_type, &media.data);
                    let lines = transcript::user_lines(&sanitize::block(&label), app.width, &app.theme);
                    app.history.extend(lines);
                }
                (_, Part::FunctionResponse(_)) => {}
            }
        }
    }
    let tokens = replay.tokens;
    app.tokens_in = tokens.input;
    app.tokens_out = tokens.output;
    app.status.tokens_used = tokens.input + tokens.output;
    if let Some((input, output)) = tokens.last_answer
        && app.context_window > 0
    {
        app.status.context_left = Some(app.context_window.saturating_sub(input + output));
    }
    app.notice("── resumed ──", NoticeKind::Info);
    tracing::debug!(messages = messages.len(), lines = app.history.len(), elapsed = ?started.elapsed(), "replayed");
}

/// The card `call` ended as: from its record when there is one, else from its answer.
fn card_of(call: &FunctionCall, recorded: Option<&RecordedCall>, response: Option<&FunctionResponse>) -> Card {
    let mut card = Card::new(
        call.id.clone(),
        Text::line(&call.name),
        Text::line_bounded(&call.arguments, 200),
        CallStatus::Cancelled,
    );
    match (recorded, response) {
        (Some(recorded), _) => {
            card.state = views::state(recorded.status);
            if let Some(description) = &recorded.description {
                card.description = Text::line(description);
            }
            let run = recorded.run_ms.map(Duration::from_millis);
            card.elapsed = run.unwrap_or_default();
            card.cost = recorded.cost.as_ref().zip(run).map(|(cost, run)| views::cost(cost, run));
            card.command = recorded.command.as_ref().map(views::command);
            views::show(&mut card, &recorded.shown);
        }
        (None, Some(response)) => {
            card.state = if response.is_error { CallStatus::Error } else { CallStatus::Success };
            views::show(&mut card, &Shown::new(None, &response.content));
        }
        // No answer was recorded (the session stopped mid-batch): the call never ended.
        (None, None) => card.tail = vec!["no result was recorded".into()],
    }
    card
}

#[cfg(test)]
#[path = "replay_tests.rs"]
mod tests;
