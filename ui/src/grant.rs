//! The grant prompt: a call failed because its plugin asked for something the user never
//! granted; the prompt says what, and how far a grant would reach (this call, the session,
//! or the policy file).
//!
//! Invariants: the choices are always drawn (the list of what is missing shrinks first); Esc
//! answers No; every string from the plugin is a `Shown`, cleaned again as one line where it
//! is drawn, so a line of `missing` cannot draw a choice of its own.

use ratatui::buffer::Buffer;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use ratatui::layout::Rect;
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Widget};

use crate::dialog::{choice_lines, clean, draw, hint, wrap_marked};
use crate::style::Theme;
use crate::view::{GrantChoice, GrantQuestion};

const CHOICES: [GrantChoice; 4] = [GrantChoice::ThisCall, GrantChoice::Session, GrantChoice::Always, GrantChoice::No];

/// The grant prompt of one failed call.
#[derive(Debug)]
pub struct GrantPrompt {
    view: GrantQuestion,
    selected: usize,
}

impl GrantPrompt {
    pub fn new(view: GrantQuestion) -> Self {
        Self { view, selected: 0 }
    }

    pub fn view(&self) -> &GrantQuestion {
        &self.view
    }

    /// Handles one key; returns the answer once there is one.
    pub fn handle_key(&mut self, key: KeyEvent) -> Option<GrantChoice> {
        if key.kind == KeyEventKind::Release {
            return None;
        }
        match key.code {
            KeyCode::Up => self.selected = self.selected.checked_sub(1).unwrap_or(CHOICES.len() - 1),
            KeyCode::Down => self.selected = (self.selected + 1) % CHOICES.len(),
            KeyCode::Enter => return Some(CHOICES[self.selected.min(CHOICES.len() - 1)]),
            KeyCode::Esc => return Some(GrantChoice::No),
            KeyCode::Char(c) if !key.modifiers.intersects(KeyModifiers::CONTROL | KeyModifiers::ALT) => {
                return CHOICES.into_iter().find(|ch| shortcut(*ch) == c.to_ascii_lowercase());
            }
            _ => {}
        }
        None
    }

    /// The height that shows everything (the caller caps it).
    pub fn desired_height(&self, width: u16) -> u16 {
        let w = width.saturating_sub(2) as usize;
        let total = 2 + self.question(w, &Theme::PLAIN).len() + 1 + self.choices(w, &Theme::PLAIN).len();
        total.min(u16::MAX as usize) as u16
    }

    pub fn render(&self, area: Rect, buf: &mut Buffer, theme: &Theme) {
        if area.width == 0 || area.height == 0 {
            return;
        }
        let block = Block::default()
            .borders(Borders::ALL)
            .border_style(theme.warning())
            .title(Span::styled(" Grant more? ", theme.strong()));
        let inner = block.inner(area);
        block.render(area, buf);
        if inner.width == 0 || inner.height == 0 {
            return;
        }
        let w = inner.width as usize;
        let rows = inner.height as usize;
        let choices = self.choices(w, theme);
        let choices_h = choices.len().min(rows);
        let mut top = self.question(w, theme);
        let room = rows - choices_h;
        if top.len() < room {
            top.push(Line::default());
        } else if top.len() > room {
            // Keep the question's first row, then as many missing lines as fit, then a count.
            let hidden = top.len() - room + 1;
            top.truncate(room.saturating_sub(1));
            if room > 0 {
                top.push(hint(&format!("  … {hidden} more rows not shown (make the terminal taller)"), theme));
            }
        }
        let top_h = top.len();
        draw(top, Rect { height: top_h as u16, ..inner }, buf);
        let y = inner.y + top_h as u16;
        draw(choices, Rect { y, height: choices_h as u16, ..inner }, buf);
    }

