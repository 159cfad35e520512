//! `read_file`: a text file's lines (a range of them on request) within fixed caps, images
//! and PDFs as media, and a clear refusal for other binary files.

use std::fs;
use std::path::Path;

use airlock_plugin_sdk::display_path;
use airlock_plugin_sdk::folders::resolve_in_folders;
use airlock_plugin_sdk::fs::{io_error, within_grant};
use airlock_plugin_sdk::prelude::*;
use airlock_plugin_sdk::{ContentPart, Media};

/// At most this many lines are returned by one call.
const MAX_LINES: usize = 2000;
/// Longer lines are cut to this many characters.
const MAX_LINE_CHARS: usize = 2000;
/// At most this many bytes of text are returned by one call.
const MAX_BYTES: usize = 256 * 1024;
/// Images and PDFs up to this size are sent to the model as media.
const MAX_MEDIA_BYTES: u64 = 10 * 1024 * 1024;
/// A NUL byte within this many leading bytes marks a binary file.
const BINARY_SNIFF_BYTES: usize = 8 * 1024;

#[derive(Deserialize, JsonSchema)]
struct Args {
    /// The file to read: a path relative to the workspace root (`src/main.rs`) or an
    /// absolute path inside the workspace or a folder the user added to the session.
    file_path: String,
    /// The first line to read, 1-based. Defaults to 1.
    #[schemars(range(min = 1))]
    start_line: Option<u64>,
    /// The last line to read, 1-based and inclusive. Defaults to the end of the file (within
    /// the 2000-line cap).
    #[schemars(range(min = 1))]
    end_line: Option<u64>,
}

struct ReadFile;

impl Tool for ReadFile {
    type Args = Args;
    const NAME: &'static str = "read_file";
    const DISPLAY_NAME: &'static str = "ReadFile";
    const DESCRIPTION: &'static str = "Reads a file of the workspace (or of a folder the user added to the \
        session) and returns its content. \
        Text files come back whole when small; at most 2000 lines and 256 KiB are returned per \
        call and lines longer than 2000 characters are cut. When the content is truncated, the \
        result starts with a notice saying which lines were shown and which start_line to use \
        to read on. Use start_line and end_line (1-based, inclusive) to read part of a large \
        file. Images (PNG, JPEG, GIF, WEBP) and PDF files are returned as media; other binary \
        files cannot be displayed.";
    const KIND: Kind = Kind::Read;

    fn capabilities() -> Capabilities {
        Capabilities::none().read(".")
    }

    fn validate(args: &Args) -> Result<(), ToolError> {
        resolve_in_folders(&args.file_path)?;
        if args.start_line == Some(0) || args.end_line == Some(0) {
            return Err(ToolError::InvalidParams(
                "line numbers are 1-based: start_line and end_line must be at least 1".to_string(),
            ));
        }
        if let (Some(start), Some(end)) = (args.start_line, args.end_line)
            && end < start
        {
            return Err(ToolError::InvalidParams(format!(
                "end_line ({end}) is before start_line ({start}); give end_line >= start_line"
            )));
        }
        Ok(())
    }

    fn describe_call(args: &Args) -> String {
        let path = match resolve_in_folders(&args.file_path) {
            Ok(path) => display_path(&path),
            Err(_) => args.file_path.clone(),
        };
        match (args.start_line, args.end_line) {
            (None, None) => format!("Read {path}"),
            (start, Some(end)) => format!("Read {path} (lines {}-{end})", start.unwrap_or(1)),
            (Some(start), None) => format!("Read {path} (from line {start})"),
        }
    }

    fn execute(args: Args) -> Result<ToolOutput, ToolError> {
        let path = resolve_in_folders(&args.file_path)?;
        let metadata = fs::metadata(&path).map_err(|e| not_found_or(&path, &e))?;
        if metadata.is_dir() {
            return Err(ToolError::InvalidParams(format!(
                "'{}' is a directory, not a file; use list_directory to see what it contains",
                display_path(&path)
            )));
        }
        if let Some(mime_type) = media_type(&path) {
            return read_media(&path, mime_type, metadata.len());
        }
        let bytes = fs::read(&path).map_err(|e| not_found_or(&path, &e))?;
        let sniff = &bytes[..bytes.len().min(BINARY_SNIFF_BYTES)];
        if sniff.contains(&0) {
            return Ok(ToolOutput::text(format!("Cannot display content of binary file: {}", path.display())));
        }
        let text = String::from_utf8_lossy(&bytes);
        let start = usize::try_from(args.start_line.unwrap_or(1)).unwrap_or(usize::MAX);
        let end = args.end_line.map(|end| usize::try_from(end).unwrap_or(usize::MAX));
        let excerpt = excerpt(&text, start, end).map_err(|total| {
            ToolError::InvalidParams(format!(
                "start_line {start} is past the end of '{}', which has {total} lines",
                display_path(&path)
            ))
        })?;
        if excerpt.total == 0 {
            return Ok(ToolOutput::text(format!("The file {} is empty.", path.display()))
                .with_markdown(format!("Read {} (empty)", display_path(&path))));
        }
        let summary =
            format!("Read lines {}-{} of {} from {}", excerpt.first, excerpt.last, excerpt.total, display_path(&path));
        Ok(ToolOutput::text(excerpt.render()).with_markdown(summary))
    }
}

