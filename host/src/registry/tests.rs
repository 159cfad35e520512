//! The registry against real components: broken plugins, duplicates and the caches.

use airlock_tests::fixtures;

use super::*;
use crate::testing::{Setup, runtime};

fn problem_for<'a>(registry: &'a Registry, file: &str) -> &'a LoadProblem {
    registry
        .problems
        .iter()
        .find(|p| p.path.ends_with(file))
        .unwrap_or_else(|| panic!("no problem reported for {file}: {:?}", registry.problems))
}

#[tokio::test]
async fn broken_plugins_are_reported_and_the_others_still_load() {
    let not_a_component = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(not_a_component.path(), b"\0asm garbage").unwrap();
    let setup = Setup::new(&[
        fixtures::BAD_NAME,
        fixtures::BAD_SCHEMA,
        fixtures::TRAP_IN_DESCRIBE,
        fixtures::HUGE_DESCRIPTION,
        fixtures::ECHO_TOOLS,
    ]);
    std::fs::copy(not_a_component.path(), setup.home.path().join("plugins/garbage.wasm")).unwrap();
    let runtime = runtime();
    let registry = setup.registry(&runtime).await;

    assert!(problem_for(&registry, "bad_name.wasm").reason.contains("tool name \"Bad Name!\" is invalid"));
    assert!(problem_for(&registry, "bad_schema.wasm").reason.contains("`parameters` is not a JSON object"));
    assert!(problem_for(&registry, "trap_in_describe.wasm").reason.contains("describe() failed"));
    assert!(problem_for(&registry, "huge_description.wasm").reason.contains("the description must have"));
    assert!(problem_for(&registry, "garbage.wasm").reason.contains("not a valid WebAssembly component"));
    // The good plugin and every built-in loaded; one component holds two tools.
    let names: Vec<_> = registry.tools().iter().map(|t| t.info.name.as_str()).collect();
    for name in ["read_file", "write_file", "replace", "glob", "grep_search", "list_directory", "echo", "shout"] {
        assert!(names.contains(&name), "{name} missing from {names:?}");
    }
    assert!(Arc::ptr_eq(&registry.get("echo").unwrap().plugin, &registry.get("shout").unwrap().plugin));
}

#[tokio::test]
async fn a_duplicate_name_is_skipped_and_reported_and_the_built_in_wins() {
    let setup = Setup::new(&[fixtures::DUP_READ_FILE]);
    let runtime = runtime();
    let registry = setup.registry(&runtime).await;
    assert_eq!(registry.get("read_file").unwrap().plugin.source.origin, Origin::Builtin);
    assert!(registry.get("unique_tool").is_some(), "the plugin's other tool still loads");
    let problem = problem_for(&registry, "dup_read_file.wasm");
    assert!(problem.reason.contains("`read_file` is skipped"), "{}", problem.reason);
}

#[tokio::test]
async fn a_workspace_plugin_cannot_shadow_a_user_plugin() {
    let setup = Setup::new(&[fixtures::ECHO_TOOLS]);
    let workspace_plugins = setup.workspace.join(".airlock/plugins");
    std::fs::create_dir_all(&workspace_plugins).unwrap();
    std::fs::copy(fixtures::ECHO_TOOLS, workspace_plugins.join("echo_again.wasm")).unwrap();
    let runtime = runtime();
    let registry = setup.registry(&runtime).await;
    assert_eq!(registry.get("echo").unwrap().plugin.source.origin, Origin::User);
    assert!(problem_for(&registry, "echo_again.wasm").reason.contains("already taken"));
}

#[tokio::test]
async fn a_changed_wasm_file_is_recompiled_and_described_again() {
    let setup = Setup::new(&[]);
    let cache = tempfile::tempdir().unwrap();
    let runtime = Runtime::new(cache.path().to_path_buf()).unwrap();
    let plugin = setup.home.path().join("plugins/tool.wasm");
    let compiled = || std::fs::read_dir(cache.path().join("components")).map_or(0, |d| d.count());

    std::fs::copy(fixtures::ECHO_TOOLS, &plugin).unwrap();
    let registry = Registry::load(&runtime, &setup.dirs()).await;
    assert!(registry.get("echo").is_some());
    let after_first = compiled();
    assert_eq!(after_first, 7, "six built-ins and the plugin are compiled once");

    // Unchanged: nothing is compiled again.
    let registry = Registry::load(&runtime, &setup.dirs()).await;
    assert!(registry.get("echo").is_some());
    assert_eq!(compiled(), after_first);

    // Same path, new content: a new compile and a new description.
    std::fs::copy(fixtures::ENV_PEEK, &plugin).unwrap();
    let registry = Registry::load(&runtime, &setup.dirs()).await;
    assert!(registry.get("echo").is_none());
    assert!(registry.get("peek_env").is_some());
    assert_eq!(compiled(), after_first + 1);
}

