//! Rewind in the interactive UI (issue 29) through the real binary in a pseudo-terminal,
//! against the scripted mock model: a file the model's `write_file` changed in prompt 1 is
//! back to what it held once `/rewind` picks prompt 1, the code, and the preview is
//! confirmed; the conversation is left as it was. Esc Esc opens the same picker, and a
//! conversation rewind puts the prompt back into the input, the model no longer holding it.

use airlock_tests::{MockModel, Turn, Wire, call};
use serde_json::json;

use super::{LIMIT, open, quit};
use crate::session;

#[test]
fn rewind_picks_prompt_one_restores_the_code_and_the_file_holds_its_original_content() {
    let s = session();
    s.write("notes.txt", "original\n");
    s.write("other.txt", "untouched\n");
    let mock = MockModel::start(Wire::Gemini);
    mock.push_turn(Turn::calls(vec![call(
        "write_file",
        json!({"file_path": "notes.txt", "content": "by the model\n"}),
    )]));
    mock.push_turn(Turn::text("the notes are rewritten"));
    let mut pty = open(&s, &mock, &["--approval-mode", "yolo"], 100, 40);
    pty.send("rewrite the notes\r");
    pty.wait_text("the notes are rewritten", LIMIT);
    assert_eq!(s.read("notes.txt").as_deref(), Some("by the model\n"));
    // The call held a checkpoint: its card says the number `/undo` takes.
    pty.wait_text("#1", LIMIT);

    pty.send("/rewind\r");
    let picker = pty.wait_for("the picker with prompt 1 and its file", LIMIT, |screen| {
        screen.contains("Rewind to before a prompt") && screen.contains("notes.txt  +1 −1")
    });
    assert!(picker.contains("1  rewrite the notes"), "{picker}");
    pty.send("\r");
    pty.wait_text("What should go back?", LIMIT);
    pty.send("c");
    let preview = pty.wait_text("Files it writes or deletes (1):", LIMIT);
    assert!(preview.contains("notes.txt") && !preview.contains("other.txt"), "{preview}");
    assert_eq!(s.read("notes.txt").as_deref(), Some("by the model\n"), "the preview changed the file");
    pty.send("y");
    pty.wait_text("rewound to before prompt 1: 1 file restored", LIMIT);
    assert_eq!(s.read("notes.txt").as_deref(), Some("original\n"));
    assert_eq!(s.read("other.txt").as_deref(), Some("untouched\n"));

    // The conversation stays: the next prompt goes on from the model's answer.
    mock.push_turn(Turn::text("still here"));
    pty.send("and now?\r");
    pty.wait_text("still here", LIMIT);
    let sent = mock.last_request().unwrap_or_default().to_string();
    assert!(sent.contains("rewrite the notes"), "a code rewind dropped the conversation: {sent}");
    quit(pty);
}

#[test]
fn esc_esc_rewinds_the_conversation_and_puts_the_prompt_back_into_the_input() {
    let s = session();
    let mock = MockModel::start(Wire::Gemini);
    mock.push_turn(Turn::text("first answer"));
    mock.push_turn(Turn::text("second answer"));
    let mut pty = open(&s, &mock, &[], 100, 40);
    pty.send("the first prompt\r");
    pty.wait_text("first answer", LIMIT);
    pty.send("the second prompt\r");
    pty.wait_text("second answer", LIMIT);
    pty.send("\x1b");
    pty.wait_text("press Esc again to rewind", LIMIT);
    pty.send("\x1b");
    let picker = pty.wait_text("Rewind to before a prompt", LIMIT);
    assert!(picker.contains("2  the second prompt") && picker.contains("no file changes"), "{picker}");
    // The newest prompt is chosen first; it changed no file, so only the conversation goes.
    pty.send("\r");
    pty.wait_text("What should go back?", LIMIT);
    pty.send("v");
    pty.wait_text("The conversation drops", LIMIT);
    pty.send("y");
    pty.wait_text("rewound to before prompt 2", LIMIT);
    let screen = pty.wait_text("› the second prompt", LIMIT);
    assert!(!screen.contains("Rewind to before"), "a dialog stayed open:\n{screen}");
    // Sent again, the prompt reaches a model that no longer holds its first sending.
    mock.push_turn(Turn::text("answered again"));
    pty.send("\r");
    pty.wait_text("answered again", LIMIT);
    let sent = mock.last_request().unwrap_or_default().to_string();
    assert!(sent.contains("the first prompt") && !sent.contains("second answer"), "{sent}");
    quit(pty);
}

#[test]
fn u_in_a_cards_pager_undoes_its_call_and_rewind_undo_puts_it_back() {
    let s = session();
    s.write("notes.txt", "original\n");
    let mock = MockModel::start(Wire::Gemini);
    mock.push_turn(Turn::calls(vec![call(
        "write_file",
        json!({"file_path": "notes.txt", "content": "by the model\n"}),
    )]));
    mock.push_turn(Turn::text("the notes are rewritten"));
    let mut pty = open(&s, &mock, &["--approval-mode", "yolo"], 100, 40);
    pty.send("rewrite the notes\r");
    pty.wait_text("the notes are rewritten", LIMIT);
    pty.wait_text("#1", LIMIT);
    pty.send("\x0f");
    pty.wait_text("write_file", LIMIT);
    pty.send("u");
    let preview = pty.wait_text("Undo call #1", LIMIT);
    assert!(preview.contains("notes.txt"), "{preview}");
    assert_eq!(s.read("notes.txt").as_deref(), Some("by the model\n"), "the preview changed the file");
    pty.send("y");
    pty.wait_text("undid call #1: 1 file restored", LIMIT);
    assert_eq!(s.read("notes.txt").as_deref(), Some("original\n"));

    pty.send("/rewind undo\r");
    pty.wait_text("Undo the last rewind", LIMIT);
    pty.send("y");
    pty.wait_text("undid the last rewind", LIMIT);
    assert_eq!(s.read("notes.txt").as_deref(), Some("by the model\n"));
    quit(pty);
}
