//! STAND-IN (replaced by helper ui-render's module at merge).
use crate::style::Theme;
use ratatui::text::Line;

pub fn render(source: &str, _width: u16, _theme: &Theme) -> Vec<Line<'static>> {
    source.lines().map(|l| Line::raw(l.to_string())).collect()
}

#[derive(Debug, Default)]
pub struct Stream {
    text: String,
    taken: usize,
}

impl Stream {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn push(&mut self, delta: &str) {
        self.text.push_str(delta);
    }
    pub fn take_stable(&mut self, width: u16, theme: &Theme) -> Vec<Line<'static>> {
        let Some(end) = self.text.rfind('\n') else { return Vec::new() };
        let lines = render(&self.text[self.taken..end], width, theme);
        self.taken = end + 1;
        lines
    }
    pub fn tail(&self, width: u16, theme: &Theme) -> Vec<Line<'static>> {
        render(&self.text[self.taken..], width, theme)
    }
    pub fn finish(&mut self, width: u16, theme: &Theme) -> Vec<Line<'static>> {
        let lines = render(&self.text[self.taken..], width, theme);
        self.text.clear();
        self.taken = 0;
        lines
    }
}
