//! Unit tests of `mod.rs`: which hooks of the settings load, and why the others do not. The
//! runs themselves need the sandbox helper (the `airlock` binary): the end-to-end tests
//! (`tests/e2e/hooks/command.rs`) run real scripts through it.

use super::*;
use crate::config::hooks::OnErrorSetting;
use crate::hooks::{HookEventName, OnError};

struct Scene {
    _dir: tempfile::TempDir,
    workspace: PathBuf,
    trust_file: PathBuf,
    protected: Vec<PathBuf>,
}

impl Scene {
    fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let workspace = dir.path().join("ws");
        std::fs::create_dir_all(workspace.join("src")).unwrap();
        std::fs::create_dir_all(workspace.join(".airlock-home")).unwrap();
        let workspace = workspace.canonicalize().unwrap();
        let protected = vec![workspace.join(".airlock-home")];
        Self { trust_file: dir.path().join("trust.toml"), _dir: dir, workspace, protected }
    }

    fn host(&self) -> Host<'_> {
        Host {
            workspace: &self.workspace,
            view: Arc::default(),
            protected: &self.protected,
            helper: Path::new("/nonexistent/airlock"),
            trust_file: &self.trust_file,
        }
    }

    fn trust(&self) {
        let mut store = TrustStore::load(&self.trust_file).unwrap();
        store.trust(&self.workspace, "none", BTreeMap::new());
        store.pin_hooks(&self.workspace, pins::digests(&self.workspace).unwrap());
        store.save().unwrap();
    }
}

fn hook(name: Option<&str>, command: &str, scope: HookScope) -> CommandHookSettings {
    CommandHookSettings {
        name: name.map(str::to_string),
        events: vec!["PreToolUse".into()],
        tools: Some("Bash".into()),
        command: Some(command.into()),
        timeout_secs: Some(3),
        on_error: OnErrorSetting::Allow,
        memory_mib: None,
        writes: Vec::new(),
        network: false,
        scope,
        origin: PathBuf::from("/etc/airlock/config.toml"),
    }
}

fn names(hooks: &[Arc<dyn Hook>]) -> Vec<String> {
    hooks.iter().map(|h| h.spec().name.clone()).collect()
}

#[test]
fn a_hooks_spec_says_what_it_runs_at_and_holds() {
    let scene = Scene::new();
    let mut formatter = hook(None, "./fmt.sh", HookScope::User);
    formatter.writes = vec!["src".into()];
    formatter.network = true;
    let settings = HooksSettings {
        command: vec![hook(Some("guard"), "python3 g.py", HookScope::System), formatter],
        ..Default::default()
    };
    let (hooks, problems) = load(&settings, &scene.host());
    assert!(problems.is_empty(), "{problems:?}");
    assert_eq!(names(&hooks), vec!["guard", "fmt"]);
    let guard = hooks[0].spec();
    assert_eq!((guard.kind, guard.scope, guard.on_error), (HookKind::Command, HookScope::System, OnError::Allow));
    assert_eq!(guard.events, vec![HookEventName::BeforeTool]);
    assert!(guard.runs_for(HookEventName::BeforeTool, Some("run_shell_command")), "Bash stands for run_shell_command");
    assert!(!guard.runs_for(HookEventName::BeforeTool, Some("write_file")));
    assert_eq!(guard.timeout, Duration::from_secs(3));
    assert_eq!(guard.memory, crate::config::hooks::DEFAULT_COMMAND_MIB << 20);
    assert_eq!(guard.digest, airlock_files::content_hash(b"python3 g.py"));
    assert_eq!(guard.grants, vec!["read the workspace and the commands' folders"]);
    assert_eq!(hooks[1].spec().grants, vec!["read the workspace and the commands' folders", "write ./src", "network"]);
}

#[test]
fn derived_names_are_made_unique_and_a_name_set_twice_is_refused() {
    let scene = Scene::new();
    let settings = HooksSettings {
        command: vec![
            hook(None, "./check.sh", HookScope::System),
            hook(None, "./check.sh --more", HookScope::User),
            hook(Some("x"), "a", HookScope::System),
            hook(Some("x"), "b", HookScope::User),
        ],
        ..Default::default()
    };
    let (hooks, problems) = load(&settings, &scene.host());
    assert_eq!(names(&hooks), vec!["check", "check-2", "x"]);
    assert_eq!(problems.len(), 1);
    assert!(problems[0].reason.contains("already named \"x\""), "{}", problems[0].reason);
}

