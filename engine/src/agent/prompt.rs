//! The system prompt: who the agent is, where it works, how its tools behave, and the
//! user's `AIRLOCK.md` context files.

use std::path::Path;

use super::context_files::{self, ContextFile};

/// The system prompt for a session in `workspace`, with the context `files` appended.
pub fn system_prompt(workspace: &Path, files: &[ContextFile]) -> String {
    let mut prompt = format!(
        "You are airlock, an AI agent working in a terminal on the user's project.\n\
         The workspace root is {root}. Paths you pass to tools may be absolute or relative to it; \
         anything outside the workspace is refused.\n\
         Every tool runs in a sandbox with only the access the user granted. When a tool call fails, read \
         the error: it says what to change. Do not repeat a call that was refused by the user's policy.\n\
         Read files before you change them, keep changes minimal, and answer concisely.",
        root = workspace.display()
    );
    prompt.push_str(&context_files::section(files));
    prompt
}

/// The paragraph a run with `--output-schema` adds: the final answer is one JSON value
/// for `schema`, and nothing else. The schema is quoted whole, since not every wire or
/// model takes it in a request field of its own.
pub fn output_schema_section(schema: &serde_json::Value) -> String {
    format!(
        "\n\nYour final answer, the text you write once you need no more tools, must be exactly one JSON \
         value valid against this JSON Schema, with no other text and no Markdown fence around it: {schema}"
    )
}
