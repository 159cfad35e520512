//! Unit tests of `capability/diff.rs`.

use super::*;
use crate::contract::Kind;

fn tool(name: &str, files: &[&str], network: &[&str], env: &[&str], processes: &[&str]) -> ToolInfo {
    let strings = |items: &[&str]| items.iter().map(|s| (*s).to_string()).collect::<Vec<_>>();
    ToolInfo {
        name: name.into(),
        display_name: name.into(),
        description: "d".into(),
        parameters: serde_json::json!({"type": "object"}),
        kind: Kind::Fetch,
        streams_output: false,
        parallel_safe: true,
        capabilities: Capabilities {
            files: files
                .iter()
                .map(|f| {
                    let grant = FileGrant::parse(f).unwrap();
                    FileRequest { path: grant.path, access: grant.access }
                })
                .collect(),
            network: strings(network),
            env: strings(env),
            processes: strings(processes),
        },
    }
}

fn net(rules: &[&str]) -> Vec<NetRule> {
    rules.iter().map(|r| NetRule::parse(r).unwrap()).collect()
}

#[test]
fn a_new_port_a_wildcard_and_a_new_host_are_each_new_requests() {
    let old = [tool("get", &[], &["https://a.com"], &[], &[])];
    let new =
        [tool("get", &[], &["https://a.com", "https://a.com:8443", "https://*.a.com", "https://b.com"], &[], &[])];
    let diff = RequestDiff::between(&old, &new);
    assert_eq!(diff.added.network, net(&["https://a.com:8443", "https://*.a.com", "https://b.com"]));
    assert_eq!(diff.unchanged.network, net(&["https://a.com"]));
    assert!(diff.removed.is_empty());
    assert!(!diff.is_empty());
}

#[test]
fn reading_then_writing_a_folder_is_a_widening() {
    let old = [tool("edit", &["src:read", "~/notes:read-write"], &[], &[], &[])];
    let new = [tool("edit", &["src:read-write", "~/notes/today:read-write"], &[], &[], &[])];
    let diff = RequestDiff::between(&old, &new);
    assert_eq!(diff.added.files, vec![FileGrant::parse("src:read-write").unwrap()]);
    // A folder inside one requested before asks for nothing new.
    assert!(!diff.added.files.iter().any(|f| f.path == "~/notes/today"));
    assert_eq!(diff.removed.files, vec![FileGrant::parse("~/notes:read-write").unwrap()]);
    assert_eq!(diff.added.by_kind(), vec![("files", vec!["write src".to_string()])]);
}

#[test]
fn variables_processes_and_tools_added_and_removed() {
    let old = [tool("a", &[], &[], &["TOKEN"], &["git"]), tool("gone", &[], &[], &["OLD"], &[])];
    let new = [tool("a", &[], &[], &["TOKEN", "SECRET"], &["git status", "curl"]), tool("fresh", &[], &[], &[], &[])];
    let diff = RequestDiff::between(&old, &new);
    assert_eq!(diff.added.env, vec!["SECRET".to_string()]);
    assert_eq!(diff.removed.env, vec!["OLD".to_string()]);
    // `git status` is inside the old `git`; `curl` is new.
    assert_eq!(diff.added.processes, vec!["curl".to_string()]);
    assert_eq!(diff.removed.processes, vec!["git".to_string()]);
    assert_eq!(diff.tools_added.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(), ["fresh"]);
    assert_eq!(diff.tools_removed[0].0, "gone");
    assert_eq!(diff.tools_removed[0].1.env, vec!["OLD".to_string()]);
}

#[test]
fn the_same_requests_make_an_empty_diff() {
    let tools = [tool("a", &[".:read"], &["https://a.com"], &["X"], &["ls"])];
    assert!(RequestDiff::between(&tools, &tools).is_empty());
}

#[test]
fn a_record_narrows_a_tool_to_what_it_approved() {
    let record = Requests::of([&tool("a", &["src:read"], &["https://a.com"], &["TOKEN"], &["git"])]);
    let now = tool(
        "a",
        &["src:read-write", "docs:read"],
        &["https://a.com", "https://b.com"],
        &["TOKEN", "NEW"],
        &["git log", "rm"],
    );
    let (narrowed, unapproved) = record.narrow(&now);
    assert_eq!(narrowed.capabilities.files, vec![FileRequest { path: "src".into(), access: Access::Read }]);
    assert_eq!(narrowed.capabilities.network, vec!["https://a.com".to_string()]);
    assert_eq!(narrowed.capabilities.env, vec!["TOKEN".to_string()]);
    assert_eq!(narrowed.capabilities.processes, vec!["git log".to_string()]);
    assert_eq!(unapproved.lines(), ["write src", "read docs", "net https://b.com", "env NEW", "process rm"]);
}

#[test]
fn a_wildcard_request_keeps_only_the_hosts_its_record_named() {
    let record = Requests { network: net(&["https://x.a.com"]), ..Requests::default() };
    let (narrowed, unapproved) = record.narrow(&tool("a", &[], &["https://*.a.com"], &[], &[]));
    assert_eq!(narrowed.capabilities.network, vec!["https://x.a.com".to_string()]);
    assert_eq!(unapproved.network, net(&["https://*.a.com"]));
}

#[test]
fn a_record_shrinks_to_the_intersection_and_grows_by_union() {
    let record = Requests::of([&tool("a", &[".:read"], &["https://a.com", "https://b.com"], &[], &[])]);
    let smaller = Requests::of([&tool("a", &[], &["https://a.com"], &[], &[])]);
    let shrunk = smaller.intersection(&record);
    assert_eq!(shrunk.network, net(&["https://a.com"]));
    assert!(shrunk.files.is_empty());
    // Asking again later is a new request.
    assert_eq!(record.beyond(&shrunk).network, net(&["https://b.com"]));
    assert_eq!(shrunk.union(&record).network, net(&["https://a.com", "https://b.com"]));
}

#[test]
fn folders_compare_within_one_namespace() {
    assert!(contains(".", "src/deep"));
    assert!(contains("src", "./src/deep"));
    assert!(!contains("src", "srcx"));
    assert!(!contains(".", "~/notes"));
    assert!(!contains("~", "/etc"));
    assert!(contains("~", "~/notes"));
}
