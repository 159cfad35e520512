//! Conversions from the wasmtime-generated contract types to the host's own
//! ([`crate::contract`]): the one place where guest values become host values, so the one
//! place every string a plugin returns from a call is capped.
//!
//! Invariant: no string that leaves this module is longer than its field's cap plus a short
//! visible note (` [cut at N of M bytes]`); lists are bounded in length too. The caps are
//! per field, sized so real work fits (an edit's original and proposed content may be
//! 4 MiB each) while a hostile plugin cannot push hundreds of MiB into the terminal, the
//! model, the events or the session file. Self-descriptions (`describe`) are checked by
//! the registry instead, which refuses oversized ones outright.

use super::bindings::types as wit;
use crate::contract::*;

/// An error message a plugin returns.
pub const MAX_ERROR: usize = 16 << 10;
/// A `describe-call` line (the scheduler shows its first line, shortened further).
pub const MAX_DESCRIBE_CALL: usize = 4 << 10;
/// A path, a root command, a directory, a media type.
pub const MAX_PATH: usize = 4 << 10;
/// The original or proposed content of an edit or a diff.
pub const MAX_CONTENT: usize = 4 << 20;
/// A command line or a confirmation prompt.
pub const MAX_PROMPT: usize = 16 << 10;
/// One URL of an info confirmation, and how many are kept.
pub const MAX_URL: usize = 2 << 10;
pub const MAX_URLS: usize = 64;
/// Markdown shown to the user.
pub const MAX_MARKDOWN: usize = 1 << 20;
/// All the text and JSON parts of one tool output together (the scheduler cuts what the
/// model sees much shorter, to the call's output limit), and how many parts are kept.
pub const MAX_OUTPUT: usize = 16 << 20;
pub const MAX_PARTS: usize = 1_024;
/// Arguments rebuilt by `modify-args`: room for a JSON-escaped proposal of [`MAX_CONTENT`].
pub const MAX_MODIFIED_ARGS: usize = 16 << 20;

/// `text` cut to `max` bytes (on a character boundary), with a note saying so.
pub fn cut(text: String, max: usize) -> String {
    if text.len() <= max {
        return text;
    }
    let kept = &text[..text.floor_char_boundary(max)];
    format!("{kept} [cut at {} of {} bytes]", kept.len(), text.len())
}

/// `items` cut to `max` entries, each cut to `max_len`, with a last entry saying so.
fn cut_list(items: Vec<String>, max: usize, max_len: usize) -> Vec<String> {
    let total = items.len();
    let mut kept: Vec<String> = items.into_iter().take(max).map(|item| cut(item, max_len)).collect();
    if total > max {
        kept.push(format!("[cut at {max} of {total} entries]"));
    }
    kept
}

pub fn plugin_info(info: wit::PluginInfo) -> PluginInfo {
    PluginInfo { name: info.name, version: info.version, tools: info.tools.into_iter().map(tool_info).collect() }
}

fn tool_info(tool: wit::ToolInfo) -> ToolInfo {
    // An unparsable schema is kept as a string so the registry can report it.
    let parameters = serde_json::from_str(&tool.parameters).unwrap_or(serde_json::Value::String(tool.parameters));
    ToolInfo {
        name: tool.name,
        display_name: tool.display_name,
        description: tool.description,
        parameters,
        kind: kind(tool.kind),
        streams_output: tool.streams_output,
        parallel_safe: tool.parallel_safe,
        capabilities: Capabilities {
            files: tool
                .capabilities
                .files
                .into_iter()
                .map(|f| FileRequest {
                    path: f.path,
                    access: match f.access {
                        wit::Access::Read => Access::Read,
                        wit::Access::ReadWrite => Access::ReadWrite,
                    },
                })
                .collect(),
            network: tool.capabilities.network,
            env: tool.capabilities.env,
            processes: tool.capabilities.processes,
        },
    }
}

fn kind(kind: wit::Kind) -> Kind {
    match kind {
        wit::Kind::Read => Kind::Read,
        wit::Kind::Edit => Kind::Edit,
        wit::Kind::Delete => Kind::Delete,
        wit::Kind::Move => Kind::Move,
        wit::Kind::Search => Kind::Search,
        wit::Kind::Execute => Kind::Execute,
        wit::Kind::Fetch => Kind::Fetch,
        wit::Kind::Think => Kind::Think,
        wit::Kind::Other => Kind::Other,
    }
}

