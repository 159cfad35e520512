//! Unit tests of `checkpointed.rs`: the roots of each kind of call, computed from what the
//! host resolved (real folders in a temporary workspace), and the MCP server's write
//! folders as its launch resolves them.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::super::bound::BoundEdit;
use super::super::sandboxing::{Access, EditTarget, Writes};
use super::*;
use crate::capability::{CallLimits, Effective};
use crate::contract::Access as FileAccess;
use crate::contract::{Capabilities, Kind};

fn tool(kind: Kind) -> ToolInfo {
    ToolInfo {
        name: "t".into(),
        display_name: "t".into(),
        description: String::new(),
        parameters: serde_json::Value::Null,
        kind,
        streams_output: false,
        parallel_safe: false,
        capabilities: Capabilities::default(),
    }
}

fn access(files: &[(&Path, FileAccess)], processes: bool) -> Access {
    let effective = Effective {
        files: files.iter().map(|(path, access)| (path.to_path_buf(), *access)).collect(),
        processes: if processes { vec!["sed".into()] } else { Vec::new() },
        ..Effective::default()
    };
    Access { effective, limits: CallLimits::default(), meter: Arc::default() }
}

struct Workspace {
    _dir: tempfile::TempDir,
    root: PathBuf,
}

fn workspace() -> Workspace {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(root.join("src/deep")).unwrap();
    std::fs::create_dir_all(root.join("out")).unwrap();
    std::fs::write(root.join("src/lib.rs"), "fn a() {}\n").unwrap();
    Workspace { _dir: dir, root }
}

#[test]
fn a_built_in_edit_checkpoints_its_file_alone() {
    let ws = workspace();
    let target = EditTarget::resolve(&ws.root, "src/lib.rs").unwrap();
    let writes = Writes::Edit(target);
    let access = access(&[(&ws.root, FileAccess::ReadWrite)], false);
    assert_eq!(roots(&tool(Kind::Edit), &access, &writes), [ws.root.join("src/lib.rs")]);
    // A file still to be made is its own root too (restoring deletes it).
    let writes = Writes::Edit(EditTarget::resolve(&ws.root, "src/new/x.rs").unwrap());
    assert_eq!(roots(&tool(Kind::Edit), &access, &writes), [ws.root.join("src/new/x.rs")]);
}

#[test]
fn an_edit_without_write_access_or_of_a_read_only_kind_takes_none() {
    let ws = workspace();
    let writes = Writes::Edit(EditTarget::resolve(&ws.root, "src/lib.rs").unwrap());
    let read_only = access(&[(&ws.root, FileAccess::Read)], false);
    assert!(roots(&tool(Kind::Edit), &read_only, &writes).is_empty());
    let granted = access(&[(&ws.root, FileAccess::ReadWrite)], false);
    for kind in [Kind::Read, Kind::Search, Kind::Fetch, Kind::Think] {
        assert!(roots(&tool(kind), &granted, &Writes::Grant).is_empty(), "{kind:?}");
    }
    assert!(roots(&tool(Kind::Edit), &granted, &Writes::Nothing).is_empty());
}

#[test]
fn an_edit_that_may_start_programs_checkpoints_the_folder_they_may_write() {
    let ws = workspace();
    let writes = Writes::Edit(EditTarget::resolve(&ws.root, "src/lib.rs").unwrap());
    let access = access(&[(&ws.root, FileAccess::ReadWrite)], true);
    assert_eq!(roots(&tool(Kind::Edit), &access, &writes), [ws.root.join("src")]);
}

#[test]
fn a_bound_edit_checkpoints_its_target_file() {
    let ws = workspace();
    let target = EditTarget::resolve(&ws.root, "src/lib.rs").unwrap();
    let writes = Writes::Bound(Box::new(BoundEdit::new(target, "fn a() {}\n", "fn b() {}\n").unwrap()));
    let access = access(&[(&ws.root, FileAccess::ReadWrite)], false);
    assert_eq!(roots(&tool(Kind::Edit), &access, &writes), [ws.root.join("src/lib.rs")]);
}

#[test]
fn a_grant_checkpoints_its_writable_folders_and_not_those_it_reads() {
    let ws = workspace();
    let (src, out, deep) = (ws.root.join("src"), ws.root.join("out"), ws.root.join("src/deep"));
    let access =
        access(&[(&src, FileAccess::ReadWrite), (&deep, FileAccess::ReadWrite), (&out, FileAccess::Read)], true);
    // `src/deep` lies inside `src`: one root holds both.
    assert_eq!(roots(&tool(Kind::Execute), &access, &Writes::Grant), [src]);
}

#[test]
fn a_widened_grant_adds_only_the_folders_not_yet_checkpointed() {
    let ws = workspace();
    let (src, out) = (ws.root.join("src"), ws.root.join("out"));
    let narrow = access(&[(&src, FileAccess::ReadWrite)], true);
    let widened = access(&[(&src, FileAccess::ReadWrite), (&out, FileAccess::ReadWrite)], true);
    let tool = tool(Kind::Execute);
    let mut taken = Taken { roots: roots(&tool, &narrow, &Writes::Grant), ..Taken::default() };
    assert_eq!(taken.roots, std::slice::from_ref(&src));
    let added: Vec<PathBuf> = added(&taken, roots(&tool, &widened, &Writes::Grant));
    assert_eq!(added, std::slice::from_ref(&out));
    taken.roots = outermost(taken.roots.drain(..).chain(added).collect());
    assert_eq!(taken.roots, [out, src]);
}

/// The roots a widened grant adds to `taken`, as [`Scheduler::checkpoint_more`] computes them.
fn added(taken: &Taken, roots: Vec<PathBuf>) -> Vec<PathBuf> {
    new_roots(&taken.roots, roots)
}

#[test]
fn an_mcp_server_checkpoints_its_resolved_write_folders_never_airlocks_own() {
    let ws = workspace();
    let home = tempfile::tempdir().unwrap();
    let protected = [home.path().canonicalize().unwrap()];
    let grant = crate::mcp::McpGrant {
        write: vec!["out".into(), protected[0].display().to_string()],
        ..crate::mcp::McpGrant::default()
    };
    let server = crate::mcp::ConfiguredServer {
        name: "files".into(),
        config: crate::mcp::ServerConfig { command: Some("true".into()), ..crate::mcp::ServerConfig::default() },
        scope: crate::mcp::Scope::User,
        config_file: PathBuf::from("/nonexistent/config.toml"),
        grant,
        grant_file: PathBuf::from("/nonexistent/policy.toml"),
    };
    let view = airlock_sandbox::folders::CommandView::default();
    let host = crate::mcp::launch::Host {
        workspace: &ws.root,
        home: None,
        view: &view,
        protected: &protected,
        helper: Path::new("/nonexistent/airlock"),
    };
    let (launch, _) = crate::mcp::launch::launch(&server, &host).unwrap();
    // What the hub keeps on the server's `Live` at launch, and its calls checkpoint.
    assert_eq!(launch.spec.read_write, [ws.root.join("out")]);
}
