//! The colours and emphasis every widget takes from: one [`Theme`], colourless when
//! `NO_COLOR` is set (https://no-color.org: any non-empty value). A colourless theme keeps
//! bold, dim, italic and reverse, which carry meaning without colour.

use ratatui::style::{Color, Modifier, Style};

/// The styles of the UI. Widgets take a `&Theme` and never build colours of their own, so
/// `NO_COLOR` holds everywhere.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Theme {
    pub color: bool,
}

impl Theme {
    /// Coloured unless `NO_COLOR` is set to a non-empty value.
    pub fn from_env() -> Self {
        let no_color = std::env::var_os("NO_COLOR").is_some_and(|v| !v.is_empty());
        Self { color: !no_color }
    }

    pub const COLOR: Self = Self { color: true };
    pub const PLAIN: Self = Self { color: false };

    /// `style` with colour `fg` when colours are on.
    fn fg(&self, fg: Color, style: Style) -> Style {
        if self.color { style.fg(fg) } else { style }
    }

    /// Plain text.
    pub fn text(&self) -> Style {
        Style::default()
    }
    /// Secondary text: thoughts, hints, costs.
    pub fn dim(&self) -> Style {
        Style::default().add_modifier(Modifier::DIM)
    }
    /// Headings, names, the selected choice.
    pub fn strong(&self) -> Style {
        Style::default().add_modifier(Modifier::BOLD)
    }
    /// The user's own words.
    pub fn user(&self) -> Style {
        self.fg(Color::Cyan, Style::default().add_modifier(Modifier::BOLD))
    }
    /// Accents: the prompt marker, links, the running spinner.
    pub fn accent(&self) -> Style {
        self.fg(Color::Magenta, Style::default())
    }
    pub fn success(&self) -> Style {
        self.fg(Color::Green, Style::default())
    }
    pub fn error(&self) -> Style {
        self.fg(Color::Red, Style::default().add_modifier(Modifier::BOLD))
    }
    pub fn warning(&self) -> Style {
        self.fg(Color::Yellow, Style::default())
    }
    /// Added lines of a diff.
    pub fn added(&self) -> Style {
        self.fg(Color::Green, Style::default())
    }
    /// Removed lines of a diff.
    pub fn removed(&self) -> Style {
        self.fg(Color::Red, Style::default())
    }
    /// Inline code and code blocks.
    pub fn code(&self) -> Style {
        self.fg(Color::LightYellow, Style::default())
    }
    /// Selected row in a list (reverse video reads without colour too).
    pub fn selected(&self) -> Style {
        Style::default().add_modifier(Modifier::REVERSED)
    }
    /// Syntax colours of code: keywords, strings, comments, numbers, types.
    pub fn keyword(&self) -> Style {
        self.fg(Color::Magenta, Style::default())
    }
    pub fn string(&self) -> Style {
        self.fg(Color::Green, Style::default())
    }
    pub fn comment(&self) -> Style {
        self.fg(Color::DarkGray, Style::default().add_modifier(Modifier::ITALIC))
    }
    pub fn number(&self) -> Style {
        self.fg(Color::Yellow, Style::default())
    }
    pub fn type_name(&self) -> Style {
        self.fg(Color::Blue, Style::default())
    }
}

impl Default for Theme {
    fn default() -> Self {
        Self::COLOR
    }
}
