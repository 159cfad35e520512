//! Images and PDFs reach the model (issue 27, item 5), through the real binary and the
//! scripted model on each wire: media read by `read_file` arrive in the wire's own format
//! with the file's bytes, a 20-megapixel PNG arrives scaled down under the caps, a corrupt
//! image and a decompression bomb become a text stand-in while the session goes on, and a
//! user's `@image.png` and `--image` arrive as image parts of the user message.
// Set-up helpers unwrap: a failed set-up step should fail the test loudly.
#![allow(clippy::unwrap_used)]

mod attach;

use airlock_tests::images::{self, SentMedia, sent_media};
use airlock_tests::{MockModel, Session, Turn, Wire, call, function_responses};
use serde_json::{Value, json};

use crate::session;

const WIRES: [Wire; 3] = [Wire::Gemini, Wire::OpenAi, Wire::Anthropic];

/// Writes a binary workspace file.
fn write_bytes(s: &Session, relative: &str, bytes: &[u8]) {
    std::fs::write(s.workspace.join(relative), bytes).unwrap();
}

/// Runs one prompt whose model reads `paths` with `read_file`, then answers; the request
/// that carried the results.
fn read_with(s: &Session, wire: Wire, paths: &[&str]) -> Value {
    let mock = MockModel::start(wire);
    let calls = paths.iter().map(|p| call("read_file", json!({ "file_path": p }))).collect();
    mock.push_turn(Turn::calls(calls));
    mock.push_turn(Turn::text("seen"));
    let done = s.airlock(&mock, &["-p", "look"]);
    assert_eq!(done.code, Some(0), "{wire:?}: {}", done.stderr);
    assert!(done.stdout.contains("seen"), "{wire:?}: the session did not go on: {}", done.stdout);
    mock.requests().into_iter().nth(1).unwrap_or_else(|| panic!("{wire:?}: no second request"))
}

/// Where each wire puts a tool's media, and the kind of part it uses for an image and a PDF.
fn expected(wire: Wire) -> (&'static str, &'static str, &'static str) {
    match wire {
        Wire::Gemini => ("user", "inlineData", "inlineData"),
        Wire::OpenAi => ("user", "image_url", "file"),
        Wire::Anthropic => ("tool_result", "image", "document"),
    }
}

#[test]
fn an_image_and_a_pdf_read_by_read_file_reach_each_wire_in_its_own_format() {
    let png = images::png(64, 48);
    let pdf = images::pdf();
    for wire in WIRES {
        let s = session();
        write_bytes(&s, "pic.png", &png);
        write_bytes(&s, "doc.pdf", &pdf);
        let request = read_with(&s, wire, &["pic.png", "doc.pdf"]);
        let sent = sent_media(&request);
        let (place, image_kind, pdf_kind) = expected(wire);
        assert_eq!(
            sent,
            [
                SentMedia { mime_type: "image/png".into(), data: png.clone(), place, kind: image_kind.into() },
                SentMedia { mime_type: "application/pdf".into(), data: pdf.clone(), place, kind: pdf_kind.into() },
            ],
            "{wire:?}"
        );
        // The results still answer their calls, naming what came with them.
        let responses = function_responses(&request);
        assert_eq!(responses.len(), 2, "{wire:?}: {responses:?}");
        assert!(responses[0].1.contains("image/png"), "{wire:?}: {responses:?}");
        if wire == Wire::OpenAi {
            // Chat completions: the images follow the tool messages in a user message.
            let messages = request["messages"].as_array().unwrap();
            let last = messages.last().unwrap();
            assert_eq!(last["role"], "user");
            assert_eq!(messages[messages.len() - 2]["role"], "tool");
        }
    }
}

#[test]
fn a_20_megapixel_png_arrives_scaled_down_under_the_caps() {
    let big = images::png(5000, 4000);
    assert!(big.len() < 10 << 20, "the fixture must fit read_file's media cap: {}", big.len());
    for wire in WIRES {
        let s = session();
        write_bytes(&s, "big.png", &big);
        let request = read_with(&s, wire, &["big.png"]);
        let sent = sent_media(&request);
        assert_eq!(sent.len(), 1, "{wire:?}: {sent:?}");
        assert_eq!(sent[0].mime_type, "image/jpeg", "{wire:?}: re-encoded");
        assert!(sent[0].data.len() <= 5 << 20, "{wire:?}: {} bytes", sent[0].data.len());
        let (width, height) = images::dimensions(&sent[0].data);
        assert!(u64::from(width) * u64::from(height) <= 1_150_000, "{wire:?}: {width}x{height}");
        assert!(width > 1000 && (width * 4).abs_diff(height * 5) <= 5, "{wire:?}: 5:4 kept, {width}x{height}");
    }
}

#[test]
fn a_corrupt_image_and_a_decompression_bomb_are_stood_in_and_the_session_goes_on() {
    for wire in WIRES {
        let s = session();
        write_bytes(&s, "broken.png", &images::corrupt_png());
        write_bytes(&s, "bomb.png", &images::bomb_png(100_000, 100_000));
        let request = read_with(&s, wire, &["broken.png", "bomb.png"]);
        assert_eq!(sent_media(&request), [], "{wire:?}: nothing undecodable is sent");
        let responses = function_responses(&request);
        assert!(responses[0].1.contains("could not be decoded"), "{wire:?}: {responses:?}");
        assert!(responses[1].1.contains("100000x100000") && responses[1].1.contains("more than airlock decodes"));
    }
}

#[test]
fn a_text_only_provider_gets_the_stand_in() {
    let s = session();
    let mock = MockModel::start(Wire::OpenAi);
    s.write_config("[providers.openai]\nmedia = []\n");
    write_bytes(&s, "pic.png", &images::png(32, 32));
    mock.push_turn(Turn::calls(vec![call("read_file", json!({ "file_path": "pic.png" }))]));
    mock.push_turn(Turn::text("seen"));
    let done = s.airlock(&mock, &["-p", "look"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let request = &mock.requests()[1];
    assert_eq!(sent_media(request), []);
    let responses = function_responses(request);
    assert!(responses[0].1.contains("set not to take images"), "{responses:?}");
}

#[test]
fn a_resumed_session_sends_its_media_again() {
    let s = session();
    let png = images::png(64, 48);
    write_bytes(&s, "pic.png", &png);
    read_with(&s, Wire::Anthropic, &["pic.png"]);
    let sessions = s.airlock_home().join("sessions");
    let file = std::fs::read_dir(&sessions)
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "jsonl") && !p.to_string_lossy().ends_with(".audit.jsonl"));
    let recorded = std::fs::read_to_string(file.unwrap()).unwrap();
    assert!(recorded.contains("\"media\":[{\"mime_type\":\"image/png\""), "recorded inline: {recorded:.400}");
    // The picture may go; the session keeps its copy.
    std::fs::remove_file(s.workspace.join("pic.png")).unwrap();
    let mock = MockModel::start(Wire::Anthropic);
    mock.push_turn(Turn::text("still seen"));
    let done = s.airlock(&mock, &["--resume", "latest", "-p", "again"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let sent = sent_media(&mock.requests()[0]);
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert_eq!((sent[0].data.as_slice(), sent[0].place), (&png[..], "tool_result"));
}
