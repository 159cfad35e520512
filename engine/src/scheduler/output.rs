//! What becomes of a call's output: live output is forwarded as events, coalesced to at
//! most one per call every [`LIVE_EVENT_INTERVAL`]; a result over the call's output limit
//! is cut for the model, after the whole of it (up to [`MAX_SAVED`]) was saved in the
//! session's outputs folder — written atomically, private to the user (0600) — and the cut
//! result tells the model how much it was not shown and where the whole output is (the
//! folder lies in airlock's home: the user can read it there; the model's tools only if
//! granted that folder). One session saves at most [`MAX_SESSION_FILES`] files and
//! [`MAX_SESSION_BYTES`] in all, so a plugin that returns a flood on every call cannot fill
//! the disk; the writing runs off the async workers.

use std::path::{Path, PathBuf};
use std::time::Duration;

use tokio::sync::mpsc;

use crate::contract::{ContentPart, ToolOutput};
use crate::events::{Event, EventSink, MAX_FULL_OUTPUT};

/// Most bytes of one call's output saved (the runtime caps a result at the same size).
pub const MAX_SAVED: usize = 16 << 20;

/// Most files one session's outputs folder holds.
pub const MAX_SESSION_FILES: usize = 200;
/// Most bytes one session's outputs folder holds.
pub const MAX_SESSION_BYTES: u64 = 256 << 20;

/// Shortest time between two live-output events of one call.
const LIVE_EVENT_INTERVAL: Duration = Duration::from_millis(100);

/// Keeps what the model is told under `cap` bytes, and says so when it cuts: with the path of
/// the whole output when it could be saved in `save_in`.
pub(super) async fn cap(mut output: ToolOutput, cap: usize, save_in: Option<&Path>, call_id: &str) -> ToolOutput {
    let text = output.llm_text();
    if text.len() <= cap {
        return output;
    }
    let (total, kept) = (text.len(), text[..text.floor_char_boundary(cap)].to_string());
    let mut note = format!("\n[airlock: the output was truncated: showing the first {} of {total} bytes", kept.len());
    let saved = match save_in {
        Some(dir) => {
            let (dir, id) = (dir.to_path_buf(), call_id.to_string());
            let saving = tokio::task::spawn_blocking(move || save(&dir, &id, &text));
            Some(saving.await.unwrap_or_else(|e| Err(std::io::Error::other(e))))
        }
        None => None,
    };
    match saved {
        Some(Ok((path, saved))) => {
            let what = if saved < total { format!("its first {saved} bytes") } else { "all of it".into() };
            note.push_str(&format!("; {what} saved to {} (airlock's session folder)]", path.display()));
        }
        Some(Err(error)) => {
            tracing::warn!("cannot save the output of call {call_id}: {error}");
            note.push_str(&format!("; the rest was not saved: {error}]"));
        }
        None => note.push(']'),
    }
    // Media are not text: they keep their place, under caps of their own (crate::media).
    let media = output.llm_content.into_iter().filter(|part| matches!(part, ContentPart::Media { .. }));
    output.llm_content = std::iter::once(ContentPart::Text { text: format!("{kept}{note}") }).chain(media).collect();
    output
}

/// Refuses a save that would pass the session's limits.
fn within_session_budget(dir: &Path, adding: usize) -> std::io::Result<()> {
    let (mut files, mut bytes) = (0usize, 0u64);
    for entry in std::fs::read_dir(dir)?.flatten() {
        files += 1;
        bytes += entry.metadata().map_or(0, |m| m.len());
    }
    if files >= MAX_SESSION_FILES || bytes + adding as u64 > MAX_SESSION_BYTES {
        return Err(std::io::Error::other(format!(
            "this session's saved outputs reached their limit ({MAX_SESSION_FILES} files, {} MiB)",
            MAX_SESSION_BYTES >> 20
        )));
    }
    Ok(())
}

