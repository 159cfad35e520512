//! Structured output (`--output-schema`): the request field each wire sends to make the
//! model's answer JSON for a schema, and whether a schema fits the wire's constrained
//! decoding.
//!
//! OpenAI's `strict: true` and Anthropic's `output_config.format` both decode against a
//! subset of JSON Schema and refuse a request whose schema leaves it. [`fits_strict`] is
//! the subset both take: the root is an object; every object lists all its properties
//! in `required` and sets `additionalProperties: false`; no `$ref` leads back into
//! itself; and none of the keywords either provider documents as unsupported appears.
//! A schema that does not fit is still sent to OpenAI (with `strict: false`, which
//! guides the model without constraining it), not to Anthropic (which has no such
//! mode); the system prompt and the host's check after the answer hold either way.
//!
//! Gemini takes any JSON Schema in `responseJsonSchema`, but before Gemini 3 not in a
//! request that also declares functions (the API answers 400), so [`gemini_takes`] sends
//! it on such a request only for a model named `gemini-3` or later.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use super::json;

/// The name the schema is given where a wire wants one (OpenAI's `json_schema.name`).
pub(crate) const SCHEMA_NAME: &str = "airlock_output";

/// Keywords outside the subset OpenAI's strict mode and Anthropic's structured outputs
/// both accept (their documented limits, 2026): numeric and length bounds, conditional
/// and negated schemas, and the object keywords besides `properties`.
const UNSUPPORTED: [&str; 21] = [
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "exclusiveMaximum",
    "multipleOf",
    "minLength",
    "maxLength",
    "maxItems",
    "uniqueItems",
    "contains",
    "not",
    "if",
    "then",
    "else",
    "dependentRequired",
    "dependentSchemas",
    "patternProperties",
    "propertyNames",
    "unevaluatedProperties",
    "minProperties",
    "maxProperties",
];

/// Whether `schema` fits the constrained decoding of OpenAI's strict mode and Anthropic's
/// structured outputs (see the module's documentation).
pub fn fits_strict(schema: &Value) -> bool {
    let Value::Object(root) = schema else { return false };
    root.get("type").and_then(Value::as_str) == Some("object") && closed(schema) && !recursive(schema)
}

/// Every node of `schema` is in the subset (recursion is checked apart).
fn closed(schema: &Value) -> bool {
    match schema {
        Value::Object(map) => {
            if UNSUPPORTED.iter().any(|k| map.contains_key(*k)) {
                return false;
            }
            if map.get("minItems").and_then(Value::as_u64).is_some_and(|n| n > 1) {
                return false;
            }
            if let Some(Value::String(reference)) = map.get("$ref")
                && !reference.starts_with('#')
            {
                return false;
            }
            let is_object = map.get("type").and_then(Value::as_str) == Some("object") || map.contains_key("properties");
            if is_object && !object_closed(map) {
                return false;
            }
            // `properties` and `$defs` hold schemas by name, and `enum`/`const` hold values,
            // whose keys are data, not keywords.
            map.iter().all(|(key, value)| match key.as_str() {
                "properties" | "$defs" | "definitions" => value.as_object().is_none_or(|m| m.values().all(closed)),
                "enum" | "const" | "default" | "examples" => true,
                _ => closed(value),
            })
        }
        Value::Array(items) => items.iter().all(closed),
        _ => true,
    }
}

/// An object schema lists all its properties as required and allows no others.
fn object_closed(map: &serde_json::Map<String, Value>) -> bool {
    if map.get("additionalProperties") != Some(&Value::Bool(false)) {
        return false;
    }
    let required: BTreeSet<&str> =
        map.get("required").and_then(Value::as_array).into_iter().flatten().filter_map(Value::as_str).collect();
    map.get("properties").and_then(Value::as_object).is_none_or(|p| p.keys().all(|k| required.contains(k.as_str())))
}

