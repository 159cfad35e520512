//! The two places a command line is judged, as the targets call them: the question's
//! verdict ([`Policy::exec_verdict`], before anyone is asked) and the gate every spawn
//! passes ([`Gate::check`]), both in one workspace folder the line may write.

use std::path::{Path, PathBuf};

use airlock_engine::capability::Roots;
use airlock_engine::contract::{Capabilities, Confirmation, Kind, Risk, ToolInfo};
use airlock_engine::policy::file::parse;
use airlock_engine::policy::rules::{CallFacts, RuleSource};
use airlock_engine::policy::{ApprovalMode, ExecVerdict, Policy};
use airlock_engine::runtime::{ApprovedLine, Gate};

/// The tool whose lines are judged.
pub const TOOL: &str = "run_shell_command";

thread_local! {
    static WORKSPACE: Option<(tempfile::TempDir, PathBuf)> = tempfile::tempdir().ok().and_then(|dir| {
        let canonical = dir.path().canonicalize().ok()?;
        Some((dir, canonical))
    });
}

/// Runs `f` with the thread's workspace folder (canonical, empty).
pub fn in_workspace<T>(f: impl FnOnce(&Path) -> T) -> T {
    WORKSPACE.with(|workspace| {
        let Some((_, path)) = workspace else { panic!("no workspace folder could be made") };
        f(path)
    })
}

/// The gate's answer for `line` in `workspace`: the tool is granted `prefixes` and denied
/// `denied`; with `approved`, the line itself was approved for this call by a rule or the
/// mode (nobody read a question about it: a line airlock cannot name whole is refused). A
/// refusal is its message.
pub fn gate(workspace: &Path, line: &str, denied: &[&str], prefixes: &[&str], approved: bool) -> Result<(), String> {
    let mut gate = Gate {
        prefixes: prefixes.iter().map(|p| p.to_string()).collect(),
        approved: approved.then(|| ApprovedLine {
            line: line.to_string(),
            folder: workspace.to_path_buf(),
            asked: false,
        }),
        denied: denied.iter().map(|p| p.to_string()).collect(),
    };
    if approved {
        gate.prefixes.push("*".into());
    }
    let writable = [workspace.to_path_buf()];
    gate.check(line, workspace, &writable, false).map(|_| ()).map_err(|refusal| format!("{refusal:?}"))
}

/// The verdict on `line` in `workspace` in `mode`, under a user policy of `rules` (each a
/// command prefix and its decision).
pub fn verdict(workspace: &Path, line: &str, mode: ApprovalMode, rules: &[(&str, &str)]) -> ExecVerdict {
    let mut text = String::new();
    for (command, decision) in rules {
        text.push_str(&format!("[[rule]]\ntool = {TOOL:?}\ncommand = {command:?}\ndecision = {decision:?}\n\n"));
    }
    let file = match parse(&workspace.join("policy.toml"), text.into_bytes(), RuleSource::User) {
        Ok(file) => file,
        Err(e) => panic!("the target's own rules do not parse: {e}"),
    };
    let roots = Roots { workspace: workspace.to_path_buf(), home: None, memory: None };
    let policy = Policy::new(mode, roots, file);
    let exec = Confirmation::Exec {
        command: line.into(),
        root_command: String::new(),
        directory: workspace.display().to_string(),
        risk: Risk::Low,
    };
    let facts = CallFacts { tool: TOOL, command: Some(line), ..CallFacts::default() };
    policy.exec_verdict(&tool(), &facts, &exec, workspace, &[workspace.to_path_buf()])
}

fn tool() -> ToolInfo {
    ToolInfo {
        name: TOOL.into(),
        display_name: "Shell".into(),
        description: "Runs a command line.".into(),
        parameters: serde_json::json!({"type": "object"}),
        kind: Kind::Execute,
        streams_output: true,
        parallel_safe: false,
        capabilities: Capabilities::default(),
    }
}
