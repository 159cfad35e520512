use serde_json::json;

use super::*;

fn person() -> OutputSchema {
    let schema = json!({
        "type": "object",
        "properties": { "name": { "type": "string" }, "age": { "type": "integer" } },
        "required": ["name", "age"]
    });
    OutputSchema::compile(schema).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn a_conforming_answer_is_its_value() {
    assert_eq!(person().check(r#" {"name": "Ada", "age": 36} "#), Ok(json!({ "name": "Ada", "age": 36 })));
}

#[test]
fn an_answer_in_one_fenced_block_is_read_inside_the_fence() {
    let answer = "```json\n{\"name\": \"Ada\", \"age\": 36}\n```\n";
    assert_eq!(person().check(answer), Ok(json!({ "name": "Ada", "age": 36 })));
    // Text around the fence is not one fenced block: the answer is not JSON.
    assert!(person().check("Here it is:\n```json\n{}\n```").is_err());
}

#[test]
fn a_mismatch_names_where_and_why() {
    let Err(Mismatch(why)) = person().check(r#"{"name": 7}"#) else { panic!("accepted a wrong answer") };
    assert!(why.contains("at /name") && why.contains("not of type"), "{why}");
    assert!(why.contains("\"age\" is a required property"), "{why}");
}

#[test]
fn non_json_empty_and_oversized_answers_are_refused() {
    let Err(Mismatch(why)) = person().check("Ada is 36.") else { panic!("accepted prose") };
    assert!(why.starts_with("the final answer is not JSON"), "{why}");
    let Err(Mismatch(why)) = person().check("  \n") else { panic!("accepted nothing") };
    assert!(why.contains("empty"), "{why}");
    let huge = format!("\"{}\"", "a".repeat(MAX_ANSWER_BYTES));
    let Err(Mismatch(why)) = person().check(&huge) else { panic!("accepted a huge answer") };
    assert!(why.contains("over the 16 MiB"), "{why}");
}

#[test]
fn a_deeply_nested_answer_is_refused_not_overflowed() {
    let deep = format!("{}{}", "[".repeat(100_000), "]".repeat(100_000));
    let Err(Mismatch(why)) = person().check(&deep) else { panic!("accepted a deep answer") };
    assert!(why.contains("recursion limit"), "{why}");
}

#[test]
fn an_invalid_schema_is_refused_with_its_problem() {
    let Err(why) = OutputSchema::compile(json!({ "type": "strng" })) else { panic!("compiled a bad type") };
    assert!(why.contains("strng"), "{why}");
    assert!(OutputSchema::compile(json!([1, 2])).is_err());
}

#[test]
fn references_outside_the_file_are_refused_and_local_ones_resolve() {
    for outside in ["http://127.0.0.1:9/s.json", "file:///etc/passwd"] {
        let schema = json!({ "$ref": outside });
        let Err(why) = OutputSchema::compile(schema) else { panic!("{outside} was resolved") };
        assert!(why.contains(outside) && why.contains("never fetches"), "{outside}: {why}");
    }
    // A relative reference has no base to resolve against: refused as well.
    let Err(why) = OutputSchema::compile(json!({ "$ref": "other.json" })) else { panic!("other.json was resolved") };
    assert!(why.contains("other.json"), "{why}");
    let local = json!({ "$defs": { "n": { "type": "integer" } }, "$ref": "#/$defs/n" });
    let schema = OutputSchema::compile(local).unwrap_or_else(|e| panic!("{e}"));
    assert!(schema.check("3").is_ok() && schema.check("\"3\"").is_err());
}

#[test]
fn a_recursive_schema_compiles_and_checks() {
    let tree = json!({
        "type": "object",
        "properties": { "children": { "type": "array", "items": { "$ref": "#" } } },
        "required": ["children"]
    });
    let schema = OutputSchema::compile(tree).unwrap_or_else(|e| panic!("{e}"));
    assert!(schema.check(r#"{"children": [{"children": []}]}"#).is_ok());
    assert!(schema.check(r#"{"children": [{}]}"#).is_err());
}

#[test]
fn schema_files_that_are_missing_too_large_or_not_json_are_refused() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let missing = dir.path().join("missing.json");
    assert!(matches!(OutputSchema::load(&missing), Err(SchemaError::Read { .. })));
    let large = dir.path().join("large.json");
    let padding = " ".repeat(MAX_SCHEMA_BYTES as usize);
    std::fs::write(&large, format!("{{{padding}}}")).unwrap_or_else(|e| panic!("{e}"));
    assert!(matches!(OutputSchema::load(&large), Err(SchemaError::TooLarge { .. })));
    let prose = dir.path().join("prose.json");
    std::fs::write(&prose, "a schema").unwrap_or_else(|e| panic!("{e}"));
    assert!(matches!(OutputSchema::load(&prose), Err(SchemaError::NotJson { .. })));
    assert!(matches!(OutputSchema::load(dir.path()), Err(SchemaError::Read { .. })));
}

#[test]
fn printed_json_escapes_what_a_terminal_would_act_on_and_stays_the_same_data() {
    let value = json!({ "na\u{200b}me": "Ada\u{202e}\u{1b}[2J\u{9b}\u{7f} é \u{e0041}" });
    let mut out = Vec::new();
    write_json(&mut out, &value).unwrap_or_else(|e| panic!("{e}"));
    let text = String::from_utf8(out).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(text, "{\"na\\u200bme\":\"Ada\\u202e\\u001b[2J\\u009b\\u007f é \\udb40\\udc41\"}\n");
    assert!(!text.chars().any(|c| c != '\n' && shown::is_hidden(c)), "{text:?}");
    let back: Value = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(back, value);
}
