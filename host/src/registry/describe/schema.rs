//! Bounds on what a tool's parameter schema can cost to validate, checked at load before
//! any validator is built. A few kilobytes of JSON Schema can describe an exponential
//! amount of work: a `$ref` (or `allOf`, `anyOf`, `oneOf`) that names the previous
//! definition twice, over 48 levels, is validated 2⁴⁸ times. So the schema is measured as
//! the validator would walk it — every `$ref` followed into its target, every combinator and
//! sub-schema keyword descended — and refused when that *expanded* tree has more than
//! [`MAX_NODES`] schemas or is deeper than [`MAX_DEPTH`].
//!
//! Invariants: the measurement itself is cheap (each `$ref` target is measured once and
//! memoised); a `$ref` back into a definition being measured — recursion — is refused: its
//! cost grows with the *arguments* instead, and exponentially so when the cycle passes a
//! branching combinator (`oneOf` of two arrays of itself doubles the work at every level of
//! an 80-byte argument), so an acyclic schema under the node bound is the only kind whose
//! validation is bounded by the schema alone. Only local JSON-pointer references (`#`, `#/…`) are accepted, so
//! the validator never fetches or resolves anything outside the schema (remote `http:`,
//! `https:`, `file:` or relative references, `$dynamicRef`/`$recursiveRef` and embedded
//! `$id`s, which would change what `#` means, are refused).

use std::collections::{HashMap, HashSet};

use serde_json::Value;

/// Most schemas in the expanded tree.
pub const MAX_NODES: usize = 10_000;
/// Deepest nesting of the expanded tree.
pub const MAX_DEPTH: usize = 64;

/// Keywords whose value is one schema.
const ONE: &[&str] = &[
    "not",
    "if",
    "then",
    "else",
    "items",
    "additionalItems",
    "additionalProperties",
    "contains",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
    "contentSchema",
];
/// Keywords whose value is an array of schemas (`items` too, in old drafts).
const MANY: &[&str] = &["allOf", "anyOf", "oneOf", "prefixItems", "items"];
/// Keywords whose value maps names to schemas (`dependencies` values may be name lists).
const MAP: &[&str] = &["properties", "patternProperties", "dependentSchemas", "dependencies"];

/// What one sub-tree costs once expanded.
#[derive(Debug, Clone, Copy)]
struct Cost {
    nodes: usize,
    /// Levels below and including this schema.
    height: usize,
}

/// Checks `schema`'s expanded size and depth, and that it refers to nothing outside itself.
pub fn check(schema: &Value) -> Result<(), String> {
    let mut walker = Walker { root: schema, memo: HashMap::new(), active: HashSet::new() };
    walker.walk(schema, 1, true).map(|_| ())
}

struct Walker<'a> {
    root: &'a Value,
    /// Cost of each `$ref` target already measured, by reference.
    memo: HashMap<String, Cost>,
    /// References being measured (a `$ref` to one of them is recursion).
    active: HashSet<String>,
}

