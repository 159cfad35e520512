//! `--output-schema FILE`: the schema a headless run's final answer must follow, read and
//! compiled before the session starts, and the check of the answer once it came.
//!
//! Invariants: a schema is never fetched. A `$ref` that leaves the file (a URL, a file
//! path, an `$id` elsewhere) is refused when the schema is compiled, by a retriever that
//! refuses every request, whatever features the `jsonschema` crate was built with. The
//! file and the answer are bounded ([`MAX_SCHEMA_BYTES`], [`MAX_ANSWER_BYTES`]), and
//! `serde_json` bounds their nesting (128 levels), so no input makes the check run out of
//! memory or stack. Messages quote the schema's and the answer's text only through
//! [`airlock_protocol::shown`] at the caller, and the checked value is printed by
//! [`write_json`], which escapes what the sanitiser would hide, so the model's JSON never
//! reaches a terminal with a character that moves the cursor or reorders text.

use std::io::{self, Read as _, Write};
use std::path::Path;

use airlock_protocol::shown;
use serde::Serialize as _;
use serde_json::Value;

/// Most bytes of a schema file. Providers take far smaller schemas (OpenAI's strict mode
/// allows 5,000 properties, 15,000 characters of names), and the schema is quoted in the
/// system prompt of every request.
pub const MAX_SCHEMA_BYTES: u64 = 1 << 20;

/// Most bytes of a final answer that is checked: larger ones are refused, not parsed.
pub const MAX_ANSWER_BYTES: usize = 16 << 20;

/// How many validation errors are named (the first ones found).
const ERRORS_NAMED: usize = 5;

/// Why a schema file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum SchemaError {
    #[error("--output-schema {path}: cannot read it: {reason}")]
    Read { path: String, reason: String },
    #[error("--output-schema {path}: the file is over {} KiB; a schema for an answer is far smaller", MAX_SCHEMA_BYTES >> 10)]
    TooLarge { path: String },
    #[error("--output-schema {path}: not JSON: {reason}")]
    NotJson { path: String, reason: String },
    #[error("--output-schema {path}: not a usable JSON Schema: {reason}")]
    Invalid { path: String, reason: String },
}

/// A compiled schema and its JSON text.
pub struct OutputSchema {
    value: Value,
    validator: jsonschema::Validator,
}

impl std::fmt::Debug for OutputSchema {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OutputSchema").field("value", &self.value).finish_non_exhaustive()
    }
}

/// Why a final answer failed the check: what a person reads on stderr.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Mismatch(pub String);

impl OutputSchema {
    /// Reads, parses and compiles the schema at `path`.
    pub fn load(path: &Path) -> Result<Self, SchemaError> {
        let shown = path.display().to_string();
        let read = |e: std::io::Error| SchemaError::Read { path: shown.clone(), reason: e.to_string() };
        let file = std::fs::File::open(path).map_err(read)?;
        // A pipe is fine (`--output-schema <(make-schema)`): the read below is bounded.
        if file.metadata().map_err(read)?.is_dir() {
            return Err(SchemaError::Read { path: shown, reason: "a folder, not a file".into() });
        }
        let mut bytes = Vec::new();
        file.take(MAX_SCHEMA_BYTES + 1).read_to_end(&mut bytes).map_err(read)?;
        if bytes.len() as u64 > MAX_SCHEMA_BYTES {
            return Err(SchemaError::TooLarge { path: shown });
        }
        let value: Value = serde_json::from_slice(&bytes)
            .map_err(|e| SchemaError::NotJson { path: shown.clone(), reason: e.to_string() })?;
        Self::compile(value).map_err(|reason| SchemaError::Invalid { path: shown, reason })
    }

    /// Compiles `value` as a schema, refusing any reference outside it.
    pub fn compile(value: Value) -> Result<Self, String> {
        if !matches!(value, Value::Object(_) | Value::Bool(_)) {
            return Err("a schema is a JSON object (or true/false)".into());
        }
        // Building checks the schema against its draft's meta-schema too.
        let validator = jsonschema::options().with_retriever(NeverFetch).build(&value).map_err(|e| describe(&e))?;
        Ok(Self { value, validator })
    }

    /// The schema as JSON, for the model requests.
    pub fn value(&self) -> &Value {
        &self.value
    }

