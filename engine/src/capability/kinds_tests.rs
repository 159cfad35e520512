use super::*;
use crate::contract::{Capabilities, FileRequest};

fn tool(kind: Kind, files: &[(&str, Access)]) -> ToolInfo {
    ToolInfo {
        name: "get".into(),
        display_name: "Get".into(),
        description: "d".into(),
        parameters: serde_json::json!({"type": "object"}),
        kind,
        streams_output: false,
        parallel_safe: true,
        capabilities: Capabilities {
            files: files.iter().map(|(p, a)| FileRequest { path: (*p).into(), access: *a }).collect(),
            network: vec!["https://example.com".into()],
            ..Capabilities::default()
        },
    }
}

#[test]
fn a_read_only_kind_asking_to_write_is_impossible_and_says_why() {
    for kind in [Kind::Read, Kind::Search, Kind::Fetch, Kind::Think] {
        let found = impossible(&tool(kind, &[(".", Access::ReadWrite), ("docs", Access::Read)]));
        assert_eq!(found.len(), 1, "{kind:?}: {found:?}");
        assert_eq!(found[0].request, "write .");
        let text = found[0].to_string();
        assert!(text.contains(&format!("`{}` tools never write files", kind.as_str())), "{text}");
        assert!(text.contains("declare the tool `edit`, or drop `write .`"), "{text}");
    }
    for kind in [Kind::Edit, Kind::Delete, Kind::Move, Kind::Execute, Kind::Other] {
        assert!(impossible(&tool(kind, &[(".", Access::ReadWrite)])).is_empty(), "{kind:?}");
    }
}

#[test]
fn what_a_tool_can_use_keeps_reads_and_turns_writes_of_read_only_kinds_into_reads() {
    let fetch = usable(&tool(Kind::Fetch, &[(".", Access::ReadWrite)]));
    assert_eq!(fetch.capabilities.files[0].access, Access::Read);
    assert_eq!(fetch.capabilities.network, ["https://example.com"], "other requests are kept");
    let edit = usable(&tool(Kind::Edit, &[(".", Access::ReadWrite)]));
    assert_eq!(edit.capabilities.files[0].access, Access::ReadWrite);
}
