//! The checked-in JSON Schema (`protocol/schema/protocol.json`) is the one the types
//! generate: a change to a type that changes its JSON fails here until the schema is
//! regenerated, so the change is seen in review.

use std::path::Path;

const BLESS: &str = "AIRLOCK_BLESS";

/// `value` with every object's keys in sorted order: the file keeps that order whether or not
/// serde_json's `preserve_order` is on (the ACP SDK turns it on in a workspace build).
fn in_key_order(value: serde_json::Value) -> serde_json::Value {
    match value {
        serde_json::Value::Object(map) => {
            let mut entries: Vec<_> = map.into_iter().collect();
            entries.sort_by(|a, b| a.0.cmp(&b.0));
            serde_json::Value::Object(entries.into_iter().map(|(k, v)| (k, in_key_order(v))).collect())
        }
        serde_json::Value::Array(items) => serde_json::Value::Array(items.into_iter().map(in_key_order).collect()),
        other => other,
    }
}

#[test]
fn the_checked_in_schema_is_the_generated_one() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("schema/protocol.json");
    let generated = format!("{}\n", serde_json::to_string_pretty(&in_key_order(airlock_protocol::schema())).unwrap());
    if std::env::var_os(BLESS).is_some_and(|v| v == "1") {
        std::fs::write(&path, &generated).unwrap();
        return;
    }
    let checked_in = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        checked_in == generated,
        "{} is not the schema the protocol's types generate. If the change is meant, raise \
         airlock_protocol::VERSION when a shape changed, note it in the README, and regenerate it with\n\
         \n    {BLESS}=1 cargo test -p airlock-protocol --test schema\n",
        path.display()
    );
}

#[test]
fn the_schema_describes_every_order_and_output() {
    let schema = airlock_protocol::schema();
    let defs = schema["$defs"].as_object().unwrap();
    for name in ["Order", "Output", "Event", "ToolCall", "Question", "GrantQuestion", "Stats", "ResultLine", "Shown"] {
        assert!(defs.contains_key(name), "{name} missing from $defs");
    }
    let orders = serde_json::to_string(&defs["Order"]).unwrap();
    for tag in ["user_turn", "interrupt", "approve", "set_mode", "compress", "resume", "grant", "shutdown"] {
        assert!(orders.contains(&format!("\"{tag}\"")), "order {tag} missing: {orders}");
    }
    // Doc comments become descriptions.
    assert!(defs["ToolCall"]["properties"]["run_ms"]["description"].as_str().unwrap().contains("milliseconds"));
    assert_eq!(schema["version"], airlock_protocol::VERSION);
}
