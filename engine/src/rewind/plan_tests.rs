use std::io::Write as _;
use std::path::Path;

use super::*;

const HEADER: &str = r#"{"type":"session","version":1,"id":"s1","started":"2026-11-28T12:00:00.000Z","workspace":"/w","provider":"p","model":"m"}"#;

fn prompt(n: u32, history: usize) -> String {
    format!(
        r#"{{"type":"prompt","turn":0,"prompt":{n},"at":"2026-11-28T12:0{n}:00.000Z","text":"prompt {n}","history":{history}}}"#
    )
}

fn message(role: &str, text: &str) -> String {
    format!(r#"{{"type":"message","turn":0,"role":"{role}","parts":[{{"type":"text","text":"{text}"}}]}}"#)
}

#[test]
fn the_messages_dropped_count_what_the_conversation_gained_since_the_prompt_even_after_a_compression() {
    let mut file = tempfile::NamedTempFile::new().unwrap();
    let summary =
        r#"{"type":"compressed","turn":0,"history":[{"role":"user","parts":[{"type":"text","text":"summary"}]}]}"#;
    let lines = [
        HEADER.to_owned(),
        prompt(1, 0),
        message("user", "one"),
        message("model", "answer one"),
        prompt(2, 2),
        message("user", "two"),
        message("model", "answer two"),
        message("user", "more"),
        message("model", "answer more"),
        summary.to_owned(),
    ];
    for line in lines {
        writeln!(file, "{line}").unwrap();
    }
    let context = Context { store: None, session: file.path(), session_id: "s1", workspace: Path::new("/w") };
    let planned = plan(&context, &RewindTarget::Prompt { prompt: 2 }, RestoreWhat::Conversation).unwrap();
    assert_eq!(planned.history.as_ref().map(Vec::len), Some(2));
    // The history now holds one message (the summary); four were added since prompt 2.
    assert_eq!(planned.plan.messages_dropped, 4);
}
