//! Unit tests of `session/mod.rs`.

use std::time::Instant;

use super::*;
use airlock_model::{FunctionCall, FunctionResponse, Part, Role, UsageKind};

fn text(role: Role, text: &str) -> Message {
    Message { role, parts: vec![Part::Text { text: text.into() }] }
}

fn call_pair(n: usize) -> [Message; 2] {
    let id = format!("call-{n}");
    [
        Message {
            role: Role::Model,
            parts: vec![Part::FunctionCall(FunctionCall {
                id: id.clone(),
                name: "read_file".into(),
                arguments: format!("{{\"file_path\":\"f{n}.txt\"}}"),
                signature: None,
            })],
        },
        Message {
            role: Role::User,
            parts: vec![Part::FunctionResponse(FunctionResponse {
                id,
                name: "read_file".into(),
                content: format!("content of f{n}"),
                is_error: false,
                media: Vec::new(),
            })],
        },
    ]
}

fn header(id: &str, workspace: &str) -> Header {
    Header::new(id.into(), Stamp::now().iso(), workspace.into(), "gemini".into(), "m".into())
}

#[test]
fn records_and_replays_a_conversation_with_tool_pairs() {
    let dir = tempfile::tempdir().unwrap();
    let mut recorder = Recorder::create(dir.path(), &header("aa11", "/w")).unwrap();
    let mut history = vec![text(Role::User, "read f1")];
    history.extend(call_pair(1));
    history.push(text(Role::Model, "done"));
    for (n, message) in history.iter().enumerate() {
        if message.role == Role::Model {
            recorder.turn_started();
            recorder.usage(UsageKind::Answer, Usage { input_tokens: 10 * n as u64, output_tokens: 1 }).unwrap();
        }
        recorder.message(message).unwrap();
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(recorder.path()).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
    }
    let resumed = replay(recorder.path()).unwrap();
    assert_eq!(resumed.header.id, "aa11");
    assert_eq!(resumed.header.workspace, "/w");
    assert_eq!(resumed.history, history);
    assert_eq!(resumed.turn, 2);
    assert_eq!(resumed.skipped, 0);
}

#[test]
fn replay_starts_at_the_last_compression_and_reads_nothing_before_it() {
    let dir = tempfile::tempdir().unwrap();
    let mut recorder = Recorder::create(dir.path(), &header("bb22", "/w")).unwrap();
    for n in 0..50 {
        for message in call_pair(n) {
            recorder.message(&message).unwrap();
        }
    }
    let mut compressed = vec![text(Role::User, "Summary of the earlier conversation: …")];
    compressed.extend(call_pair(49));
    recorder.compressed(100, &compressed).unwrap();
    let after = text(Role::User, "next prompt");
    recorder.message(&after).unwrap();
    let resumed = replay(recorder.path()).unwrap();
    compressed.push(after);
    assert_eq!(resumed.history, compressed);
    assert_eq!(resumed.lines_read, 2, "only the compression and what follows it");
}

#[test]
fn a_partial_last_line_is_skipped_and_the_next_record_starts_a_new_line() {
    let dir = tempfile::tempdir().unwrap();
    let mut recorder = Recorder::create(dir.path(), &header("cc33", "/w")).unwrap();
    recorder.message(&text(Role::User, "hello")).unwrap();
    let path = recorder.path().to_path_buf();
    drop(recorder);
    {
        use std::io::Write;
        let mut file = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
        file.write_all(b"{\"type\":\"message\",\"turn\":1,\"role\":\"mo").unwrap();
    }
    let resumed = replay(&path).unwrap();
    assert_eq!(resumed.history, [text(Role::User, "hello")]);
    assert_eq!(resumed.skipped, 1);
    let mut recorder = Recorder::append(&path, "cc33", resumed.turn, resumed.tokens).unwrap();
    recorder.message(&text(Role::User, "again")).unwrap();
    let resumed = replay(&path).unwrap();
    assert_eq!(resumed.history, [text(Role::User, "hello"), text(Role::User, "again")]);
    assert_eq!(resumed.skipped, 1);
}

