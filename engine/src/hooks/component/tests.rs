//! Component hooks against real fixture components (`tests/fixtures/hook-*`) in a real
//! runtime: what they answer, what their grants let them read, and how a trap, a hang and
//! an untrusted workspace are reported.

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use airlock_tests::fixtures;

use super::*;
use crate::hooks::{HookEventName, HookTool, HookVerdict};
use crate::policy::ApprovalMode;
use crate::testing::{Setup, runtime};

fn event(workspace: &str, tool: &str, arguments: serde_json::Value) -> Arc<HookEvent> {
    Arc::new(HookEvent {
        event: HookEventName::BeforeTool,
        session_id: "s".into(),
        workspace: workspace.into(),
        approval_mode: "default".into(),
        tool: Some(HookTool {
            call_id: "call-1".into(),
            name: tool.into(),
            plugin: tool.replace('_', "-"),
            kind: "execute".into(),
            arguments,
            status: None,
            output: None,
        }),
        prompt: None,
        message: None,
        reason: None,
        transcript_path: None,
    })
}

/// The hooks of `setup` under a user policy of `toml` and `overrides`.
async fn hooks_of(
    setup: &Setup,
    toml: &str,
    overrides: &BTreeMap<String, ComponentHookSettings>,
) -> (Vec<Arc<dyn Hook>>, Vec<HookProblem>) {
    let runtime = runtime();
    let registry = setup.registry(&runtime).await;
    let policy = setup.policy(ApprovalMode::Default, toml);
    load(&runtime, &registry, &policy, overrides)
}

async fn only_hook(setup: &Setup, toml: &str) -> Arc<dyn Hook> {
    let (hooks, problems) = hooks_of(setup, toml, &BTreeMap::new()).await;
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(hooks.len(), 1);
    hooks[0].clone()
}

#[tokio::test]
async fn a_hook_component_is_loaded_as_a_hook_and_never_offered_as_a_tool() {
    let setup = Setup::new(&[fixtures::HOOK_DENY, fixtures::ECHO_TOOLS]);
    let runtime = runtime();
    let registry = setup.registry(&runtime).await;
    assert!(registry.problems.is_empty(), "{:?}", registry.problems);
    let hooks = registry.hooks();
    assert_eq!(hooks.len(), 1);
    let info = hooks[0].hook.as_ref().unwrap();
    assert_eq!((info.name.as_str(), info.events.as_slice()), ("hook-deny", &[HookEventName::BeforeTool][..]));
    assert!(registry.tools().iter().all(|tool| tool.plugin.hook.is_none()));
    assert!(registry.get("hook_deny").is_none() && !registry.declares_tool("hook_deny"));
    // A plugin all the same: grants and `plugins show` find it by its name.
    assert!(registry.plugins().iter().any(|plugin| plugin.info.name == "hook-deny"));
    assert_eq!(registry.find_plugin("hook-deny").unwrap().plugin.info.name, "hook-deny");
    // The second start reads its description from the cache, hook and all.
    let again = setup.registry(&runtime).await;
    assert_eq!(again.hooks()[0].hook, hooks[0].hook);
}

#[tokio::test]
async fn the_deny_hook_refuses_a_matching_command_and_passes_the_others() {
    let setup = Setup::new(&[fixtures::HOOK_DENY]);
    let hook = only_hook(&setup, "").await;
    let spec = hook.spec();
    assert_eq!((spec.kind, spec.scope, spec.on_error), (HookKind::Component, HookScope::User, OnError::Deny));
    assert_eq!((spec.timeout, spec.memory), (DEFAULT_TIMEOUT, DEFAULT_MEMORY_MIB << 20));
    assert_eq!(spec.grants, ["nothing"]);
    assert!(spec.runs_for(HookEventName::BeforeTool, Some("run_shell_command")));
    assert!(!spec.runs_for(HookEventName::BeforeTool, Some("run_shell_command_x")));
    assert!(!spec.runs_for(HookEventName::AfterTool, Some("run_shell_command")));
    let workspace = setup.workspace.to_string_lossy();
    let denied = hook.run(event(&workspace, "run_shell_command", serde_json::json!({"command": "rm -rf ."}))).await;
    let denied = denied.unwrap();
    assert_eq!(denied.verdict, Some(HookVerdict::Deny));
    assert!(denied.reason.unwrap().contains("containing `rm -rf` are not allowed"));
    let passed = hook.run(event(&workspace, "run_shell_command", serde_json::json!({"command": "ls"}))).await;
    assert_eq!(passed.unwrap(), HookReply::default());
}

