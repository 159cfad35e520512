//! `airlock hooks list [--json]`: every hook the settings and plugin folders set, with its
//! kind, scope, origin, events, tools, deadline, `on_error`, grants and digest, and for one
//! that is not run, why. It loads hooks through the engine's one gathering point
//! ([`airlock_engine::hooks::load`]), in the order a session runs them, and starts none.

use std::io::{self, Write};
use std::path::Path;
use std::sync::Arc;

use airlock_engine::config::hooks::HooksSettings;
use airlock_engine::hooks::load::{self, Sources};
use airlock_engine::hooks::{HookSpec, Hooks, OnError};
use airlock_engine::paths::Paths;
use airlock_engine::policy::Policy;
use airlock_engine::registry::Registry;
use airlock_engine::runtime::Runtime;
use airlock_engine::sanitize::line;

#[derive(Debug, clap::Subcommand)]
pub enum HooksCommand {
    /// Print every hook, in the order they run, and each one not run with why.
    List {
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}

/// What listing needs: the settings' hooks and the loaded plugins, hook components among
/// them, with the policy that grants them.
pub struct Context<'a> {
    pub paths: &'a Paths,
    pub workspace: &'a Path,
    pub settings: &'a HooksSettings,
    pub runtime: &'a Arc<Runtime>,
    pub registry: &'a Registry,
    pub policy: &'a Policy,
}

/// Prints the hooks the settings and the plugin folders set for the workspace.
pub fn run(context: &Context<'_>, command: &HooksCommand, out: &mut impl Write) -> io::Result<()> {
    let HooksCommand::List { json } = command;
    let trust_file = context.paths.trust_file();
    let workspace = context.workspace;
    let sources = Sources {
        settings: context.settings,
        workspace,
        // Listing starts nothing: what a hook would hold when run does not matter here.
        protected: &[],
        trust_file: &trust_file,
        view: &|| Arc::default(),
        runtime: context.runtime,
        registry: context.registry,
        policy: context.policy,
    };
    let (hooks, problems) = load::load(&sources);
    let hooks = Hooks::new(hooks, workspace.display().to_string());
    let rows: Vec<(&HookSpec, Option<&str>)> = hooks
        .hooks()
        .iter()
        .map(|hook| (hook.spec(), None))
        .chain(problems.iter().map(|problem| (&problem.spec, Some(problem.reason.as_str()))))
        .collect();
    if *json {
        let rows: Vec<serde_json::Value> = rows.iter().map(|(spec, why)| row(spec, *why)).collect();
        return writeln!(out, "{}", serde_json::json!({ "hooks": rows }));
    }
    if rows.is_empty() {
        return writeln!(
            out,
            "no hooks: set [[hooks.command]] in config.toml, or drop a hook component into a plugin folder"
        );
    }
    for (spec, why) in rows {
        let events: Vec<&str> = spec.events.iter().map(|e| e.as_str()).collect();
        let tools = spec.tools.as_ref().map_or("every tool".to_string(), |t| line(t.as_str()));
        writeln!(
            out,
            "{}  {} · {} · {} · tools: {tools} · timeout {} ms · on_error {}",
            line(&spec.name),
            spec.kind.as_str(),
            spec.scope.as_str(),
            events.join(", "),
            spec.timeout.as_millis(),
            on_error(spec.on_error),
        )?;
        let grants = if spec.grants.is_empty() { "nothing".to_string() } else { line(&spec.grants.join(", ")) };
        writeln!(out, "  from {} · grants: {grants} · digest {}", line(&spec.origin), line(&spec.digest))?;
        if let Some(why) = why {
            writeln!(out, "  not run: {}", line(why))?;
        }
    }
    Ok(())
}

fn on_error(on_error: OnError) -> &'static str {
    match on_error {
        OnError::Deny => "deny",
        OnError::Allow => "allow",
    }
}

fn row(spec: &HookSpec, why: Option<&str>) -> serde_json::Value {
    serde_json::json!({
        "name": line(&spec.name),
        "kind": spec.kind.as_str(),
        "scope": spec.scope.as_str(),
        "origin": line(&spec.origin),
        "events": spec.events.iter().map(|e| e.as_str()).collect::<Vec<_>>(),
        "tools": spec.tools.as_ref().map(|t| line(t.as_str())),
        "timeout_ms": u64::try_from(spec.timeout.as_millis()).unwrap_or(u64::MAX),
        "memory_bytes": spec.memory,
        "on_error": on_error(spec.on_error),
        "grants": spec.grants.iter().map(|g| line(g)).collect::<Vec<_>>(),
        "digest": line(&spec.digest),
        "runs": why.is_none(),
        "not_run_because": why.map(line),
    })
}
