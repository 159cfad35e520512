//! The approval dialog: what a call will do (an edit's diff, an exec's command, root command,
//! folder and risk, an info prompt's text and URLs), exactly what its sandbox will hold if
//! allowed (folders and whether writable, network, environment, limits), and the answers,
//! each with a one-key shortcut and the scope of "always" spelled out.
//!
//! Invariants: the choices and the sandbox are always drawn (the diff or command area
//! shrinks and scrolls instead); Esc never allows anything (it cancels the batch); every
//! string is shown through [`clean`], one row per row, so no text from a model or a plugin
//! can draw a line that looks like a choice.

use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::layout::Rect;
use ratatui::style::Style;
use ratatui::text::{Line, Span};
use ratatui::widgets::Widget;

use crate::composer::clean;
use crate::diff::cut;
use crate::style::Theme;
use crate::view::{ApprovalChoice, ApprovalView, Confirm, SandboxView};

/// What the user answered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ApprovalResult {
    Choose(ApprovalChoice),
    /// Refused, with what the model is told (none: just that it was refused).
    Refuse {
        reason: Option<String>,
    },
}

/// The dialog's state.
#[derive(Debug)]
pub struct ApprovalDialog {
    view: ApprovalView,
    selected: usize,
    /// Scroll of the diff or command area.
    scroll: usize,
    /// The refusal reason being typed, once Refuse was chosen.
    reason: Option<String>,
}

impl ApprovalDialog {
    pub fn new(view: ApprovalView) -> Self {
        Self { view, selected: 0, scroll: 0, reason: None }
    }

    pub fn view(&self) -> &ApprovalView {
        &self.view
    }

    /// The answers offered, in order (Modify only for editable calls).
    pub fn choices(&self) -> Vec<ApprovalChoice> {
        let mut choices = vec![ApprovalChoice::Once, ApprovalChoice::AlwaysForSession, ApprovalChoice::AlwaysSaved];
        choices.push(ApprovalChoice::ToolForSession);
        if self.view.editable {
            choices.push(ApprovalChoice::Modify);
        }
        choices.push(ApprovalChoice::Refuse);
        choices.push(ApprovalChoice::CancelBatch);
        choices
    }

