//! The real binary in a pseudo-terminal, its screen kept by a terminal emulator (`vt100`),
//! for the TUI's end-to-end tests. The emulator answers the cursor-position query a real
//! terminal answers, keeps a scrollback, and can be resized like a window.

use std::io::{Read, Write};
use std::process::Command;
use std::sync::{Arc, Condvar, Mutex, PoisonError};
use std::time::{Duration, Instant};

use portable_pty::{CommandBuilder, MasterPty, PtySize, native_pty_system};

/// Lines of scrollback the emulator keeps.
const SCROLLBACK: usize = 10_000;

/// What the reader thread shares.
struct Shared {
    parser: Mutex<Option<vt100::Parser>>,
    changed: Condvar,
    /// Every byte the program wrote, for escape-sequence checks.
    raw: Mutex<Vec<u8>>,
}

/// A program running in a pseudo-terminal.
pub struct Pty {
    master: Box<dyn MasterPty + Send>,
    /// The terminal's keyboard: the test types into it, the reader thread answers queries.
    writer: Arc<Mutex<Box<dyn Write + Send>>>,
    child: Box<dyn portable_pty::Child + Send + Sync>,
    shared: Arc<Shared>,
}

impl std::fmt::Debug for Pty {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Pty")
    }
}

impl Pty {
    /// Starts `command` (its program, arguments, environment and folder) in a terminal of
    /// `cols` x `rows`.
    pub fn spawn(command: &Command, cols: u16, rows: u16) -> Pty {
        let system = native_pty_system();
        let size = PtySize { rows, cols, pixel_width: 0, pixel_height: 0 };
        let pair = system.openpty(size).unwrap_or_else(|e| panic!("openpty: {e}"));
        let mut builder = CommandBuilder::new(command.get_program());
        builder.env_clear();
        for (key, value) in command.get_envs() {
            if let Some(value) = value {
                builder.env(key, value);
            }
        }
        builder.env("TERM", "xterm-256color");
        builder.args(command.get_args());
        if let Some(dir) = command.get_current_dir() {
            builder.cwd(dir);
        }
        let child = pair.slave.spawn_command(builder).unwrap_or_else(|e| panic!("spawn in a pty: {e}"));
        drop(pair.slave);
        let reader = pair.master.try_clone_reader().unwrap_or_else(|e| panic!("pty reader: {e}"));
        let writer = pair.master.take_writer().unwrap_or_else(|e| panic!("pty writer: {e}"));
        let shared = Arc::new(Shared {
            parser: Mutex::new(Some(vt100::Parser::new(rows, cols, SCROLLBACK))),
            changed: Condvar::new(),
            raw: Mutex::new(Vec::new()),
        });
        // The pty hands out one writer; the test and the reader thread share it.
        let writer = Arc::new(Mutex::new(writer));
        let answers = writer.clone();
        let thread_shared = shared.clone();
        std::thread::spawn(move || read_loop(reader, answers, &thread_shared));
        Pty { master: pair.master, writer, child, shared }
    }

    /// Types `text` (bytes as a terminal sends them: `\r` is Enter, `\x1b` is Esc).
    pub fn send(&mut self, text: &str) {
        let mut writer = self.writer.lock().unwrap_or_else(PoisonError::into_inner);
        writer.write_all(text.as_bytes()).unwrap_or_else(|e| panic!("write to the pty: {e}"));
        let _ = writer.flush();
    }

    /// Pastes `text` the way a terminal with bracketed paste does.
    pub fn paste(&mut self, text: &str) {
        self.send(&format!("\x1b[200~{text}\x1b[201~"));
    }

    /// The visible screen, one line per row, trailing blanks cut.
    pub fn screen(&self) -> String {
        self.with_parser(|p| p.screen().contents())
    }

    /// Everything the terminal holds: the scrollback, then the screen.
    pub fn transcript(&self) -> String {
        self.with_parser(|parser| {
            let (rows, cols) = parser.screen().size();
            parser.screen_mut().set_scrollback(usize::MAX);
            let mut offset = parser.screen().scrollback();
            let mut lines: Vec<String> = Vec::new();
            // Scrolled back by `offset`, the first rows shown are scrollback lines, oldest first.
            while offset > 0 {
                parser.screen_mut().set_scrollback(offset);
                let take = offset.min(usize::from(rows));
                lines.extend(parser.screen().rows(0, cols).take(take));
                offset -= take;
            }
            parser.screen_mut().set_scrollback(0);
            lines.extend(parser.screen().rows(0, cols));
            lines.iter().map(|l| l.trim_end().to_string()).collect::<Vec<_>>().join("\n")
        })
    }

