//! The registry against real components: broken plugins, duplicates and the caches.

use airlock_tests::fixtures;

use super::*;
use crate::runtime::{CacheOutcome, Sandbox};
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
    assert!(
        problem_for(&registry, "garbage.wasm")
            .reason
            .contains("a WebAssembly binary of a format this airlock does not read")
    );
    assert!(registry.problems.iter().all(|p| !p.reason.contains('\n')), "{:?}", registry.problems);
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
    assert_eq!(after_first, 1, "the plugin is compiled once; the built-ins come precompiled");

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
async fn every_built_in_loads_from_the_code_precompiled_for_this_engine() {
    let runtime = runtime();
    let builtins = source::builtins();
    assert_eq!(builtins.len(), 13);
    for builtin in builtins {
        let native = builtin.precompiled.unwrap_or_else(|| panic!("{} was not precompiled", builtin.display()));
        // The build script's engine and the runtime's must agree (`code_config`), or every
        // first run would compile after all.
        let (_, outcome) = runtime.load_native(&builtin.content_hash, Some(native), || builtin.bytes()).unwrap();
        assert_eq!(outcome, CacheOutcome::Precompiled, "{}", builtin.display());
    }
}

#[tokio::test]
async fn precompiled_code_that_does_not_fit_the_engine_is_compiled_instead() {
    let runtime = runtime();
    let read_file = source::builtins().into_iter().find(|b| b.path.ends_with("read_file.wasm")).unwrap();
    // Another engine's code (fuel metering changes the generated code), and no code at all.
    let mut other = crate::runtime::code_config_for_tests();
    other.consume_fuel(true);
    let foreign: &'static [u8] = Box::leak(
        wasmtime::Engine::new(&other)
            .unwrap()
            .precompile_component(&read_file.bytes().unwrap())
            .unwrap()
            .into_boxed_slice(),
    );
    for native in [Some(foreign), Some(&b"not native code"[..]), None] {
        let (component, outcome) = runtime.load_native(&read_file.content_hash, native, || read_file.bytes()).unwrap();
        assert_ne!(outcome, CacheOutcome::Precompiled);
        let sandbox = Sandbox::empty(64 << 20, Duration::from_secs(5));
        let info =
            runtime.instantiate(&component, "read_file".into(), &sandbox).await.unwrap().describe().await.unwrap();
        assert_eq!(info.tools[0].name, "read_file");
    }
}

#[test]
fn a_cache_folder_that_brings_its_own_key_is_not_believed() {
    // A repository ships a cache folder (say AIRLOCK_CACHE_DIR points into it) with a key it
    // knows and, tagged with that key, an impostor's native code under read_file's digest.
    let cache = tempfile::tempdir().unwrap();
    let read_file = source::builtins().into_iter().find(|s| s.path == Path::new("read_file.wasm")).unwrap();
    let impostor = std::fs::read(fixtures::ECHO_TOOLS).unwrap();
    let planted = Runtime::new(cache.path().to_path_buf()).unwrap();
    let (_, outcome) = planted.load(&read_file.content_hash, || Ok(impostor)).unwrap();
    assert_eq!(outcome, CacheOutcome::Compiled);
    assert!(cache.path().join("mac.key").exists(), "the planted key is in the cache folder");
    // airlock keeps its key elsewhere: the planted entry is not believed, the real code is compiled.
    let home = tempfile::tempdir().unwrap();
    let runtime = Runtime::with_key(cache.path().to_path_buf(), &home.path().join("cache.key")).unwrap();
    let (_, outcome) = runtime.load(&read_file.content_hash, || read_file.bytes()).unwrap();
    assert_eq!(outcome, CacheOutcome::Compiled, "the repository's entry was run");
    let (_, outcome) = runtime.load(&read_file.content_hash, || read_file.bytes()).unwrap();
    assert_eq!(outcome, CacheOutcome::Hit, "the real entry, tagged with airlock's key, is kept");
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
    let component = tool.plugin.component(&runtime).await;
    assert!(component.is_ok(), "a corrupt entry must be recompiled: {component:?}");
}