    pub fn handle_key(&mut self, key: KeyEvent) -> Option<ApprovalResult> {
        if let Some(reason) = &mut self.reason {
            match key.code {
                KeyCode::Enter => {
                    let reason = reason.trim().to_string();
                    return Some(ApprovalResult::Refuse { reason: (!reason.is_empty()).then_some(reason) });
                }
                KeyCode::Esc => self.reason = None,
                KeyCode::Backspace => {
                    reason.pop();
                }
                KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) && reason.chars().count() < 500 => {
                    reason.push(c)
                }
                _ => {}
            }
            return None;
        }
        let choices = self.choices();
        let chosen = match key.code {
            KeyCode::Char('y') => Some(ApprovalChoice::Once),
            KeyCode::Char('a') => Some(ApprovalChoice::AlwaysForSession),
            KeyCode::Char('s') => Some(ApprovalChoice::AlwaysSaved),
            KeyCode::Char('t') => Some(ApprovalChoice::ToolForSession),
            KeyCode::Char('e') if self.view.editable => Some(ApprovalChoice::Modify),
            KeyCode::Char('n') => Some(ApprovalChoice::Refuse),
            KeyCode::Char('c') | KeyCode::Esc => Some(ApprovalChoice::CancelBatch),
            KeyCode::Enter => choices.get(self.selected).copied(),
            KeyCode::Up => {
                self.selected = (self.selected + choices.len() - 1) % choices.len();
                None
            }
            KeyCode::Down | KeyCode::Tab => {
                self.selected = (self.selected + 1) % choices.len();
                None
            }
            KeyCode::PageUp => {
                self.scroll = self.scroll.saturating_sub(10);
                None
            }
            KeyCode::PageDown => {
                self.scroll += 10;
                None
            }
            _ => None,
        };
        match chosen {
            Some(ApprovalChoice::Refuse) => {
                self.reason = Some(String::new());
                None
            }
            Some(choice) => Some(ApprovalResult::Choose(choice)),
            None => None,
        }
    }

    /// Rows the dialog wants: all of its content.
    pub fn desired_height(&self, width: u16) -> u16 {
        let theme = Theme::PLAIN;
        (2 + self.body(width, &theme).len()
            + self.sandbox_lines(width, &theme).len()
            + self.choice_lines(&theme).len()
            + 1)
        .min(usize::from(u16::MAX)) as u16
    }

    pub fn render(&self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        if area.width == 0 || area.height == 0 {
            return;
        }
        let width = area.width;
        let mut top = vec![Line::from(Span::styled("─".repeat(usize::from(width)), theme.dim()))];
        let queued =
            if self.view.queued > 0 { format!("  ({} more waiting)", self.view.queued) } else { String::new() };
        top.push(Line::from(vec![
            Span::styled(format!("Allow {}", clean(&self.view.tool)), theme.strong().patch(theme.warning())),
            Span::styled(format!(": {}", clean(&self.view.description)), theme.text()),
            Span::styled(queued, theme.dim()),
        ]));
        let sandbox = self.sandbox_lines(width, theme);
        let choices = self.choice_lines(theme);
        let fixed = top.len() + sandbox.len() + choices.len();
        let body = self.body(width, theme);
        let room = usize::from(area.height).saturating_sub(fixed);
        let scroll = self.scroll.min(body.len().saturating_sub(room));
        let mut shown: Vec<Line<'static>> = body.iter().skip(scroll).take(room).cloned().collect();
        if body.len() > room && room > 0 {
            let note = format!("  lines {}–{} of {} · PgUp/PgDn", scroll + 1, scroll + shown.len(), body.len());
            if let Some(last) = shown.last_mut() {
                *last = Line::from(Span::styled(note, theme.dim()));
            }
        }
        let mut lines = top;
        lines.extend(shown);
        lines.extend(sandbox);
        lines.extend(choices);
        // When even that does not fit, the choices win: they are drawn from the bottom up.
        let skip = lines.len().saturating_sub(usize::from(area.height));
        let start = if skip > 0 { lines.len() - usize::from(area.height) } else { 0 };
        for (i, line) in lines.into_iter().skip(start).enumerate() {
            line.render(Rect::new(area.x, area.y + i as u16, area.width, 1), buf);
        }
    }

    /// What the call will do.
    fn body(&self, width: u16, theme: &Theme) -> Vec<Line<'static>> {
        let w = usize::from(width.max(10));
        let mut out = Vec::new();
        match &self.view.confirm {
            Confirm::Edit(diff) => out.extend(crate::diff::lines(diff, width, theme, 400)),
            Confirm::Exec { command, root_command, directory, risk } => {
                let risk_style = match risk.as_str() {
                    "high" => theme.error(),
                    "medium" => theme.warning(),
                    _ => theme.success(),
                };
                for (i, line) in command.split('\n').enumerate() {
                    let marker = if i == 0 { "$ " } else { "  " };
                    for (j, row) in
                        crate::transcript::wrap_words(&clean(line), w.saturating_sub(4)).into_iter().enumerate()
                    {
                        let lead = if j == 0 { marker } else { "↪ " };
                        out.push(Line::from(vec![
                            Span::styled(lead.to_string(), theme.dim()),
                            Span::styled(row, theme.code()),
                        ]));
                    }
                }
                out.push(Line::from(vec![
                    Span::styled("root command ".to_string(), theme.dim()),
                    Span::styled(clean(root_command), theme.strong()),
                    Span::styled(" · in ".to_string(), theme.dim()),
                    Span::raw(cut(&clean(directory), w / 2)),
                    Span::styled(" · risk ".to_string(), theme.dim()),
                    Span::styled(clean(risk), risk_style),
                ]));
            }
            Confirm::Info { prompt, urls } => {
                for line in prompt.split('\n') {
                    for row in crate::transcript::wrap_words(&clean(line), w) {
                        out.push(Line::raw(row));
                    }
                }
                for url in urls {
                    out.push(Line::from(vec![Span::raw("  "), Span::styled(cut(&clean(url), w - 2), theme.accent())]));
                }
            }
        }
        out
    }

    /// Exactly what the sandbox will hold.
    fn sandbox_lines(&self, width: u16, theme: &Theme) -> Vec<Line<'static>> {
        let w = usize::from(width.max(10));
        let SandboxView { folders, network, env, memory_mb, timeout_secs, output_bytes } = &self.view.sandbox;
        let mut out = vec![Line::from(Span::styled("This call's sandbox will hold:".to_string(), theme.strong()))];
        let item = |label: &str, text: String, style: Style| {
            Line::from(vec![
                Span::styled(format!("  {label:<8}"), theme.dim()),
                Span::styled(cut(&text, w.saturating_sub(10)), style),
            ])
        };
        if folders.is_empty() {
            out.push(item("files", "no folders".into(), theme.dim()));
        }
        for folder in folders {
            let (access, style) =
                if folder.writable { ("read-write", theme.warning()) } else { ("read-only", theme.text()) };
            out.push(item("files", format!("{} ({access})", clean(&folder.path)), style));
        }
        let net = if network.is_empty() {
            "no network".to_string()
        } else {
            network.iter().map(|n| clean(n)).collect::<Vec<_>>().join(", ")
        };
        out.push(item("network", net, if network.is_empty() { theme.dim() } else { theme.warning() }));
        let env_text = if env.is_empty() {
            "no environment".to_string()
        } else {
            env.iter().map(|n| clean(n)).collect::<Vec<_>>().join(", ")
        };
        out.push(item("env", env_text, if env.is_empty() { theme.dim() } else { theme.warning() }));
        out.push(item(
            "limits",
            format!("memory {memory_mb} MiB · timeout {timeout_secs} s · output {}", crate::card::bytes(*output_bytes)),
            theme.dim(),
        ));
        out
    }

    fn choice_lines(&self, theme: &Theme) -> Vec<Line<'static>> {
        if let Some(reason) = &self.reason {
            return vec![
                Line::from(Span::styled(
                    "Refuse: tell the model why (optional), Enter to send, Esc to go back".to_string(),
                    theme.strong(),
                )),
                Line::from(vec![
                    Span::styled("› ".to_string(), theme.accent()),
                    Span::raw(clean(reason)),
                    Span::styled("▏".to_string(), theme.accent()),
                ]),
            ];
        }
        let scope = clean(&self.view.scope);
        let tool = clean(&self.view.tool);
        self.choices()
            .into_iter()
            .enumerate()
            .map(|(i, choice)| {
                let (key, text) = match choice {
                    ApprovalChoice::Once => ("y", "Allow once".to_string()),
                    ApprovalChoice::AlwaysForSession => ("a", format!("Allow always this session: {scope}")),
                    ApprovalChoice::AlwaysSaved => ("s", format!("Allow always, saved in policy.toml: {scope}")),
                    ApprovalChoice::ToolForSession => ("t", format!("Allow every `{tool}` call this session")),
                    ApprovalChoice::Modify => ("e", "Modify in $EDITOR, then run it".to_string()),
                    ApprovalChoice::Refuse => ("n", "Refuse (tell the model why)".to_string()),
                    ApprovalChoice::CancelBatch => {
                        ("c", "Cancel this call and the rest of its batch (Esc)".to_string())
                    }
                };
                let style = if i == self.selected { theme.selected() } else { theme.text() };
                Line::from(vec![Span::styled(format!(" {key} "), theme.accent()), Span::styled(text, style)])
            })
            .collect()
    }
}

#[cfg(test)]
#[path = "approval_tests.rs"]
mod tests;
