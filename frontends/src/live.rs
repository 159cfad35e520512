//! Live output of running calls, as the text front end shows it on stderr: whole lines, each
//! behind the tool's name (`  grep │ …`), every line through [`sanitize::line`] (a plugin's
//! output cannot move the cursor or forge airlock's own lines), and at most
//! [`MAX_SHOWN_LINES`] lines and [`MAX_SHOWN_BYTES`] per call (each line counting at least
//! one byte, so empty lines cannot flood) — past that one line says the rest is not shown.
//! Each chunk is scanned once, whatever its size and shape. The engine
//! already coalesces live output into at most one event per call every ~100 ms, so this
//! never prints faster than that.

use std::collections::HashMap;

use airlock_protocol::shown as sanitize;

/// Most bytes of one call's live output shown.
const MAX_SHOWN_BYTES: usize = 8 << 10;
/// Most lines of one call's live output shown.
const MAX_SHOWN_LINES: usize = 100;
/// Longest line shown; a longer one (or output with no newline) is shown in pieces.
const MAX_LINE_BYTES: usize = 240;

#[derive(Debug, Default)]
struct CallOutput {
    name: String,
    /// The start of a line whose end has not come yet.
    partial: String,
    shown: usize,
    lines: usize,
    capped: bool,
}

/// The live output of every call of a run.
#[derive(Debug, Default)]
pub struct LiveOutput {
    calls: HashMap<String, CallOutput>,
}

impl LiveOutput {
    /// Remembers the tool name of a call.
    pub fn named(&mut self, call_id: &str, name: &str) {
        self.calls.entry(call_id.to_string()).or_default().name = name.to_string();
    }

    /// The lines to show for a chunk of `call_id`'s output (none for a call not named, or
    /// already ended).
    pub fn chunk(&mut self, call_id: &str, chunk: &str) -> Vec<String> {
        let Some(call) = self.calls.get_mut(call_id).filter(|call| !call.capped) else {
            return Vec::new();
        };
        call.partial.push_str(chunk);
        let buffer = std::mem::take(&mut call.partial);
        let mut lines = Vec::new();
        let mut start = 0;
        loop {
            let rest = &buffer[start..];
            // Look for a newline only as far as a line may go: a long line is cut, never rescanned.
            let newline = rest.as_bytes().iter().take(MAX_LINE_BYTES + 1).position(|b| *b == b'\n');
            let (end, skip) = match newline {
                Some(end) => (end, 1),
                None if rest.len() > MAX_LINE_BYTES => (floor_char_boundary(rest, MAX_LINE_BYTES), 0),
                None => break,
            };
            start += end + skip;
            if !call.show(&rest[..end], &mut lines) {
                return lines;
            }
        }
        call.partial = buffer[start..].to_string();
        lines
    }

    /// The lines left to show when `call_id` ended.
    pub fn end(&mut self, call_id: &str) -> Vec<String> {
        let mut lines = Vec::new();
        if let Some(mut call) = self.calls.remove(call_id) {
            let rest = std::mem::take(&mut call.partial);
            if !call.capped && !rest.is_empty() {
                call.show(&rest, &mut lines);
            }
        }
        lines
    }
}

impl CallOutput {
    /// Adds `line` to `lines` unless the cap is reached (then says so, once); false once capped.
    fn show(&mut self, line: &str, lines: &mut Vec<String>) -> bool {
        let name = sanitize::line(&self.name);
        if self.lines == MAX_SHOWN_LINES || self.shown + line.len() + 1 > MAX_SHOWN_BYTES {
            self.capped = true;
            self.partial.clear();
            lines.push(format!("  {name} │ … (more live output not shown)"));
            return false;
        }
        self.shown += line.len() + 1;
        self.lines += 1;
        lines.push(format!("  {name} │ {}", sanitize::line(line.trim_end_matches('\r'))));
        true
    }
}

/// The largest char boundary of `text` at or below `index`.
fn floor_char_boundary(text: &str, mut index: usize) -> usize {
    while !text.is_char_boundary(index) {
        index -= 1;
    }
    index
}

#[cfg(test)]
#[path = "live_tests.rs"]
mod tests;