#[tokio::test]
async fn a_corrupt_cache_entry_is_replaced() {
    let setup = Setup::new(&[fixtures::ECHO_TOOLS]);
    let cache = tempfile::tempdir().unwrap();
    let runtime = Runtime::new(cache.path().to_path_buf()).unwrap();
    Registry::load(&runtime, &setup.dirs()).await;
    for entry in std::fs::read_dir(cache.path().join("components")).unwrap() {
        std::fs::write(entry.unwrap().path(), b"corrupt").unwrap();
    }
    let registry = Registry::load(&runtime, &setup.dirs()).await;
    let tool = registry.get("echo").unwrap();
    let component = tool.plugin.component(&runtime);
    assert!(component.is_ok(), "a corrupt entry must be recompiled: {component:?}");
}

#[test]
fn edit_distance_counts_single_edits() {
    assert_eq!(edit_distance("read_fil", "read_file"), 1);
    assert_eq!(edit_distance("reed_file", "read_file"), 1);
    assert_eq!(edit_distance("", "abc"), 3);
    assert_eq!(edit_distance("glob", "glob"), 0);
}

/// `$defs` doubling 48 times through `allOf`: 2⁴⁸ schemas to visit for one argument.
fn allof_bomb() -> serde_json::Value {
    let mut defs = serde_json::Map::new();
    defs.insert("d0".into(), serde_json::json!({"type": "string"}));
    for level in 1..=48 {
        let previous = serde_json::json!({"$ref": format!("#/$defs/d{}", level - 1)});
        defs.insert(format!("d{level}"), serde_json::json!({"allOf": [previous, previous]}));
    }
    serde_json::json!({"type": "object", "$defs": defs, "properties": {"x": {"$ref": "#/$defs/d48"}}})
}

#[test]
fn argument_validation_that_runs_too_long_is_stopped_off_the_runtime() {
    // Its own runtime, shut down without waiting: the spinning validation thread cannot be
    // stopped, only abandoned (as the binary does at exit).
    let tokio = tokio::runtime::Builder::new_multi_thread().worker_threads(2).enable_all().build().unwrap();
    let outcome = tokio.block_on(async { tokio::spawn(validation_is_bounded()).await });
    tokio.shutdown_background();
    if let Err(failure) = outcome {
        std::panic::resume_unwind(failure.into_panic());
    }
}

async fn validation_is_bounded() {
    // The load-time bound refuses this schema; here it is forced past it, as a schema that
    // slipped through would be, to prove the call-time backstop.
    let setup = Setup::new(&[]);
    let runtime = runtime();
    let registry = setup.registry(&runtime).await;
    let builtin = registry.get("read_file").unwrap_or_else(|| panic!("no read_file"));
    let mut info = builtin.info.clone();
    info.parameters = allof_bomb();
    let tool = Arc::new(RegisteredTool { plugin: builtin.plugin.clone(), info, validator: OnceLock::new() });
    let started = std::time::Instant::now();
    // While validation spins on a blocking thread, the runtime still runs other tasks.
    let ticker = tokio::spawn(async { tokio::time::sleep(Duration::from_millis(50)).await });
    let checked = tool.check_args_within(&serde_json::json!({"x": "a"}), Duration::from_millis(300)).await;
    assert!(ticker.await.is_ok());
    match checked {
        Err(ArgsProblem::Unusable(reason)) => assert!(reason.contains("took longer than 300 ms"), "{reason}"),
        other => panic!("the bomb was not stopped: {other:?}"),
    }
    assert!(started.elapsed() < Duration::from_secs(2), "{:?}", started.elapsed());
    // Ordinary arguments are checked as before: a violation is the model's to fix, and a
    // violation quoting a huge argument is cut short.
    let bad = serde_json::json!({"file_path": "x".repeat(10_000).chars().map(|_| 5).collect::<Vec<u8>>()});
    match builtin.check_args_within(&bad, Duration::from_secs(2)).await {
        Err(ArgsProblem::Invalid(problems)) => {
            assert!(problems.starts_with("/file_path: [5,5") && problems.ends_with('…'), "{problems}");
            assert!(problems.len() < 2 * 310, "{} bytes", problems.len());
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(builtin.check_args_within(&serde_json::json!({"file_path": "a"}), Duration::from_secs(2)).await, Ok(()));
}
