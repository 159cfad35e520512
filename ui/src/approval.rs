//! The approval dialog: what a call asks (a diff, a command, a prompt), exactly what its
//! sandbox will hold, and the answers, each with a one-key shortcut and its scope spelled out.
//!
//! Invariants: the choices and the sandbox section are always drawn (the content area above
//! them shrinks and scrolls); Esc never allows anything (it cancels the batch, or leaves the
//! refusal input); every string from the model or a plugin is a `Shown` (the question as the
//! protocol shows it), cleaned again as one line where it is drawn, so a path or a command
//! cannot draw a line of its own. A command line shows first, above everything that
//! scrolls, every command it runs, riskiest first, and the warnings; the whole line follows
//! in a box, wrapped, never cut; "always" is offered only when the view says so.

use std::cell::Cell;

use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Widget};

use crate::dialog::{choice_lines, clean, draw, field, fit, hint, wrap_marked};
use crate::style::Theme;
use crate::view::{ApprovalChoice, ApprovalView, CommandRow, Confirm, FileChange, Risk, Sandbox, Shown};

/// What the user answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApprovalResult {
    Choose(ApprovalChoice),
    /// Refused, with what to tell the model (`None` when left empty).
    Refuse {
        reason: Option<String>,
    },
}

/// The approval dialog of one call.
#[derive(Debug)]
pub struct ApprovalDialog {
    view: ApprovalView,
    selected: usize,
    scroll: usize,
    /// `Some` while the refusal reason is being typed.
    reason: Option<String>,
    /// Rows of the scrolling content at the last render, for paging and clamping.
    page: Cell<usize>,
    max_scroll: Cell<usize>,
}

/// Most diff lines computed for a preview; the rest is summed up in one line.
const MAX_DIFF_LINES: usize = 5000;

impl ApprovalDialog {
    pub fn new(view: ApprovalView) -> Self {
        Self { view, selected: 0, scroll: 0, reason: None, page: Cell::new(1), max_scroll: Cell::new(usize::MAX) }
    }

    pub fn view(&self) -> &ApprovalView {
        &self.view
    }

    /// The answers offered, in the order shown (`Modify` only when the call is editable).
    pub fn choices(&self) -> Vec<ApprovalChoice> {
        use ApprovalChoice::*;
        let mut out = vec![Once];
        if self.view.question.always {
            out.extend([AlwaysForSession, AlwaysSaved]);
        }
        out.push(ToolForSession);
        if self.view.question.editable {
            out.push(Modify);
        }
        out.extend([Refuse, CancelBatch]);
        out
    }