/// Whether a `$ref` of `schema` leads back to a schema it is in: the root (`#`) or a
/// `$defs`/`definitions` entry that reaches itself.
fn recursive(schema: &Value) -> bool {
    let mut refs = Vec::new();
    collect_refs(schema, &mut refs);
    if refs.iter().any(|r| r == "#" || r == "#/") {
        return true;
    }
    // Each definition and the definitions its own refs name.
    let mut edges: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for section in ["$defs", "definitions"] {
        for (name, definition) in schema.get(section).and_then(Value::as_object).into_iter().flatten() {
            let mut inner = Vec::new();
            collect_refs(definition, &mut inner);
            if inner.iter().any(|r| r == "#" || r == "#/") {
                return true;
            }
            edges.insert(format!("#/{section}/{name}"), inner.iter().map(|r| definition_of(r)).collect());
        }
    }
    edges.keys().any(|start| reaches(&edges, start, start, &mut BTreeSet::new()))
}

/// The definition a local `$ref` names (`#/$defs/a/properties/b` is in `#/$defs/a`).
fn definition_of(reference: &str) -> String {
    reference.split('/').take(3).collect::<Vec<_>>().join("/")
}

fn reaches(edges: &BTreeMap<String, Vec<String>>, from: &str, target: &str, seen: &mut BTreeSet<String>) -> bool {
    for next in edges.get(from).into_iter().flatten() {
        if next == target {
            return true;
        }
        if seen.insert(next.clone()) && reaches(edges, next, target, seen) {
            return true;
        }
    }
    false
}

fn collect_refs(schema: &Value, out: &mut Vec<String>) {
    match schema {
        Value::Object(map) => {
            for (key, value) in map {
                match (key.as_str(), value) {
                    ("$ref" | "$dynamicRef", Value::String(reference)) => out.push(reference.clone()),
                    ("enum" | "const" | "default" | "examples", _) => {}
                    _ => collect_refs(value, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|item| collect_refs(item, out)),
        _ => {}
    }
}

/// Whether Gemini takes `responseJsonSchema` in a request to `model` that declares
/// functions (`with_tools`): always without them, and with them from Gemini 3 on.
pub fn gemini_takes(model: &str, with_tools: bool) -> bool {
    if !with_tools {
        return true;
    }
    let name = model.strip_prefix("models/").unwrap_or(model);
    let Some(version) = name.strip_prefix("gemini-") else { return false };
    let major: String = version.chars().take_while(char::is_ascii_digit).collect();
    major.parse::<u32>().is_ok_and(|major| major >= 3)
}

/// OpenAI chat: `,"response_format":{…}` (the caller places it in key order).
pub(crate) fn openai_field(out: &mut Vec<u8>, schema: &Value) {
    out.extend_from_slice(b",\"response_format\":{\"json_schema\":{\"name\":");
    json::string(out, SCHEMA_NAME);
    out.extend_from_slice(b",\"schema\":");
    json::value(out, schema);
    out.extend_from_slice(if fits_strict(schema) { b",\"strict\":true}" } else { b",\"strict\":false}" });
    out.extend_from_slice(b",\"type\":\"json_schema\"}");
}

/// Gemini: `,"generationConfig":{…}`.
pub(crate) fn gemini_field(out: &mut Vec<u8>, schema: &Value) {
    out.extend_from_slice(b",\"generationConfig\":{\"responseJsonSchema\":");
    // A root `$schema` is left out, as of tool schemas (`parametersJsonSchema`).
    match schema {
        Value::Object(map) if map.contains_key("$schema") => {
            let mut schema = map.clone();
            schema.remove("$schema");
            json::value(out, &Value::Object(schema));
        }
        _ => json::value(out, schema),
    }
    out.extend_from_slice(b",\"responseMimeType\":\"application/json\"}");
}

/// Anthropic: `,"output_config":{…}`, only for a schema its decoding takes.
pub(crate) fn anthropic_field(out: &mut Vec<u8>, schema: &Value) {
    if fits_strict(schema) {
        out.extend_from_slice(b",\"output_config\":{\"format\":{\"schema\":");
        json::value(out, schema);
        out.extend_from_slice(b",\"type\":\"json_schema\"}}");
    }
}

#[cfg(test)]
#[path = "structured_tests.rs"]
mod tests;
