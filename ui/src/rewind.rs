//! The rewind dialogs (`/rewind`, Esc Esc, `/undo`): the picker of the session's prompts
//! with what each changed, the choice of what to restore, and the preview of a plan before
//! it is applied.
//!
//! Invariants: every prompt, time and path is drawn through [`clean`] (the engine sanitised
//! them; each dialog cleans again where it draws), so a prompt or a file name cannot draw a
//! line or a choice of its own. A choice that cannot apply (the code of a prompt that
//! changed no file) is drawn greyed and never answered. The preview's choices are always
//! drawn: its list of files shrinks first, and scrolls.

use std::cell::Cell;

use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Widget};

use crate::dialog::{choice_lines, clean, draw, fit, hint, width, wrap_marked};
use crate::style::Theme;
use airlock_protocol::{FileChangeKind, RestoreWhat, RewindFile, RewindPlan, RewindTurn};

/// Most rows of prompts the picker asks for.
const MAX_ROWS: usize = 16;
/// Most files listed under one prompt in the picker (the rest are counted).
const FILES_PER_TURN: usize = 3;
/// Most rows of the preview's list before it scrolls.
const MAX_BODY: usize = 14;
/// What follows a file changed outside airlock in the preview.
const OUTSIDE: &str = "  changed outside airlock";

/// `+14 −3`, `created +20`, `deleted −7`, `binary`: what a file's change amounts to.
fn change_spans(file: &RewindFile, theme: &Theme) -> Vec<Span<'static>> {
    let mut spans = Vec::new();
    match file.change {
        FileChangeKind::Created => spans.push(Span::styled("created ", theme.added())),
        FileChangeKind::Deleted => spans.push(Span::styled("deleted ", theme.removed())),
        FileChangeKind::Modified => {}
    }
    if file.binary {
        spans.push(Span::styled("binary", theme.dim()));
        return spans;
    }
    if file.added > 0 || file.removed == 0 {
        spans.push(Span::styled(format!("+{}", file.added), theme.added()));
    }
    if file.removed > 0 {
        let lead = if file.added > 0 || file.removed == 0 { " " } else { "" };
        spans.push(Span::styled(format!("{lead}−{}", file.removed), theme.removed()));
    }
    spans
}

/// One file row: `indent`, a mark, the path cut to what the change leaves of `w`.
fn file_line(file: &RewindFile, indent: &str, mark: Span<'static>, w: usize, theme: &Theme) -> Line<'static> {
    let change = change_spans(file, theme);
    let change_w: usize = change.iter().map(|s| width(&s.content)).sum();
    let used = width(indent) + width(&mark.content) + 2 + change_w;
    let path = fit(&clean(&file.path), w.saturating_sub(used).max(4));
    let mut spans = vec![Span::raw(indent.to_string()), mark, Span::styled(path, theme.text()), Span::raw("  ")];
    spans.extend(change);
    Line::from(spans)
}

/// `12:04` of `2026-11-28T12:04:05Z`; anything else as it came, cleaned and short.
fn short_time(at: &str) -> String {
    match (at.as_bytes().get(10), at.get(11..16)) {
        (Some(b'T'), Some(time)) => clean(time),
        _ => fit(&clean(at), 16),
    }
}

/// A bordered box titled `title`, its inner area (empty when nothing fits).
fn framed(area: Rect, buf: &mut Buffer, title: &str, theme: &Theme) -> Rect {
    let title = format!(" {} ", fit(&clean(title), area.width.saturating_sub(4) as usize));
    let block =
        Block::default().borders(Borders::ALL).border_style(theme.accent()).title(Span::styled(title, theme.strong()));
    let inner = block.inner(area);
    block.render(area, buf);
    inner
}

/// What the prompt picker answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TurnsResult {
    /// Prompt `prompt` was chosen; `changed` says whether its calls changed any file.
    Selected {
        prompt: u32,
        changed: bool,
    },
    Cancelled,
}

/// The picker of the session's prompts, newest first, each with what its calls changed.
#[derive(Debug)]
pub struct TurnPicker {
    turns: Vec<RewindTurn>,
    selected: usize,
    /// The first row shown at the last render (rows, not turns: a turn takes several).
    top: Cell<usize>,
}

