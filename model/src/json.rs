//! Writing JSON straight into a request body. The wires build their bodies as bytes, with
//! object keys written in sorted order at every depth, values ([`value`]) included: the
//! order `serde_json::Value` objects serialised in before the ACP SDK turned on serde_json's
//! `preserve_order` for the binary, so a body's bytes do not depend on that feature.

use serde::Serializer as _;
use serde_json::Value;

/// Writes `text` as a JSON string, escaped as `serde_json` escapes it.
pub(crate) fn string(out: &mut Vec<u8>, text: &str) {
    // Serialising a string into a `Vec<u8>` cannot fail (no I/O error, no key to reject),
    // so there is no error to pass on.
    let _ = serde_json::Serializer::new(out).serialize_str(text);
}

/// Writes `value` compactly, each object's keys in sorted order.
pub(crate) fn value(out: &mut Vec<u8>, value: &Value) {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            out.push(b'{');
            for (at, (key, item)) in entries.into_iter().enumerate() {
                if at > 0 {
                    out.push(b',');
                }
                string(out, key);
                out.push(b':');
                self::value(out, item);
            }
            out.push(b'}');
        }
        Value::Array(items) => {
            out.push(b'[');
            for (at, item) in items.iter().enumerate() {
                if at > 0 {
                    out.push(b',');
                }
                self::value(out, item);
            }
            out.push(b']');
        }
        scalar => out.extend_from_slice(scalar.to_string().as_bytes()),
    }
}

/// Appends `items` to a JSON array being written: a comma first unless it is the first
/// item. `items` is a run of comma-separated values, and empty runs add nothing.
pub(crate) fn push_items(out: &mut Vec<u8>, first: &mut bool, items: &[u8]) {
    if items.is_empty() {
        return;
    }
    if !*first {
        out.push(b',');
    }
    *first = false;
    out.extend_from_slice(items);
}

/// Starts the next item of a run of comma-separated values in `run`.
pub(crate) fn next_item(run: &mut Vec<u8>) {
    if !run.is_empty() {
        run.push(b',');
    }
}
