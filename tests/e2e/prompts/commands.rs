//! Custom commands written for Claude Code, run unchanged with `airlock -p "/NAME ARGS"`.

use airlock_tests::{MockModel, Turn, Wire};

use super::body_text;
use crate::session;

/// A command file as Claude Code's documentation writes them.
const FIX_ISSUE: &str = "---\n\
allowed-tools: Bash(git add:*), Bash(git status:*), Bash(git commit:*)\n\
argument-hint: [issue-number] [priority]\n\
description: Fix a GitHub issue\n\
model: claude-3-5-haiku-20241022\n\
---\n\
Fix issue #$1 with priority $2 (all: $ARGUMENTS).\n\
Current status: !`git status`\n\
Follow the style of @src/style.md\n";

#[test]
fn a_claude_code_command_runs_unchanged_with_its_arguments_and_includes() {
    let s = session();
    s.write(".airlock/commands/fix-issue.md", FIX_ISSUE);
    s.write(".airlock/commands/frontend/component.md", "Make the component $ARGUMENTS\n");
    s.write("src/style.md", "STYLE-GUIDE: tabs\n");
    let mock = MockModel::start(Wire::Anthropic);
    mock.push_turn(Turn::text("ok"));
    let done = s.airlock(&mock, &["-p", "/fix-issue 123 high"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let request = body_text(&mock.requests()[0]);
    assert!(request.contains("Fix issue #123 with priority high (all: 123 high)."), "{request}");
    assert!(request.contains("STYLE-GUIDE: tabs"), "{request}");
    // The shell interpolation is sent as text, never run, and said.
    assert!(request.contains("Current status: !`git status`"), "{request}");
    assert!(done.stderr.contains("is not run"), "{}", done.stderr);
    assert!(!request.contains("/fix-issue"), "{request}");

    let mock = MockModel::start(Wire::Gemini);
    mock.push_turn(Turn::text("ok"));
    let done = s.airlock(&mock, &["-p", "/frontend:component Button"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert!(body_text(&mock.requests()[0]).contains("Make the component Button"));
}

#[test]
fn an_include_outside_the_workspace_or_through_a_link_is_left_out_with_a_notice() {
    let s = session();
    let outside = s.workspace.parent().unwrap().join("outside-secret.txt");
    std::fs::write(&outside, "OUTSIDE-SECRET").unwrap();
    std::os::unix::fs::symlink(&outside, s.workspace.join("link.txt")).unwrap();
    s.write(".airlock/commands/leak.md", "Read @../outside-secret.txt and @link.txt please\n");
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::text("ok"));
    let done = s.airlock(&mock, &["-p", "/leak"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let request = body_text(&mock.requests()[0]);
    assert!(!request.contains("OUTSIDE-SECRET"), "{request}");
    assert!(request.contains("Read @../outside-secret.txt and @link.txt please"), "{request}");
    assert!(done.stderr.contains("@../outside-secret.txt is left out: it is outside the workspace"), "{}", done.stderr);
    assert!(done.stderr.contains("@link.txt is left out"), "{}", done.stderr);
}

#[test]
fn an_unknown_command_is_sent_as_typed_with_the_known_ones_named_and_a_double_slash_is_literal() {
    let s = session();
    std::fs::create_dir_all(s.airlock_home().join("commands")).unwrap();
    std::fs::write(s.airlock_home().join("commands/review.md"), "Review it\n").unwrap();
    let mock = MockModel::start(Wire::Anthropic);
    mock.push_turn(Turn::text("ok"));
    let done = s.airlock(&mock, &["-p", "/nope now"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert!(done.stderr.contains("no custom command `/nope`; there are /review"), "{}", done.stderr);
    assert!(body_text(&mock.requests()[0]).contains("/nope now"));

    let mock = MockModel::start(Wire::Anthropic);
    mock.push_turn(Turn::text("ok"));
    let done = s.airlock(&mock, &["-p", "//review literally"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let request = body_text(&mock.requests()[0]);
    assert!(request.contains("/review literally") && !request.contains("Review it"), "{request}");
}

#[test]
fn commands_list_marks_workspace_commands_and_says_why_a_file_was_left_out() {
    let s = session();
    std::fs::create_dir_all(s.airlock_home().join("commands")).unwrap();
    std::fs::write(s.airlock_home().join("commands/review.md"), "---\ndescription: Mine\n---\nx").unwrap();
    s.write(".airlock/commands/review.md", "---\ndescription: \"Theirs \\e[31mred\"\n---\nx");
    s.write(".airlock/commands/bad name.md", "x");
    let done = airlock_tests::Session::run({
        let mut c = s.bare_command();
        c.arg("--workspace").arg(&s.workspace).args(["commands", "list"]);
        c
    });
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert!(done.stdout.contains("/review  Mine\n"), "{}", done.stdout);
    assert!(done.stdout.contains("/workspace:review  Theirs"), "{}", done.stdout);
    assert!(done.stdout.contains("(workspace)"), "{}", done.stdout);
    assert!(!done.stdout.contains('\u{1b}'), "{:?}", done.stdout);
    assert!(done.stdout.contains("bad name.md: left out"), "{}", done.stdout);
    let json = airlock_tests::Session::run({
        let mut c = s.bare_command();
        c.arg("--workspace").arg(&s.workspace).args(["commands", "list", "--json"]);
        c
    });
    let value: serde_json::Value = serde_json::from_str(&json.stdout).unwrap();
    assert_eq!(value["commands"][1]["name"], "workspace:review");
    assert_eq!(value["commands"][1]["source"], "workspace");
}