impl TurnPicker {
    /// The picker over `turns` (in any order: they are shown newest first).
    pub fn new(mut turns: Vec<RewindTurn>) -> Self {
        turns.sort_by_key(|t| std::cmp::Reverse(t.prompt));
        Self { turns, selected: 0, top: Cell::new(0) }
    }

    /// The prompt under the selection.
    pub fn selected(&self) -> Option<u32> {
        self.turns.get(self.selected).map(|t| t.prompt)
    }

    pub fn handle_key(&mut self, key: KeyEvent) -> Option<TurnsResult> {
        if key.kind == KeyEventKind::Release {
            return None;
        }
        let last = self.turns.len().saturating_sub(1);
        match key.code {
            KeyCode::Esc => return Some(TurnsResult::Cancelled),
            KeyCode::Enter => {
                return self
                    .turns
                    .get(self.selected)
                    .map(|t| TurnsResult::Selected { prompt: t.prompt, changed: !t.files.is_empty() });
            }
            KeyCode::Up => self.selected = self.selected.saturating_sub(1),
            KeyCode::Down => self.selected = (self.selected + 1).min(last),
            KeyCode::PageUp => self.selected = self.selected.saturating_sub(4),
            KeyCode::PageDown => self.selected = (self.selected + 4).min(last),
            KeyCode::Home => self.selected = 0,
            KeyCode::End => self.selected = last,
            _ => {}
        }
        None
    }

    /// The rows of every turn, each tagged with the turn it belongs to.
    fn rows(&self, w: usize, theme: &Theme) -> Vec<(usize, Line<'static>)> {
        let number_w = self.turns.iter().map(|t| t.prompt.to_string().len()).max().unwrap_or(1);
        let mut out = Vec::new();
        for (i, turn) in self.turns.iter().enumerate() {
            let selected = i == self.selected;
            let base = if selected { theme.selected() } else { theme.text() };
            let marker = if selected { "› " } else { "  " };
            let number = format!("{:>number_w$}  ", turn.prompt);
            let time = format!("  {}", short_time(&turn.at));
            let first = clean(turn.text.lines().next().unwrap_or_default());
            let room = w.saturating_sub(2 + width(&number) + width(&time));
            let text = fit(&first, room);
            let pad = " ".repeat(room.saturating_sub(width(&text)));
            out.push((
                i,
                Line::from(vec![
                    Span::styled(marker, base),
                    Span::styled(number, base.patch(theme.strong())),
                    Span::styled(text, base),
                    Span::styled(pad, base),
                    Span::styled(time, base.patch(theme.dim())),
                ]),
            ));
            let indent = " ".repeat(2 + number_w + 2);
            if turn.files.is_empty() {
                out.push((i, hint(&format!("{indent}no file changes"), theme)));
            }
            for file in turn.files.iter().take(FILES_PER_TURN) {
                out.push((i, file_line(file, &indent, Span::raw(""), w, theme)));
            }
            if turn.files.len() > FILES_PER_TURN {
                let more = turn.files.len() - FILES_PER_TURN;
                let files = if more == 1 { "file" } else { "files" };
                out.push((i, hint(&format!("{indent}… {more} more {files}"), theme)));
            }
        }
        out
    }

    /// Borders, the rows of the prompts (at most [`MAX_ROWS`]) and the keys' row.
    pub fn desired_height(&self, width: u16) -> u16 {
        let rows = self.rows(width.saturating_sub(2) as usize, &Theme::PLAIN).len();
        (2 + rows.clamp(1, MAX_ROWS) + 1) as u16
    }

