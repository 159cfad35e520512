//! `save_memory`: remembers a fact across sessions by appending it, under a memory heading,
//! to the user's memory file `$AIRLOCK_HOME/memory/AIRLOCK.md`, which airlock reads as
//! context at the start of every session (after `$AIRLOCK_HOME/AIRLOCK.md`). The component
//! holds write access to that one folder (`@memory`) and nothing else: no workspace, no
//! network. A saved fact steers every later session, so the call is an edit the user
//! approves (its diff shown) unless the approval mode allows edits, and it is stored as one
//! line with every control, bidi and invisible character made visible.

use std::path::PathBuf;

use airlock_plugin_sdk::fs::{read_text_optional, write_atomic};
use airlock_plugin_sdk::prelude::*;

/// The heading the facts go under.
const HEADING: &str = "## Airlock Added Memories";
/// Longest fact, in characters.
const MAX_FACT: usize = 1000;
/// Largest memory file the tool appends to (the context loader reads 32 KiB of it).
const MAX_FILE: usize = 32 * 1024;

#[derive(Deserialize, JsonSchema)]
struct Args {
    /// The fact to remember, as one self-contained sentence ("The user prefers tabs in Go
    /// files").
    fact: String,
}

struct SaveMemory;

impl Tool for SaveMemory {
    type Args = Args;
    const NAME: &'static str = "save_memory";
    const DISPLAY_NAME: &'static str = "SaveMemory";
    const DESCRIPTION: &'static str = "Saves one fact about the user or their preferences to \
        long-term memory, so it is known in every later session (in any project). Use it when \
        the user asks you to remember something, or states a lasting preference. Give one short, \
        self-contained sentence; do not save secrets, passwords or facts only useful in this \
        conversation.";
    const KIND: Kind = Kind::Edit;
    const PARALLEL_SAFE: bool = false;

    fn capabilities() -> Capabilities {
        Capabilities::none().read_write("@memory")
    }

    fn validate(args: &Args) -> Result<(), ToolError> {
        fact(&args.fact).map(|_| ())
    }

    fn describe_call(args: &Args) -> String {
        let fact = fact(&args.fact).unwrap_or_else(|_| args.fact.clone());
        let shown: String = fact.chars().take(80).collect();
        format!("Remember: {shown}{}", if fact.chars().count() > 80 { "…" } else { "" })
    }

    fn confirm(args: &Args) -> Result<Option<Confirmation>, ToolError> {
        let path = memory_file()?;
        let original = read_text_optional(&path)?;
        let proposed = appended(original.as_deref().unwrap_or_default(), &fact(&args.fact)?)?;
        Ok(Some(edit_confirmation(&path, original.as_deref(), &proposed)))
    }

    fn execute(args: Args) -> Result<ToolOutput, ToolError> {
        let fact = fact(&args.fact)?;
        let path = memory_file()?;
        let original = read_text_optional(&path)?.unwrap_or_default();
        let proposed = appended(&original, &fact)?;
        write_atomic(&path, proposed.as_bytes())?;
        Ok(ToolOutput::text(format!("Remembered: {fact}")).with_diff(&path, original, proposed))
    }
}

/// The fact as saved: one line, whitespace collapsed (newlines and line separators
/// included), every control, bidi and invisible character written out as a visible escape,
/// no list marker; refused when empty, too long, or written as a heading. The memory file
/// is read into every later session's prompt and shown to the user: a fact can neither hide
/// text in it nor reorder what is around it on a terminal.
fn fact(text: &str) -> Result<String, ToolError> {
    let fact = visible(&text.split_whitespace().collect::<Vec<_>>().join(" "));
    let fact = fact.trim_start_matches(['-', '*', ' ']).trim().to_string();
    if fact.is_empty() {
        return Err(ToolError::InvalidParams("the fact is empty; give one sentence to remember".into()));
    }
    if fact.chars().count() > MAX_FACT {
        return Err(ToolError::InvalidParams(format!("the fact is longer than {MAX_FACT} characters; say it shorter")));
    }
    if fact.starts_with('#') {
        return Err(ToolError::InvalidParams("a fact is a sentence, not a heading".into()));
    }
    Ok(fact)
}

