use super::*;

#[test]
fn yaml_fields_and_the_body_are_split() {
    let file = "---\ndescription: Review a PR\nargument-hint: [message]\nallowed-tools: Bash(git add:*), Bash(git status:*)\nmetadata:\n  a: b\n---\nBody $ARGUMENTS\n";
    let parsed = parse(file);
    assert!(parsed.present);
    assert_eq!(parsed.get("description"), Some("Review a PR"));
    assert_eq!(parsed.get("argument-hint"), Some("[message]"));
    assert_eq!(parsed.get("allowed-tools"), Some("Bash(git add:*), Bash(git status:*)"));
    assert_eq!(parsed.get("metadata"), None);
    assert_eq!(parsed.body, "Body $ARGUMENTS\n");
}

#[test]
fn a_block_that_is_not_yaml_is_read_line_by_line() {
    let file = "---\nargument-hint: [pr-number] [priority] [assignee]\ndescription: \"Fix: the issue\"\n---\nx";
    let parsed = parse(file);
    assert_eq!(parsed.get("argument-hint"), Some("[pr-number] [priority] [assignee]"));
    assert_eq!(parsed.get("description"), Some("Fix: the issue"));
    assert_eq!(parsed.body, "x");
}

#[test]
fn a_file_without_a_closed_block_is_all_body() {
    for file in ["no front matter\n", "---\ndescription: x\nnever closed\n", "\n---\na: b\n---\n"] {
        let parsed = parse(file);
        assert!(!parsed.present, "{file:?}");
        assert_eq!(parsed.body, file);
    }
}

#[test]
fn a_folded_yaml_description_is_one_text() {
    let parsed = parse("---\r\nname: pdf\r\ndescription: >\r\n  Reads PDFs\r\n  and forms.\r\n---\r\nbody");
    assert_eq!(parsed.get("name"), Some("pdf"));
    assert_eq!(parsed.get("description"), Some("Reads PDFs and forms."));
}