#[test]
fn writes_must_be_folders_of_the_workspace_and_not_airlocks_own() {
    let scene = Scene::new();
    std::os::unix::fs::symlink("/tmp", scene.workspace.join("out")).unwrap();
    for (folder, wanted) in
        [("out", "not a folder of the workspace"), ("missing", "not a folder"), (".airlock-home", "airlock's own")]
    {
        let mut setting = hook(Some("w"), "fmt", HookScope::User);
        setting.writes = vec![folder.into()];
        let (hooks, problems) = load(&HooksSettings { command: vec![setting], ..Default::default() }, &scene.host());
        assert!(hooks.is_empty(), "{folder}");
        assert!(problems[0].reason.contains(wanted), "{folder}: {}", problems[0].reason);
    }
    let mut setting = hook(Some("w"), "fmt", HookScope::User);
    setting.writes = vec!["src".into()];
    let (hooks, _) = load(&HooksSettings { command: vec![setting], ..Default::default() }, &scene.host());
    assert_eq!(names(&hooks), vec!["w"]);
}

#[test]
fn a_workspace_hook_loads_only_while_its_scripts_are_as_trusted() {
    let scene = Scene::new();
    let folder = pins::hooks_folder(&scene.workspace);
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("check.sh"), "exit 0\n").unwrap();
    let settings = HooksSettings {
        command: vec![hook(Some("repo"), "sh .airlock/hooks/check.sh", HookScope::Workspace)],
        ..Default::default()
    };
    let (hooks, problems) = load(&settings, &scene.host());
    assert!(hooks.is_empty());
    assert!(problems[0].reason.contains("not trusted"), "{}", problems[0].reason);

    scene.trust();
    let (hooks, problems) = load(&settings, &scene.host());
    assert_eq!(names(&hooks), vec!["repo"], "{problems:?}");

    std::fs::write(folder.join("check.sh"), "exit 2\n").unwrap();
    std::fs::write(folder.join("new.sh"), "true\n").unwrap();
    let (hooks, problems) = load(&settings, &scene.host());
    assert!(hooks.is_empty());
    let reason = &problems[0].reason;
    assert!(reason.contains("changed since trust") && reason.contains("check.sh changed"), "{reason}");
    assert!(reason.contains("new.sh added"), "{reason}");
}

#[tokio::test]
async fn a_workspace_hook_whose_script_changed_after_loading_does_not_run() {
    let scene = Scene::new();
    let folder = pins::hooks_folder(&scene.workspace);
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("check.sh"), "exit 0\n").unwrap();
    scene.trust();
    let settings = HooksSettings {
        command: vec![hook(Some("repo"), "sh .airlock/hooks/check.sh", HookScope::Workspace)],
        ..Default::default()
    };
    let (hooks, _) = load(&settings, &scene.host());
    std::fs::remove_file(folder.join("check.sh")).unwrap();
    let event = HookEvent {
        event: HookEventName::BeforeTool,
        session_id: "s".into(),
        transcript_path: None,
        workspace: scene.workspace.display().to_string(),
        approval_mode: "default".into(),
        tool: None,
        prompt: None,
        message: None,
        reason: None,
    };
    let failure = hooks[0].run(Arc::new(event)).await.unwrap_err();
    assert!(
        matches!(&failure, HookFailure::Unavailable(m) if m.contains("check.sh removed")),
        "checked again before the run (the helper was never needed): {failure:?}"
    );
}

#[test]
fn links_are_pinned_as_links() {
    let scene = Scene::new();
    let folder = pins::hooks_folder(&scene.workspace);
    std::fs::create_dir_all(folder.join("lib")).unwrap();
    std::fs::write(folder.join("lib/common.sh"), "x=1\n").unwrap();
    std::os::unix::fs::symlink("/usr/bin/env", folder.join("env")).unwrap();
    let pinned = pins::digests(&scene.workspace).unwrap();
    assert_eq!(pinned["env"], "link:/usr/bin/env");
    assert_eq!(pinned["lib/common.sh"], airlock_files::content_hash(b"x=1\n"));
    assert!(pins::digests(&scene.workspace.join("nowhere")).unwrap().is_empty());
}