impl Walker<'_> {
    fn walk(&mut self, node: &Value, depth: usize, is_root: bool) -> Result<Cost, String> {
        if depth > MAX_DEPTH {
            return Err(format!(
                "the parameter schema nests deeper than {MAX_DEPTH} levels once its `$ref`s are followed"
            ));
        }
        let Value::Object(object) = node else {
            // `true`, `false`, or a value the validator will reject.
            return Ok(Cost { nodes: 1, height: 1 });
        };
        for keyword in ["$dynamicRef", "$recursiveRef"] {
            if object.contains_key(keyword) {
                return Err(format!("`{keyword}` is not supported in a parameter schema: use `$ref` to `#/$defs/…`"));
            }
        }
        if !is_root && object.contains_key("$id") {
            return Err("an embedded `$id` is not supported in a parameter schema: use `$ref` to `#/$defs/…`".into());
        }
        let mut total = Cost { nodes: 1, height: 1 };
        let mut add = |cost: Cost| -> Result<(), String> {
            total.nodes = total.nodes.saturating_add(cost.nodes);
            total.height = total.height.max(cost.height + 1);
            if total.nodes > MAX_NODES {
                return Err(format!(
                    "the parameter schema expands to more than {MAX_NODES} schemas once its `$ref`s and \
                     combinators are followed; validating it could take exponential time"
                ));
            }
            Ok(())
        };
        if let Some(reference) = object.get("$ref") {
            add(self.reference(reference, depth)?)?;
        }
        for (keyword, value) in object {
            let keyword = keyword.as_str();
            let children: Vec<&Value> = match value {
                Value::Array(items) if MANY.contains(&keyword) => items.iter().collect(),
                Value::Object(map) if MAP.contains(&keyword) => {
                    map.values().filter(|v| v.is_object() || v.is_boolean()).collect()
                }
                Value::Object(_) | Value::Bool(_) if ONE.contains(&keyword) => vec![value],
                _ => continue,
            };
            for child in children {
                add(self.walk(child, depth + 1, false)?)?;
            }
        }
        Ok(total)
    }

    /// The cost of following one `$ref`.
    fn reference(&mut self, reference: &Value, depth: usize) -> Result<Cost, String> {
        let Some(text) = reference.as_str() else {
            return Err("a `$ref` is not a string".into());
        };
        let pointer = match text.strip_prefix('#') {
            Some(pointer) if pointer.is_empty() || pointer.starts_with('/') => pointer,
            Some(_) => {
                return Err(format!(
                    "`$ref` {:?} names an anchor; only JSON-pointer references (`#/$defs/…`) are supported",
                    crate::sanitize::line(&short(text))
                ));
            }
            None => {
                return Err(format!(
                    "`$ref` {:?} points outside the schema; airlock never fetches schemas: use `#/$defs/…`",
                    crate::sanitize::line(&short(text))
                ));
            }
        };
        if self.active.contains(text) {
            return Err(format!(
                "the parameter schema is recursive (`$ref` {:?} refers back into itself); \
                 a recursive schema can make checking one small argument take for ever, so it is not accepted",
                crate::sanitize::line(&short(text))
            ));
        }
        if let Some(cost) = self.memo.get(text) {
            if depth + cost.height > MAX_DEPTH {
                return Err(format!(
                    "the parameter schema nests deeper than {MAX_DEPTH} levels once its `$ref`s are followed"
                ));
            }
            return Ok(*cost);
        }
        let root = self.root;
        let Some(target) = root.pointer(&percent_decode(pointer)) else {
            return Err(format!("`$ref` {:?} points at nothing in the schema", crate::sanitize::line(&short(text))));
        };
        self.active.insert(text.to_string());
        let cost = self.walk(target, depth + 1, std::ptr::eq(target, root));
        self.active.remove(text);
        let cost = cost?;
        self.memo.insert(text.to_string(), cost);
        Ok(cost)
    }
}