/// A `describe-call` answer.
pub fn describe_call(line: String) -> String {
    cut(line, MAX_DESCRIBE_CALL)
}

pub fn confirmation(confirmation: wit::Confirmation) -> Confirmation {
    match confirmation {
        wit::Confirmation::Edit(e) => Confirmation::Edit {
            path: cut(e.path, MAX_PATH),
            original: cut(e.original, MAX_CONTENT),
            proposed: cut(e.proposed, MAX_CONTENT),
            is_new_file: e.is_new_file,
        },
        wit::Confirmation::Exec(e) => Confirmation::Exec {
            command: cut(e.command, MAX_PROMPT),
            root_command: cut(e.root_command, MAX_PATH),
            directory: cut(e.directory, MAX_PATH),
            risk: match e.risk {
                wit::Risk::Low => Risk::Low,
                wit::Risk::Medium => Risk::Medium,
                wit::Risk::High => Risk::High,
            },
        },
        wit::Confirmation::Info(i) => {
            Confirmation::Info { prompt: cut(i.prompt, MAX_PROMPT), urls: cut_list(i.urls, MAX_URLS, MAX_URL) }
        }
    }
}

pub fn tool_output(output: wit::ToolOutput) -> ToolOutput {
    let total = output.llm_content.len();
    let mut room = MAX_OUTPUT;
    let mut within = |text: String| {
        let text = cut(text, room);
        room = room.saturating_sub(text.len());
        text
    };
    let mut llm_content: Vec<ContentPart> = output
        .llm_content
        .into_iter()
        .take(MAX_PARTS)
        .map(|part| match part {
            wit::ContentPart::Text(text) => ContentPart::Text { text: within(text) },
            wit::ContentPart::Json(json) => ContentPart::Json { json: within(json) },
            wit::ContentPart::Media(m) => {
                let bytes = m.data.len();
                ContentPart::Media { mime_type: cut(m.mime_type, MAX_PATH), bytes, data: m.data.into() }
            }
        })
        .collect();
    if total > MAX_PARTS {
        llm_content.push(ContentPart::Text { text: format!("[cut at {MAX_PARTS} of {total} parts]") });
    }
    ToolOutput {
        llm_content,
        display: output.display.map(|d| match d {
            wit::Display::Markdown(text) => Display::Markdown { text: cut(text, MAX_MARKDOWN) },
            wit::Display::Diff(d) => Display::Diff {
                path: cut(d.path, MAX_PATH),
                original: cut(d.original, MAX_CONTENT),
                proposed: cut(d.proposed, MAX_CONTENT),
            },
        }),
    }
}

/// What `modify-args` returned. Arguments cannot be cut (they would no longer be the JSON
/// the plugin meant): oversized ones are the plugin's error.
pub fn modified_args(result: Result<String, wit::ToolError>) -> Result<String, ToolError> {
    match result {
        Ok(args) if args.len() > MAX_MODIFIED_ARGS => Err(ToolError::new(
            ErrorKind::PluginFault,
            format!("the plugin rebuilt arguments of {} bytes, more than the cap of {MAX_MODIFIED_ARGS}", args.len()),
        )),
        Ok(args) => Ok(args),
        Err(error) => Err(tool_error(error)),
    }
}

pub fn tool_error(error: wit::ToolError) -> ToolError {
    let (kind, message) = match error {
        wit::ToolError::InvalidParams(m) => (ErrorKind::InvalidParams, m),
        wit::ToolError::NotFound(m) => (ErrorKind::NotFound, m),
        wit::ToolError::PermissionDenied(m) => (ErrorKind::PermissionDenied, m),
        wit::ToolError::Timeout(m) => (ErrorKind::Timeout, m),
        wit::ToolError::Execution(m) => (ErrorKind::Execution, m),
        wit::ToolError::Cancelled(m) => (ErrorKind::Cancelled, m),
    };
    ToolError::new(kind, cut(message, MAX_ERROR))
}