    pub fn render(&self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        if area.width == 0 || area.height == 0 {
            return;
        }
        let inner = framed(area, buf, "Rewind to before a prompt", theme);
        if inner.width == 0 || inner.height == 0 {
            return;
        }
        let w = inner.width as usize;
        let keys = hint(&fit("↑/↓ move · Enter choose · Esc cancel", w), theme);
        if self.turns.is_empty() {
            draw(vec![hint("  no prompts to rewind to", theme), keys], inner, buf);
            return;
        }
        let room = (inner.height as usize).saturating_sub(1).max(1);
        let rows = self.rows(w, theme);
        // Keep the whole of the selected turn in the window (its head first when it is
        // taller than the window), moving the window as little as possible.
        let first = rows.iter().position(|(t, _)| *t == self.selected).unwrap_or(0);
        let last = rows.iter().rposition(|(t, _)| *t == self.selected).unwrap_or(first);
        let mut top = self.top.get();
        if last >= top + room {
            top = last + 1 - room;
        }
        top = top.min(first);
        self.top.set(top);
        let mut lines: Vec<Line<'static>> = rows.into_iter().skip(top).take(room).map(|(_, l)| l).collect();
        lines.push(keys);
        draw(lines, inner, buf);
    }
}

/// The choices of what to restore, in the order shown.
const WHAT: [RestoreWhat; 3] = [RestoreWhat::Code, RestoreWhat::Conversation, RestoreWhat::Both];

fn what_key(what: RestoreWhat) -> char {
    match what {
        RestoreWhat::Code => 'c',
        RestoreWhat::Conversation => 'v',
        RestoreWhat::Both => 'b',
    }
}

fn what_label(what: RestoreWhat) -> &'static str {
    match what {
        RestoreWhat::Code => "Code: the files go back, the conversation stays",
        RestoreWhat::Conversation => "Conversation: it goes back to before the prompt, the files stay",
        RestoreWhat::Both => "Both the code and the conversation",
    }
}

/// What the choice of what to restore answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WhatResult {
    Chosen(RestoreWhat),
    Cancelled,
}

/// The choice of what to restore for a rewind to before prompt `prompt`.
#[derive(Debug)]
pub struct WhatChoice {
    prompt: u32,
    /// Whether the prompt's calls changed a file (else there is no code to restore).
    changed: bool,
    selected: usize,
}

impl WhatChoice {
    pub fn new(prompt: u32, changed: bool) -> Self {
        let start = if changed { RestoreWhat::Both } else { RestoreWhat::Conversation };
        Self { prompt, changed, selected: WHAT.iter().position(|w| *w == start).unwrap_or(0) }
    }

    pub fn prompt(&self) -> u32 {
        self.prompt
    }

    fn enabled(&self, what: RestoreWhat) -> bool {
        self.changed || what != RestoreWhat::Code
    }

    pub fn handle_key(&mut self, key: KeyEvent) -> Option<WhatResult> {
        if key.kind == KeyEventKind::Release {
            return None;
        }
        let n = WHAT.len();
        match key.code {
            KeyCode::Esc => return Some(WhatResult::Cancelled),
            KeyCode::Enter => return Some(WhatResult::Chosen(WHAT[self.selected % n])),
            KeyCode::Up | KeyCode::Down => {
                let step = if key.code == KeyCode::Up { n - 1 } else { 1 };
                let mut next = (self.selected + step) % n;
                while !self.enabled(WHAT[next]) {
                    next = (next + step) % n;
                }
                self.selected = next;
            }
            KeyCode::Char(c) if !key.modifiers.intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) => {
                let what = WHAT.into_iter().find(|w| what_key(*w) == c.to_ascii_lowercase())?;
                return self.enabled(what).then_some(WhatResult::Chosen(what));
            }
            _ => {}
        }
        None
    }

    fn lines(&self, w: usize, theme: &Theme) -> Vec<Line<'static>> {
        let mut out = vec![Line::styled("What should go back?", theme.strong())];
        for (i, what) in WHAT.into_iter().enumerate() {
            let key = what_key(what).to_string();
            if self.enabled(what) {
                out.extend(choice_lines(&key, what_label(what), i == self.selected, w, theme));
            } else {
                let label = format!("{key:<4}{} (no file changed)", what_label(what));
                for row in wrap_marked(&label, w.saturating_sub(2).max(8)) {
                    out.push(Line::from(vec![Span::raw("  "), Span::styled(row, theme.dim())]));
                }
            }
        }
        out.push(hint(&fit("↑/↓ move · Enter choose · Esc cancel", w), theme));
        out
    }

    pub fn desired_height(&self, width: u16) -> u16 {
        (2 + self.lines(width.saturating_sub(2) as usize, &Theme::PLAIN).len()) as u16
    }

    pub fn render(&self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        if area.width == 0 || area.height == 0 {
            return;
        }
        let inner = framed(area, buf, &format!("Rewind to before prompt {}", self.prompt), theme);
        draw(self.lines(inner.width as usize, theme), inner, buf);
    }
}

