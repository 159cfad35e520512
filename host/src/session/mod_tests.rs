//! Unit tests of `session/mod.rs`.

use std::time::Instant;

use super::*;
use crate::model::{FunctionCall, FunctionResponse, Part, Role, UsageKind};

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
    let mut recorder = Recorder::append(&path, "cc33", resumed.turn).unwrap();
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
