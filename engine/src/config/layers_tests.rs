//! Unit tests of `layers.rs`: real files in temporary folders.

use super::*;
use crate::policy::ApprovalMode;

struct Setup {
    _dir: tempfile::TempDir,
    paths: Paths,
    workspace: PathBuf,
}

fn setup(system: Option<&str>, user: Option<&str>) -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let system_dir = dir.path().join("system");
    let workspace = dir.path().join("workspace");
    for folder in [&home, &system_dir, &workspace] {
        std::fs::create_dir_all(folder).unwrap();
    }
    let mut paths = Paths::new(&home, None).unwrap();
    paths.system = system_dir.clone();
    if let Some(text) = system {
        std::fs::write(system_dir.join("config.toml"), text).unwrap();
    }
    if let Some(text) = user {
        std::fs::write(paths.config_file(), text).unwrap();
    }
    let workspace = workspace.canonicalize().unwrap();
    Setup { _dir: dir, paths, workspace }
}

/// Writes the workspace's `.airlock/config.toml` and, with `trust`, pins it as `airlock
/// trust` does.
fn workspace_file(setup: &Setup, text: &str, trust: bool) {
    let folder = setup.workspace.join(".airlock");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("config.toml"), text).unwrap();
    if trust {
        let mut store = TrustStore::load(&setup.paths.trust_file()).unwrap();
        let hash = crate::policy::workspace_policy_hash(&setup.workspace).unwrap();
        store.trust(&setup.workspace, &hash, Default::default());
        store.pin_config(&setup.workspace, &super::super::mcp::workspace_config_hash(&setup.workspace).unwrap());
        store.save().unwrap();
    }
}

fn source_of(settings: &Settings, key: &str) -> Source {
    settings.rows.iter().find(|r| r.key == key).map(|r| r.source.clone()).unwrap_or(Source::Default)
}

#[test]
fn each_key_names_the_file_and_line_it_came_from_across_layers_and_a_profile() {
    let mut setup = setup(
        Some("max_turns = 10\nmodel = \"team\"\n[profiles.fast]\nmodel = \"small\"\n"),
        Some("# mine\n\nmax_turns = 20\n[tools]\ntimeout_secs = 30\n"),
    );
    workspace_file(&setup, "loop_detection = false\n", true);
    setup.paths.profile = Some("fast".into());
    let settings = load_settings(&setup.paths, Some(&setup.workspace)).unwrap();
    assert_eq!(settings.config.max_turns, Some(20));
    assert_eq!(settings.config.model.as_deref(), Some("small"));
    assert_eq!(settings.config.loop_detection, Some(false));
    assert_eq!(settings.config.tools.timeout_secs, Some(30));
    let system = setup.paths.system.join("config.toml");
    assert_eq!(source_of(&settings, "max_turns"), Source::File { path: setup.paths.config_file(), line: 3 });
    assert_eq!(source_of(&settings, "tools.timeout_secs"), Source::File { path: setup.paths.config_file(), line: 5 });
    assert_eq!(
        source_of(&settings, "loop_detection"),
        Source::File { path: setup.workspace.join(".airlock/config.toml"), line: 1 }
    );
    assert_eq!(source_of(&settings, "model"), Source::Profile { name: "fast".into(), path: system, line: 4 });
    assert!(settings.layers.iter().all(|l| l.state == LayerState::Read), "{:?}", settings.layers);
}

#[test]
fn an_unknown_profile_names_the_known_ones() {
    let mut setup = setup(Some("[profiles.team]\nmodel = \"a\"\n"), Some("[profiles.mine]\nmodel = \"b\"\n"));
    setup.paths.profile = Some("nope".into());
    let message = load_settings(&setup.paths, None).unwrap_err().to_string();
    assert!(message.contains("nope") && message.contains("mine, team"), "{message}");
}