    fn question(&self, w: usize, theme: &Theme) -> Vec<Line<'static>> {
        let (tool, plugin) = (clean(&self.view.tool), clean(&self.view.plugin));
        let mut out: Vec<Line<'static>> = Vec::new();
        match &self.view.reason {
            Some(reason) => {
                let head = format!("`{tool}` (plugin {plugin}): the sandbox stopped it:");
                out.extend(wrap_marked(&head, w).into_iter().map(|r| Line::styled(r, theme.strong())));
                out.extend(
                    wrap_marked(&format!("  {}", clean(reason)), w)
                        .into_iter()
                        .map(|r| Line::styled(r, theme.warning())),
                );
                out.extend(wrap_marked("Run it again with:", w).into_iter().map(|r| Line::styled(r, theme.strong())));
            }
            None => {
                let head = format!("`{tool}` (plugin {plugin}) failed: it asked for what it was never granted:");
                out.extend(wrap_marked(&head, w).into_iter().map(|r| Line::styled(r, theme.strong())));
            }
        }
        if self.view.missing.is_empty() {
            out.push(hint("  (the plugin did not say what)", theme));
        }
        for m in &self.view.missing {
            for (i, row) in wrap_marked(&clean(m), w.saturating_sub(4).max(8)).into_iter().enumerate() {
                let lead = if i == 0 { "  • " } else { "    " };
                out.push(Line::from(vec![Span::styled(lead, theme.dim()), Span::styled(row, theme.warning())]));
            }
        }
        out
    }

    fn choices(&self, w: usize, theme: &Theme) -> Vec<Line<'static>> {
        let policy = clean(&self.view.policy_file);
        let mut out = Vec::new();
        for (i, c) in CHOICES.into_iter().enumerate() {
            let label = match c {
                GrantChoice::ThisCall => "For this call only (the sandbox reverts after it)".to_string(),
                GrantChoice::Session => "For this session".to_string(),
                GrantChoice::Always => format!("Always (written to {policy}, like `airlock plugins grant`)"),
                GrantChoice::No => "No".to_string(),
            };
            let key = if c == GrantChoice::No { "n/⎋".to_string() } else { shortcut(c).to_string() };
            out.extend(choice_lines(&key, &label, i == self.selected, w, theme));
        }
        out
    }
}

fn shortcut(choice: GrantChoice) -> char {
    match choice {
        GrantChoice::ThisCall => 'o',
        GrantChoice::Session => 's',
        GrantChoice::Always => 'a',
        GrantChoice::No => 'n',
    }
}

#[cfg(test)]
mod tests {
    use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
    use ratatui::style::{Color, Modifier};

    use super::*;
    use crate::dialog::{HOSTILE, assert_no_controls, buffer_text};

    fn view() -> GrantQuestion {
        GrantQuestion {
            id: 1,
            call_id: "c1".into(),
            reason: None,
            plugin: "notes".into(),
            tool: "save_note".into(),
            missing: vec!["read-write ./notes".into(), "https://api.notes.example:443".into()],
            policy_file: "~/.airlock/policy.toml".into(),
        }
    }

    fn render(p: &GrantPrompt, w: u16, h: u16, theme: &Theme) -> Buffer {
        let area = Rect::new(0, 0, w, h);
        let mut buf = Buffer::empty(area);
        p.render(area, &mut buf, theme);
        buf
    }

    fn key(code: KeyCode) -> KeyEvent {
        KeyEvent::new(code, KeyModifiers::NONE)
    }

    #[test]
    fn grant_prompt_snapshot() {
        let p = GrantPrompt::new(view());
        let h = p.desired_height(80);
        insta::assert_snapshot!(buffer_text(&render(&p, 80, h, &Theme::COLOR)));
    }

    /// A command the sandbox blocked: the prompt says so, and what running it again adds.
    #[test]
    fn a_blocked_command_prompt_says_what_the_sandbox_blocked() {
        let p = GrantPrompt::new(GrantQuestion {
            plugin: "run-shell-command".into(),
            tool: "run_shell_command".into(),
            missing: vec!["net https://*:*".into()],
            reason: Some("blocked by the sandbox: commands have no network".into()),
            ..view()
        });
        let h = p.desired_height(80);
        let text = buffer_text(&render(&p, 80, h, &Theme::PLAIN));
        assert!(text.contains("blocked by the sandbox: commands have no network"), "{text}");
        assert!(text.contains("Run it again with:"), "{text}");
        assert!(text.contains("net https://*:*") && text.contains("For this call only"), "{text}");
        insta::assert_snapshot!(text);
    }