/// Saves up to [`MAX_SAVED`] bytes of `text` in a new file of `dir`; returns its path and
/// how many bytes it holds.
fn save(dir: &Path, call_id: &str, text: &str) -> std::io::Result<(PathBuf, usize)> {
    let mut folder = std::fs::DirBuilder::new();
    folder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut folder, 0o700);
    folder.create(dir)?;
    let kept = &text[..text.floor_char_boundary(MAX_SAVED)];
    within_session_budget(dir, kept.len())?;
    // Call ids come from the model: only a safe part of one names a file.
    let id: String = call_id.chars().filter(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-').take(64).collect();
    let stamp = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_millis());
    let name = |attempt: u32| match attempt {
        0 => format!("{stamp}-{id}.txt"),
        n => format!("{stamp}-{id}-{n}.txt"),
    };
    let path = airlock_files::write_new(dir, kept.as_bytes(), name)?;
    Ok((path, kept.len()))
}

/// Longest wait, after a call's instance is gone, for the last of its live output to be
/// sent (it is sent as soon as the channel closes; this only bounds a channel held open).
const LIVE_DRAIN: Duration = Duration::from_secs(1);

/// A call's live output on its way to the front end.
pub(super) struct LiveForward {
    task: tokio::task::JoinHandle<Kept>,
}

impl LiveForward {
    /// Waits until what the call emitted was sent, so its last output comes before its end;
    /// returns the end of what it emitted ([`Kept::text`]), when it emitted anything.
    pub async fn drained(self) -> Option<String> {
        let kept = tokio::time::timeout(LIVE_DRAIN, self.task).await.ok()?.ok()?;
        kept.text()
    }
}

/// The end of a call's live output, for the person who wants to read it whole: at most
/// [`MAX_FULL_OUTPUT`] bytes (the model's copy, and the file it is saved to when it is too
/// long, hold the rest).
#[derive(Debug, Default)]
pub(super) struct Kept {
    text: String,
    /// Bytes dropped from the start.
    dropped: usize,
}

impl Kept {
    pub fn push(&mut self, chunk: &str) {
        self.text.push_str(chunk);
        // Cut in halves, not per chunk: each byte is moved at most twice.
        if self.text.len() > 2 * MAX_FULL_OUTPUT {
            let cut = self.text.ceil_char_boundary(self.text.len() - MAX_FULL_OUTPUT);
            self.text.drain(..cut);
            self.dropped += cut;
        }
    }

    /// The kept output, with a first line saying what it leaves out; `None` when nothing
    /// was emitted.
    pub fn text(mut self) -> Option<String> {
        if self.text.len() > MAX_FULL_OUTPUT {
            let cut = self.text.ceil_char_boundary(self.text.len() - MAX_FULL_OUTPUT);
            self.text.drain(..cut);
            self.dropped += cut;
        }
        match (self.text.is_empty(), self.dropped) {
            (true, 0) => None,
            (_, 0) => Some(self.text),
            (_, dropped) => {
                Some(format!("[the first {dropped} bytes of this output are not kept here]\n{}", self.text))
            }
        }
    }
}

/// A channel for a call's live output, forwarded as events until the call ends: whatever
/// arrived meanwhile is joined into one event, at most one per [`LIVE_EVENT_INTERVAL`], and
/// what is left is sent as soon as the channel closes (the instance is gone). The end of it
/// is kept for the call's pager.
pub(super) fn forward_live(call_id: &str, events: &EventSink) -> (mpsc::UnboundedSender<String>, LiveForward) {
    let (sender, mut receiver) = mpsc::unbounded_channel::<String>();
    let call_id = call_id.to_string();
    let events = events.clone();
    let task = tokio::spawn(async move {
        let mut pending = String::new();
        let mut kept = Kept::default();
        let mut next = tokio::time::Instant::now();
        loop {
            tokio::select! {
                chunk = receiver.recv() => match chunk {
                    Some(chunk) => {
                        kept.push(&chunk);
                        pending.push_str(&chunk);
                        while let Ok(more) = receiver.try_recv() {
                            kept.push(&more);
                            pending.push_str(&more);
                        }
                    }
                    None => break,
                },
                () = tokio::time::sleep_until(next), if !pending.is_empty() => {
                    events.send(Event::ToolOutput { call_id: call_id.clone(), chunk: std::mem::take(&mut pending) });
                    next = tokio::time::Instant::now() + LIVE_EVENT_INTERVAL;
                }
            }
        }
        if !pending.is_empty() {
            events.send(Event::ToolOutput { call_id, chunk: pending });
        }
        kept
    });
    (sender, LiveForward { task })
}

#[cfg(test)]
#[path = "output_tests.rs"]
mod tests;