/// A URI fragment's `%XX` escapes decoded (JSON pointers in `$ref` are URI fragments).
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes.get(i + 1..i + 3).and_then(|h| std::str::from_utf8(h).ok());
        match (bytes[i], hex.and_then(|h| u8::from_str_radix(h, 16).ok())) {
            (b'%', Some(byte)) => {
                out.push(byte);
                i += 3;
            }
            (byte, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn short(text: &str) -> String {
    let mut out: String = text.chars().take(80).collect();
    if out.len() < text.len() {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// `$defs` d0 … d{levels}, each naming the previous one `width` times through `how`.
    fn doubling(levels: usize, how: &str) -> Value {
        let mut defs = serde_json::Map::new();
        defs.insert("d0".into(), json!({"type": "string"}));
        for level in 1..=levels {
            let previous = json!({"$ref": format!("#/$defs/d{}", level - 1)});
            let def = match how {
                "ref" => json!({"properties": {"a": previous, "b": previous}}),
                "allOf" => json!({"allOf": [previous, previous]}),
                "anyOf" => json!({"anyOf": [previous, {"anyOf": [previous, {"type": "null"}]}]}),
                _ => json!({"oneOf": [previous, {"not": previous}]}),
            };
            defs.insert(format!("d{level}"), def);
        }
        json!({"type": "object", "$defs": defs, "properties": {"x": {"$ref": format!("#/$defs/d{levels}")}}})
    }

    #[test]
    fn a_ref_doubling_bomb_is_refused_quickly() {
        let started = std::time::Instant::now();
        for how in ["ref", "allOf", "anyOf", "oneOf"] {
            // 48 levels: refused (as too deep or too big, whichever the walk meets first).
            let bomb = doubling(48, how);
            assert!(bomb.to_string().len() < 8_000, "{how}: the bomb is small");
            let err = check(&bomb).unwrap_err();
            assert!(err.contains("more than 10000 schemas") || err.contains("deeper than 64"), "{how}: {err}");
            // 16 levels are shallow enough: the size alone refuses it.
            let err = check(&doubling(16, how)).unwrap_err();
            assert!(err.contains("expands to more than 10000 schemas"), "{how}: {err}");
        }
        assert!(started.elapsed() < std::time::Duration::from_secs(1), "{:?}", started.elapsed());
    }

    #[test]
    fn a_few_shared_definitions_are_fine() {
        check(&doubling(6, "ref")).unwrap();
        check(&doubling(6, "allOf")).unwrap();
    }

    #[test]
    fn recursion_is_refused_because_its_cost_grows_with_the_arguments() {
        let tree = json!({
            "type": "object",
            "$defs": {"node": {"type": "object", "properties": {
                "name": {"type": "string"},
                "children": {"type": "array", "items": {"$ref": "#/$defs/node"}},
            }}},
            "properties": {"root": {"$ref": "#/$defs/node"}},
        });
        let itself = json!({"type": "object", "properties": {"self": {"$ref": "#"}}});
        let mutual = json!({
            "type": "object",
            "definitions": {"a": {"anyOf": [{"$ref": "#/definitions/b"}, {"type": "null"}]},
                            "b": {"items": {"$ref": "#/definitions/a"}}},
            "properties": {"x": {"$ref": "#/definitions/a"}},
        });
        // Two branches of arrays of itself: checking `[[[…40 levels…]]]` takes 2⁴⁰ steps.
        let branching = json!({
            "type": "object",
            "$defs": {"t": {"oneOf": [{"type": "array", "items": {"$ref": "#/$defs/t"}},
                                      {"type": "array", "items": {"$ref": "#/$defs/t"}}]}},
            "properties": {"x": {"$ref": "#/$defs/t"}},
        });
        for (name, schema) in [("tree", tree), ("itself", itself), ("mutual", mutual), ("branching", branching)] {
            let err = check(&schema).unwrap_err();
            assert!(err.contains("is recursive"), "{name}: {err}");
        }
    }

    #[test]
    fn remote_and_relative_references_are_refused() {
        for reference in [
            "http://127.0.0.1:9/schema.json",
            "https://example.com/s#/a",
            "file:///etc/passwd",
            "other.json#/x",
            "urn:x",
            "#anchor",
        ] {
            let schema = json!({"type": "object", "properties": {"a": {"$ref": reference}}});
            let err = check(&schema).unwrap_err();
            assert!(err.contains("never fetches") || err.contains("anchor"), "{reference}: {err}");
        }
        let dynamic = json!({"type": "object", "properties": {"a": {"$dynamicRef": "#meta"}}});
        assert!(check(&dynamic).unwrap_err().contains("$dynamicRef"));
        let embedded = json!({"type": "object", "properties": {"a": {"$id": "http://x/y", "$ref": "#/b"}}});
        assert!(check(&embedded).unwrap_err().contains("$id"));
        let dangling = json!({"type": "object", "properties": {"a": {"$ref": "#/$defs/none"}}});
        assert!(check(&dangling).unwrap_err().contains("points at nothing"));
    }

    #[test]
    fn deep_nesting_is_refused() {
        let mut schema = json!({"type": "string"});
        for _ in 0..80 {
            schema = json!({"not": schema});
        }
        let err = check(&json!({"type": "object", "properties": {"a": schema}})).unwrap_err();
        assert!(err.contains("deeper than 64"), "{err}");
        // A chain of references is as deep as the tree it stands for.
        let mut defs = serde_json::Map::new();
        defs.insert("d0".into(), json!({"type": "string"}));
        for level in 1..80 {
            defs.insert(format!("d{level}"), json!({"items": {"$ref": format!("#/$defs/d{}", level - 1)}}));
        }
        let chain = json!({"type": "object", "$defs": defs, "properties": {"a": {"$ref": "#/$defs/d79"}}});
        assert!(check(&chain).unwrap_err().contains("deeper than 64"));
    }

    #[test]
    fn pointers_are_percent_decoded() {
        let schema = json!({"type": "object", "$defs": {"a b": {"type": "string"}},
                            "properties": {"x": {"$ref": "#/$defs/a%20b"}}});
        check(&schema).unwrap();
    }
}
