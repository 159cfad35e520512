//! `word_count`: `wc` for workspace files — lines, words, characters and bytes of up to 100
//! files, one line each and a total, like `wc -lwmc`. The Rust kit's example: it requests
//! read access to the workspace, resolves every path the model gives inside it, and turns
//! each failure into an error the model can act on.

use std::path::Path;

use airlock_plugin_sdk::display_path;
use airlock_plugin_sdk::fs::io_error;
use airlock_plugin_sdk::prelude::*;

/// Most files one call counts.
const MAX_FILES: usize = 100;
/// Largest file counted.
const MAX_BYTES: u64 = 64 << 20;

#[derive(Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Args {
    /// The files to count, relative to the workspace root (or absolute inside it); 1 to 100.
    pub paths: Vec<String>,
}

/// The counts of one text.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    pub lines: u64,
    pub words: u64,
    pub chars: u64,
    pub bytes: u64,
}

impl Counts {
    /// Counts `bytes` as `wc` does: lines are newline characters, words are runs of
    /// non-whitespace, characters are UTF-8 characters (invalid bytes count one each).
    pub fn of(bytes: &[u8]) -> Self {
        let text = String::from_utf8_lossy(bytes);
        Self {
            lines: bytes.iter().filter(|b| **b == b'\n').count() as u64,
            words: text.split_whitespace().count() as u64,
            chars: text.chars().count() as u64,
            bytes: bytes.len() as u64,
        }
    }

    fn add(&mut self, other: Self) {
        self.lines += other.lines;
        self.words += other.words;
        self.chars += other.chars;
        self.bytes += other.bytes;
    }

    fn row(&self, name: &str) -> String {
        format!("{:>8} {:>8} {:>8} {:>8} {name}", self.lines, self.words, self.chars, self.bytes)
    }
}

/// The counts of one file, or the error the model is told.
fn count_file(path: &Path) -> Result<Counts, ToolError> {
    let metadata = std::fs::metadata(path).map_err(|e| io_error(path, &e))?;
    if metadata.is_dir() {
        return Err(ToolError::InvalidParams(format!("{} is a folder; give files", display_path(path))));
    }
    if metadata.len() > MAX_BYTES {
        return Err(ToolError::InvalidParams(format!(
            "{} has {} bytes; at most {MAX_BYTES} are counted",
            display_path(path),
            metadata.len()
        )));
    }
    let bytes = std::fs::read(path).map_err(|e| io_error(path, &e))?;
    Ok(Counts::of(&bytes))
}

pub struct WordCount;
impl Tool for WordCount {
    type Args = Args;
    const NAME: &'static str = "word_count";
    const DISPLAY_NAME: &'static str = "WordCount";
    const DESCRIPTION: &'static str = "Counts the lines, words, characters and bytes of workspace files, like \
                                       `wc`: one row per file (lines words chars bytes path) and a total.";
    const KIND: Kind = Kind::Read;
    fn capabilities() -> Capabilities {
        Capabilities::none().read(".")
    }
    fn validate(args: &Args) -> Result<(), ToolError> {
        if args.paths.is_empty() || args.paths.len() > MAX_FILES {
            return Err(ToolError::InvalidParams(format!(
                "paths has {} entries; give 1 to {MAX_FILES} files",
                args.paths.len()
            )));
        }
        Ok(())
    }
    fn describe_call(args: &Args) -> String {
        match args.paths.as_slice() {
            [one] => format!("Count {one}"),
            many => format!("Count {} files", many.len()),
        }
    }
    fn execute(args: Args) -> Result<ToolOutput, ToolError> {
        Self::validate(&args)?;
        let mut rows = vec![format!("{:>8} {:>8} {:>8} {:>8} path", "lines", "words", "chars", "bytes")];
        let mut total = Counts::default();
        let mut counted = 0;
        let mut last_error = None;
        for path in &args.paths {
            let counts = resolve_in_workspace(path).and_then(|resolved| count_file(&resolved));
            match counts {
                Ok(counts) => {
                    total.add(counts);
                    counted += 1;
                    rows.push(counts.row(path));
                }
                Err(error) => {
                    rows.push(format!("error: {path}: {}", error.message()));
                    last_error = Some(error);
                }
            }
        }
        // Nothing counted: the call failed, with the reason of the last file.
        if counted == 0
            && let Some(error) = last_error
        {
            return Err(error);
        }
        if args.paths.len() > 1 {
            rows.push(total.row("total"));
        }
        Ok(ToolOutput::text(rows.join("\n")))
    }
}
export_tools!(WordCount);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_like_wc() {
        let counts = Counts::of("héllo wörld\nsecond  line\n\nlast".as_bytes());
        assert_eq!(counts, Counts { lines: 3, words: 5, chars: 30, bytes: 32 });
        assert_eq!(Counts::of(b""), Counts::default());
    }

    #[test]
    fn no_files_or_too_many_are_invalid() {
        let none = Args { paths: vec![] };
        assert!(matches!(WordCount::validate(&none), Err(ToolError::InvalidParams(m)) if m.contains("1 to 100")));
        let many = Args { paths: vec!["a".into(); 101] };
        assert!(WordCount::validate(&many).is_err());
        assert!(WordCount::validate(&Args { paths: vec!["a".into()] }).is_ok());
    }
}