#[test]
fn lists_newest_first_and_finds_by_id_prefix_or_latest_per_workspace() {
    let dir = tempfile::tempdir().unwrap();
    let mut first = Recorder::create(dir.path(), &header("1234aaaa", "/one")).unwrap();
    first.message(&text(Role::User, "first prompt\nwith two lines")).unwrap();
    first.turn_started();
    first.message(&text(Role::Model, "ok")).unwrap();
    std::thread::sleep(std::time::Duration::from_millis(20));
    let mut second = Recorder::create(dir.path(), &header("1234bbbb", "/two")).unwrap();
    second.message(&text(Role::User, "second prompt")).unwrap();
    std::fs::write(dir.path().join("notes.txt"), "not a session").unwrap();
    std::fs::write(dir.path().join("2025-01-01T00-00-00.000Z-bad.jsonl"), "garbage\n").unwrap();

    let listed = list(dir.path()).unwrap();
    let ids: Vec<&str> = listed.iter().map(|s| s.id.as_str()).collect();
    assert_eq!(ids, ["1234bbbb", "1234aaaa"]);
    assert_eq!(listed[1].first_prompt, "first prompt with two lines");
    assert_eq!(listed[1].turns, 1);
    assert_eq!(listed[0].turns, 0);

    assert_eq!(find(dir.path(), "latest", "/one").unwrap(), first.path());
    assert_eq!(find(dir.path(), "latest", "/two").unwrap(), second.path());
    assert!(matches!(find(dir.path(), "latest", "/three"), Err(SessionError::NoneForWorkspace { .. })));
    assert_eq!(find(dir.path(), "1234a", "/x").unwrap(), first.path());
    assert!(matches!(find(dir.path(), "1234", "/x"), Err(SessionError::Ambiguous { .. })));
    let unknown = find(dir.path(), "ffff", "/x").unwrap_err();
    assert!(unknown.to_string().contains("no session `ffff`"), "{unknown}");
    assert!(matches!(find(dir.path(), "", "/x"), Err(SessionError::UnknownId { .. })));
    assert!(list(&dir.path().join("missing")).unwrap().is_empty());
}

/// Resuming a 10,000-message session: the whole history when it was never compressed,
/// and only the tail after a compression. The numbers are in the README (Sessions).
#[test]
fn resuming_a_long_session_stays_fast() {
    let dir = tempfile::tempdir().unwrap();
    let mut recorder = Recorder::create(dir.path(), &header("dd44", "/w")).unwrap();
    let filler = "x".repeat(400);
    for n in 0..5_000 {
        let [call, mut response] = call_pair(n);
        if let Part::FunctionResponse(r) = &mut response.parts[0] {
            r.content.push_str(&filler);
        }
        recorder.turn_started();
        recorder.message(&call).unwrap();
        recorder.message(&response).unwrap();
    }
    let started = Instant::now();
    let whole = replay(recorder.path()).unwrap();
    let uncompressed = started.elapsed();
    assert_eq!(whole.history.len(), 10_000);
    assert_eq!(whole.turn, 5_000);

    let mut kept = vec![text(Role::User, "Summary of the earlier conversation: …")];
    kept.extend(call_pair(4_999));
    recorder.compressed(9_998, &kept).unwrap();
    let started = Instant::now();
    let tail = replay(recorder.path()).unwrap();
    let compressed = started.elapsed();
    assert_eq!(tail.history.len(), 3);
    assert_eq!(tail.lines_read, 1);
    assert!(uncompressed.as_secs_f64() < 5.0, "uncompressed resume took {uncompressed:?}");
    assert!(compressed.as_secs_f64() < 0.5, "compressed resume took {compressed:?}");
    tracing::info!(?uncompressed, ?compressed, "resume of 10k messages");
}

fn recorded_call(id: &str, exit_code: i32) -> RecordedCall {
    RecordedCall {
        id: id.into(),
        name: "run_shell_command".into(),
        status: crate::events::CallStatus::Success,
        description: Some("python3 x.py".into()),
        run_ms: Some(42),
        command: Some(crate::events::CommandRun {
            count: 1,
            exit_code: Some(exit_code),
            cpu_ms: 30,
            peak_memory_bytes: 9 << 20,
            ..Default::default()
        }),
        cost: Some(crate::events::CallCost { wall_ms: 900, peak_memory_bytes: 1 << 20, ..Default::default() }),
        shown: crate::events::Shown::new(None, "Traceback\n  boom"),
        checkpoint: None,
    }
}

#[test]
fn cards_and_token_totals_come_back_across_a_compression_and_a_second_resume() {
    let dir = tempfile::tempdir().unwrap();
    let mut recorder = Recorder::create(dir.path(), &header("cc33", "/w")).unwrap();
    recorder.turn_started();
    recorder.usage(UsageKind::Answer, Usage { input_tokens: 100, output_tokens: 10 }).unwrap();
    recorder.calls(&[recorded_call("old", 0)]).unwrap();
    for message in call_pair(1) {
        recorder.message(&message).unwrap();
    }
    recorder.compressed(2, &[text(Role::User, "Summary of the earlier conversation: …")]).unwrap();
    recorder.usage(UsageKind::Summary, Usage { input_tokens: 50, output_tokens: 5 }).unwrap();
    recorder.turn_started();
    recorder.usage(UsageKind::Answer, Usage { input_tokens: 200, output_tokens: 20 }).unwrap();
    recorder.calls(&[recorded_call("new", 3)]).unwrap();
    for message in call_pair(2) {
        recorder.message(&message).unwrap();
    }
    let resumed = replay(recorder.path()).unwrap();
    // The cards since the compression's base; the tokens of the whole session.
    assert_eq!(resumed.calls, [recorded_call("new", 3)]);
    assert_eq!(resumed.tokens, Tokens { input: 350, output: 35, last_answer: Some((200, 20)) });
    // A resumed run goes on counting from there.
    let mut again = Recorder::append(recorder.path(), "cc33", resumed.turn, resumed.tokens).unwrap();
    again.turn_started();
    again.usage(UsageKind::Answer, Usage { input_tokens: 1, output_tokens: 2 }).unwrap();
    let resumed = replay(recorder.path()).unwrap();
    assert_eq!(resumed.tokens, Tokens { input: 351, output: 37, last_answer: Some((1, 2)) });
}

