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
use crate::events::{Event, EventSink};

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
    output.llm_content = vec![ContentPart::Text { text: format!("{kept}{note}") }];
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
    let path = crate::files::write_new(dir, kept.as_bytes(), name)?;
    Ok((path, kept.len()))
}

/// Longest wait, after a call's instance is gone, for the last of its live output to be
/// sent (it is sent as soon as the channel closes; this only bounds a channel held open).
const LIVE_DRAIN: Duration = Duration::from_secs(1);

/// A call's live output on its way to the front end.
pub(super) struct LiveForward {
    task: tokio::task::JoinHandle<()>,
}

impl LiveForward {
    /// Waits until what the call emitted was sent, so its last output comes before its end.
    pub async fn drained(self) {
        let _ = tokio::time::timeout(LIVE_DRAIN, self.task).await;
    }
}

/// A channel for a call's live output, forwarded as events until the call ends: whatever
/// arrived meanwhile is joined into one event, at most one per [`LIVE_EVENT_INTERVAL`], and
/// what is left is sent as soon as the channel closes (the instance is gone).
pub(super) fn forward_live(call_id: &str, events: &EventSink) -> (mpsc::UnboundedSender<String>, LiveForward) {
    let (sender, mut receiver) = mpsc::unbounded_channel::<String>();
    let call_id = call_id.to_string();
    let events = events.clone();
    let task = tokio::spawn(async move {
        let mut pending = String::new();
        let mut next = tokio::time::Instant::now();
        loop {
            tokio::select! {
                chunk = receiver.recv() => match chunk {
                    Some(chunk) => {
                        pending.push_str(&chunk);
                        while let Ok(more) = receiver.try_recv() {
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
    });
    (sender, LiveForward { task })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(text: String) -> ToolOutput {
        ToolOutput { llm_content: vec![ContentPart::Text { text }], display: None }
    }

    #[tokio::test]
    async fn caps_output_and_says_so() {
        let capped = cap(text("é".repeat(100)), 51, None, "c").await;
        let told = capped.llm_text();
        assert!(told.starts_with(&"é".repeat(25)));
        assert!(told.contains("showing the first 50 of 200 bytes"), "{told}");
    }

    #[tokio::test]
    async fn saves_the_whole_output_privately_and_names_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let outputs = dir.path().join("session.outputs");
        let whole = "x".repeat(1000);
        let told = cap(text(whole.clone()), 100, Some(&outputs), "../../evil id").await.llm_text();
        let files: Vec<_> = std::fs::read_dir(&outputs).unwrap().map(|e| e.unwrap().path()).collect();
        assert_eq!(files.len(), 1);
        assert!(files[0].file_name().unwrap().to_str().unwrap().ends_with("-evilid.txt"), "{files:?}");
        assert_eq!(std::fs::read_to_string(&files[0]).unwrap(), whole);
        assert!(told.contains(files[0].to_str().unwrap()) && told.contains("all of it"), "{told}");
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            assert_eq!(std::fs::metadata(&files[0]).unwrap().permissions().mode() & 0o777, 0o600);
            assert_eq!(std::fs::metadata(&outputs).unwrap().permissions().mode() & 0o777, 0o700);
        }
        // A second cut output of the same id gets a file of its own.
        cap(text(whole), 100, Some(&outputs), "../../evil id").await;
        assert_eq!(std::fs::read_dir(&outputs).unwrap().count(), 2);
    }

    #[tokio::test]
    async fn saves_at_most_the_hard_maximum() {
        let dir = tempfile::tempdir().unwrap();
        let told = cap(text("y".repeat(MAX_SAVED + 10)), 100, Some(dir.path()), "c").await.llm_text();
        assert!(told.contains(&format!("its first {MAX_SAVED} bytes")), "{}", &told[100..]);
        let file = std::fs::read_dir(dir.path()).unwrap().next().unwrap().unwrap().path();
        assert_eq!(std::fs::metadata(file).unwrap().len(), MAX_SAVED as u64);
    }

    /// A plugin that floods on every call of a long session fills at most the session's budget.
    #[tokio::test]
    async fn one_session_saves_a_bounded_number_of_files_and_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let mut refused = 0;
        for n in 0..MAX_SESSION_FILES + 5 {
            let told = cap(text("z".repeat(200)), 100, Some(dir.path()), &format!("c{n}")).await.llm_text();
            refused += usize::from(told.contains("reached their limit"));
        }
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), MAX_SESSION_FILES);
        assert_eq!(refused, 5);
        // Bytes too: 16 of the largest outputs reach 256 MiB.
        let big = tempfile::tempdir().unwrap();
        for n in 0..17 {
            cap(text("b".repeat(MAX_SAVED)), 100, Some(big.path()), &format!("b{n}")).await;
        }
        let bytes: u64 = std::fs::read_dir(big.path()).unwrap().map(|e| e.unwrap().metadata().unwrap().len()).sum();
        assert!(bytes <= MAX_SESSION_BYTES, "{bytes}");
        assert_eq!(std::fs::read_dir(big.path()).unwrap().count(), 16);
    }
}