    /// Handles one key; returns the answer once there is one.
    pub fn handle_key(&mut self, key: KeyEvent) -> Option<ApprovalResult> {
        if key.kind == KeyEventKind::Release {
            return None;
        }
        if let Some(reason) = self.reason.as_mut() {
            match key.code {
                KeyCode::Enter => {
                    let text = reason.trim().to_string();
                    return Some(ApprovalResult::Refuse { reason: (!text.is_empty()).then_some(text) });
                }
                KeyCode::Esc => self.reason = None,
                KeyCode::Backspace => {
                    reason.pop();
                }
                KeyCode::Char(c) if !key.modifiers.intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) => {
                    reason.push(c)
                }
                _ => {}
            }
            return None;
        }
        let choices = self.choices();
        let shift = key.modifiers.contains(KeyModifiers::SHIFT);
        match key.code {
            KeyCode::Up if shift => self.scroll_by(-1),
            KeyCode::Down if shift => self.scroll_by(1),
            KeyCode::Up => self.selected = self.selected.checked_sub(1).unwrap_or(choices.len() - 1),
            KeyCode::Down => self.selected = (self.selected + 1) % choices.len(),
            KeyCode::PageUp => self.scroll_by(-(self.page.get().max(1) as isize)),
            KeyCode::PageDown => self.scroll_by(self.page.get().max(1) as isize),
            KeyCode::Home => self.scroll = 0,
            KeyCode::End => self.scroll = self.max_scroll.get().min(MAX_DIFF_LINES),
            KeyCode::Enter => return self.choose(choices[self.selected.min(choices.len() - 1)]),
            KeyCode::Esc => return Some(ApprovalResult::Choose(ApprovalChoice::CancelBatch)),
            KeyCode::Char(c) if !key.modifiers.intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) => {
                let choice = choices.iter().copied().find(|ch| shortcut(*ch) == c.to_ascii_lowercase())?;
                return self.choose(choice);
            }
            _ => {}
        }
        None
    }

    fn choose(&mut self, choice: ApprovalChoice) -> Option<ApprovalResult> {
        if choice == ApprovalChoice::Refuse {
            self.reason = Some(String::new());
            return None;
        }
        Some(ApprovalResult::Choose(choice))
    }

    fn scroll_by(&mut self, delta: isize) {
        let next = self.scroll.saturating_add_signed(delta);
        self.scroll = next.min(self.max_scroll.get());
    }

    /// The height that shows everything without scrolling (the caller caps it).
    pub fn desired_height(&self, width: u16) -> u16 {
        let inner = width.saturating_sub(2) as usize;
        let (head, body) = self.content(inner, &Theme::PLAIN);
        let total = 2
            + 1
            + head.len()
            + body.len()
            + self.sandbox_lines(inner, &Theme::PLAIN).len()
            + self.bottom_lines(inner, &Theme::PLAIN).len();
        total.min(u16::MAX as usize) as u16
    }

    pub fn render(&self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        if area.width == 0 || area.height == 0 {
            return;
        }
        let mut title = format!(" Allow `{}`? ", fit(&clean(&self.view.question.tool), 30));
        if self.view.queued > 0 {
            let s = if self.view.queued == 1 { "" } else { "s" };
            title.push_str(&format!("· {} more call{s} waiting ", self.view.queued));
        }
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme.accent())
            .title(Span::styled(title, theme.strong()));
        let inner = block.inner(area);
        block.render(area, buf);
        if inner.width == 0 || inner.height == 0 {
            return;
        }
        let w = inner.width as usize;
        let rows = inner.height as usize;
        // Allot rows from the bottom up: the answers first, then the sandbox, then the rest.
        let bottom = self.bottom_lines(w, theme);
        let bottom_h = bottom.len().min(rows);
        let description = Line::styled(fit(&clean(&self.view.question.description), w), theme.strong());
        let (head, body) = self.content(w, theme);
        // A command line's commands come before the plugin's description, and its header and
        // riskiest command keep their rows even when the sandbox must give up some.
        let commands_first = matches!(self.view.question.confirm, Confirm::Exec { .. }) && !head.is_empty();
        let reserved = if commands_first { head.len().min(2).min(rows - bottom_h) } else { 0 };
        let sandbox = self.sandbox_lines(w, theme);
        let sandbox_h = sandbox.len().min(rows - bottom_h - reserved);
        let mut top = Vec::with_capacity(head.len() + 1);
        if commands_first {
            top.extend(head);
            top.push(description);
        } else {
            top.push(description);
            top.extend(head);
        }
        let room = rows - bottom_h - sandbox_h;
        top.truncate(room);
        let body_room = room - top.len();
        top.extend(self.visible_body(body, body_room, w, theme));
        // Sections follow each other; what is left over stays blank at the bottom.
        let top_room = top.len();
        let mut y = inner.y;
        for (lines, h) in [(top, top_room), (sandbox, sandbox_h), (bottom, bottom_h)] {
            draw(lines, Rect { x: inner.x, y, width: inner.width, height: h as u16 }, buf);
            y += h as u16;
        }
    }

    /// The rows of `body` that fit in `room`, with a "lines a–b of n" row when it scrolls.
    fn visible_body(&self, body: Vec<Line<'static>>, room: usize, w: usize, theme: &Theme) -> Vec<Line<'static>> {
        if body.len() <= room {
            self.page.set(room.max(1));
            self.max_scroll.set(0);
            return body;
        }
        let page = room.saturating_sub(1);
        let max_scroll = body.len() - page;
        self.page.set(page.max(1));
        self.max_scroll.set(max_scroll);
        if page == 0 {
            return Vec::new();
        }
        let start = self.scroll.min(max_scroll);
        let end = start + page;
        let mut out = vec![hint(
            &fit(&format!("lines {}–{} of {} · PgUp/PgDn, Shift+↑/↓ scroll", start + 1, end, body.len()), w),
            theme,
        )];
        out.extend(body.into_iter().skip(start).take(page));
        out
    }

    /// The fixed head and the scrolling body of what the call asks.
    fn content(&self, w: usize, theme: &Theme) -> (Vec<Line<'static>>, Vec<Line<'static>>) {
        match &self.view.question.confirm {
            Confirm::Edit(diff) => {
                let what = if diff.is_new_file { "create" } else { "edit" };
                let head = field(what, &diff.path, theme.strong(), w, theme);
                (head, diff_lines(diff, w as u16, theme, MAX_DIFF_LINES))
            }
            Confirm::Exec { command, root_command, directory, risk, commands, rows, warnings }
                if !commands.is_empty() =>
            {
                let _ = (command, root_command, risk);
                let head = command_rows(commands, warnings, w, theme);
                let mut body = line_box(rows, w, theme);
                body.extend(field("folder", directory, theme.text(), w, theme));
                (head, body)
            }
            Confirm::Exec { command, root_command, directory, risk, .. } => {
                let mut body = command_box(command, w, theme);
                body.extend(field("root command", root_command, theme.strong(), w, theme));
                body.extend(field("folder", directory, theme.text(), w, theme));
                body.extend(field("risk", risk.as_str(), risk_style(*risk, theme), w, theme));
                (Vec::new(), body)
            }
            Confirm::Info { prompt, urls } => {
                let mut body: Vec<Line<'static>> = Vec::new();
                // A gutter marks the prompt's rows as quoted text, so a line of it can never
                // pass for one of the dialog's own rows.
                for line in prompt.lines() {
                    for row in wrap_marked(&clean(line), w.saturating_sub(2)) {
                        body.push(Line::from(vec![Span::styled("│ ", theme.dim()), Span::raw(row)]));
                    }
                }
                for url in urls {
                    let rows = wrap_marked(&format!("• {}", clean(url)), w);
                    body.extend(rows.into_iter().map(|r| Line::styled(r, theme.accent())));
                }
                (Vec::new(), body)
            }
        }
    }

    fn sandbox_lines(&self, w: usize, theme: &Theme) -> Vec<Line<'static>> {
        sandbox_lines(&self.view.question.sandbox, w, theme)
    }

    fn bottom_lines(&self, w: usize, theme: &Theme) -> Vec<Line<'static>> {
        if let Some(reason) = &self.reason {
            let text = clean(reason);
            // Show the end of a long reason: that is where the cursor is.
            let room = w.saturating_sub(3);
            let shown: String = {
                let chars: Vec<char> = text.chars().collect();
                let mut start = chars.len();
                let mut used = 0;
                while start > 0 && used + crate::dialog::width(&chars[start - 1].to_string()) <= room {
                    start -= 1;
                    used += crate::dialog::width(&chars[start].to_string());
                }
                chars[start..].iter().collect()
            };
            return vec![
                Line::styled(fit("Refuse: tell the model why (optional), enter to send", w), theme.strong()),
                Line::from(vec![
                    Span::styled("› ", theme.accent()),
                    Span::raw(shown),
                    Span::styled("▏", theme.accent()),
                ]),
                hint(&fit("esc: back to the choices", w), theme),
            ];
        }
        let scope = clean(&self.view.question.scope);
        let tool = clean(&self.view.question.tool);
        let mut out = Vec::new();
        for (i, c) in self.choices().into_iter().enumerate() {
            let key = if c == ApprovalChoice::CancelBatch { "c/⎋".to_string() } else { shortcut(c).to_string() };
            out.extend(choice_lines(&key, &label(c, &scope, &tool), i == self.selected, w, theme));
        }
        out
    }
}