#[test]
fn a_session_written_before_cards_and_totals_were_recorded_still_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("2025-01-01T00-00-00-000Z-dd44.jsonl");
    // Lines as the earlier version wrote them: usage without running totals, no `calls`.
    let lines = [
        r#"{"type":"session","version":1,"id":"dd44","started":"2025-01-01T00:00:00.000Z","workspace":"/w","provider":"gemini","model":"m"}"#,
        r#"{"type":"message","turn":0,"role":"user","parts":[{"type":"text","text":"run it"}]}"#,
        r#"{"type":"usage","turn":1,"kind":"answer","input_tokens":120,"output_tokens":9}"#,
        r#"{"type":"message","turn":1,"role":"model","parts":[{"type":"function_call","id":"c1","name":"run_shell_command","arguments":"{\"command\":\"false\"}"}]}"#,
        r#"{"type":"message","turn":1,"role":"user","parts":[{"type":"function_response","id":"c1","name":"run_shell_command","content":"Exit Code: 1","is_error":false}]}"#,
        r#"{"type":"usage","turn":2,"kind":"answer","input_tokens":150,"output_tokens":4}"#,
        r#"{"type":"some_later_kind","turn":2,"whatever":true}"#,
    ];
    std::fs::write(&path, lines.join("\n") + "\n").unwrap();
    let resumed = replay(&path).unwrap();
    assert_eq!(resumed.history.len(), 3, "{:?}", resumed.history);
    assert!(resumed.calls.is_empty());
    assert_eq!(resumed.tokens, Tokens { input: 270, output: 13, last_answer: Some((150, 4)) });
    assert_eq!(resumed.skipped, 0);
    // Continued by this version, the totals start from the old lines' sum.
    let mut recorder = Recorder::append(&path, "dd44", resumed.turn, resumed.tokens).unwrap();
    recorder.usage(UsageKind::Answer, Usage { input_tokens: 30, output_tokens: 1 }).unwrap();
    recorder.calls(&[recorded_call("c2", 1)]).unwrap();
    let resumed = replay(&path).unwrap();
    assert_eq!(resumed.tokens, Tokens { input: 300, output: 14, last_answer: Some((30, 1)) });
    assert_eq!(resumed.calls, [recorded_call("c2", 1)]);
}

#[test]
fn a_calls_line_with_fields_missing_or_unknown_still_reads() {
    let dir = tempfile::tempdir().unwrap();
    let mut recorder = Recorder::create(dir.path(), &header("ee55", "/w")).unwrap();
    recorder.message(&text(Role::User, "hi")).unwrap();
    drop(recorder);
    let path = std::fs::read_dir(dir.path()).unwrap().next().unwrap().unwrap().path();
    let mut file = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
    use std::io::Write as _;
    writeln!(file, r#"{{"type":"calls","turn":0,"calls":[{{"id":"x","status":"error","future_field":1}}]}}"#).unwrap();
    let resumed = replay(&path).unwrap();
    assert_eq!(resumed.calls.len(), 1);
    assert_eq!(resumed.calls[0].status, crate::events::CallStatus::Error);
    assert_eq!(resumed.calls[0].shown, crate::events::Shown::default());
}

fn prompt_line(prompt: u32, history: usize) -> PromptLine {
    PromptLine { prompt, at: "2026-11-28T12:00:00Z".into(), text: format!("prompt {prompt}"), history }
}

#[test]
fn a_resumed_session_counts_its_prompts_from_the_latest_prompt_record() {
    let dir = tempfile::tempdir().unwrap();
    let mut recorder = Recorder::create(dir.path(), &header("dd44", "/w")).unwrap();
    assert_eq!(replay(recorder.path()).unwrap().prompts, 0);
    for n in 1..=3 {
        recorder.prompt(&prompt_line(n, (n as usize - 1) * 2)).unwrap();
        recorder.message(&text(Role::User, "do it")).unwrap();
        recorder.message(&text(Role::Model, "done")).unwrap();
    }
    assert_eq!(replay(recorder.path()).unwrap().prompts, 3);
    // A compression after prompt 3's record (within the prompt): the count is still read,
    // and the history still starts at the compression.
    let compressed = vec![text(Role::User, "Summary of the earlier conversation: …")];
    recorder.compressed(7, &compressed).unwrap();
    recorder.message(&text(Role::Model, "more")).unwrap();
    let resumed = replay(recorder.path()).unwrap();
    assert_eq!(resumed.prompts, 3);
    assert_eq!(resumed.history.len(), 2);
    let line = std::fs::read_to_string(recorder.path()).unwrap();
    assert!(line.contains(r#"{"type":"prompt","turn":0,"prompt":1,"#), "{line}");
}