    #[test]
    fn keys_answer() {
        let mut p = GrantPrompt::new(view());
        assert_eq!(p.handle_key(key(KeyCode::Char('o'))), Some(GrantChoice::ThisCall));
        assert_eq!(p.handle_key(key(KeyCode::Char('s'))), Some(GrantChoice::Session));
        assert_eq!(p.handle_key(key(KeyCode::Char('a'))), Some(GrantChoice::Always));
        assert_eq!(p.handle_key(key(KeyCode::Char('n'))), Some(GrantChoice::No));
        assert_eq!(p.handle_key(key(KeyCode::Esc)), Some(GrantChoice::No));
        assert_eq!(p.handle_key(key(KeyCode::Char('y'))), None);
        p.handle_key(key(KeyCode::Down));
        assert_eq!(p.handle_key(key(KeyCode::Enter)), Some(GrantChoice::Session));
        p.handle_key(key(KeyCode::Up));
        p.handle_key(key(KeyCode::Up));
        assert_eq!(p.handle_key(key(KeyCode::Enter)), Some(GrantChoice::No));
    }

    #[test]
    fn colours_and_no_color() {
        let p = GrantPrompt::new(view());
        let buf = render(&p, 80, 12, &Theme::COLOR);
        let text = buffer_text(&buf);
        let y = text.lines().position(|l| l.contains("read-write ./notes")).expect("missing line shown");
        let x = text.lines().nth(y).and_then(|l| l.find("read-write")).map(|i| l_chars(&text, y, i)).unwrap_or(0);
        assert_eq!(buf[(x, y as u16)].fg, Color::Yellow);
        let plain = render(&p, 80, 12, &Theme::PLAIN);
        assert!(plain.content().iter().all(|c| c.fg == Color::Reset));
        let y = buffer_text(&plain).lines().position(|l| l.contains("› o")).expect("selected row");
        assert!((0..80).any(|x| plain[(x, y as u16)].modifier.contains(Modifier::REVERSED)));
    }

    fn l_chars(text: &str, y: usize, byte: usize) -> u16 {
        text.lines().nth(y).map(|l| l[..byte].chars().count() as u16).unwrap_or(0)
    }

    #[test]
    fn hostile_plugin_text_cannot_draw_a_choice() {
        let p = GrantPrompt::new(GrantQuestion {
            plugin: HOSTILE.into(),
            tool: HOSTILE.into(),
            missing: vec![HOSTILE.into(), "x\n  o   For this call only".into()],
            policy_file: HOSTILE.into(),
            reason: Some(HOSTILE.into()),
            ..view()
        });
        let buf = render(&p, 100, 30, &Theme::COLOR);
        assert_no_controls(&buf);
        let text = buffer_text(&buf);
        let offers = text
            .lines()
            .filter_map(|l| l.strip_prefix('│'))
            .filter(|l| l.starts_with("› o ") || l.starts_with("  o "))
            .count();
        assert_eq!(offers, 1, "{text}");
        assert!(text.contains(r"x\n  o   For this call only"), "{text}");
    }

    #[test]
    fn tiny_areas_keep_the_choices() {
        let p = GrantPrompt::new(GrantQuestion {
            missing: (0..30).map(|i| format!("read-only ./dir{i}").into()).collect(),
            ..view()
        });
        for (w, h) in [(0, 0), (10, 3), (1, 1), (80, 2), (3, 30)] {
            render(&p, w, h, &Theme::COLOR);
        }
        let text = buffer_text(&render(&p, 80, 12, &Theme::PLAIN));
        assert!(text.contains("n/⎋ No") && text.contains("more rows not shown"), "{text}");
    }
}