#[tokio::test]
async fn the_rewrite_hook_moves_a_path_under_sandboxed() {
    let setup = Setup::new(&[fixtures::HOOK_REWRITE]);
    let hook = only_hook(&setup, "").await;
    let workspace = setup.workspace.to_string_lossy().into_owned();
    let absolute = format!("{workspace}/notes/a.txt");
    let reply = hook.run(event(&workspace, "write_file", serde_json::json!({"file_path": absolute, "content": "x"})));
    let arguments = reply.await.unwrap().arguments.unwrap();
    assert_eq!(
        arguments,
        serde_json::json!({"file_path": format!("{workspace}/sandboxed/notes/a.txt"), "content": "x"})
    );
    let relative = hook.run(event(&workspace, "read_file", serde_json::json!({"file_path": "b.txt"}))).await;
    assert_eq!(relative.unwrap().arguments.unwrap(), serde_json::json!({"file_path": "sandboxed/b.txt"}));
    let already = hook.run(event(&workspace, "read_file", serde_json::json!({"file_path": "sandboxed/b.txt"}))).await;
    assert_eq!(already.unwrap().arguments, None);
}

#[tokio::test]
async fn a_hook_reads_only_what_its_grant_gives_it() {
    let setup = Setup::new(&[fixtures::HOOK_READ_UNGRANTED]);
    std::fs::write(setup.workspace.join("secret.txt"), "s3cret\n").unwrap();
    let workspace = setup.workspace.to_string_lossy().into_owned();
    let call = || event(&workspace, "read_file", serde_json::json!({"file_path": "x"}));
    // It requests the workspace; nothing grants it: the read is refused.
    let hook = only_hook(&setup, "").await;
    let reason = hook.run(call()).await.unwrap().reason.unwrap();
    assert!(reason.starts_with("hook-read-ungranted refused:"), "{reason}");
    assert!(!reason.contains("s3cret"), "{reason}");
    // A grant of another hook's name gives it nothing either.
    let hook = only_hook(&setup, "[grants.hook-deny]\nfiles = [\".:read\"]\n").await;
    assert!(hook.run(call()).await.unwrap().reason.unwrap().contains("refused:"));
    // Its own table grants the read.
    let hook = only_hook(&setup, "[grants.hook-read-ungranted]\nfiles = [\".:read\"]\n").await;
    assert_eq!(hook.spec().grants, [format!("read {workspace}")]);
    assert_eq!(hook.run(call()).await.unwrap().reason.unwrap(), "hook-read-ungranted read: s3cret");
}

#[tokio::test]
async fn a_hook_that_traps_is_reported_with_the_first_line_of_its_trap() {
    let setup = Setup::new(&[fixtures::HOOK_TRAP]);
    let hook = only_hook(&setup, "").await;
    let workspace = setup.workspace.to_string_lossy().into_owned();
    for _ in 0..2 {
        // Each event gets a fresh instance: the one that trapped is gone.
        let failure = hook.run(event(&workspace, "read_file", serde_json::json!({}))).await.unwrap_err();
        let HookFailure::Trapped(message) = &failure else { panic!("{failure:?}") };
        assert!(!message.is_empty() && !message.contains('\n'), "{message:?}");
    }
}