fn shortcut(choice: ApprovalChoice) -> char {
    match choice {
        ApprovalChoice::Once => 'y',
        ApprovalChoice::AlwaysForSession => 'a',
        ApprovalChoice::AlwaysSaved => 's',
        ApprovalChoice::ToolForSession => 't',
        ApprovalChoice::Modify => 'e',
        ApprovalChoice::Refuse => 'n',
        ApprovalChoice::CancelBatch => 'c',
    }
}

fn label(choice: ApprovalChoice, scope: &str, tool: &str) -> String {
    match choice {
        ApprovalChoice::Once => "Allow once".into(),
        ApprovalChoice::AlwaysForSession => format!("Allow always for this session — {scope}"),
        ApprovalChoice::AlwaysSaved => format!("Allow always, saved in policy.toml — {scope}"),
        ApprovalChoice::ToolForSession => format!("Allow every `{tool}` call this session"),
        ApprovalChoice::Modify => "Modify in $EDITOR".into(),
        ApprovalChoice::Refuse => "Refuse (tell the model why)".into(),
        ApprovalChoice::CancelBatch => "Cancel this call and the rest of its batch".into(),
    }
}

fn risk_style(risk: Risk, theme: &Theme) -> Style {
    match risk {
        Risk::High => theme.error(),
        Risk::Medium => theme.warning(),
        Risk::Low => theme.success(),
    }
}