#[test]
fn a_locked_key_is_kept_against_files_and_flags_with_warnings() {
    let setup = setup(
        Some("locked = [\"approval_mode\", \"tools\"]\napproval_mode = \"default\"\n"),
        Some("approval_mode = \"yolo\"\n[tools]\ntimeout_secs = 1\n"),
    );
    let mut settings = load_settings(&setup.paths, None).unwrap();
    assert_eq!(settings.config.approval_mode, Some(ApprovalMode::Default));
    assert_eq!(settings.config.tools.timeout_secs, None);
    let flag = settings.flag(&["approval_mode"], "--approval-mode", Some(ApprovalMode::Yolo), |m| {
        toml::Value::String(m.as_str().into())
    });
    assert_eq!(flag, None);
    let warnings = settings.warnings.join("\n");
    assert!(warnings.contains("approval_mode is locked by") && warnings.contains("config.toml:1"), "{warnings}");
    assert!(warnings.contains("--approval-mode \"yolo\" is not used"), "{warnings}");
    assert!(warnings.contains("tools is locked"), "{warnings}");
    assert!(settings.rows.iter().any(|r| r.key == "approval_mode" && r.locked));
}

#[test]
fn a_locked_provider_table_also_refuses_the_flags_that_override_it() {
    let setup = setup(
        Some(
            "locked = [\"providers.team.base_url\"]\n[providers.team]\nkind = \"openai\"\nbase_url = \"http://127.0.0.1:9/v1\"\n",
        ),
        None,
    );
    let mut settings = load_settings(&setup.paths, None).unwrap();
    let text = |v: &String| toml::Value::String(v.clone());
    let url =
        settings.flag(&["base_url", "providers.*.base_url"], "--base-url", Some("http://evil.example".into()), text);
    assert_eq!(url, None);
    let model = settings.flag(&["model", "providers.*.model"], "--model", Some("m".to_string()), text);
    assert_eq!(model.as_deref(), Some("m"));
    assert!(settings.warnings.join("\n").contains("providers.team.base_url is locked"), "{:?}", settings.warnings);
}

#[test]
fn an_unknown_locked_path_is_an_error_of_the_system_file() {
    let setup = setup(Some("\nlocked = [\"tools.timeout\"]\n"), None);
    let message = load_settings(&setup.paths, None).unwrap_err().to_string();
    assert!(message.contains("system") && message.contains("tools.timeout"), "{message}");
    let setup = super::tests::setup(None, Some("locked = [\"model\"]\n"));
    let message = load_settings(&setup.paths, None).unwrap_err().to_string();
    assert!(message.contains("only in the system file"), "{message}");
}

#[test]
fn a_bad_key_is_named_in_its_own_layer() {
    let setup = setup(Some("model = \"m\"\n\nmax_turns = \"ten\"\n"), Some("model = \"n\"\n"));
    let message = load_settings(&setup.paths, None).unwrap_err().to_string();
    assert!(message.contains("system/config.toml") && message.contains("line 3"), "{message}");
}

#[test]
fn a_provider_table_of_the_system_file_may_be_chosen_by_the_user() {
    let setup = setup(
        Some("[providers.team]\nkind = \"openai\"\nbase_url = \"http://127.0.0.1:9/v1\"\n"),
        Some("provider = \"team\"\n"),
    );
    let settings = load_settings(&setup.paths, None).unwrap();
    assert_eq!(settings.config.provider.as_ref().map(|p| p.get_ref().as_str()), Some("team"));
    let setup = super::tests::setup(None, Some("\nprovider = \"nowhere\"\n"));
    let message = load_settings(&setup.paths, None).unwrap_err().to_string();
    assert!(message.contains("config.toml: line 2: unknown provider"), "{message}");
}

#[test]
fn an_untrusted_or_changed_workspace_file_is_not_read() {
    let setup = setup(None, None);
    workspace_file(&setup, "max_turns = 3\n", false);
    let settings = load_settings(&setup.paths, Some(&setup.workspace)).unwrap();
    assert_eq!(settings.config.max_turns, None);
    assert!(matches!(&settings.layers[2].state, LayerState::Skipped(why) if why.contains("not trusted")));
    workspace_file(&setup, "max_turns = 3\n", true);
    std::fs::write(setup.workspace.join(".airlock/config.toml"), "max_turns = 4\n").unwrap();
    let settings = load_settings(&setup.paths, Some(&setup.workspace)).unwrap();
    assert_eq!(settings.config.max_turns, None);
    assert!(matches!(&settings.layers[2].state, LayerState::Skipped(why) if why.contains("changed")));
}

#[test]
fn a_workspace_key_that_widens_is_refused_with_a_warning() {
    let setup = setup(None, None);
    workspace_file(&setup, "max_turns = 3\n[commands]\nread = [\"/\"]\n", true);
    let settings = load_settings(&setup.paths, Some(&setup.workspace)).unwrap();
    assert_eq!(settings.config.max_turns, Some(3));
    assert!(settings.config.commands.read.is_empty());
    let warnings = settings.warnings.join("\n");
    assert!(warnings.contains("commands at ") && warnings.contains(".airlock/config.toml:2"), "{warnings}");
}