/// What the preview answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PreviewResult {
    /// Apply the plan; `overwrite` also overwrites the files changed outside airlock.
    Apply {
        overwrite: bool,
    },
    Cancelled,
}

/// The preview's answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Confirm {
    Apply,
    Overwrite,
    Cancel,
}

/// A rewind's plan before it is applied: the files it writes or deletes, those changed
/// outside airlock (kept unless the person says to overwrite them), what was left out, the
/// messages dropped.
#[derive(Debug)]
pub struct RewindPreview {
    title: String,
    plan: RewindPlan,
    choices: Vec<Confirm>,
    selected: usize,
    /// The first row of the list shown (PgUp/PgDn scroll it).
    scroll: usize,
    /// Rows of the list the last frame had room for.
    room: Cell<usize>,
}

impl RewindPreview {
    /// The preview of `plan` under `title` (what it goes back to, as the front end names it).
    pub fn new(title: impl Into<String>, plan: RewindPlan) -> Self {
        let choices = match plan.changed_outside.is_empty() {
            true => vec![Confirm::Apply, Confirm::Cancel],
            false => vec![Confirm::Apply, Confirm::Overwrite, Confirm::Cancel],
        };
        Self { title: title.into(), plan, choices, selected: 0, scroll: 0, room: Cell::new(MAX_BODY) }
    }

    pub fn plan(&self) -> &RewindPlan {
        &self.plan
    }

