//! Unit tests of `mode.rs`.

use super::*;

fn edit() -> Confirmation {
    Confirmation::Edit { path: "/w/a".into(), original: String::new(), proposed: "x".into(), is_new_file: true }
}

#[test]
fn read_only_tools_run_in_every_mode() {
    for mode in [ApprovalMode::Plan, ApprovalMode::Default, ApprovalMode::AutoEdit, ApprovalMode::Yolo] {
        assert_eq!(by_mode(mode, Kind::Read, None), Verdict::Allow);
        assert_eq!(by_mode(mode, Kind::Search, None), Verdict::Allow);
    }
}

#[test]
fn edits_ask_in_default_run_in_auto_edit_and_are_refused_in_plan() {
    assert_eq!(by_mode(ApprovalMode::Default, Kind::Edit, Some(&edit())), Verdict::Ask);
    assert_eq!(by_mode(ApprovalMode::AutoEdit, Kind::Edit, Some(&edit())), Verdict::Allow);
    assert_eq!(by_mode(ApprovalMode::Yolo, Kind::Edit, Some(&edit())), Verdict::Allow);
    assert!(matches!(by_mode(ApprovalMode::Plan, Kind::Edit, Some(&edit())), Verdict::Deny(_)));
}

#[test]
fn a_mutating_tool_that_claims_no_confirmation_still_asks() {
    assert_eq!(by_mode(ApprovalMode::Default, Kind::Edit, None), Verdict::Ask);
    assert_eq!(by_mode(ApprovalMode::Default, Kind::Execute, None), Verdict::Ask);
    assert_eq!(by_mode(ApprovalMode::AutoEdit, Kind::Execute, None), Verdict::Ask);
    assert_eq!(by_mode(ApprovalMode::Yolo, Kind::Execute, None), Verdict::Allow);
}

#[test]
fn modes_are_ordered_least_to_most_permissive() {
    assert!(ApprovalMode::Plan < ApprovalMode::Default);
    assert!(ApprovalMode::Default < ApprovalMode::AutoEdit);
    assert!(ApprovalMode::AutoEdit < ApprovalMode::Yolo);
}

#[test]
fn auto_edit_approves_only_an_edit_it_can_show() {
    assert_eq!(by_mode(ApprovalMode::AutoEdit, Kind::Edit, Some(&edit())), Verdict::Allow);
    // An edit-kind tool that shows no edit (or shows something else) is asked about.
    assert_eq!(by_mode(ApprovalMode::AutoEdit, Kind::Edit, None), Verdict::Ask);
    let info = Confirmation::Info { prompt: "ok?".into(), urls: Vec::new() };
    assert_eq!(by_mode(ApprovalMode::AutoEdit, Kind::Edit, Some(&info)), Verdict::Ask);
}
