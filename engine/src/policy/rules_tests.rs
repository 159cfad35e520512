//! Unit tests of `rules.rs`.

use super::*;

fn rule(
    tool: Option<&str>,
    command: Option<&str>,
    path: Option<&str>,
    decision: RuleDecision,
    priority: i64,
    source: RuleSource,
) -> Rule {
    Rule {
        tool: tool.map(str::to_string),
        command: command.map(str::to_string),
        path: path.map(|p| PathGlob::new(p).unwrap()),
        decision,
        priority,
        source,
        origin: "test".into(),
    }
}

fn facts<'a>(tool: &'a str, command: Option<&'a str>, path: Option<&'a str>) -> CallFacts<'a> {
    CallFacts { tool, command, path, parsed: None, within_workspace: true }
}

#[test]
fn matches_tool_command_prefix_and_path_glob() {
    let by_command = rule(None, Some("git push"), None, RuleDecision::Deny, 0, RuleSource::User);
    assert!(by_command.matches(&facts("shell", Some("git push --force"), None)));
    assert!(!by_command.matches(&facts("shell", Some("git pushx"), None)));
    assert!(!by_command.matches(&facts("shell", None, None)));
    let by_path = rule(Some("write_file"), None, Some("src/**"), RuleDecision::Allow, 0, RuleSource::User);
    assert!(by_path.matches(&facts("write_file", None, Some("src/a/b.rs"))));
    assert!(!by_path.matches(&facts("write_file", None, Some("docs/a.md"))));
    assert!(!by_path.matches(&facts("replace", None, Some("src/a.rs"))));
}

#[test]
fn priority_then_deny_over_ask_over_allow() {
    let rules = vec![
        rule(None, None, None, RuleDecision::Allow, 5, RuleSource::User),
        rule(None, None, None, RuleDecision::Deny, 1, RuleSource::User),
    ];
    assert_eq!(deciding(&rules, &facts("t", None, None)).unwrap().decision, RuleDecision::Allow);
    let rules = vec![
        rule(None, None, None, RuleDecision::Allow, 1, RuleSource::User),
        rule(None, None, None, RuleDecision::Ask, 1, RuleSource::User),
    ];
    assert_eq!(deciding(&rules, &facts("t", None, None)).unwrap().decision, RuleDecision::Ask);
}

#[test]
fn user_rules_beat_workspace_rules_whatever_their_priority() {
    let rules = vec![
        rule(Some("t"), None, None, RuleDecision::Allow, 1000, RuleSource::Workspace),
        rule(Some("t"), None, None, RuleDecision::Ask, 0, RuleSource::User),
    ];
    assert_eq!(deciding(&rules, &facts("t", None, None)).unwrap().source, RuleSource::User);
}

#[test]
fn only_unconditional_deny_rules_hide_a_tool() {
    assert_eq!(rule(Some("t"), None, None, RuleDecision::Deny, 0, RuleSource::User).hidden_tool(), Some("t"));
    assert_eq!(rule(Some("t"), Some("x"), None, RuleDecision::Deny, 0, RuleSource::User).hidden_tool(), None);
    assert_eq!(rule(None, None, None, RuleDecision::Deny, 0, RuleSource::User).hidden_tool(), None);
    assert_eq!(rule(Some("t"), None, None, RuleDecision::Ask, 0, RuleSource::User).hidden_tool(), None);
}

#[test]
fn a_workspace_rule_approves_only_a_call_within_the_workspace() {
    let rules = vec![rule(None, None, None, RuleDecision::Allow, 0, RuleSource::Workspace)];
    let inside = facts("save_memory", None, None);
    assert_eq!(deciding(&rules, &inside).map(|r| r.decision), Some(RuleDecision::Allow));
    let outside = CallFacts { within_workspace: false, ..inside };
    assert!(deciding(&rules, &outside).is_none(), "a workspace rule approved a call that reaches outside");
    // The user's own rules, and a workspace's rules that hold a call back, still apply.
    for (decision, source) in [
        (RuleDecision::Allow, RuleSource::User),
        (RuleDecision::Allow, RuleSource::Session),
        (RuleDecision::Ask, RuleSource::Workspace),
        (RuleDecision::Deny, RuleSource::Workspace),
    ] {
        let rules = vec![rule(None, None, None, decision, 0, source)];
        assert_eq!(deciding(&rules, &outside).map(|r| r.decision), Some(decision), "{decision:?} of {source:?}");
    }
}

#[test]
fn mcp_rules_name_one_tool_or_every_tool_of_a_server() {
    assert!(tool_matches("fs__read_file", "fs__read_file"));
    assert!(!tool_matches("fs__read_file", "fs__write_file"));
    assert!(tool_matches("fs__*", "fs__write_file"));
    assert!(!tool_matches("fs__*", "fsx__write_file"));
    assert!(!tool_matches("fs*", "fs__write_file"), "only SERVER__* is a server's glob");
    assert!(is_mcp_rule_tool("fs__read_file") && is_mcp_rule_tool("my-srv__Read-File") && is_mcp_rule_tool("fs__*"));
    for bad in ["fs__", "__x", "fs__a b", "FS__x", "a__b__c*", "fs__x*"] {
        assert!(!is_mcp_rule_tool(bad), "{bad}");
    }
}

#[test]
fn a_system_deny_beats_session_user_and_workspace_allows_whatever_their_priority() {
    let shell = "run_shell_command";
    let rules = [
        rule(Some(shell), Some("curl"), None, RuleDecision::Deny, 0, RuleSource::System),
        rule(Some(shell), Some("curl"), None, RuleDecision::Allow, 1000, RuleSource::Session),
        rule(Some(shell), None, None, RuleDecision::Allow, 1000, RuleSource::User),
        rule(Some(shell), None, None, RuleDecision::Allow, 1000, RuleSource::Workspace),
    ];
    let decided = deciding(&rules, &facts(shell, Some("curl https://x.example"), None)).unwrap();
    assert_eq!((decided.source, decided.decision), (RuleSource::System, RuleDecision::Deny));
    // A command the system rule does not cover is decided as before.
    let decided = deciding(&rules, &facts(shell, Some("ls"), None)).unwrap();
    assert_eq!(decided.source, RuleSource::User);
}

#[test]
fn a_system_allow_never_overrides_a_persons_stricter_rule() {
    let shell = "run_shell_command";
    let rules = [
        rule(Some(shell), Some("git"), None, RuleDecision::Allow, 0, RuleSource::System),
        rule(Some(shell), Some("git push"), None, RuleDecision::Deny, 0, RuleSource::User),
    ];
    let decided = deciding(&rules, &facts(shell, Some("git push"), None)).unwrap();
    assert_eq!((decided.source, decided.decision), (RuleSource::User, RuleDecision::Deny));
    let decided = deciding(&rules, &facts(shell, Some("git status"), None)).unwrap();
    assert_eq!((decided.source, decided.decision), (RuleSource::System, RuleDecision::Allow));
}
