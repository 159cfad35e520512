//! The terminal as the TUI uses it: raw mode, bracketed paste, and an inline screen whose
//! transcript lives in the terminal's own scrollback (Codex's model, tui-anchors.md §2).
//!
//! The screen has two parts: history rows, written once and then owned by the terminal (they
//! scroll into its scrollback, where the terminal's own search and copy work), and below
//! them a live viewport that ratatui redraws (running cards, the streaming tail, the
//! composer or a dialog, the status line). History is written by printing at the bottom of
//! the screen, never through scroll regions, so every row that leaves the screen lands in the
//! scrollback on every terminal.
//!
//! One view takes the whole screen: the pager, drawn on the terminal's alternate screen so
//! that leaving it gives the main screen back as it was (Codex's overlays do the same).
//!
//! Invariants: `top + height <= rows`; rows `top..top + height` are the viewport; history
//! ends at `top`. Every frame is one synchronized update. [`restore`] puts the terminal back
//! and is safe to call any number of times, from a panic hook too.

use std::io::{self, Stdout, Write};
use std::sync::atomic::{AtomicBool, Ordering};

use crossterm::event::{DisableBracketedPaste, EnableBracketedPaste};
use crossterm::event::{KeyboardEnhancementFlags, PopKeyboardEnhancementFlags, PushKeyboardEnhancementFlags};
use crossterm::terminal::{
    BeginSynchronizedUpdate, Clear, ClearType, EndSynchronizedUpdate, EnterAlternateScreen, LeaveAlternateScreen,
};
use crossterm::{cursor, execute, queue};
use ratatui::backend::{Backend, CrosstermBackend};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;
use ratatui::widgets::Widget;
use ratatui::{Frame, Terminal, TerminalOptions, Viewport};
use unicode_width::UnicodeWidthStr;

/// The live terminal.
pub struct Screen {
    terminal: Terminal<CrosstermBackend<Stdout>>,
    cols: u16,
    rows: u16,
    /// First row of the viewport (the row after the last history row).
    top: u16,
    height: u16,
    /// The full-screen view (the pager) on the terminal's alternate screen, while it is open.
    full: Option<Terminal<CrosstermBackend<Stdout>>>,
}

/// Whether the alternate screen is on, for [`restore`] (a panic hook has no `Screen`).
static ALTERNATE: AtomicBool = AtomicBool::new(false);

impl std::fmt::Debug for Screen {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Screen {}x{} top {} height {}", self.cols, self.rows, self.top, self.height)
    }
}

/// Puts the terminal back as the shell expects it: cooked mode, no bracketed paste, the
/// keyboard protocol popped, the cursor shown. Idempotent.
pub fn restore() {
    let mut out = io::stdout();
    if ALTERNATE.swap(false, Ordering::AcqRel) {
        let _ = execute!(out, LeaveAlternateScreen);
    }
    let _ = execute!(out, PopKeyboardEnhancementFlags, DisableBracketedPaste, cursor::Show);
    let _ = crossterm::terminal::disable_raw_mode();
    let _ = out.flush();
}

impl Screen {
    /// Takes the terminal: raw mode, bracketed paste, modified keys told apart (Shift+Enter)
    /// where the terminal can. The viewport starts on the cursor's row.
    pub fn start() -> io::Result<Self> {
        crossterm::terminal::enable_raw_mode()?;
        let mut out = io::stdout();
        execute!(
            out,
            EnableBracketedPaste,
            PushKeyboardEnhancementFlags(KeyboardEnhancementFlags::DISAMBIGUATE_ESCAPE_CODES)
        )?;
        let (cols, rows) = crossterm::terminal::size()?;
        let (cols, rows) = (cols.max(1), rows.max(1));
        // Where the shell left the cursor; a terminal that does not answer gets a clean screen.
        let top = match cursor::position() {
            Ok((0, row)) => row.min(rows - 1),
            Ok((_, row)) => (row + 1).min(rows),
            Err(_) => {
                queue!(out, cursor::MoveTo(0, rows - 1))?;
                out.write_all("\n".repeat(usize::from(rows)).as_bytes())?;
                0
            }
        };
        let area = Rect::new(0, top.min(rows - 1), cols, 1);
        let terminal =
            Terminal::with_options(CrosstermBackend::new(out), TerminalOptions { viewport: Viewport::Fixed(area) })?;
        let mut screen = Self { terminal, cols, rows, top: area.y, height: 1, full: None };
        if top == rows {
            screen.scroll(1)?;
        }
        Ok(screen)
    }

