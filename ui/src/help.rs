//! `/help`: the key bindings and the slash commands.

use ratatui::text::{Line, Span};

use crate::style::Theme;

const KEYS: &[(&str, &str)] = &[
    ("Enter", "send"),
    ("Shift+Enter, Ctrl+J", "new line"),
    ("↑ / ↓", "earlier prompts (kept across runs)"),
    ("@path", "attach a workspace file (Tab completes)"),
    ("/", "commands (Tab completes)"),
    ("Esc", "interrupt the running turn; close a popup"),
    ("Ctrl+C", "clear the input, interrupt; twice to quit"),
    ("Shift+Tab", "cycle the approval mode"),
    ("PgUp / PgDn", "scroll a dialog's diff or command"),
    ("y a s t e n c", "approval answers (shown in the dialog)"),
];

pub fn lines(commands: &[(&str, &str)], theme: &Theme) -> Vec<Line<'static>> {
    let mut out = vec![Line::from(Span::styled("Keys".to_string(), theme.strong()))];
    for (key, what) in KEYS {
        out.push(Line::from(vec![Span::styled(format!("  {key:<22}"), theme.accent()), Span::raw(what.to_string())]));
    }
    out.push(Line::from(Span::styled("Commands".to_string(), theme.strong())));
    for (name, what) in commands {
        out.push(Line::from(vec![Span::styled(format!("  /{name:<21}"), theme.accent()), Span::raw(what.to_string())]));
    }
    out
}
