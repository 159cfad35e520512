//! MCP servers as tool sources (issue 26), through the real binary and real servers: the
//! fixture servers of `tests/mcp/servers/` (the official Python SDK) and the published
//! `@modelcontextprotocol/server-filesystem`, installed by [`airlock_tests::mcp::toolchain`].
//! The commands that configure them and their grants ([`commands`]); their tools called by
//! the scripted model under approvals and the OS sandbox ([`calls`]); servers that crash,
//! hang, flood or describe themselves with hostile text ([`faults`]).
//!
//! Servers start in the background and their tools are offered from the first model request
//! after they are ready, so a scripted run opens with [`warm_up`]: a turn whose one call
//! (`sleep`, allowed by [`WARM_RULE`]) gives them time, as a person's first exchange would.
//!
//! A server runs in the sandbox of `run_shell_command`, which lets it read the system
//! folders and the workspace only: each test grants the server the toolchain's folders (the
//! venv, the Python it was made from, the fixture scripts) the way a user grants a server
//! its own install folder, so that what the test shows is the grant, not a missing file.

mod calls;
mod commands;
mod faults;

use std::path::{Path, PathBuf};

use airlock_tests::{FAST_RETRIES, Finished, MockModel, Session, Turn, call};

/// The policy rule that lets [`warm_up`]'s command run in any approval mode.
const WARM_RULE: &str = "[[rule]]\ntool = \"run_shell_command\"\ncommand = \"sleep\"\ndecision = \"allow\"\n";

/// Scripts the turn that gives the session's servers time to start: the model runs
/// `sleep 3` first. What the model is told next is in request 1; the tools it declares
/// from then on include the servers'.
pub(crate) fn warm_up(mock: &MockModel) {
    warm_up_for(mock, 3);
}

/// [`warm_up`] for `secs` seconds: for sessions whose servers start slowly together.
fn warm_up_for(mock: &MockModel, secs: u32) {
    mock.push_turn(Turn::calls(vec![call(
        "run_shell_command",
        serde_json::json!({"command": format!("sleep {secs}")}),
    )]));
}

/// The folders a Python fixture server must read to start: the venv, the interpreter's own
/// install (the venv links to it), and the fixture scripts.
fn python_folders() -> Vec<PathBuf> {
    let toolchain = airlock_tests::mcp::toolchain();
    let venv = toolchain.python.parent().and_then(Path::parent).map(Path::to_path_buf).unwrap_or_default();
    let real = std::fs::canonicalize(&toolchain.python).unwrap_or_else(|e| panic!("the venv's python: {e}"));
    // `<prefix>/bin/python3.x`: the interpreter reads its standard library under `<prefix>`.
    let prefix = real.parent().and_then(Path::parent).map(Path::to_path_buf).unwrap_or_default();
    vec![venv, prefix, servers_dir()]
}

/// `tests/mcp/servers/`.
fn servers_dir() -> PathBuf {
    airlock_tests::mcp::toolchain().dir.join("servers")
}

/// `text` as a TOML string.
fn toml_string(text: &str) -> String {
    toml::Value::String(text.to_string()).to_string()
}

fn toml_list(items: &[String]) -> String {
    format!("[{}]", items.iter().map(|i| toml_string(i)).collect::<Vec<_>>().join(", "))
}

/// A `[mcp_servers.NAME]` table that runs fixture `script` with `args`, plus `extra` lines.
pub(crate) fn python_server(name: &str, script: &str, args: &[&str], extra: &str) -> String {
    let python = airlock_tests::mcp::toolchain().python.display().to_string();
    let mut all = vec![servers_dir().join(script).display().to_string()];
    all.extend(args.iter().map(|a| (*a).to_string()));
    format!("[mcp_servers.{name}]\ncommand = {}\nargs = {}\n{extra}\n", toml_string(&python), toml_list(&all))
}

/// A `[mcp_servers.NAME]` grant of `policy.toml` that lets the server read the Python
/// toolchain, plus `extra` lines; then [`WARM_RULE`].
pub(crate) fn python_grant(name: &str, extra: &str) -> String {
    let folders: Vec<String> = python_folders().iter().map(|p| p.display().to_string()).collect();
    format!("[mcp_servers.{name}]\nread = {}\n{extra}\n\n{WARM_RULE}\n", toml_list(&folders))
}

/// Writes `config.toml`: `text` (top-level keys may lead it), then the fast retries every
/// session has.
pub(crate) fn configure(s: &Session, text: &str) {
    s.write_config(&format!("{text}\n{FAST_RETRIES}"));
}

/// `airlock --workspace WORKSPACE mcp ARGS…`, with no model (the workspace goes first:
/// `mcp add` takes everything after `--` as the server's command).
fn mcp(s: &Session, args: &[&str]) -> Finished {
    let mut command = s.bare_command();
    command.arg("--workspace").arg(&s.workspace).arg("mcp").args(args);
    Session::run(command)
}

/// `airlock mcp list --json`, parsed.
fn list_json(s: &Session) -> serde_json::Value {
    let listed = mcp(s, &["list", "--json"]);
    assert_eq!(listed.code, Some(0), "{}", listed.stderr);
    serde_json::from_str(&listed.stdout).unwrap_or_else(|e| panic!("mcp list --json: {e}\n{}", listed.stdout))
}

/// The pids of the processes whose command line holds `tag`.
fn processes_with(tag: &str) -> Vec<u32> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = entry.file_name().to_str().and_then(|n| n.parse::<u32>().ok()) else { continue };
        let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) else { continue };
        let stat = std::fs::read_to_string(entry.path().join("stat")).unwrap_or_default();
        let zombie = stat.rsplit_once(')').and_then(|(_, rest)| rest.split_whitespace().next()) == Some("Z");
        if !zombie && cmdline.split(|b| *b == 0).any(|arg| arg == tag.as_bytes()) {
            found.push(pid);
        }
    }
    found
}

/// A tag unique to this run, to find the processes started with it.
fn unique_tag(s: &Session) -> String {
    format!("airlock-test-{}", s.workspace.file_name().and_then(|n| n.to_str()).unwrap_or("x"))
}
