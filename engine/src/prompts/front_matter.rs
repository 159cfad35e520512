//! The front matter of a Markdown prompt file (a custom command, a `SKILL.md`): the block
//! between a first line `---` and the next line `---`, read as YAML, with the rest of the
//! file as the body. Only top-level scalar fields are kept, as text; a list becomes its
//! items in brackets (`argument-hint: [message]` is YAML for a list of one), a table is
//! dropped (a skill's `metadata`).
//!
//! Claude Code reads front matter leniently, and commands written for it hold lines no YAML
//! parser takes (`argument-hint: [pr-number] [priority]`). When the block is not valid YAML,
//! each line `key: value` at its start is read as it stands, so such files still load.

use std::collections::BTreeMap;

/// A file split into its front matter and its body.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FrontMatter {
    /// Whether the file had a front matter block at all.
    pub present: bool,
    /// Top-level fields, as text.
    pub fields: BTreeMap<String, String>,
    /// What follows the block (the whole file without one).
    pub body: String,
}

impl FrontMatter {
    /// The field `key`, trimmed, when it is there and not empty.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.fields.get(key).map(|v| v.trim()).filter(|v| !v.is_empty())
    }
}

/// Splits `text` into front matter and body.
pub fn parse(text: &str) -> FrontMatter {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let Some(rest) = text.strip_prefix("---\n").or_else(|| text.strip_prefix("---\r\n")) else {
        return FrontMatter { present: false, fields: BTreeMap::new(), body: text.to_owned() };
    };
    let mut offset = 0;
    let mut end = None;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == "---" {
            end = Some((offset, offset + line.len()));
            break;
        }
        offset += line.len();
    }
    let Some((block_end, body_start)) = end else {
        // No closing line: not front matter, the whole file is the body.
        return FrontMatter { present: false, fields: BTreeMap::new(), body: text.to_owned() };
    };
    let block = &rest[..block_end];
    let fields = yaml_fields(block).unwrap_or_else(|| line_fields(block));
    FrontMatter { present: true, fields, body: rest[body_start..].to_owned() }
}

/// The top-level scalar fields of `block` read as YAML; `None` when it is not YAML or not
/// a mapping.
fn yaml_fields(block: &str) -> Option<BTreeMap<String, String>> {
    if block.trim().is_empty() {
        return Some(BTreeMap::new());
    }
    let value: serde_norway::Value = serde_norway::from_str(block).ok()?;
    let serde_norway::Value::Mapping(mapping) = value else {
        return None;
    };
    let mut fields = BTreeMap::new();
    for (key, value) in mapping {
        let (Some(key), Some(value)) = (scalar(&key), field_text(&value)) else {
            continue;
        };
        fields.insert(key, value);
    }
    Some(fields)
}

fn field_text(value: &serde_norway::Value) -> Option<String> {
    match value {
        serde_norway::Value::Sequence(items) => {
            let items: Option<Vec<String>> = items.iter().map(scalar).collect();
            Some(format!("[{}]", items?.join(", ")))
        }
        other => scalar(other),
    }
}

fn scalar(value: &serde_norway::Value) -> Option<String> {
    match value {
        serde_norway::Value::String(s) => Some(s.clone()),
        serde_norway::Value::Bool(b) => Some(b.to_string()),
        serde_norway::Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Each line `key: value` that starts at the line's start, the value as written (quotes
/// around it removed).
fn line_fields(block: &str) -> BTreeMap<String, String> {
    let mut fields = BTreeMap::new();
    for line in block.lines() {
        if line.starts_with([' ', '\t', '#', '-']) {
            continue;
        }
        let Some((key, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        let unquoted =
            ['"', '\''].iter().find_map(|q| value.strip_prefix(*q).and_then(|v| v.strip_suffix(*q))).unwrap_or(value);
        fields.insert(key.trim().to_owned(), unquoted.to_owned());
    }
    fields
}

#[cfg(test)]
#[path = "front_matter_tests.rs"]
mod tests;
