use super::*;

fn echo_access(workspace: &Path) -> CallProcesses {
    CallProcesses::new(Some(ProcessAccess {
        gate: Gate { prefixes: vec!["echo".into()], ..Gate::default() },
        read_write: vec![workspace.to_path_buf()],
        workspace: workspace.to_path_buf(),
        ..ProcessAccess::default()
    }))
}

fn options(stdin: Option<Vec<u8>>) -> wit::SpawnOptions {
    wit::SpawnOptions {
        command: wit::Command::Argv("echo\0hi".into()),
        directory: String::new(),
        env: String::new(),
        stdin,
        timeout_ms: 0,
        background: false,
    }
}

/// One buffer sent with every spawn would be held once per child: the host refuses
/// standard input over the cap instead of multiplying the plugin's memory.
#[test]
fn standard_input_is_capped() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let workspace = dir.path().canonicalize().unwrap_or_else(|e| panic!("{e}"));
    let mut processes = echo_access(&workspace);
    let remaining = Duration::from_secs(60);
    let big = prepare(&mut processes, "probe", options(Some(vec![0; MAX_STDIN + 1])), remaining);
    assert!(matches!(big, Err(wit::SpawnError::Invalid(ref m)) if m.contains("limit")), "{big:?}");
    assert_eq!(processes.started, 0, "a refused spawn counts for nothing");
    let fits = prepare(&mut processes, "probe", options(Some(vec![0; MAX_STDIN])), remaining);
    assert!(fits.is_ok_and(|request| request.stdin.is_some_and(|s| s.len() == MAX_STDIN)));
}

/// A foreground child is killed before its call's deadline; a background one without a
/// timeout of its own runs until airlock exits; one with a timeout keeps it.
#[test]
fn timeouts_stop_short_of_the_deadline_and_background_commands_run_on() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let workspace = dir.path().canonicalize().unwrap_or_else(|e| panic!("{e}"));
    let mut processes = echo_access(&workspace);
    if let Some(access) = processes.access.as_mut() {
        access.log_dir = Some(workspace.join("outputs"));
    }
    let remaining = Duration::from_secs(60);
    let foreground = prepare(&mut processes, "probe", options(None), remaining).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(foreground.timeout, Duration::from_secs(58));
    let background = wit::SpawnOptions { background: true, ..options(None) };
    let request = prepare(&mut processes, "probe", background, remaining).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(request.timeout, Duration::ZERO, "no limit");
    assert!(request.background_log.is_some_and(|log| log.starts_with(workspace.join("outputs/commands"))));
    let bounded = wit::SpawnOptions { background: true, timeout_ms: 5_000, ..options(None) };
    let request = prepare(&mut processes, "probe", bounded, remaining).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(request.timeout, Duration::from_secs(5));
    // Past the deadline a child still gets a limit, never "none".
    let late = prepare(&mut processes, "probe", options(None), Duration::ZERO).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(late.timeout, Duration::from_millis(1));
}

/// A command's spec is the call's folders and the session's view together: caches writable,
/// toolchains readable, secrets hidden, the user's PATH and HOME and toolchain variables.
#[test]
fn the_spec_joins_the_calls_folders_and_the_sessions_view() {
    let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let workspace = dir.path().canonicalize().unwrap_or_else(|e| panic!("{e}"));
    let mut processes = echo_access(&workspace);
    let view = CommandView {
        home: Some(PathBuf::from("/home/u")),
        path: "/home/u/.cargo/bin:/usr/bin".into(),
        env: vec![("CARGO_HOME".into(), "/home/u/.cargo".into())],
        read: vec![PathBuf::from("/home/u/.cargo"), workspace.join("inside")],
        write: vec![PathBuf::from("/home/u/.cargo/registry")],
        hidden: vec![PathBuf::from("/home/u/.ssh")],
        view: true,
    };
    if let Some(access) = processes.access.as_mut() {
        access.view = std::sync::Arc::new(view);
    }
    let request =
        prepare(&mut processes, "probe", options(None), Duration::from_secs(60)).unwrap_or_else(|e| panic!("{e:?}"));
    let spec = &request.spec;
    assert_eq!(spec.read_write, vec![workspace.clone(), PathBuf::from("/home/u/.cargo/registry")]);
    assert_eq!(spec.read_only, vec![PathBuf::from("/home/u/.cargo"), workspace.join("inside")]);
    assert_eq!(spec.hidden, vec![PathBuf::from("/home/u/.ssh")]);
    assert!(spec.view && !spec.network);
    let base = request.base.unwrap_or_else(|| panic!("no base"));
    assert_eq!(base.path, "/home/u/.cargo/bin:/usr/bin");
    assert_eq!(base.home, Some(PathBuf::from("/home/u")));
    assert_eq!(base.vars, vec![("CARGO_HOME".to_owned(), "/home/u/.cargo".to_owned())]);
}

/// A variable that makes a granted program run other code is refused with the reason, even
/// when the tool was granted its name.
#[test]
fn a_granted_variable_that_loads_code_is_refused_with_its_reason() {
    let granted: Vec<String> =
        ["BASH_ENV", "GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT", "LD_PRELOAD", "NODE_OPTIONS", "MY_FLAG"]
            .iter()
            .map(|n| (*n).to_owned())
            .collect();
    for (name, why) in [
        ("BASH_ENV", "shell"),
        ("GIT_CONFIG_PARAMETERS", "git"),
        ("GIT_CONFIG_COUNT", "git"),
        ("LD_PRELOAD", "loader"),
        ("NODE_OPTIONS", "runtime"),
    ] {
        let refused = environment(&format!("{name}=x"), &granted);
        assert!(
            matches!(&refused, Err(wit::SpawnError::Invalid(m)) if m.contains(name) && m.contains(why)),
            "{name}: {refused:?}"
        );
    }
    assert!(environment("MY_FLAG=1", &granted).is_ok());
}
