//! The JSON Schema of a tool's arguments, as the model APIs accept it.
//!
//! schemars produces draft 2020-12; this module cleans its output so that every provider
//! takes it unchanged: everything inlined (no `$defs`/`$ref`), no `$schema` or `title` at
//! the top, and `Option<T>` fields as plain `T` (not `"type": ["T", "null"]`, which Gemini
//! rejects) that are simply not required. Integer formats such as `uint` are dropped too.

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value};

/// The cleaned parameters schema of an arguments type; the top level is always
/// `{"type": "object", "properties": {...}, ...}`.
pub fn parameters_schema<A: JsonSchema>() -> Value {
    let generator = SchemaSettings::draft2020_12()
        .with(|settings| {
            settings.inline_subschemas = true;
            settings.meta_schema = None;
        })
        .into_generator();
    let mut schema = generator.into_root_schema_for::<A>().to_value();
    clean(&mut schema);
    if let Value::Object(top) = &mut schema {
        top.remove("title");
        top.remove("$defs");
        top.insert("type".to_string(), Value::String("object".to_string()));
        top.entry("properties").or_insert_with(|| Value::Object(Map::new()));
    }
    schema
}

/// Rewrites one (sub)schema and everything below it in place.
fn clean(schema: &mut Value) {
    let Value::Object(object) = schema else {
        return;
    };
    object.remove("$schema");
    collapse_nullable_any_of(object);
    if let Some(Value::Array(types)) = object.get("type") {
        let non_null: Vec<Value> = types.iter().filter(|t| t.as_str() != Some("null")).cloned().collect();
        let collapsed = match non_null.as_slice() {
            [single] => single.clone(),
            _ => Value::Array(non_null),
        };
        object.insert("type".to_string(), collapsed);
    }
    if let Some(Value::Array(values)) = object.get_mut("enum") {
        values.retain(|value| !value.is_null());
    }
    if let Some(Value::String(description)) = object.get_mut("description") {
        *description = unwrap_lines(description);
    }
    if object.get("default").is_some_and(Value::is_null) {
        object.remove("default");
    }
    let numeric = matches!(object.get("type").and_then(Value::as_str), Some("integer" | "number"));
    let standard_format =
        matches!(object.get("format").and_then(Value::as_str), Some("int32" | "int64" | "float" | "double"));
    if numeric && !standard_format {
        object.remove("format");
    }
    for key in ["properties", "patternProperties", "$defs"] {
        if let Some(Value::Object(children)) = object.get_mut(key) {
            children.values_mut().for_each(clean);
        }
    }
    for key in ["items", "additionalProperties", "not", "contains"] {
        if let Some(child) = object.get_mut(key) {
            clean(child);
        }
    }
    for key in ["anyOf", "oneOf", "allOf", "prefixItems"] {
        if let Some(Value::Array(children)) = object.get_mut(key) {
            children.iter_mut().for_each(clean);
        }
    }
}

/// Doc comments wrapped at the source's line width, rejoined: single line breaks become
/// spaces, blank lines stay paragraph breaks.
fn unwrap_lines(text: &str) -> String {
    text.split("\n\n")
        .map(|paragraph| paragraph.split('\n').map(str::trim).collect::<Vec<_>>().join(" "))
        .collect::<Vec<_>>()
        .join("\n\n")
}

/// `{"anyOf": [X, {"type": "null"}], ...}` (an inlined `Option<Struct>`) becomes X merged
/// with the other keys.
fn collapse_nullable_any_of(object: &mut Map<String, Value>) {
    for key in ["anyOf", "oneOf"] {
        let Some(Value::Array(options)) = object.get(key) else {
            continue;
        };
        let is_null = |v: &Value| v.get("type").and_then(Value::as_str) == Some("null");
        if !options.iter().any(is_null) {
            continue;
        }
        let rest: Vec<Value> = options.iter().filter(|v| !is_null(v)).cloned().collect();
        match rest.as_slice() {
            [Value::Object(single)] => {
                object.remove(key);
                for (k, v) in single {
                    object.entry(k.clone()).or_insert_with(|| v.clone());
                }
            }
            _ => {
                object.insert(key.to_string(), Value::Array(rest));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde_json::json;

    use super::*;

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    enum Mode {
        Fast,
        Slow,
    }

    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Inner {
        /// A flag.
        flag: bool,
    }

    /// Top-level doc that must not become a title.
    #[derive(Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Args {
        /// The path,
        /// wrapped.
        path: String,
        /// How many.
        count: Option<usize>,
        /// How.
        mode: Option<Mode>,
        /// Nested.
        inner: Option<Inner>,
        /// Names.
        names: Vec<String>,
    }

    #[test]
    fn schemas_are_inlined_without_null_types() {
        let schema = parameters_schema::<Args>();
        let text = schema.to_string();
        for forbidden in ["$defs", "$ref", "$schema", "null", "\"uint\"", "anyOf"] {
            assert!(!text.contains(forbidden), "{forbidden} in {text}");
        }
        assert_eq!(schema.get("title"), None);
        assert_eq!(schema["type"], json!("object"));
        assert_eq!(schema["required"], json!(["path", "names"]));
        assert_eq!(schema["properties"]["path"]["description"], json!("The path, wrapped."));
        let order: Vec<&String> = schema["properties"].as_object().map(|p| p.keys().collect()).unwrap_or_default();
        assert_eq!(order, ["path", "count", "mode", "inner", "names"]);
        assert_eq!(schema["properties"]["count"]["type"], json!("integer"));
        assert_eq!(schema["properties"]["mode"]["type"], json!("string"));
        assert_eq!(schema["properties"]["mode"]["enum"], json!(["Fast", "Slow"]));
        assert_eq!(schema["properties"]["inner"]["type"], json!("object"));
        assert_eq!(schema["properties"]["inner"]["properties"]["flag"]["type"], json!("boolean"));
    }

    #[derive(Deserialize, JsonSchema)]
    struct NoArgs {}

    #[test]
    fn empty_args_still_have_properties() {
        let schema = parameters_schema::<NoArgs>();
        assert_eq!(schema["type"], json!("object"));
        assert_eq!(schema["properties"], json!({}));
    }
}