    pub fn handle_key(&mut self, key: KeyEvent) -> Option<PreviewResult> {
        if key.kind == KeyEventKind::Release {
            return None;
        }
        let answer = |c: Confirm| match c {
            Confirm::Apply => PreviewResult::Apply { overwrite: false },
            Confirm::Overwrite => PreviewResult::Apply { overwrite: true },
            Confirm::Cancel => PreviewResult::Cancelled,
        };
        let n = self.choices.len();
        match key.code {
            KeyCode::Esc => return Some(PreviewResult::Cancelled),
            KeyCode::Enter => return Some(answer(self.choices[self.selected % n])),
            KeyCode::Up => self.selected = (self.selected + n - 1) % n,
            KeyCode::Down => self.selected = (self.selected + 1) % n,
            KeyCode::PageUp => self.scroll = self.scroll.saturating_sub(self.room.get().max(1)),
            KeyCode::PageDown => self.scroll += self.room.get().max(1),
            KeyCode::Char(c) if !key.modifiers.intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) => {
                let choice = self.choices.iter().copied().find(|ch| self.key_of(*ch) == c.to_ascii_lowercase())?;
                return Some(answer(choice));
            }
            _ => {}
        }
        None
    }

    fn key_of(&self, choice: Confirm) -> char {
        match choice {
            Confirm::Apply => 'y',
            Confirm::Overwrite => 'o',
            Confirm::Cancel => 'n',
        }
    }

    fn label(&self, choice: Confirm) -> String {
        let outside = self.plan.changed_outside.len();
        let files = if outside == 1 { "file" } else { "files" };
        match choice {
            Confirm::Apply if outside > 0 => format!("Rewind, and keep the {outside} {files} changed outside airlock"),
            Confirm::Apply => "Rewind".into(),
            Confirm::Overwrite => format!("Rewind, and overwrite the {outside} {files} changed outside airlock too"),
            Confirm::Cancel => "Cancel".into(),
        }
    }

    /// The plan's rows: files, changed outside, left out, the conversation.
    fn body(&self, w: usize, theme: &Theme) -> Vec<Line<'static>> {
        let plan = &self.plan;
        let mut out = Vec::new();
        let outside = |path: &str| plan.changed_outside.iter().any(|p| p == path);
        if plan.what.code() {
            match plan.files.len() {
                0 => out.push(hint("No file to write or delete.", theme)),
                n => out.push(Line::styled(format!("Files it writes or deletes ({n}):"), theme.strong())),
            }
            for file in &plan.files {
                let mark = match outside(&file.path) {
                    true => Span::styled("⚠ ", theme.warning()),
                    false => Span::raw("  "),
                };
                let note = if outside(&file.path) { OUTSIDE } else { "" };
                let mut line = file_line(file, "  ", mark, w.saturating_sub(width(note)), theme);
                line.spans.push(Span::styled(note, theme.warning()));
                out.push(line);
            }
            for path in plan.changed_outside.iter().filter(|p| !plan.files.iter().any(|f| &f.path == *p)) {
                let path = fit(&clean(path), w.saturating_sub(4 + width(OUTSIDE)).max(4));
                out.push(Line::from(vec![
                    Span::raw("  "),
                    Span::styled("⚠ ", theme.warning()),
                    Span::raw(path),
                    Span::styled(OUTSIDE, theme.warning()),
                ]));
            }
            if !plan.left_out.is_empty() {
                out.push(Line::styled("Left out (never restored, never deleted):", theme.strong()));
            }
            for left in &plan.left_out {
                let reason = fit(&clean(&left.reason), w / 2);
                let path = fit(&clean(&left.path), w.saturating_sub(6 + width(&reason)).max(4));
                out.push(Line::from(vec![
                    Span::raw("    "),
                    Span::raw(path),
                    Span::raw("  "),
                    Span::styled(reason, theme.dim()),
                ]));
            }
        }
        if plan.what.conversation() {
            let n = plan.messages_dropped;
            let messages = if n == 1 { "message" } else { "messages" };
            let mut text = format!("The conversation drops {n} {messages}");
            if plan.prompt.is_some() {
                text.push_str("; the prompt goes back into the composer");
            }
            out.extend(wrap_marked(&format!("{text}."), w).into_iter().map(|r| Line::styled(r, theme.text())));
        }
        out
    }

    fn choice_rows(&self, w: usize, theme: &Theme) -> Vec<Line<'static>> {
        let mut out = Vec::new();
        for (i, choice) in self.choices.iter().enumerate() {
            out.extend(choice_lines(
                &self.key_of(*choice).to_string(),
                &self.label(*choice),
                i == self.selected,
                w,
                theme,
            ));
        }
        out
    }

    pub fn desired_height(&self, width: u16) -> u16 {
        let w = width.saturating_sub(2) as usize;
        let body = self.body(w, &Theme::PLAIN).len().min(MAX_BODY);
        (2 + body + 1 + self.choice_rows(w, &Theme::PLAIN).len()) as u16
    }

    pub fn render(&self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        if area.width == 0 || area.height == 0 {
            return;
        }
        let inner = framed(area, buf, &self.title, theme);
        if inner.width == 0 || inner.height == 0 {
            return;
        }
        let w = inner.width as usize;
        let choices = self.choice_rows(w, theme);
        let rows = inner.height as usize;
        let choices_h = choices.len().min(rows);
        let room = rows - choices_h;
        let body = self.body(w, theme);
        let mut top: Vec<Line<'static>> = if body.len() < room {
            let mut all = body;
            all.push(Line::default());
            all
        } else {
            // The list scrolls: a row says how much is above or below and how to see it.
            let list = room.saturating_sub(1).max(1);
            self.room.set(list);
            let start = self.scroll.min(body.len().saturating_sub(list));
            let below = body.len().saturating_sub(start + list);
            let mut shown: Vec<Line<'static>> = body.into_iter().skip(start).take(list).collect();
            if room > list {
                shown.push(hint(&fit(&format!("  … {start} rows above, {below} below · PgUp/PgDn scroll"), w), theme));
            }
            shown
        };
        top.truncate(room);
        let top_h = top.len() as u16;
        draw(top, Rect { height: top_h, ..inner }, buf);
        draw(choices, Rect { y: inner.y + top_h, height: choices_h as u16, ..inner }, buf);
    }
}

#[cfg(test)]
#[path = "rewind_tests.rs"]
mod tests;