#[test]
fn did_you_mean_suggests_names_one_typo_away_and_nothing_far() {
    let tools = ["read_file", "write_file", "glob", "ls"];
    let closest = |name| names::closest_name(tools.iter().copied(), name);
    assert_eq!(closest("read_fil"), Some("read_file"), "a deletion");
    assert_eq!(closest("reed_file"), Some("read_file"), "a substitution");
    assert_eq!(closest("raed_file"), Some("read_file"), "a swap of neighbours is two edits, within half");
    assert_eq!(closest("wirte_file"), Some("write_file"));
    assert_eq!(closest("globb"), Some("glob"));
    assert_eq!(closest("cd"), None, "two edits from `ls` is more than half of two letters");
    assert_eq!(closest("grep"), None, "three edits from `glob`");
    assert_eq!(closest(""), None);
}

// ---- Hostile caches, names, budgets and slow describes (issue 7, items 3, 5, 6, 13).

use std::io::Write;

use airlock_tests::variants;

use airlock_files::content_hash;

/// Replaces every occurrence of `from` in the file at `path` with `to`, byte for byte.
fn replace_bytes(path: &Path, from: &[u8], to: &[u8]) {
    let bytes = std::fs::read(path).unwrap();
    let at = bytes.windows(from.len()).position(|w| w == from).unwrap_or_else(|| panic!("{from:?} not found"));
    let mut edited = bytes[..at].to_vec();
    edited.extend_from_slice(to);
    edited.extend_from_slice(&bytes[at + from.len()..]);
    std::fs::write(path, edited).unwrap();
}

fn fresh_runtime() -> (tempfile::TempDir, Runtime) {
    let cache = tempfile::tempdir().unwrap();
    let runtime = Runtime::new(cache.path().to_path_buf()).unwrap();
    (cache, runtime)
}

fn builtin_hash(file: &str) -> String {
    source::builtins().into_iter().find(|s| s.path == Path::new(file)).unwrap().content_hash
}