    pub fn width(&self) -> u16 {
        self.cols
    }

    pub fn rows(&self) -> u16 {
        self.rows
    }

    /// Writes `history` above the viewport, resizes the viewport to `height` rows (at most the
    /// screen) and draws it with `draw`, all in one synchronized update.
    pub fn frame(&mut self, history: &[Line<'static>], height: u16, draw: impl FnOnce(&mut Frame)) -> io::Result<()> {
        queue!(self.terminal.backend_mut(), BeginSynchronizedUpdate)?;
        let result = self.frame_inner(history, height, draw);
        queue!(self.terminal.backend_mut(), EndSynchronizedUpdate)?;
        Write::flush(self.terminal.backend_mut())?;
        result
    }

    fn frame_inner(&mut self, history: &[Line<'static>], height: u16, draw: impl FnOnce(&mut Frame)) -> io::Result<()> {
        let height = height.clamp(1, self.rows);
        let mut moved = false;
        if !history.is_empty() {
            self.clear_from(self.top)?;
            for line in history {
                for row in hard_wrap(line, self.cols) {
                    self.write_row(&row)?;
                }
            }
            moved = true;
        }
        if self.top + height > self.rows {
            self.scroll(self.top + height - self.rows)?;
            moved = true;
        }
        if height < self.height {
            // The rows the viewport leaves are blanked: they would show stale content.
            self.clear_from(self.top + height)?;
        }
        if moved || height != self.height {
            self.height = height;
            self.place_viewport()?;
        }
        self.terminal.draw(draw)?;
        Ok(())
    }

    /// The terminal changed size: the viewport is drawn anew below the history still on
    /// screen (rows the terminal reflowed are its own; they stay in its scrollback).
    pub fn resized(&mut self, cols: u16, rows: u16) -> io::Result<()> {
        self.cols = cols.max(1);
        self.rows = rows.max(1);
        self.top = self.top.min(self.rows - 1);
        self.height = 1;
        if self.full.is_some() {
            // Drawn anew at the new size by the next full frame; the viewport waits.
            self.full = Some(Self::full_terminal(self.cols, self.rows)?);
            return Ok(());
        }
        self.place_viewport()
    }

    /// Draws a full-screen view with `draw` on the terminal's alternate screen (switched to
    /// on the first such frame), in one synchronized update. The main screen, its history
    /// rows and the scrollback stay as they were.
    pub fn full_frame(&mut self, draw: impl FnOnce(&mut Frame)) -> io::Result<()> {
        if self.full.is_none() {
            queue!(self.terminal.backend_mut(), EnterAlternateScreen, Clear(ClearType::All))?;
            ALTERNATE.store(true, Ordering::Release);
            self.full = Some(Self::full_terminal(self.cols, self.rows)?);
        }
        let Some(full) = self.full.as_mut() else { return Ok(()) };
        queue!(full.backend_mut(), BeginSynchronizedUpdate)?;
        let drawn = full.draw(draw).map(drop);
        queue!(full.backend_mut(), EndSynchronizedUpdate)?;
        Write::flush(full.backend_mut())?;
        drawn
    }

    /// Back from the full-screen view to the main screen, whose viewport is drawn anew.
    pub fn leave_full(&mut self) -> io::Result<()> {
        if self.full.take().is_none() {
            return Ok(());
        }
        execute!(self.terminal.backend_mut(), LeaveAlternateScreen)?;
        ALTERNATE.store(false, Ordering::Release);
        self.place_viewport()
    }

    fn full_terminal(cols: u16, rows: u16) -> io::Result<Terminal<CrosstermBackend<Stdout>>> {
        let area = Rect::new(0, 0, cols, rows);
        Terminal::with_options(CrosstermBackend::new(io::stdout()), TerminalOptions { viewport: Viewport::Fixed(area) })
    }

    /// Hands the terminal to another program (the `$EDITOR`): the viewport is cleared and
    /// the terminal restored; [`Screen::resume`] takes it back.
    pub fn suspend(&mut self) -> io::Result<()> {
        self.leave_full()?;
        self.clear_from(self.top)?;
        queue!(self.terminal.backend_mut(), cursor::MoveTo(0, self.top))?;
        Write::flush(self.terminal.backend_mut())?;
        restore();
        Ok(())
    }

    /// Takes the terminal back after [`Screen::suspend`] and redraws everything live.
    pub fn resume(&mut self) -> io::Result<()> {
        crossterm::terminal::enable_raw_mode()?;
        execute!(
            self.terminal.backend_mut(),
            EnableBracketedPaste,
            PushKeyboardEnhancementFlags(KeyboardEnhancementFlags::DISAMBIGUATE_ESCAPE_CODES)
        )?;
        let (cols, rows) = crossterm::terminal::size()?;
        self.resized(cols, rows)
    }

    /// Clears the viewport and leaves the cursor after the history, for the shell.
    pub fn stop(mut self) {
        let _ = self.leave_full();
        let _ = self.clear_from(self.top);
        let _ = queue!(self.terminal.backend_mut(), cursor::MoveTo(0, self.top), cursor::Show);
        let _ = Write::flush(self.terminal.backend_mut());
        restore();
    }

    /// Puts the viewport at `top` with `height` rows, blank: the next draw paints it whole.
    /// (A new ratatui terminal, not `Terminal::resize`, which clears the whole screen when
    /// the width shrinks and would wipe the history still on screen.)
    fn place_viewport(&mut self) -> io::Result<()> {
        self.clear_from(self.top)?;
        let area = Rect::new(0, self.top, self.cols, self.height);
        self.terminal = Terminal::with_options(
            CrosstermBackend::new(io::stdout()),
            TerminalOptions { viewport: Viewport::Fixed(area) },
        )?;
        Ok(())
    }

    /// Writes one row of history at `top` (scrolling the screen when it is full).
    fn write_row(&mut self, line: &Line<'static>) -> io::Result<()> {
        if self.top >= self.rows {
            self.scroll(1)?;
        }
        let area = Rect::new(0, 0, self.cols, 1);
        let mut buffer = Buffer::empty(area);
        line.clone().render(area, &mut buffer);
        neutralize(&mut buffer);
        let y = self.top;
        let backend = self.terminal.backend_mut();
        backend.draw(buffer.content.iter().enumerate().map(|(x, cell)| (x as u16, y, cell)))?;
        queue!(
            backend,
            crossterm::style::ResetColor,
            crossterm::style::SetAttribute(crossterm::style::Attribute::Reset)
        )?;
        self.top += 1;
        Ok(())
    }

    /// Scrolls the whole screen up by `n` rows: the top rows go to the scrollback.
    fn scroll(&mut self, n: u16) -> io::Result<()> {
        let backend = self.terminal.backend_mut();
        queue!(backend, cursor::MoveTo(0, self.rows - 1))?;
        backend.write_all("\n".repeat(usize::from(n)).as_bytes())?;
        self.top = self.top.saturating_sub(n);
        Ok(())
    }

    fn clear_from(&mut self, row: u16) -> io::Result<()> {
        if row < self.rows {
            queue!(self.terminal.backend_mut(), cursor::MoveTo(0, row), Clear(ClearType::FromCursorDown))?;
        }
        Ok(())
    }
}

/// The last lock before the terminal: a cell whose symbol holds a character the one
/// sanitiser never lets through raw (a tab, an escape, a bidi override or an invisible
/// character that slipped past every widget: `airlock_protocol::shown::is_hidden`) is drawn
/// as a visible mark instead, so no text from a model or a plugin can move the cursor, start
/// an escape sequence or reorder what is drawn around it.
pub fn neutralize(buffer: &mut Buffer) {
    for cell in &mut buffer.content {
        if cell.symbol().chars().any(airlock_protocol::shown::is_hidden) {
            let mark = if cell.symbol() == "\t" { " " } else { "␛" };
            cell.set_symbol(mark);
        }
    }
}

/// `line` cut into rows of at most `width` columns, styles kept (the widgets wrap words;
/// this is the safety net for anything wider).
pub fn hard_wrap(line: &Line<'static>, width: u16) -> Vec<Line<'static>> {
    let width = usize::from(width.max(1));
    if line.width() <= width {
        return vec![line.clone()];
    }
    let mut rows = vec![Line::default().style(line.style)];
    let mut used = 0;
    for span in &line.spans {
        let mut piece = String::new();
        for c in span.content.chars() {
            let w = UnicodeWidthStr::width(c.encode_utf8(&mut [0; 4]) as &str);
            if used + w > width && used > 0 {
                if let Some(row) = rows.last_mut() {
                    row.spans.push(ratatui::text::Span::styled(std::mem::take(&mut piece), span.style));
                }
                rows.push(Line::default().style(line.style));
                used = 0;
            }
            piece.push(c);
            used += w;
        }
        if let Some(row) = rows.last_mut() {
            row.spans.push(ratatui::text::Span::styled(piece, span.style));
        }
    }
    rows
}

#[cfg(test)]
#[path = "screen_tests.rs"]
mod tests;