    /// Checks `answer`, the text of the final response: the JSON value it holds, or why
    /// not. An answer that is one fenced block (```` ```json … ``` ````) is read inside the
    /// fence, since models add one however they are told.
    pub fn check(&self, answer: &str) -> Result<Value, Mismatch> {
        if answer.len() > MAX_ANSWER_BYTES {
            return Err(Mismatch(format!(
                "the final answer is {} MiB, over the {} MiB a structured answer may have",
                answer.len() >> 20,
                MAX_ANSWER_BYTES >> 20
            )));
        }
        let text = unfenced(answer);
        if text.is_empty() {
            return Err(Mismatch("the final answer was empty, not JSON".into()));
        }
        let value: Value =
            serde_json::from_str(text).map_err(|e| Mismatch(format!("the final answer is not JSON: {e}")))?;
        let errors: Vec<String> = self
            .validator
            .iter_errors(&value)
            .take(ERRORS_NAMED + 1)
            .map(|e| {
                let at = e.instance_path().to_string();
                format!("at {}: {}", if at.is_empty() { "/" } else { &at }, short(&e.to_string()))
            })
            .collect();
        if errors.is_empty() {
            return Ok(value);
        }
        let more = if errors.len() > ERRORS_NAMED { "; and more" } else { "" };
        let named = errors.iter().take(ERRORS_NAMED).cloned().collect::<Vec<_>>().join("; ");
        Err(Mismatch(format!("the final answer does not match the schema: {named}{more}")))
    }
}

/// Writes `value` compactly on one line. Strings are JSON as `serde_json` writes them, but
/// for the characters [`shown::is_hidden`] names (DEL, C1 controls, bidi and invisible
/// characters), written as `\uXXXX` escapes: the same data for a JSON reader, and nothing a
/// terminal acts on.
pub fn write_json(out: &mut impl Write, value: &Value) -> io::Result<()> {
    let mut line = Vec::new();
    // Keys sorted whatever order the parsed map keeps (serde_json's `preserve_order` is on
    // in this binary for the ACP crate).
    let value = crate::json::in_key_order(value.clone());
    value.serialize(&mut serde_json::Serializer::with_formatter(&mut line, Escaping)).map_err(io::Error::other)?;
    line.push(b'\n');
    out.write_all(&line)?;
    out.flush()
}

/// `serde_json`'s compact format, escaping hidden characters in strings.
struct Escaping;

impl serde_json::ser::Formatter for Escaping {
    fn write_string_fragment<W: ?Sized + Write>(&mut self, writer: &mut W, fragment: &str) -> io::Result<()> {
        let mut start = 0;
        for (at, c) in fragment.char_indices() {
            if shown::is_hidden(c) {
                writer.write_all(&fragment.as_bytes()[start..at])?;
                let mut units = [0u16; 2];
                for unit in c.encode_utf16(&mut units) {
                    write!(writer, "\\u{unit:04x}")?;
                }
                start = at + c.len_utf8();
            }
        }
        writer.write_all(&fragment.as_bytes()[start..])
    }
}

/// `answer` without surrounding white space and, when it is one fenced block, the fence.
fn unfenced(answer: &str) -> &str {
    let trimmed = answer.trim();
    let Some(rest) = trimmed.strip_prefix("```") else { return trimmed };
    let Some(body) = rest.strip_suffix("```") else { return trimmed };
    // The info string (`json`) runs to the end of the opening line.
    match body.split_once('\n') {
        Some((info, inside)) if !info.contains('`') => inside.trim(),
        _ => trimmed,
    }
}

/// A validation error's text, cut to one readable line: an error quotes the offending
/// value, which may be a whole document.
fn short(text: &str) -> String {
    const MOST: usize = 300;
    let line = text.replace(['\n', '\r'], " ");
    match line.char_indices().nth(MOST) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line,
    }
}

/// A schema error, with where in the schema it is.
fn describe(error: &jsonschema::ValidationError<'_>) -> String {
    let at = error.instance_path().to_string();
    let text = short(&error.to_string());
    if at.is_empty() { text } else { format!("at {at}: {text}") }
}

/// The retriever of every reference outside the schema file: none is fetched.
struct NeverFetch;

impl jsonschema::Retrieve for NeverFetch {
    fn retrieve(&self, uri: &jsonschema::Uri<String>) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        Err(format!(
            "`{}` is outside the schema file, and airlock never fetches a schema: copy what it names into the \
             file's $defs and refer to it as #/$defs/NAME",
            uri.as_str()
        )
        .into())
    }
}

#[cfg(test)]
#[path = "output_schema_tests.rs"]
mod tests;
