//! The prompts sent before, walked with ↑/↓ and kept across runs in a file: one JSON string
//! per line (so newlines survive), private to the user (0600), the last [`MAX_ENTRIES`]
//! kept (the file is rewritten whole, through a temporary file and a rename, when it
//! passes twice that). A line that does not parse is skipped.

use std::io::Write;
use std::path::PathBuf;

/// Entries kept.
pub const MAX_ENTRIES: usize = 1_000;

#[derive(Debug, Default)]
pub struct History {
    entries: Vec<String>,
    path: Option<PathBuf>,
    /// Lines in the file (to know when to compact it).
    file_lines: usize,
    /// While walking: the entry shown, and the draft it replaced.
    at: Option<usize>,
    draft: String,
}

impl History {
    /// The history kept in `path`; a missing file is an empty history, an unreadable one
    /// too, with the reason to show.
    pub fn load(path: PathBuf) -> (History, Option<String>) {
        let (entries, file_lines, problem) = match std::fs::read_to_string(&path) {
            Ok(text) => {
                let entries: Vec<String> = text.lines().filter_map(serde_json_string).collect();
                let lines = text.lines().count();
                (entries, lines, None)
            }
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => (Vec::new(), 0, None),
            Err(e) => (Vec::new(), 0, Some(format!("prompt history {}: {e}", path.display()))),
        };
        let skip = entries.len().saturating_sub(MAX_ENTRIES);
        let entries = entries[skip..].to_vec();
        (History { entries, path: Some(path), file_lines, at: None, draft: String::new() }, problem)
    }

    /// A history in memory only.
    pub fn in_memory() -> History {
        History::default()
    }

    pub fn entries(&self) -> &[String] {
        &self.entries
    }

    /// Adds a sent prompt (not twice in a row) and appends it to the file.
    pub fn push(&mut self, entry: &str) {
        self.reset();
        if self.entries.last().is_some_and(|last| last == entry) {
            return;
        }
        self.entries.push(entry.to_string());
        if self.entries.len() > MAX_ENTRIES {
            self.entries.remove(0);
        }
        let _ = self.append(entry);
    }

    /// Stops walking (the next ↑ starts from the newest entry again).
    pub fn reset(&mut self) {
        self.at = None;
        self.draft.clear();
    }

    /// The entry before the one shown; `current` is kept as the draft when walking starts.
    pub fn older(&mut self, current: &str) -> Option<String> {
        let next = match self.at {
            None => {
                self.draft = current.to_string();
                self.entries.len().checked_sub(1)?
            }
            Some(0) => return None,
            Some(i) => i - 1,
        };
        self.at = Some(next);
        Some(self.entries[next].clone())
    }

    /// The entry after the one shown, or the draft after the newest.
    pub fn newer(&mut self) -> Option<String> {
        let at = self.at?;
        if at + 1 < self.entries.len() {
            self.at = Some(at + 1);
            Some(self.entries[at + 1].clone())
        } else {
            self.at = None;
            Some(std::mem::take(&mut self.draft))
        }
    }

    fn append(&mut self, entry: &str) -> std::io::Result<()> {
        let Some(path) = &self.path else { return Ok(()) };
        if self.file_lines + 1 > 2 * MAX_ENTRIES {
            return self.rewrite();
        }
        if let Some(dir) = path.parent() {
            std::fs::create_dir_all(dir)?;
        }
        let mut options = std::fs::OpenOptions::new();
        options.create(true).append(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let mut file = options.open(path)?;
        file.write_all(format!("{}\n", json_string(entry)).as_bytes())?;
        self.file_lines += 1;
        Ok(())
    }

    /// Writes the kept entries anew, replacing the file at once.
    fn rewrite(&mut self) -> std::io::Result<()> {
        let Some(path) = &self.path else { return Ok(()) };
        let dir = path.parent().map(PathBuf::from).unwrap_or_else(|| PathBuf::from("."));
        let mut file = tempfile::NamedTempFile::new_in(&dir)?;
        for entry in &self.entries {
            file.write_all(format!("{}\n", json_string(entry)).as_bytes())?;
        }
        file.persist(path).map_err(|e| e.error)?;
        self.file_lines = self.entries.len();
        Ok(())
    }
}

/// `s` as a JSON string literal.
fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The string a JSON string literal line holds (`None` when it is not one).
fn serde_json_string(line: &str) -> Option<String> {
    let inner = line.trim().strip_prefix('"')?.strip_suffix('"')?;
    let mut out = String::with_capacity(inner.len());
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            if c == '"' {
                return None;
            }
            out.push(c);
            continue;
        }
        match chars.next()? {
            '"' => out.push('"'),
            '\\' => out.push('\\'),
            '/' => out.push('/'),
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'u' => {
                let code: String = chars.by_ref().take(4).collect();
                out.push(char::from_u32(u32::from_str_radix(&code, 16).ok()?)?);
            }
            _ => return None,
        }
    }
    Some(out)
}
