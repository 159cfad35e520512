//! Writing JSON straight into a request body. The wires build their bodies as bytes, with
//! object keys written in sorted order: the order `serde_json::Value` objects serialise in
//! (the workspace does not enable `preserve_order`), so the bytes are the ones a `Value`
//! tree of the same body would give.

use serde::Serializer as _;
use serde_json::Value;

/// Writes `text` as a JSON string, escaped as `serde_json` escapes it.
pub(crate) fn string(out: &mut Vec<u8>, text: &str) {
    // Serialising a string into a `Vec<u8>` cannot fail (no I/O error, no key to reject),
    // so there is no error to pass on.
    let _ = serde_json::Serializer::new(out).serialize_str(text);
}

/// Writes `value` compactly.
pub(crate) fn value(out: &mut Vec<u8>, value: &Value) {
    out.extend_from_slice(value.to_string().as_bytes());
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
