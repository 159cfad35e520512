//! Unit tests of `schema.rs`.

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
