//! Unit tests of `sse.rs`.

use std::convert::Infallible;

use super::*;

fn parse_all(chunks: &[&[u8]]) -> Vec<SseEvent> {
    let mut parser = SseParser::default();
    let mut out = VecDeque::new();
    for chunk in chunks {
        parser.feed(chunk, &mut out);
    }
    out.into_iter().collect()
}

fn data(text: &str) -> SseEvent {
    SseEvent { event: None, data: text.to_owned() }
}

const SAMPLE: &str = ": keep-alive comment\r\n\
        data: {\"a\":\"héllo ✓ 🦀\"}\r\n\r\n\
        event: message\n\
        data: line one\n\
        data:line two\n\
        id: 7\n\
        retry: 100\n\n\
        data\n\n\
        event: ignored-without-data\n\n\
        data: cr only\r\r\
        data: [DONE]\n\n";

fn sample_events() -> Vec<SseEvent> {
    vec![
        data("{\"a\":\"héllo ✓ 🦀\"}"),
        SseEvent { event: Some("message".into()), data: "line one\nline two".into() },
        data(""),
        data("cr only"),
        data("[DONE]"),
    ]
}

#[test]
fn parses_fields_comments_and_line_endings() {
    assert_eq!(parse_all(&[SAMPLE.as_bytes()]), sample_events());
}

#[test]
fn parses_the_same_events_split_at_every_byte_boundary() {
    let bytes = SAMPLE.as_bytes();
    for cut in 0..=bytes.len() {
        let (a, b) = bytes.split_at(cut);
        assert_eq!(parse_all(&[a, b]), sample_events(), "split at byte {cut}");
    }
    for first in 0..bytes.len() {
        for second in first..=bytes.len() {
            let chunks = [&bytes[..first], &bytes[first..second], &bytes[second..]];
            assert_eq!(parse_all(&chunks), sample_events(), "split at {first} and {second}");
        }
    }
}

#[test]
fn parses_the_same_events_fed_one_byte_at_a_time() {
    let chunks: Vec<&[u8]> = SAMPLE.as_bytes().chunks(1).collect();
    assert_eq!(parse_all(&chunks), sample_events());
}

#[test]
fn discards_an_event_not_closed_by_a_blank_line() {
    assert_eq!(parse_all(&[b"data: complete\n\ndata: {\"cut\": tr"]), vec![data("complete")]);
    assert_eq!(parse_all(&[b"data: complete\n\ndata: whole line\n"]), vec![data("complete")]);
}

#[test]
fn malformed_json_is_reported_with_an_excerpt() {
    let err = data("{\"candidates\": [oops").json::<serde_json::Value>().err();
    match err {
        Some(ModelError::MalformedStream(message)) => assert!(message.contains("[oops"), "{message}"),
        other => panic!("expected a malformed stream, got {other:?}"),
    }
}

#[test]
fn excerpt_cuts_long_payloads_at_a_char_boundary() {
    let long = "é".repeat(500);
    let cut = excerpt(&long);
    assert_eq!(cut.chars().count(), EXCERPT_CHARS + 1);
    assert!(cut.ends_with('…'));
    assert_eq!(excerpt(" short "), "short");
}

#[test]
fn recognises_the_done_marker() {
    assert!(data("[DONE]").is_done());
    assert!(!data("{}").is_done());
}

fn body(chunks: Vec<&'static [u8]>) -> impl Stream<Item = Result<Bytes, Infallible>> + Unpin {
    futures_util::stream::iter(chunks.into_iter().map(|c| Ok(Bytes::from_static(c))))
}

#[tokio::test]
async fn stream_yields_events_then_none() {
    let mut stream = SseStream::new(body(vec![b"data: o", b"ne\n", b"\ndata: two\n\n"]), Duration::from_secs(5));
    assert_eq!(stream.next().await.ok().flatten(), Some(data("one")));
    assert_eq!(stream.next().await.ok().flatten(), Some(data("two")));
    assert_eq!(stream.next().await.ok().flatten(), None);
    assert_eq!(stream.next().await.ok().flatten(), None);
}

#[tokio::test]
async fn stream_times_out_when_the_body_goes_silent() {
    let silent = body(vec![b"data: first\n\n"]).chain(futures_util::stream::pending());
    let mut stream = SseStream::new(silent, Duration::from_millis(50));
    assert_eq!(stream.next().await.ok().flatten(), Some(data("first")));
    assert!(matches!(stream.next().await, Err(ModelError::IdleTimeout(d)) if d == Duration::from_millis(50)));
}

#[tokio::test]
async fn a_body_error_is_a_truncated_stream() {
    let failing = futures_util::stream::iter(vec![
        Ok(Bytes::from_static(b"data: first\n\n")),
        Err(std::io::Error::other("connection reset")),
    ]);
    let mut stream = SseStream::new(failing, Duration::from_secs(5));
    assert_eq!(stream.next().await.ok().flatten(), Some(data("first")));
    assert!(matches!(stream.next().await, Err(ModelError::Truncated)));
}