/// The command in a box; a row too long is wrapped with a `↪` marker, never silently.
fn command_box(command: &str, w: usize, theme: &Theme) -> Vec<Line<'static>> {
    let inner = w.saturating_sub(4).max(1);
    boxed(wrap_marked(&clean(command), inner), w, theme)
}

/// `rows` (each at most `w - 4` wide) in a box.
fn boxed(rows: Vec<String>, w: usize, theme: &Theme) -> Vec<Line<'static>> {
    let inner = w.saturating_sub(4).max(1);
    let rule = "─".repeat(w.saturating_sub(2));
    let mut out = vec![Line::styled(fit(&format!("┌{rule}┐"), w), theme.dim())];
    for row in rows {
        let pad = inner.saturating_sub(crate::dialog::width(&row));
        out.push(Line::from(vec![
            Span::styled("│ ", theme.dim()),
            Span::styled(row, theme.code()),
            Span::raw(" ".repeat(pad)),
            Span::styled(" │", theme.dim()),
        ]));
    }
    out.push(Line::styled(fit(&format!("└{rule}┘"), w), theme.dim()));
    out
}

/// The commands of a line, riskiest first, then the warnings: the part of the dialog that never
/// scrolls away.
fn command_rows(commands: &[CommandRow], warnings: &[Shown], w: usize, theme: &Theme) -> Vec<Line<'static>> {
    let s = if commands.len() == 1 { "" } else { "s" };
    let mut out =
        vec![Line::styled(fit(&format!("Runs {} command{s}, riskiest first:", commands.len()), w), theme.strong())];
    for row in commands {
        let allowed = if row.allowed { " · allowed by a rule" } else { "" };
        let text = format!("{} — {}{allowed}", clean(&row.text), clean(&row.why));
        let label = format!("{:<6} ", row.risk.as_str());
        for (i, piece) in wrap_marked(&text, w.saturating_sub(label.len()).max(8)).into_iter().enumerate() {
            let lead = if i == 0 {
                Span::styled(label.clone(), risk_style(row.risk, theme))
            } else {
                Span::raw(" ".repeat(label.len()))
            };
            out.push(Line::from(vec![lead, Span::styled(piece, theme.code())]));
        }
    }
    for warning in warnings {
        for piece in wrap_marked(&format!("⚠ {}", clean(warning)), w) {
            out.push(Line::styled(piece, theme.warning()));
        }
    }
    out
}

/// The whole line in a box, each of its rows wrapped with a `↪` marker, never cut.
fn line_box(rows: &[Shown], w: usize, theme: &Theme) -> Vec<Line<'static>> {
    let inner = w.saturating_sub(4).max(1);
    boxed(rows.iter().flat_map(|row| wrap_marked(&clean(row), inner)).collect(), w, theme)
}

