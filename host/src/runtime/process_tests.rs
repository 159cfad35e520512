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
