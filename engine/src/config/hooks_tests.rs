//! Unit tests of `hooks.rs`: the `[hooks]` tables as a user writes them.

use super::*;

fn parse(text: &str) -> Result<HooksSettings, String> {
    #[derive(Deserialize)]
    struct File {
        #[serde(default)]
        hooks: HooksSettings,
    }
    let file: File = toml::from_str(text).map_err(|e| e.message().to_owned())?;
    file.hooks.check()?;
    Ok(file.hooks)
}

#[test]
fn the_contracts_example_parses_with_its_defaults() {
    let hooks = parse(
        r#"
        [[hooks.command]]
        name = "no-force-push"
        events = ["before_tool"]
        tools = "run_shell_command|Bash"
        command = "python3 hooks/check.py"
        timeout_secs = 10
        on_error = "deny"

        [[hooks.command]]
        events = ["PostToolUse", "after_tool"]
        command = "python3 hooks/format.py --all"
        writes = ["."]
        on_error = "allow"

        [hooks.component.policy-pack]
        timeout_ms = 500
        "#,
    )
    .expect("valid");
    let first = &hooks.command[0];
    assert_eq!(first.name(), "no-force-push");
    assert_eq!(first.event_names(), vec![HookEventName::BeforeTool]);
    assert_eq!(first.timeout_secs(), 10);
    assert_eq!(first.on_error, OnErrorSetting::Deny);
    assert!(!first.network);
    let second = &hooks.command[1];
    assert_eq!(second.name(), "format", "a name derived from the script");
    assert_eq!(second.event_names(), vec![HookEventName::AfterTool], "both spellings of one event count once");
    assert_eq!(second.timeout_secs(), DEFAULT_COMMAND_SECS);
    assert_eq!(second.on_error, OnErrorSetting::Allow);
    assert_eq!(second.writes, vec!["."]);
    let pack = &hooks.component["policy-pack"];
    assert_eq!(
        pack,
        &ComponentHookSettings { timeout_ms: 500, ..ComponentHookSettings::default() },
        "the other keys take their defaults"
    );
    assert!(pack.enabled);
    assert_eq!(pack.memory_mib, 64);
}

#[test]
fn a_bad_event_name_is_refused_naming_the_hook_and_the_known_events() {
    let error =
        parse("[[hooks.command]]\nname = \"x\"\nevents = [\"BeforeToolUse\"]\ncommand = \"true\"\n").unwrap_err();
    assert!(error.contains("\"x\"") && error.contains("\"BeforeToolUse\""), "{error}");
    assert!(error.contains("before_tool") && error.contains("PreToolUse"), "{error}");
}

#[test]
fn a_bad_regex_is_refused() {
    let error = parse("[[hooks.command]]\nevents = [\"before_tool\"]\ntools = \"Bash(\"\ncommand = \"./check.sh\"\n")
        .unwrap_err();
    assert!(error.contains("\"check\"") && error.contains("not a valid regular expression"), "{error}");
}

#[test]
fn a_missing_command_is_refused() {
    let error = parse("[[hooks.command]]\nname = \"x\"\nevents = [\"stop\"]\n").unwrap_err();
    assert!(error.contains("give `command`"), "{error}");
    let error = parse("[[hooks.command]]\nname = \"x\"\nevents = [\"stop\"]\ncommand = \"  \"\n").unwrap_err();
    assert!(error.contains("`command` is empty"), "{error}");
}

#[test]
fn missing_events_are_refused() {
    let error = parse("[[hooks.command]]\nname = \"x\"\ncommand = \"true\"\n").unwrap_err();
    assert!(error.contains("give `events`"), "{error}");
}

#[test]
fn a_name_set_twice_is_refused() {
    let text = "[[hooks.command]]\nname = \"x\"\nevents = [\"stop\"]\ncommand = \"a\"\n\
                [[hooks.command]]\nname = \"x\"\nevents = [\"stop\"]\ncommand = \"b\"\n";
    let error = parse(text).unwrap_err();
    assert!(error.contains("\"x\" is set twice"), "{error}");
}

#[test]
fn an_unknown_key_is_refused() {
    let error = parse("[[hooks.command]]\nevents = [\"stop\"]\ncommand = \"a\"\nmatcher = \"Bash\"\n").unwrap_err();
    assert!(error.contains("matcher"), "{error}");
}

#[test]
fn writes_outside_the_workspace_and_bad_limits_are_refused() {
    for (line, wanted) in [
        ("writes = [\"/tmp\"]", "relative to it"),
        ("writes = [\"../up\"]", "relative to it"),
        ("writes = [\"a/../../up\"]", "relative to it"),
        ("timeout_secs = 0", "timeout_secs"),
        ("timeout_secs = 601", "timeout_secs"),
        ("memory_mib = 0", "memory_mib"),
        ("name = \"a b\"", "a hook's name"),
        ("on_error = \"ignore\"", "unknown variant"),
    ] {
        let error = parse(&format!("[[hooks.command]]\nevents = [\"stop\"]\ncommand = \"a\"\n{line}\n")).unwrap_err();
        assert!(error.contains(wanted), "{line}: {error}");
    }
    let error = parse("[hooks.component.p]\ntimeout_ms = 0\n").unwrap_err();
    assert!(error.contains("timeout_ms"), "{error}");
}

#[test]
fn tools_patterns_match_whole_names_and_star_matches_all() {
    let pattern = tools_pattern("Bash|read_file").unwrap().unwrap();
    assert!(pattern.is_match("Bash") && pattern.is_match("read_file"));
    assert!(!pattern.is_match("read_file_extra") && !pattern.is_match("xBash"));
    assert!(tools_pattern("*").unwrap().is_none());
}

#[test]
fn names_are_derived_from_the_script() {
    assert_eq!(derived_name("python3 hooks/check.py"), "check");
    assert_eq!(derived_name("./fmt.sh --fix"), "fmt");
    assert_eq!(derived_name("jq -r .x"), "jq");
    assert_eq!(derived_name("\"$CLAUDE_PROJECT_DIR\"/.claude/hooks/pre_tool_use.py"), "pre_tool_use");
}
