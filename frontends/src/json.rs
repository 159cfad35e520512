//! JSON lines and documents as airlock prints them: keys sorted at every depth, as they
//! always have been ([`write_line`], [`write_pretty`] go through a [`serde_json::Value`]
//! whose objects are rebuilt in key order: the ACP SDK turns on serde_json's
//! `preserve_order` for the whole binary, so a map no longer sorts itself). The run's outputs
//! (`-o json`, `-o stream-json`) are the protocol's types (`airlock_protocol`); the
//! listings of the binary's commands are the host's (`airlock::commands::json`).

use std::io::{self, Write};
use std::time::{SystemTime, UNIX_EPOCH};

use serde::Serialize;
use serde_json::Value;

/// Printed instead of a shape that cannot be serialized, so a reader of the stream sees a
/// line saying so rather than a gap.
#[derive(Debug, Serialize)]
struct Unprintable {
    message: String,
    #[serde(rename = "type")]
    kind: &'static str,
}

/// `shape` with its keys sorted at every depth (see the module doc).
fn sorted(shape: &impl Serialize) -> Value {
    let value = serde_json::to_value(shape).unwrap_or_else(|e| {
        serde_json::to_value(Unprintable { message: e.to_string(), kind: "error" }).unwrap_or_default()
    });
    in_key_order(value)
}

/// `value` with every object's entries in key order, whatever order its map keeps.
pub fn in_key_order(value: Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(String, Value)> = map.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            Value::Object(entries.into_iter().map(|(key, value)| (key, in_key_order(value))).collect())
        }
        Value::Array(items) => Value::Array(items.into_iter().map(in_key_order).collect()),
        other => other,
    }
}

/// Writes `shape` as one line, keys sorted, and flushes.
pub fn write_line(out: &mut impl Write, shape: &impl Serialize) -> io::Result<()> {
    serde_json::to_writer(&mut *out, &sorted(shape))?;
    out.write_all(b"\n")?;
    out.flush()
}

/// Writes `shape` indented, keys sorted, with a final newline.
pub fn write_pretty(out: &mut impl Write, shape: &impl Serialize) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, &sorted(shape))?;
    writeln!(out)
}

/// Milliseconds since the Unix epoch, for a printed line's `timestamp`.
pub fn now_millis() -> u64 {
    SystemTime::now().duration_since(UNIX_EPOCH).map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

#[cfg(test)]
#[path = "json_tests.rs"]
mod tests;
