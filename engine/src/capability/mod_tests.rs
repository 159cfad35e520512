//! Unit tests of `capability/mod.rs`.

use super::*;
use crate::contract::{Capabilities, FileRequest, Kind};

fn tool(kind: Kind, files: &[(&str, Access)]) -> ToolInfo {
    ToolInfo {
        name: "t".into(),
        display_name: "T".into(),
        description: "d".into(),
        parameters: serde_json::json!({"type": "object"}),
        kind,
        streams_output: false,
        parallel_safe: true,
        capabilities: Capabilities {
            files: files.iter().map(|(p, a)| FileRequest { path: (*p).into(), access: *a }).collect(),
            ..Capabilities::default()
        },
    }
}

fn grant(files: &[&str]) -> Grant {
    Grant { files: files.iter().map(|f| FileGrant::parse(f).unwrap()).collect(), ..Grant::default() }
}

struct Dirs {
    _ws: tempfile::TempDir,
    _home: tempfile::TempDir,
    roots: Roots,
}

fn dirs() -> Dirs {
    let ws = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(ws.path().join("src/deep")).unwrap();
    std::fs::create_dir_all(home.path().join("notes")).unwrap();
    let roots = Roots {
        workspace: ws.path().canonicalize().unwrap(),
        home: Some(home.path().canonicalize().unwrap()),
        memory: None,
    };
    Dirs { _ws: ws, _home: home, roots }
}

#[test]
fn parses_file_grants() {
    assert_eq!(FileGrant::parse("src").unwrap(), FileGrant { path: "src".into(), access: Access::Read });
    assert_eq!(FileGrant::parse("~/x:read-write").unwrap().access, Access::ReadWrite);
    assert!(FileGrant::parse("a/../b").is_err());
    assert!(FileGrant::parse(":read").is_err());
}

#[test]
fn nothing_granted_means_nothing_given_and_the_missing_grant_is_named() {
    let d = dirs();
    let e = effective(&tool(Kind::Read, &[(".", Access::Read)]), &Grant::default(), &d.roots);
    assert!(e.files.is_empty());
    assert_eq!(e.missing, ["--read ."]);
}

#[test]
fn the_deeper_folder_and_the_lesser_access_win() {
    let d = dirs();
    let e = effective(&tool(Kind::Edit, &[(".", Access::ReadWrite)]), &grant(&["src:read-write"]), &d.roots);
    assert_eq!(e.files, [(d.roots.workspace.join("src"), Access::ReadWrite)]);
    let e = effective(&tool(Kind::Edit, &[("src/deep", Access::ReadWrite)]), &grant(&[".:read"]), &d.roots);
    assert_eq!(e.files, [(d.roots.workspace.join("src/deep"), Access::Read)]);
    assert_eq!(e.missing, ["--write src/deep"]);
}

#[test]
fn home_requests_need_a_home_grant() {
    let d = dirs();
    let t = tool(Kind::Read, &[("~/notes", Access::Read)]);
    assert!(effective(&t, &grant(&["."]), &d.roots).files.is_empty());
    let e = effective(&t, &grant(&["~/notes"]), &d.roots);
    assert_eq!(e.files, [(d.roots.home.clone().unwrap().join("notes"), Access::Read)]);
}

#[test]
fn read_only_tools_and_checks_never_write() {
    let d = dirs();
    let g = grant(&[".:read-write"]);
    let reader = tool(Kind::Read, &[(".", Access::ReadWrite)]);
    assert!(!effective(&reader, &g, &d.roots).preopens(&reader, Phase::Execute)[0].writable);
    let editor = tool(Kind::Edit, &[(".", Access::ReadWrite)]);
    let e = effective(&editor, &g, &d.roots);
    assert!(!e.preopens(&editor, Phase::Check)[0].writable);
    assert!(e.preopens(&editor, Phase::Execute)[0].writable);
}

#[test]
fn a_read_only_kind_gets_and_misses_a_write_request_as_a_read() {
    // What it gets says read (never a write it cannot use), and a missing grant suggests
    // `--read`, never `--write`.
    let d = dirs();
    let fetcher = tool(Kind::Fetch, &[(".", Access::ReadWrite)]);
    let e = effective(&fetcher, &grant(&[".:read-write"]), &d.roots);
    assert_eq!(e.files, [(d.roots.workspace.clone(), Access::Read)]);
    assert!(e.missing.is_empty(), "{:?}", e.missing);
    let e = effective(&fetcher, &Grant::default(), &d.roots);
    assert_eq!(e.missing, ["--read ."]);
}

#[cfg(unix)]
#[test]
fn a_workspace_symlink_that_leads_outside_is_not_granted() {
    let d = dirs();
    std::os::unix::fs::symlink(d.roots.home.clone().unwrap(), d.roots.workspace.join("escape")).unwrap();
    let e = effective(&tool(Kind::Read, &[("escape", Access::Read)]), &grant(&["."]), &d.roots);
    assert!(e.files.is_empty(), "{:?}", e.files);
}

#[test]
fn env_and_processes_need_both_sides() {
    let d = dirs();
    let mut t = tool(Kind::Read, &[]);
    t.capabilities.env = vec!["A".into(), "B".into()];
    t.capabilities.processes = vec!["git status".into(), "rm".into()];
    let g = Grant { env: vec!["B".into(), "C".into()], processes: vec!["git".into()], ..Grant::default() };
    let e = effective(&t, &g, &d.roots);
    assert_eq!(e.env, ["B"]);
    assert_eq!(e.processes, ["git status"]);
    assert_eq!(e.missing, ["--env A", "--process rm"]);
}
