//! Conversions from the wasmtime-generated contract types to the host's own
//! ([`crate::contract`]).

use super::bindings::types as wit;
use crate::contract::*;

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

pub fn confirmation(confirmation: wit::Confirmation) -> Confirmation {
    match confirmation {
        wit::Confirmation::Edit(e) => {
            Confirmation::Edit { path: e.path, original: e.original, proposed: e.proposed, is_new_file: e.is_new_file }
        }
        wit::Confirmation::Exec(e) => Confirmation::Exec {
            command: e.command,
            root_command: e.root_command,
            directory: e.directory,
            risk: match e.risk {
                wit::Risk::Low => Risk::Low,
                wit::Risk::Medium => Risk::Medium,
                wit::Risk::High => Risk::High,
            },
        },
        wit::Confirmation::Info(i) => Confirmation::Info { prompt: i.prompt, urls: i.urls },
    }
}

pub fn tool_output(output: wit::ToolOutput) -> ToolOutput {
    ToolOutput {
        llm_content: output
            .llm_content
            .into_iter()
            .map(|part| match part {
                wit::ContentPart::Text(text) => ContentPart::Text { text },
                wit::ContentPart::Json(json) => ContentPart::Json { json },
                wit::ContentPart::Media(m) => ContentPart::Media { mime_type: m.mime_type, bytes: m.data.len() },
            })
            .collect(),
        display: output.display.map(|d| match d {
            wit::Display::Markdown(text) => Display::Markdown { text },
            wit::Display::Diff(d) => Display::Diff { path: d.path, original: d.original, proposed: d.proposed },
        }),
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
    ToolError::new(kind, message)
}
