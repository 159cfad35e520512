use serde_json::json;

use super::*;

#[test]
fn output_is_sanitised_and_bounded() {
    assert_eq!(bounded("a\u{1b}[31mred\nline", 100), "a\\x1b[31mred\nline");
    let cut = bounded(&"é".repeat(100), 11);
    assert!(cut.starts_with(&"é".repeat(6)) && cut.ends_with("… (cut)"), "{cut}");
    assert_eq!(bounded("short", 5), "short");
}

#[test]
fn locations_are_the_paths_the_arguments_name() {
    let args = json!({ "file_path": "src/main.rs", "dir_path": ".", "paths": ["a.rs", "b\u{202e}.rs", 3] });
    let paths: Vec<String> = locations(&args).iter().map(|l| l.path.display().to_string()).collect();
    assert_eq!(paths, ["src/main.rs", ".", "a.rs", "b\\u{202e}.rs"]);
    assert!(locations(&json!({ "command": "ls" })).is_empty());
}

#[test]
fn call_states_map_to_acp_statuses() {
    assert_eq!(status(CallStatus::Validating), ToolCallStatus::Pending);
    assert_eq!(status(CallStatus::AwaitingApproval), ToolCallStatus::Pending);
    assert_eq!(status(CallStatus::Executing), ToolCallStatus::InProgress);
    assert_eq!(status(CallStatus::Success), ToolCallStatus::Completed);
    assert_eq!(status(CallStatus::Error), ToolCallStatus::Failed);
    assert_eq!(status(CallStatus::Cancelled), ToolCallStatus::Failed);
}

#[test]
fn the_end_of_a_compress_is_each_way_the_engine_says_it() {
    for said in [
        "compressed 4 earlier messages into a summary (900 → 120 tokens est.)",
        "nothing older to compress (about 12 tokens est.)",
        "could not compress the conversation (no model); the history is left whole",
        "compressing was cancelled",
    ] {
        assert!(ends_compress(said), "{said}");
    }
    assert!(!ends_compress("approval mode: yolo"));
}