    /// Every byte the program wrote so far.
    pub fn raw_output(&self) -> Vec<u8> {
        self.shared.raw.lock().unwrap_or_else(PoisonError::into_inner).clone()
    }

    /// Waits until `check` holds for the screen, or panics after `limit` with the screen.
    pub fn wait_for(&self, what: &str, limit: Duration, check: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + limit;
        let mut guard = self.shared.parser.lock().unwrap_or_else(PoisonError::into_inner);
        loop {
            let screen = guard.as_ref().map(|p| p.screen().contents()).unwrap_or_default();
            if check(&screen) {
                return screen;
            }
            let now = Instant::now();
            if now >= deadline {
                panic!("timed out waiting for {what}; the screen:\n{screen}");
            }
            guard = self.shared.changed.wait_timeout(guard, deadline - now).unwrap_or_else(PoisonError::into_inner).0;
        }
    }

    /// Waits until the screen shows `text`.
    pub fn wait_text(&self, text: &str, limit: Duration) -> String {
        self.wait_for(&format!("{text:?}"), limit, |s| s.contains(text))
    }

    /// Resizes the terminal, as a window resize does (the program gets SIGWINCH).
    pub fn resize(&mut self, cols: u16, rows: u16) {
        self.with_parser(|p| p.screen_mut().set_size(rows, cols));
        let size = PtySize { rows, cols, pixel_width: 0, pixel_height: 0 };
        self.master.resize(size).unwrap_or_else(|e| panic!("resize the pty: {e}"));
    }

    /// The cursor's row and column.
    pub fn cursor(&self) -> (u16, u16) {
        self.with_parser(|p| p.screen().cursor_position())
    }

    /// Whether the program left the terminal in the state it found it: cursor shown, no
    /// bracketed paste, no alternate screen.
    pub fn terminal_restored(&self) -> bool {
        self.with_parser(|p| {
            let screen = p.screen();
            !screen.hide_cursor() && !screen.bracketed_paste() && !screen.alternate_screen()
        })
    }

    /// Waits for the program to exit; its exit code, or panics after `limit`.
    pub fn wait_exit(&mut self, limit: Duration) -> u32 {
        let deadline = Instant::now() + limit;
        loop {
            if let Ok(Some(status)) = self.child.try_wait() {
                // Let the reader take the last output.
                std::thread::sleep(Duration::from_millis(100));
                return status.exit_code();
            }
            if Instant::now() >= deadline {
                let _ = self.child.kill();
                panic!("the program did not exit in {limit:?}; the screen:\n{}", self.screen());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// The program's process id.
    pub fn pid(&self) -> Option<u32> {
        self.child.process_id()
    }

    fn with_parser<T>(&self, f: impl FnOnce(&mut vt100::Parser) -> T) -> T {
        let mut guard = self.shared.parser.lock().unwrap_or_else(PoisonError::into_inner);
        match guard.as_mut() {
            Some(parser) => f(parser),
            None => panic!("the emulator is gone"),
        }
    }
}

impl Drop for Pty {
    fn drop(&mut self) {
        let _ = self.child.kill();
    }
}

/// Feeds the program's output to the emulator and answers its cursor-position queries.
fn read_loop(mut reader: Box<dyn Read + Send>, answers: Arc<Mutex<Box<dyn Write + Send>>>, shared: &Shared) {
    let mut buffer = [0u8; 8192];
    loop {
        let n = match reader.read(&mut buffer) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let chunk = &buffer[..n];
        shared.raw.lock().unwrap_or_else(PoisonError::into_inner).extend_from_slice(chunk);
        let mut guard = shared.parser.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(parser) = guard.as_mut() {
            // Process up to each query so the answer holds the cursor as it was then.
            let mut rest = chunk;
            while let Some(at) = find(rest, b"\x1b[6n") {
                parser.process(&rest[..at]);
                let (row, col) = parser.screen().cursor_position();
                let mut answers = answers.lock().unwrap_or_else(PoisonError::into_inner);
                let _ = answers.write_all(format!("\x1b[{};{}R", row + 1, col + 1).as_bytes());
                let _ = answers.flush();
                rest = &rest[at + 4..];
            }
            parser.process(rest);
        }
        shared.changed.notify_all();
    }
    shared.changed.notify_all();
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}
