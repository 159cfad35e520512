//! One frame: the transcript lines produced since the last frame go to the scrollback, then
//! the viewport is laid out from the bottom up — the status line, the composer or the front
//! dialog, and above them the live part (the streaming tail, the running cards and the
//! plan panel), cut from the top when the screen is short. While the pager is open it is
//! the whole frame.

use airlock_ui::card;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::{Paragraph, Widget};

use super::app::{App, Dialog};
use super::screen::Screen;

/// Most rows the streaming tail takes.
const TAIL_ROWS: usize = 12;

pub fn frame(app: &mut App, screen: &mut Screen) -> std::io::Result<()> {
    // The pager takes the whole screen (the terminal's alternate one): the transcript waits
    // in `history` until it closes, and the scrollback is left as it was.
    if let Some(pager) = app.pager.as_mut() {
        let theme = app.theme;
        return screen.full_frame(|frame| {
            let area = frame.area();
            pager.render(area, frame.buffer_mut(), &theme);
            super::screen::neutralize(frame.buffer_mut());
        });
    }
    screen.leave_full()?;
    let width = screen.width();
    let rows = screen.rows();
    let history = std::mem::take(&mut app.history);
    let mut live: Vec<Line<'static>> = Vec::new();
    let tail = app.stream.tail(width, &app.theme);
    live.extend(tail.iter().skip(tail.len().saturating_sub(TAIL_ROWS)).cloned());
    for running in &app.cards {
        live.extend(card::lines(&running.card, width, &app.theme));
    }
    live.extend(airlock_ui::plan::lines(&app.plan, width, &app.theme));
    let bottom_wanted = match app.dialogs.front() {
        Some(Dialog::Approval { dialog, .. }) => dialog.desired_height(width),
        Some(Dialog::Grant { prompt, .. }) => prompt.desired_height(width),
        Some(Dialog::Picker { picker, .. }) => picker.desired_height(width),
        Some(Dialog::Rewind(dialog)) => dialog.desired_height(width),
        None => app.composer.desired_height(width),
    };
    let hint_rows = u16::from(app.hint.is_some());
    let status_rows = 1 + hint_rows;
    let available = rows.saturating_sub(status_rows);
    let bottom = bottom_wanted.min(available);
    let live_rows = (live.len() as u16).min(available - bottom);
    let shown: Vec<Line<'static>> = live[live.len() - usize::from(live_rows)..].to_vec();
    let height = live_rows + bottom + status_rows;
    let status = airlock_ui::status::line(&app.status, width, &app.theme);
    let hint = app.hint.clone();
    screen.frame(&history, height, |frame| {
        let area = frame.area();
        let buf = frame.buffer_mut();
        let live_area = Rect::new(area.x, area.y, area.width, live_rows.min(area.height));
        Paragraph::new(shown).render(live_area, buf);
        let bottom_area =
            Rect::new(area.x, area.y + live_area.height, area.width, bottom.min(area.height - live_area.height));
        let mut cursor = None;
        match app.dialogs.front() {
            Some(Dialog::Approval { dialog, .. }) => dialog.render(bottom_area, buf, &app.theme),
            Some(Dialog::Grant { prompt, .. }) => prompt.render(bottom_area, buf, &app.theme),
            Some(Dialog::Picker { picker, .. }) => picker.render(bottom_area, buf, &app.theme),
            Some(Dialog::Rewind(dialog)) => dialog.render(bottom_area, buf, &app.theme),
            None => {
                app.composer.render(bottom_area, buf, &app.theme);
                cursor = app.composer.cursor(bottom_area);
            }
        }
        let mut y = bottom_area.bottom();
        if let Some(hint) = hint
            && y < area.bottom()
        {
            Line::styled(hint, app.theme.warning()).render(Rect::new(area.x, y, area.width, 1), buf);
            y += 1;
        }
        if y < area.bottom() {
            status.render(Rect::new(area.x, y, area.width, 1), buf);
        }
        super::screen::neutralize(frame.buffer_mut());
        if let Some((x, y)) = cursor {
            frame.set_cursor_position((x, y));
        }
    })
}