/// `text` with every character [`is_hidden`] holds for written as `\x1b` (ASCII) or
/// `\u{202e}` (the rest): the host's sanitiser's marks (`engine/src/sanitize.rs`).
fn visible(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            c if !is_hidden(c) => out.push(c),
            c if (c as u32) < 0x80 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c => out.push_str(&format!("\\u{{{:x}}}", c as u32)),
        }
    }
    out
}

/// Whether `c` is a control character, a bidi control or a character that takes no room:
/// the set the host's sanitiser makes visible (`engine/src/sanitize.rs::is_hidden`).
fn is_hidden(c: char) -> bool {
    c.is_control()
        || matches!(
            c,
            '\u{061C}'
                | '\u{200E}'
                | '\u{200F}'
                | '\u{202A}'..='\u{202E}'
                | '\u{2066}'..='\u{2069}'
                | '\u{00AD}'
                | '\u{034F}'
                | '\u{115F}'
                | '\u{1160}'
                | '\u{180E}'
                | '\u{200B}'..='\u{200D}'
                | '\u{2028}'
                | '\u{2029}'
                | '\u{2060}'..='\u{2064}'
                | '\u{206A}'..='\u{206F}'
                | '\u{3164}'
                | '\u{FE00}'..='\u{FE0F}'
                | '\u{FEFF}'
                | '\u{FFA0}'
                | '\u{FFF9}'..='\u{FFFB}'
                | '\u{E0000}'..='\u{E007F}'
                | '\u{E0100}'..='\u{E01EF}'
        )
}

/// `content` with `- fact` added at the end of the memory section (the section made when
/// missing).
fn appended(content: &str, fact: &str) -> Result<String, ToolError> {
    if content.len() > MAX_FILE {
        return Err(ToolError::Execution(format!(
            "the memory file is over {} KiB; tidy it up by hand before saving more",
            MAX_FILE / 1024
        )));
    }
    let line = format!("- {fact}");
    let lines: Vec<&str> = content.lines().collect();
    let Some(start) = lines.iter().position(|l| l.trim() == HEADING) else {
        let mut out = content.trim_end().to_string();
        if !out.is_empty() {
            out.push_str("\n\n");
        }
        out.push_str(&format!("{HEADING}\n\n{line}\n"));
        return Ok(out);
    };
    // The section ends at the next heading of the same or a higher level.
    let end = lines[start + 1..]
        .iter()
        .position(|l| l.starts_with("# ") || l.starts_with("## "))
        .map_or(lines.len(), |i| start + 1 + i);
    // After the section's last non-empty line.
    let mut at = end;
    while at > start + 1 && lines[at - 1].trim().is_empty() {
        at -= 1;
    }
    let mut out: Vec<String> = lines[..at].iter().map(|l| l.to_string()).collect();
    if at == start + 1 {
        out.push(String::new());
    }
    out.push(line);
    if end < lines.len() {
        out.push(String::new());
    }
    out.extend(lines[at..].iter().skip_while(|l| l.trim().is_empty()).map(|l| l.to_string()));
    Ok(out.join("\n") + "\n")
}

/// The memory file: `AIRLOCK.md` in the folder the host preopened for `@memory` (the one
/// preopen that is not the workspace).
fn memory_file() -> Result<PathBuf, ToolError> {
    let workspace = workspace_root();
    wasip2::filesystem::preopens::get_directories()
        .into_iter()
        .map(|(_, path)| PathBuf::from(path))
        .find(|path| *path != workspace && path.file_name().is_some_and(|n| n == "memory"))
        .map(|dir| dir.join("AIRLOCK.md"))
        .ok_or_else(|| {
            ToolError::PermissionDenied(
                "the memory folder was not granted (`@memory` read-write); nothing was saved".into(),
            )
        })
}

export_tools!(SaveMemory);
