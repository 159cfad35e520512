//! The help panel: the key bindings, then the slash commands the front end passes in.
//! Command names and descriptions may come from plugins, so they are cleaned.

use ratatui::text::{Line, Span};

use crate::dialog::clean;
use crate::style::Theme;

const KEYS: [(&str, &str); 13] = [
    ("Enter", "send"),
    ("Shift+Enter, Ctrl+J", "new line"),
    ("↑ / ↓", "history"),
    ("@", "attach a file"),
    ("/", "commands"),
    ("Esc", "interrupt"),
    ("Esc Esc", "rewind (idle, empty composer)"),
    ("Ctrl+C twice", "quit"),
    ("Shift+Tab", "cycle the approval mode"),
    ("Ctrl+O", "a tool's whole output"),
    ("u (in the Ctrl+O pager)", "undo that call's changes"),
    ("PgUp / PgDn, Shift+↑ / ↓", "scroll a dialog"),
    ("↑ / ↓, Enter", "choose in a dialog"),
];

/// The help panel's lines: `commands` are `(name, description)`, the name with or without
/// its leading `/`.
pub fn lines(commands: &[(&str, &str)], theme: &Theme) -> Vec<Line<'static>> {
    let key_w = KEYS.iter().map(|(k, _)| crate::dialog::width(k)).max().unwrap_or(0);
    let mut out = vec![Line::styled("Keys", theme.strong())];
    for (key, what) in KEYS {
        let pad = " ".repeat(key_w - crate::dialog::width(key) + 2);
        out.push(Line::from(vec![Span::raw("  "), Span::styled(key, theme.accent()), Span::raw(pad), Span::raw(what)]));
    }
    out.push(Line::default());
    out.push(Line::styled("Commands", theme.strong()));
    if commands.is_empty() {
        out.push(Line::styled("  (none)", theme.dim()));
    }
    let names: Vec<String> = commands.iter().map(|(n, _)| format!("/{}", clean(n.trim_start_matches('/')))).collect();
    let name_w = names.iter().map(|n| crate::dialog::width(n)).max().unwrap_or(0).min(24);
    for (name, (_, what)) in names.into_iter().zip(commands) {
        let pad = " ".repeat(name_w.saturating_sub(crate::dialog::width(&name)) + 2);
        out.push(Line::from(vec![
            Span::raw("  "),
            Span::styled(name, theme.accent()),
            Span::raw(pad),
            Span::styled(clean(what), theme.text()),
        ]));
    }
    out
}

#[cfg(test)]
mod tests {
    use ratatui::buffer::Buffer;
    use ratatui::layout::Rect;
    use ratatui::style::Color;

    use super::*;
    use crate::dialog::{HOSTILE, assert_no_controls, buffer_text, draw};

    const COMMANDS: [(&str, &str); 5] = [
        ("/help", "show this help"),
        ("/model", "switch the model"),
        ("/mode", "set the approval mode"),
        ("/resume", "resume an earlier session"),
        ("new", "start a new session"),
    ];

    fn render(theme: &Theme, commands: &[(&str, &str)]) -> Buffer {
        let mut buf = Buffer::empty(Rect::new(0, 0, 60, 22));
        draw(lines(commands, theme), buf.area, &mut buf);
        buf
    }

    #[test]
    fn help_snapshot() {
        insta::assert_snapshot!(buffer_text(&render(&Theme::COLOR, &COMMANDS)));
    }

    #[test]
    fn keys_are_accented_unless_no_color() {
        let buf = render(&Theme::COLOR, &COMMANDS);
        assert_eq!(buf[(2, 1)].fg, Color::Magenta);
        assert_eq!(buf[(2, 1)].symbol(), "E");
        let plain = render(&Theme::PLAIN, &COMMANDS);
        assert!(plain.content().iter().all(|c| c.fg == Color::Reset));
    }

    #[test]
    fn hostile_command_text_is_cleaned() {
        let all: Vec<Line> = lines(&[(HOSTILE, HOSTILE)], &Theme::COLOR);
        assert!(all.iter().flat_map(|l| l.spans.iter()).all(|s| !s.content.chars().any(char::is_control)));
        assert_no_controls(&render(&Theme::COLOR, &[(HOSTILE, HOSTILE)]));
    }
}