fn cwasm(cache: &Path, hash: &str) -> PathBuf {
    std::fs::read_dir(cache.join("components"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.file_name().unwrap().to_string_lossy().starts_with(hash))
        .unwrap_or_else(|| panic!("no compiled entry for {hash}"))
}

/// The plugin name a loaded component describes itself with (runs its `describe`).
async fn described_name(runtime: &Runtime, component: &LoadedComponent) -> String {
    let sandbox = Sandbox::empty(64 << 20, Duration::from_secs(10));
    let mut instance = runtime.instantiate(component, "probe".into(), &sandbox).await.unwrap();
    instance.describe().await.unwrap().name
}

#[tokio::test]
async fn a_compiled_entry_copied_over_another_is_discarded_and_the_real_code_runs() {
    let (cache, runtime) = fresh_runtime();
    let setup = Setup::new(&[fixtures::ECHO_TOOLS]);
    Registry::load(&runtime, &setup.dirs()).await;
    let read_file = builtin_hash("read_file.wasm");
    // Built-ins load precompiled: read_file's cache entry is made by compiling it.
    let source = source::builtins().into_iter().find(|s| s.content_hash == read_file).unwrap();
    runtime.load(&read_file, || source.bytes()).unwrap();
    let echo = content_hash(&std::fs::read(fixtures::ECHO_TOOLS).unwrap());
    // The impostor: echo's native code (with its valid tag) under read_file's name.
    std::fs::copy(cwasm(cache.path(), &echo), cwasm(cache.path(), &read_file)).unwrap();

    let runtime = Runtime::new(cache.path().to_path_buf()).unwrap();
    let (component, outcome) = runtime.load(&read_file, || source.bytes()).unwrap();
    assert_eq!(outcome, CacheOutcome::Compiled, "the swapped entry was believed");
    assert_eq!(described_name(&runtime, &component).await, "read-file");
}

#[tokio::test]
async fn a_bit_flipped_or_truncated_entry_is_recompiled_never_run() {
    let (cache, runtime) = fresh_runtime();
    let setup = Setup::new(&[fixtures::ECHO_TOOLS]);
    Registry::load(&runtime, &setup.dirs()).await;
    let echo = content_hash(&std::fs::read(fixtures::ECHO_TOOLS).unwrap());
    let path = cwasm(cache.path(), &echo);
    let source = PluginSource::file(setup.home.path().join("plugins/echo_tools.wasm"), Origin::User).unwrap();
    let original = std::fs::read(&path).unwrap();
    for (what, damaged) in [
        ("a flipped bit in the code", {
            let mut bytes = original.clone();
            let middle = bytes.len() / 2;
            bytes[middle] ^= 0x10;
            bytes
        }),
        ("a flipped bit in the tag", {
            let mut bytes = original.clone();
            bytes[3] ^= 0x01;
            bytes
        }),
        ("a truncated entry", original[..original.len() / 3].to_vec()),
        ("an empty entry", Vec::new()),
    ] {
        std::fs::write(&path, &damaged).unwrap();
        let runtime = Runtime::new(cache.path().to_path_buf()).unwrap();
        let (component, outcome) = runtime.load(&echo, || source.bytes()).unwrap();
        assert_eq!(outcome, CacheOutcome::Compiled, "{what} was deserialised");
        assert_eq!(described_name(&runtime, &component).await, "echo_tools", "{what}");
    }
}

#[tokio::test]
async fn a_cache_entry_rewritten_after_its_check_never_runs() {
    let (cache, runtime) = fresh_runtime();
    let setup = Setup::new(&[fixtures::ECHO_TOOLS]);
    Registry::load(&runtime, &setup.dirs()).await;
    let echo = content_hash(&std::fs::read(fixtures::ECHO_TOOLS).unwrap());
    let source = PluginSource::file(setup.home.path().join("plugins/echo_tools.wasm"), Origin::User).unwrap();
    let path = cwasm(cache.path(), &echo);
    let runtime = Runtime::new(cache.path().to_path_buf()).unwrap();
    let (component, outcome) = runtime.load(&echo, || source.bytes()).unwrap();
    assert_eq!(outcome, CacheOutcome::Hit);
    // The checked entry is rewritten in place, same file, same size: its code is now
    // traps and garbage. What runs is what was checked.
    let size = std::fs::metadata(&path).unwrap().len();
    let mut writer = std::fs::OpenOptions::new().write(true).open(&path).unwrap();
    writer.write_all(&vec![0u8; usize::try_from(size).unwrap()]).unwrap();
    drop(writer);
    for _ in 0..3 {
        assert_eq!(described_name(&runtime, &component).await, "echo_tools");
    }
    // The next load sees the rewrite and compiles again.
    let (component, outcome) = runtime.load(&echo, || source.bytes()).unwrap();
    assert_eq!(outcome, CacheOutcome::Compiled, "the rewritten entry was believed");
    assert_eq!(described_name(&runtime, &component).await, "echo_tools");
}

#[tokio::test]
async fn an_edited_or_swapped_description_is_discarded_and_described_again() {
    let (cache, runtime) = fresh_runtime();
    let setup = Setup::new(&[fixtures::ECHO_TOOLS, fixtures::FS_PROBE]);
    Registry::load(&runtime, &setup.dirs()).await;
    let echo = content_hash(&std::fs::read(fixtures::ECHO_TOOLS).unwrap());
    let probe = content_hash(&std::fs::read(fixtures::FS_PROBE).unwrap());
    let echo_entry = runtime.cache().description_path(&echo);
    let probe_entry = runtime.cache().description_path(&probe);
    let original = std::fs::read(&echo_entry).unwrap();

    // Rewritten in place: the name changed, the tag kept.
    replace_bytes(&echo_entry, b"\"echo_tools\"", b"\"fs_probe\"");
    let registry = Registry::load(&runtime, &setup.dirs()).await;
    assert_eq!(registry.get("echo").unwrap().plugin.info.name, "echo_tools");

    // Another component's valid entry copied over: the tag is bound to the content hash.
    std::fs::copy(&probe_entry, &echo_entry).unwrap();
    let registry = Registry::load(&runtime, &setup.dirs()).await;
    assert_eq!(registry.get("echo").unwrap().plugin.info.name, "echo_tools");
    assert_eq!(std::fs::read(&echo_entry).unwrap(), original, "the entry was rebuilt");
    drop(cache);
}

#[tokio::test]
async fn a_plugin_rewritten_in_place_with_its_mtime_restored_is_identified_by_its_new_content() {
    let (_cache, runtime) = fresh_runtime();
    let setup = Setup::new(&[]);
    let plugin = setup.home.path().join("plugins/probe.wasm");
    std::fs::write(&plugin, variants::trust_probe("name=honest")).unwrap();
    // Let the file's times settle, so its stamp is cached.
    std::thread::sleep(Duration::from_millis(2200));
    let registry = Registry::load(&runtime, &setup.dirs()).await;
    assert_eq!(registry.get("probe_read").unwrap().plugin.info.name, "honest");
    assert_eq!(std::fs::read_dir(runtime.cache().dir().join("files")).unwrap().count(), 1, "the stamp is cached");

    // Same size, same inode, same modification time: only the content (and ctime) differ.
    let modified = std::fs::metadata(&plugin).unwrap().modified().unwrap();
    let impostor = variants::trust_probe("name=impostor");
    assert_eq!(impostor.len(), std::fs::metadata(&plugin).unwrap().len() as usize);
    std::fs::OpenOptions::new().write(true).open(&plugin).unwrap().write_all(&impostor).unwrap();
    std::fs::File::options().write(true).open(&plugin).unwrap().set_modified(modified).unwrap();
    let registry = Registry::load(&runtime, &setup.dirs()).await;
    let tool = registry.get("probe_read").unwrap();
    assert_eq!(tool.plugin.info.name, "impostor");
    assert_eq!(tool.plugin.source.content_hash, content_hash(&impostor));
}

#[tokio::test]
async fn a_forged_stamp_is_not_believed() {
    let (_cache, runtime) = fresh_runtime();
    let setup = Setup::new(&[]);
    let plugin = setup.home.path().join("plugins/probe.wasm");
    std::fs::write(&plugin, variants::trust_probe("name=first")).unwrap();
    std::thread::sleep(Duration::from_millis(2200));
    Registry::load(&runtime, &setup.dirs()).await;
    let stamp = std::fs::read_dir(runtime.cache().dir().join("files")).unwrap().next().unwrap().unwrap().path();
    // Point the stamp at another digest (keeping its tag): it must not be believed.
    let real = content_hash(&std::fs::read(&plugin).unwrap());
    replace_bytes(&stamp, real.as_bytes(), builtin_hash("read_file.wasm").as_bytes());
    let registry = Registry::load(&runtime, &setup.dirs()).await;
    assert_eq!(registry.get("probe_read").unwrap().plugin.source.content_hash, real);
}

#[tokio::test]
async fn the_bytes_compiled_must_have_the_digest_that_was_identified() {
    let (_cache, runtime) = fresh_runtime();
    let setup = Setup::new(&[]);
    let plugin = setup.home.path().join("plugins/probe.wasm");
    std::fs::write(&plugin, variants::trust_probe("name=first")).unwrap();
    let source = PluginSource::file(plugin.clone(), Origin::User).unwrap();
    // Replaced after it was identified, before its first compile.
    std::fs::write(&plugin, variants::trust_probe("name=second")).unwrap();
    let error = runtime.load(&source.content_hash, || source.bytes()).unwrap_err();
    assert!(error.to_string().contains("changed after airlock identified it"), "{error}");
}

#[tokio::test]
async fn a_plugin_may_not_take_a_built_in_name_or_another_plugins_name() {
    let setup = Setup::new(&[]);
    let user = setup.home.path().join("plugins");
    std::fs::write(user.join("a_impostor.wasm"), variants::trust_probe("name=read-file")).unwrap();
    std::fs::write(user.join("b_impostor.wasm"), variants::trust_probe("name=write_file")).unwrap();
    std::fs::write(user.join("c_first.wasm"), variants::trust_probe("name=twin")).unwrap();
    std::fs::write(user.join("d_second.wasm"), variants::trust_probe("name=twin;bulk=1")).unwrap();
    let workspace = setup.workspace.join(".airlock/plugins");
    std::fs::create_dir_all(&workspace).unwrap();
    std::fs::write(workspace.join("e_impostor.wasm"), variants::trust_probe("name=glob")).unwrap();
    std::fs::write(workspace.join("f_twin.wasm"), variants::trust_probe("name=twin;bulk=2")).unwrap();
    let runtime = runtime();
    let registry = setup.registry(&runtime).await;

    for file in ["a_impostor.wasm", "b_impostor.wasm", "e_impostor.wasm"] {
        let reason = &problem_for(&registry, file).reason;
        assert!(reason.contains("is reserved for a built-in plugin"), "{file}: {reason}");
    }
    for file in ["d_second.wasm", "f_twin.wasm"] {
        let reason = &problem_for(&registry, file).reason;
        assert!(reason.contains("plugin name `twin` is already taken"), "{file}: {reason}");
    }
    assert!(registry.get("bulk_twin_0").is_none(), "the second `twin` registered a tool");
    let twins: Vec<_> = registry.plugins().into_iter().filter(|p| p.info.name == "twin").collect();
    assert_eq!(twins.len(), 1);
    assert!(twins[0].source.path.ends_with("c_first.wasm"));
    for builtin in ["read-file", "write-file", "glob"] {
        let plugin = registry.plugins().into_iter().find(|p| p.info.name == builtin).unwrap();
        assert_eq!(plugin.source.origin, Origin::Builtin, "{builtin}");
    }
}

#[tokio::test]
async fn describes_that_spin_or_sleep_cost_one_deadline_once_then_nothing() {
    let (_cache, runtime) = fresh_runtime();
    let setup = Setup::new(&[]);
    let workspace = setup.workspace.join(".airlock/plugins");
    std::fs::create_dir_all(&workspace).unwrap();
    // Compile everything first: what is measured is waiting on `describe`.
    Registry::load(&runtime, &setup.dirs()).await;
    for (file, config) in [
        ("spin_a.wasm", "name=spin_a;describe=spin"),
        ("spin_b.wasm", "name=spin_b;describe=spin"),
        ("sleep_c.wasm", "name=sleep_c;describe=sleep"),
    ] {
        let bytes = variants::trust_probe(config);
        runtime.load(&content_hash(&bytes), || Ok(bytes.clone())).unwrap();
        std::fs::write(workspace.join(file), &bytes).unwrap();
    }
    let started = std::time::Instant::now();
    let registry = Registry::load(&runtime, &setup.dirs()).await;
    let first = started.elapsed();
    for file in ["spin_a.wasm", "spin_b.wasm", "sleep_c.wasm"] {
        let reason = &problem_for(&registry, file).reason;
        assert!(reason.contains("describe() failed") && reason.contains("deadline"), "{file}: {reason}");
    }
    // Described together: about one deadline (5 s), not three.
    assert!(first < Duration::from_secs(9), "the first start took {first:?}");

    let started = std::time::Instant::now();
    let registry = Registry::load(&runtime, &setup.dirs()).await;
    let second = started.elapsed();
    assert!(problem_for(&registry, "spin_a.wasm").reason.contains("deadline"));
    assert!(second < Duration::from_secs(2), "the failures were not cached: {second:?}");
}

/// Writes `count` spinning variants of the trust probe (`spin_00` …) into the workspace's
/// plugin folder (as many as it may hold) and the rest into the user's, compiled first.
fn spinning(runtime: &Runtime, setup: &Setup, count: usize) -> Vec<String> {
    let workspace = setup.workspace.join(".airlock/plugins");
    std::fs::create_dir_all(&workspace).unwrap();
    (0..count)
        .map(|index| {
            let name = format!("spin_{index:02}");
            let bytes = variants::trust_probe(&format!("name={name};describe=spin"));
            runtime.load(&content_hash(&bytes), || Ok(bytes.clone())).unwrap();
            let dir = if index < source::MAX_WORKSPACE_PLUGINS { workspace.clone() } else { setup.dirs().user };
            std::fs::write(dir.join(format!("{name}.wasm")), &bytes).unwrap();
            name
        })
        .collect()
}

#[tokio::test]
async fn many_spinning_describes_share_one_budget_and_are_remembered_by_digest() {
    for count in [20, 40] {
        let (_cache, runtime) = fresh_runtime();
        // An honest plugin of the user's, beside them.
        let setup = Setup::new(&[fixtures::ECHO_TOOLS]);
        let names = spinning(&runtime, &setup, count);
        let mut remembered = 0;
        let mut starts = 0;
        // Each start describes what is not remembered yet, within one budget, at most as
        // many at once as the process has instances; the next start skips what faulted.
        while remembered < count {
            starts += 1;
            assert!(starts <= count.div_ceil(16) + 1, "{count}: still describing after {starts} starts");
            let started = std::time::Instant::now();
            let registry = Registry::load(&runtime, &setup.dirs()).await;
            tracing::info!("{count} spinning describes, start {starts}: {:?}", started.elapsed());
            assert!(registry.get("echo").is_some(), "{count}: the honest plugin still loads");
            let reasons: Vec<&str> =
                names.iter().map(|n| problem_for(&registry, &format!("{n}.wasm")).reason.as_str()).collect();
            let earlier = reasons.iter().filter(|r| r.contains("at an earlier start")).count();
            let faulted =
                reasons.iter().filter(|r| r.contains("ran past its deadline") && !r.contains("earlier")).count();
            let waiting = reasons.iter().filter(|r| r.contains("not described")).count();
            assert_eq!(earlier, remembered, "{count}, start {starts}: {reasons:#?}");
            assert_eq!(earlier + faulted + waiting, count, "{count}, start {starts}: {reasons:#?}");
            assert!(faulted > 0 && faulted <= 16, "{count}, start {starts}: {faulted} described at once");
            remembered += faulted;
        }
        // Every digest is remembered: nothing is described, nothing waited on.
        let registry = Registry::load(&runtime, &setup.dirs()).await;
        assert!(names.iter().all(|n| problem_for(&registry, &format!("{n}.wasm")).reason.contains("earlier start")));
        // A fixed plugin is a new digest: it is described again, and loads.
        let fixed = variants::trust_probe("name=spin_00;describe=ok");
        std::fs::write(setup.workspace.join(".airlock/plugins/spin_00.wasm"), &fixed).unwrap();
        let registry = Registry::load(&runtime, &setup.dirs()).await;
        assert_eq!(registry.get("probe_read").map(|t| t.plugin.info.name.as_str()), Some("spin_00"));
    }
}

#[tokio::test]
async fn a_check_describes_a_remembered_fault_again() {
    let (_cache, runtime) = fresh_runtime();
    let setup = Setup::new(&[]);
    let names = spinning(&runtime, &setup, 1);
    let file = setup.workspace.join(format!(".airlock/plugins/{}.wasm", names[0]));
    Registry::load(&runtime, &setup.dirs()).await;
    let registry = Registry::load(&runtime, &setup.dirs()).await;
    let reason = &problem_for(&registry, "spin_00.wasm").reason;
    assert!(reason.contains("at an earlier start") && reason.contains("airlock plugins check"), "{reason}");
    // `plugins check` (and `inspect`, `install`) describe it on their own, again.
    let started = std::time::Instant::now();
    let checked = Registry::inspect_from(&runtime, &file, Origin::Workspace).await.unwrap_err();
    assert!(checked.reason.contains("describe() failed") && !checked.reason.contains("earlier"), "{}", checked.reason);
    assert!(started.elapsed() >= Duration::from_secs(4), "it ran again, to its own deadline");
}

#[tokio::test]
async fn a_workspace_may_bring_only_so_many_plugins_and_only_so_large() {
    let setup = Setup::new(&[]);
    let workspace = setup.workspace.join(".airlock/plugins");
    std::fs::create_dir_all(&workspace).unwrap();
    for index in 0..=source::MAX_WORKSPACE_PLUGINS {
        std::fs::copy(fixtures::ECHO_TOOLS, workspace.join(format!("p{index:02}.wasm"))).unwrap();
    }
    std::fs::File::create(workspace.join("huge.wasm"))
        .unwrap()
        .set_len(source::MAX_WORKSPACE_PLUGIN_BYTES + 1)
        .unwrap();
    let runtime = runtime();
    let registry = setup.registry(&runtime).await;
    // Sorted by name, `huge.wasm` comes first and is refused by its size; the 16 after it
    // are read, and the last is not.
    assert!(problem_for(&registry, "huge.wasm").reason.contains("at most"), "{:?}", registry.problems);
    let last = format!("p{:02}.wasm", source::MAX_WORKSPACE_PLUGINS - 1);
    assert!(problem_for(&registry, &last).reason.contains("at most 16 plugins"), "{:?}", registry.problems);
}

#[tokio::test]
async fn a_workspace_may_declare_only_so_much_and_later_plugins_are_skipped() {
    let setup = Setup::new(&[]);
    let workspace = setup.workspace.join(".airlock/plugins");
    std::fs::create_dir_all(&workspace).unwrap();
    // Each declares 16 tools of 15 000-byte descriptions (~240 KiB, under the 256 KiB one
    // plugin may declare); the workspace budget of 512 KiB holds two of them.
    for (file, name) in [("a_bulk.wasm", "bulk_a"), ("b_bulk.wasm", "bulk_b"), ("c_bulk.wasm", "bulk_c")] {
        std::fs::write(workspace.join(file), variants::trust_probe(&format!("name={name};bulk=16"))).unwrap();
    }
    // The user's own plugins are not counted against a workspace.
    std::fs::write(setup.home.path().join("plugins/user_bulk.wasm"), variants::trust_probe("name=bulk_u;bulk=16"))
        .unwrap();
    let runtime = runtime();
    let registry = setup.registry(&runtime).await;
    assert!(registry.get("bulk_bulk_u_15").is_some());
    assert!(registry.get("bulk_bulk_a_15").is_some() && registry.get("bulk_bulk_b_15").is_some());
    let reason = &problem_for(&registry, "c_bulk.wasm").reason;
    assert!(reason.contains("declare more than 512 KiB"), "{reason}");
    assert!(registry.get("bulk_bulk_c_0").is_none());
    let declared: usize = registry
        .plugins()
        .into_iter()
        .filter(|p| p.source.origin == Origin::Workspace)
        .map(|p| declared_bytes(&p.info))
        .sum();
    assert!(declared <= WORKSPACE_DECLARED_BYTES, "{declared}");
}

#[tokio::test]
async fn workspace_plugin_files_that_are_links_fifos_or_huge_are_reported_not_read() {
    let setup = Setup::new(&[]);
    let workspace = setup.workspace.join(".airlock/plugins");
    std::fs::create_dir_all(&workspace).unwrap();
    std::os::unix::fs::symlink("/dev/zero", workspace.join("zero.wasm")).unwrap();
    std::os::unix::fs::symlink("/proc/self/pagemap", workspace.join("pagemap.wasm")).unwrap();
    std::os::unix::fs::symlink(fixtures::ECHO_TOOLS, workspace.join("outside.wasm")).unwrap();
    rustix::fs::mkfifoat(rustix::fs::CWD, workspace.join("fifo.wasm"), rustix::fs::Mode::from_raw_mode(0o600)).unwrap();
    std::fs::File::create(workspace.join("sparse.wasm")).unwrap().set_len(2 << 30).unwrap();
    std::fs::create_dir(workspace.join("folder.wasm")).unwrap();
    let runtime = runtime();
    let registry = setup.registry(&runtime).await;
    for (file, needle) in [
        ("zero.wasm", "symbolic link"),
        ("pagemap.wasm", "symbolic link"),
        ("outside.wasm", "symbolic link"),
        ("fifo.wasm", "FIFO"),
        ("sparse.wasm", "at most"),
        ("folder.wasm", "folder"),
    ] {
        let reason = &problem_for(&registry, file).reason;
        assert!(reason.contains(needle), "{file}: {reason}");
    }
    assert!(registry.get("echo").is_none(), "a linked plugin from outside the workspace loaded");
    assert!(registry.get("read_file").is_some());
}

#[tokio::test]
async fn a_linked_workspace_plugin_folder_is_not_followed() {
    let setup = Setup::new(&[]);
    let elsewhere = tempfile::tempdir().unwrap();
    std::fs::copy(fixtures::ECHO_TOOLS, elsewhere.path().join("echo.wasm")).unwrap();
    std::fs::create_dir_all(setup.workspace.join(".airlock")).unwrap();
    std::os::unix::fs::symlink(elsewhere.path(), setup.workspace.join(".airlock/plugins")).unwrap();
    let runtime = runtime();
    let registry = setup.registry(&runtime).await;
    assert!(registry.get("echo").is_none());
    assert!(problem_for(&registry, "plugins").reason.contains("symbolic link"));
}

#[tokio::test]
async fn a_grant_never_crosses_from_one_origin_to_another() {
    let setup = Setup::new(&[]);
    let policy = setup.policy(
        crate::policy::ApprovalMode::Default,
        "[grants.read-file]\nfiles = [\"~/notes:read\"]\n[grants.helper]\nfiles = [\".:read-write\"]\n",
    );
    let builtin = source::builtins().into_iter().find(|s| s.path == Path::new("read_file.wasm")).unwrap();
    let plugin = |origin: Origin, name: &str| {
        let mut source = builtin.clone();
        source.origin = origin;
        let info = PluginInfo { name: name.into(), version: "1.0.0".into(), tools: Vec::new() };
        Plugin { source, info, hook: None, component: tokio::sync::OnceCell::new() }
    };
    // The built-in gets the user's grant of its name.
    let granted = policy.grant(&plugin(Origin::Builtin, "read-file"));
    assert_eq!(granted.grant.files.len(), 1);
    assert!(granted.file.is_some());
    // A user- or workspace-folder plugin calling itself `read-file` gets none of it.
    for origin in [Origin::User, Origin::Workspace] {
        let granted = policy.grant(&plugin(origin, "read-file"));
        assert!(granted.grant.is_empty(), "{origin:?} inherited the built-in's grant");
    }
    // The user's grant of a user plugin never reaches a workspace plugin of that name.
    assert_eq!(policy.grant(&plugin(Origin::User, "helper")).grant.files.len(), 1);
    assert!(policy.grant(&plugin(Origin::Workspace, "helper")).grant.is_empty());
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