#[test]
fn command_hooks_of_every_layer_are_kept_with_their_scope_and_file() {
    let hook = |name: &str| format!("[[hooks.command]]\nname = \"{name}\"\nevents = [\"stop\"]\ncommand = \"true\"\n");
    let setup =
        setup(Some(&hook("sys")), Some(&format!("{}[hooks.component.pack]\non_error = \"allow\"\n", hook("mine"))));
    let untrusted = format!("{}[hooks.component.pack]\nenabled = false\n", hook("repo"));
    workspace_file(&setup, &untrusted, false);
    let settings = load_settings(&setup.paths, Some(&setup.workspace)).unwrap();
    let names: Vec<(String, HookScope)> = settings.config.hooks.command.iter().map(|h| (h.name(), h.scope)).collect();
    assert_eq!(names, vec![("sys".into(), HookScope::System), ("mine".into(), HookScope::User)]);
    assert_eq!(settings.config.hooks.command[1].origin, setup.paths.config_file());

    workspace_file(&setup, &untrusted, true);
    let settings = load_settings(&setup.paths, Some(&setup.workspace)).unwrap();
    let names: Vec<(String, HookScope)> = settings.config.hooks.command.iter().map(|h| (h.name(), h.scope)).collect();
    assert_eq!(
        names,
        vec![
            ("sys".into(), HookScope::System),
            ("mine".into(), HookScope::User),
            ("repo".into(), HookScope::Workspace)
        ],
        "a workspace's hooks add to the user's, never replace them"
    );
    assert_eq!(settings.config.hooks.command[2].origin, setup.workspace.join(".airlock/config.toml"));
    let pack = &settings.config.hooks.component["pack"];
    assert!(pack.enabled, "a workspace may not turn off a hook");
    assert_eq!(pack.on_error, crate::config::hooks::OnErrorSetting::Allow);
    assert!(settings.warnings.join("\n").contains("hooks.component at"), "{:?}", settings.warnings);
}

#[test]
fn a_workspace_hook_may_not_reach_the_network_nor_write() {
    let hook = |name: &str, extra: &str| {
        format!("[[hooks.command]]\nname = \"{name}\"\nevents = [\"stop\"]\ncommand = \"true\"\n{extra}")
    };
    let setup = setup(None, Some(&hook("mine", "network = true\nwrites = [\".\"]\n")));
    let repo =
        format!("{}{}{}", hook("quiet", ""), hook("sender", "network = true\n"), hook("writer", "writes = [\".\"]\n"));
    workspace_file(&setup, &repo, true);
    let settings = load_settings(&setup.paths, Some(&setup.workspace)).unwrap();
    let names: Vec<String> = settings.config.hooks.command.iter().map(|h| h.name()).collect();
    assert_eq!(names, ["mine", "quiet"], "the user's own hook may; the workspace's may not");
    let warnings = settings.warnings.join("\n");
    assert!(warnings.contains("\"sender\"") && warnings.contains("\"writer\""), "{warnings}");
}

#[test]
fn a_profile_may_not_hold_command_hooks() {
    let setup =
        setup(None, Some("[profiles.p]\n[[profiles.p.hooks.command]]\nevents = [\"stop\"]\ncommand = \"true\"\n"));
    let message = load_settings(&setup.paths, None).unwrap_err().to_string();
    assert!(message.contains("[profiles.p] may not hold [[hooks.command]]"), "{message}");
}

#[test]
fn a_system_lock_on_hooks_keeps_only_the_systems_command_hooks() {
    let hook = |name: &str| format!("[[hooks.command]]\nname = \"{name}\"\nevents = [\"stop\"]\ncommand = \"true\"\n");
    let setup = setup(Some(&format!("locked = [\"hooks.command\"]\n{}", hook("sys"))), Some(&hook("mine")));
    let settings = load_settings(&setup.paths, None).unwrap();
    let names: Vec<String> = settings.config.hooks.command.iter().map(|h| h.name()).collect();
    assert_eq!(names, vec!["sys"]);
    let warnings = settings.warnings.join("\n");
    assert!(warnings.contains("hooks.command \"mine\"") && warnings.contains("locked"), "{warnings}");
}