/// "This call's sandbox will hold:" and its folders, network, environment and limits.
pub(crate) fn sandbox_lines(sb: &Sandbox, w: usize, theme: &Theme) -> Vec<Line<'static>> {
    let mut out = vec![Line::styled(fit("This call's sandbox will hold:", w), theme.strong())];
    if sb.folders.is_empty() {
        out.push(Line::from(fit("  no folders", w)));
    }
    for f in &sb.folders {
        let (mode, style) = if f.writable { ("read-write", theme.warning()) } else { ("read-only ", theme.success()) };
        for (i, row) in wrap_marked(&clean(&f.path), w.saturating_sub(2 + 10 + 1).max(8)).into_iter().enumerate() {
            let mode = if i == 0 { Span::styled(mode, style) } else { Span::raw("          ") };
            out.push(Line::from(vec![Span::raw("  "), mode, Span::raw(" "), Span::raw(row)]));
        }
    }
    let list = |label: &str, items: &[Shown], none: &str| {
        if items.is_empty() {
            none.to_string()
        } else {
            format!("{label} {}", items.iter().map(|s| clean(s)).collect::<Vec<_>>().join(", "))
        }
    };
    let net_style = if sb.network.is_empty() { theme.dim() } else { theme.warning() };
    for (text, style) in [
        (list("network", &sb.network, "no network"), net_style),
        (list("env", &sb.env, "no environment"), theme.text()),
    ] {
        for row in wrap_marked(&text, w.saturating_sub(2).max(8)) {
            out.push(Line::from(vec![Span::raw("  "), Span::styled(row, style)]));
        }
    }
    if let Some(commands) = &sb.commands {
        let style = if commands.contains("WITHOUT") { theme.warning() } else { theme.text() };
        for row in wrap_marked(&clean(commands), w.saturating_sub(2).max(8)) {
            out.push(Line::from(vec![Span::raw("  "), Span::styled(row, style)]));
        }
    }
    let limits =
        format!("  memory {} MiB · timeout {} s · output {}", sb.memory_mb, sb.timeout_secs, bytes(sb.output_bytes));
    out.push(Line::styled(fit(&limits, w), theme.dim()));
    out
}

fn bytes(n: u64) -> String {
    match n {
        n if n >= 1_000_000 && n % 1_000_000 == 0 => format!("{} MB", n / 1_000_000),
        n if n >= 1000 && n % 1000 == 0 => format!("{} KB", n / 1000),
        n => format!("{n} B"),
    }
}

/// A coloured unified diff of `diff`, each row fitted to `width`, at most `max` rows (then
/// one row saying how many were left out). The shared `diff` module replaces this later.
fn diff_lines(diff: &FileChange, width: u16, theme: &Theme, max: usize) -> Vec<Line<'static>> {
    let w = width as usize;
    let text = similar::TextDiff::from_lines(diff.original.as_str(), diff.proposed.as_str());
    let mut out = Vec::new();
    let mut total = 0usize;
    for group in text.grouped_ops(3) {
        let (Some(first), Some(last)) = (group.first(), group.last()) else { continue };
        let (old, new) = (first.old_range().start..last.old_range().end, first.new_range().start..last.new_range().end);
        let header = format!("@@ -{},{} +{},{} @@", old.start + 1, old.len(), new.start + 1, new.len());
        total += 1;
        if out.len() < max {
            out.push(Line::styled(fit(&header, w), theme.accent()));
        }
        for op in &group {
            for change in text.iter_changes(op) {
                total += 1;
                if out.len() >= max {
                    continue;
                }
                let (sign, style) = match change.tag() {
                    similar::ChangeTag::Delete => ('-', theme.removed()),
                    similar::ChangeTag::Insert => ('+', theme.added()),
                    similar::ChangeTag::Equal => (' ', theme.text()),
                };
                let body = clean(&change.value().trim_end_matches(['\n', '\r']).replace('\t', "    "));
                out.push(Line::styled(fit(&format!("{sign}{body}"), w), style));
            }
        }
    }
    if total > out.len() {
        out.push(hint(&format!("… {} more diff lines not shown", total - out.len()), theme));
    }
    if out.is_empty() {
        out.push(hint("(no change)", theme));
    }
    out
}

#[cfg(test)]
#[path = "approval_tests.rs"]
mod tests;
