//! Custom commands in the interactive UI: the `/` menu lists them after the built-ins,
//! marked when they came with the workspace, and running one sends its expansion.

use std::time::Duration;

use airlock_tests::pty::Pty;
use airlock_tests::{MockModel, Turn, Wire};

use crate::session;

const LIMIT: Duration = Duration::from_secs(90);

#[test]
fn the_slash_menu_lists_a_workspace_command_marked_and_running_it_sends_its_expansion() {
    let s = session();
    s.write(
        ".airlock/commands/fix-issue.md",
        "---\ndescription: Fix a GitHub issue\nargument-hint: [issue-number]\n---\nFix issue #$1 now.\n",
    );
    // A custom command named like a built-in never shadows it.
    s.write(".airlock/commands/help.md", "---\ndescription: SHADOW-HELP\n---\nnot the built-in\n");
    let mock = MockModel::start(Wire::Anthropic);
    mock.push_turn(Turn::text("fixed it"));
    let mut pty = Pty::spawn(&s.command(&mock), 100, 30);
    pty.wait_text("test-model", LIMIT);
    pty.send("/fix");
    let screen = pty.wait_text("Fix a GitHub issue", LIMIT);
    assert!(screen.contains("fix-issue") && screen.contains("(workspace)"), "{screen}");
    pty.send("\x15/he");
    let screen = pty.wait_text("keys and commands", LIMIT);
    assert!(!screen.contains("SHADOW-HELP"), "{screen}");
    pty.send("\x15/fix-issue 7\r");
    pty.wait_text("fixed it", LIMIT);
    let sent = mock.last_request().unwrap_or_default().to_string();
    assert!(sent.contains("Fix issue #7 now."), "{sent}");
    pty.send("\x03");
    pty.wait_text("Ctrl-C again", LIMIT);
    pty.send("\x03");
    assert_eq!(pty.wait_exit(LIMIT), 0);
}