/// A missing file is `not-found` with a hint; other errors as usual.
fn not_found_or(path: &Path, error: &std::io::Error) -> ToolError {
    if error.kind() == std::io::ErrorKind::NotFound && within_grant(path) {
        ToolError::NotFound(format!(
            "File not found: {}. Check the path; list_directory or glob can find the file.",
            path.display()
        ))
    } else {
        io_error(path, error)
    }
}

/// The lines of a file that one call returns.
struct Excerpt {
    /// The shown lines, joined by `\n`.
    content: String,
    /// The first shown line (1-based).
    first: usize,
    /// The last shown line (1-based, inclusive).
    last: usize,
    /// The number of lines in the file.
    total: usize,
    /// Whether the file goes on after `last`.
    more: bool,
    /// Whether some lines were cut at `MAX_LINE_CHARS`.
    cut_lines: bool,
}

impl Excerpt {
    /// The text for the model: the lines, after a notice when they are not the whole file.
    fn render(self) -> String {
        let status = format!("Status: Showing lines {}-{} of {} total lines.", self.first, self.last, self.total);
        let cut = if self.cut_lines {
            format!("\nSome lines were longer than {MAX_LINE_CHARS} characters and were cut.")
        } else {
            String::new()
        };
        if self.more {
            format!(
                "IMPORTANT: The file content has been truncated.\n{status}{cut}\nAction: To read \
                 more of the file, call read_file again with start_line: {}.\n\n--- FILE \
                 CONTENT (truncated) ---\n{}",
                self.last + 1,
                self.content
            )
        } else if self.cut_lines || self.first > 1 || self.last < self.total {
            format!("{status}{cut}\n\n--- FILE CONTENT ---\n{}", self.content)
        } else {
            self.content
        }
    }
}

/// Lines `start..=end` of `text` within the caps, or the line count when `start` is past
/// the end of a non-empty file.
fn excerpt(text: &str, start: usize, end: Option<usize>) -> Result<Excerpt, usize> {
    let mut lines: Vec<&str> = text.split('\n').collect();
    if text.ends_with('\n') || text.is_empty() {
        lines.pop();
    }
    let total = lines.len();
    if total == 0 {
        return Ok(Excerpt { content: String::new(), first: 0, last: 0, total, more: false, cut_lines: false });
    }
    if start > total {
        return Err(total);
    }
    let wanted_last = end.unwrap_or(total).min(total).max(start - 1);
    let mut content = String::new();
    let mut last = start - 1;
    let mut cut_lines = false;
    for line in &lines[start - 1..wanted_last] {
        if last + 1 - start >= MAX_LINES {
            break;
        }
        let line = match line.char_indices().nth(MAX_LINE_CHARS) {
            Some((index, _)) => {
                cut_lines = true;
                format!("{}... [line truncated]", &line[..index])
            }
            None => (*line).to_string(),
        };
        if !content.is_empty() && content.len() + line.len() + 1 > MAX_BYTES {
            break;
        }
        if !content.is_empty() {
            content.push('\n');
        }
        content.push_str(&line);
        last += 1;
    }
    Ok(Excerpt { content, first: start, last, total, more: last < wanted_last, cut_lines })
}

/// The media type of the files sent to the model as media, by extension.
fn media_type(path: &Path) -> Option<&'static str> {
    let extension = path.extension()?.to_str()?.to_ascii_lowercase();
    match extension.as_str() {
        "png" => Some("image/png"),
        "jpg" | "jpeg" => Some("image/jpeg"),
        "gif" => Some("image/gif"),
        "webp" => Some("image/webp"),
        "pdf" => Some("application/pdf"),
        _ => None,
    }
}

fn read_media(path: &Path, mime_type: &str, size: u64) -> Result<ToolOutput, ToolError> {
    if size > MAX_MEDIA_BYTES {
        return Err(ToolError::InvalidParams(format!(
            "'{}' is {size} bytes; files over {MAX_MEDIA_BYTES} bytes cannot be sent to the model",
            display_path(path)
        )));
    }
    let data = fs::read(path).map_err(|e| not_found_or(path, &e))?;
    let summary = format!("Read {} ({mime_type}, {} bytes)", display_path(path), data.len());
    Ok(ToolOutput {
        llm_content: vec![ContentPart::Media(Media { mime_type: mime_type.to_string(), data })],
        display: None,
    }
    .with_markdown(summary))
}

export_tools!(ReadFile);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_file_has_no_lines() {
        let e = excerpt("", 1, None).ok().map(|e| (e.total, e.more));
        assert_eq!(e, Some((0, false)));
    }

    #[test]
    fn reads_a_range_inclusively() {
        let e = excerpt("a\nb\nc\nd\n", 2, Some(3)).ok();
        let e = e.map(|e| (e.content, e.first, e.last, e.total, e.more));
        assert_eq!(e, Some(("b\nc".to_string(), 2, 3, 4, false)));
    }

    #[test]
    fn caps_the_number_of_lines() {
        let text = "x\n".repeat(MAX_LINES + 5);
        let e = excerpt(&text, 1, None).ok().map(|e| (e.last, e.total, e.more));
        assert_eq!(e, Some((MAX_LINES, MAX_LINES + 5, true)));
    }

    #[test]
    fn start_past_the_end_is_an_error() {
        assert_eq!(excerpt("a\nb", 3, None).err(), Some(2));
    }

    #[test]
    fn cuts_long_lines_on_char_boundaries() {
        let text = "é".repeat(MAX_LINE_CHARS + 1);
        let e = excerpt(&text, 1, None).ok().map(|e| e.cut_lines);
        assert_eq!(e, Some(true));
    }
}
