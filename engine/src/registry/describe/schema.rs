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
#[path = "schema_tests.rs"]
mod tests;
