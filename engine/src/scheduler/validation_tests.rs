//! Unit tests of `validation.rs`.

use super::*;

#[test]
fn parses_objects_and_rejects_everything_else() {
    assert_eq!(parse_args("").unwrap(), serde_json::json!({}));
    assert_eq!(parse_args("{\"a\":1}").unwrap(), serde_json::json!({"a": 1}));
    assert!(parse_args("[1]").unwrap_err().contains("JSON object"));
    assert!(parse_args("{\"a\":").unwrap_err().contains("not valid JSON"));
}