#[tokio::test]
async fn a_hook_that_hangs_is_stopped_at_its_deadline() {
    let setup = Setup::new(&[fixtures::HOOK_HANG]);
    let overrides = BTreeMap::from([(
        "hook-hang".to_string(),
        ComponentHookSettings {
            timeout_ms: 200,
            on_error: crate::config::hooks::OnErrorSetting::Allow,
            ..ComponentHookSettings::default()
        },
    )]);
    let (hooks, problems) = hooks_of(&setup, "", &overrides).await;
    assert!(problems.is_empty(), "{problems:?}");
    let hook = &hooks[0];
    assert_eq!((hook.spec().timeout, hook.spec().on_error), (Duration::from_millis(200), OnError::Allow));
    let workspace = setup.workspace.to_string_lossy().into_owned();
    let started = Instant::now();
    let failure = hook.run(event(&workspace, "read_file", serde_json::json!({}))).await.unwrap_err();
    assert_eq!(failure, HookFailure::TimedOut(Duration::from_millis(200)));
    // Stopped near its deadline, not left running (a generous bound on a loaded machine).
    assert!(started.elapsed() < Duration::from_secs(5), "{:?}", started.elapsed());
}

#[tokio::test]
async fn overrides_disable_a_hook_set_its_memory_and_name_only_installed_hooks() {
    let setup = Setup::new(&[fixtures::HOOK_DENY, fixtures::HOOK_TRAP]);
    let overrides = BTreeMap::from([
        ("hook-trap".to_string(), ComponentHookSettings { enabled: false, ..ComponentHookSettings::default() }),
        ("hook-deny".to_string(), ComponentHookSettings { memory_mib: 16, ..ComponentHookSettings::default() }),
        ("no-such-hook".to_string(), ComponentHookSettings::default()),
    ]);
    let (hooks, problems) = hooks_of(&setup, "", &overrides).await;
    let names: Vec<_> = hooks.iter().map(|hook| hook.spec().name.as_str()).collect();
    assert_eq!(names, ["hook-deny"]);
    assert_eq!((hooks[0].spec().memory, hooks[0].spec().timeout), (16 << 20, DEFAULT_TIMEOUT));
    let reasons: Vec<_> = problems.iter().map(|p| (p.spec.name.as_str(), p.reason.as_str())).collect();
    assert_eq!(
        reasons,
        [
            ("hook-trap", "disabled by [hooks.component.hook-trap]"),
            ("no-such-hook", "[hooks.component.no-such-hook] names no installed component hook"),
        ]
    );
    // A value out of range is refused, never taken as another.
    let zero = BTreeMap::from([(
        "hook-deny".to_string(),
        ComponentHookSettings { timeout_ms: 0, ..ComponentHookSettings::default() },
    )]);
    let (hooks, problems) = hooks_of(&setup, "", &zero).await;
    assert_eq!(hooks.iter().map(|hook| hook.spec().name.clone()).collect::<Vec<_>>(), ["hook-trap"]);
    assert!(problems[0].reason.contains("timeout_ms must be between 1 and"), "{problems:?}");
}

#[tokio::test]
async fn a_workspace_hook_does_not_run_in_an_untrusted_workspace() {
    let setup = Setup::new(&[]);
    let plugins = setup.workspace.join(".airlock/plugins");
    std::fs::create_dir_all(&plugins).unwrap();
    std::fs::copy(fixtures::HOOK_DENY, plugins.join("hook_deny.wasm")).unwrap();
    let (hooks, problems) = hooks_of(&setup, "", &BTreeMap::new()).await;
    assert!(hooks.is_empty());
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert!(problems[0].reason.contains("this workspace is not trusted"), "{problems:?}");
    assert_eq!((problems[0].spec.name.as_str(), problems[0].spec.scope), ("hook-deny", HookScope::Workspace));
}

#[test]
fn a_component_exporting_neither_contract_is_a_clear_load_problem() {
    let runtime = runtime();
    let error = runtime.load("not-a-plugin", || Ok(b"\0asm\x0d\0\x01\0".to_vec())).map(|_| ()).unwrap_err();
    let message = error.to_string();
    assert!(message.contains("exports neither `airlock:tool/tool` (a tool) nor `airlock:hook/handler`"), "{message}");
}
