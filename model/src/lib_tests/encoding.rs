//! The bodies the wires write straight from the history are, byte for byte, the bodies the
//! `serde_json::Value` trees of [`super::reference`] gave, for a history meant to reach
//! every branch: text with control characters and unicode, calls with valid, malformed and
//! non-object arguments, signatures, made-up and odd ids, errors, empty content, empty and
//! consecutive messages of one role, a system prompt and tools of every shape. They stay so
//! when the encodings come from a [`History`]'s cache, across pushes and replacements.

use serde_json::{Value, json};

use super::reference;
use crate::client::request_body;
use crate::test_support::config;
use crate::{
    FunctionCall, FunctionResponse, History, Message, ModelRequest, Part, ProviderKind, Role, ToolDeclaration,
};

const AWKWARD: &str = "quote \" backslash \\ nul \u{0} bell \u{7} esc \u{1b} del \u{7f} tab \t cr \r lf \n \
                       é 漢字 🦀 line-sep \u{2028} bidi \u{202e} bom \u{feff} slash / </script>";

fn text(role: Role, text: &str) -> Message {
    Message { role, parts: vec![Part::Text { text: text.into() }] }
}

fn call(id: &str, arguments: &str, signature: Option<&str>) -> Part {
    Part::FunctionCall(FunctionCall {
        id: id.into(),
        name: "read_file".into(),
        arguments: arguments.into(),
        signature: signature.map(str::to_owned),
    })
}

fn response(id: &str, content: &str, is_error: bool) -> Part {
    Part::FunctionResponse(FunctionResponse {
        id: id.into(),
        name: "read_file".into(),
        content: content.into(),
        is_error,
        media: Vec::new(),
    })
}

fn varied_history() -> Vec<Message> {
    let arguments = r#"{"path":"a.txt","z":[1,2.5,-0.0,1e300,12345678901234567890],"é":{"b":null,"a":true},"s":"\u0001\ud83e\udd80"}"#;
    vec![
        text(Role::User, AWKWARD),
        Message { role: Role::Model, parts: vec![Part::Text { text: String::new() }] },
        Message {
            role: Role::Model,
            parts: vec![
                Part::Text { text: "first".into() },
                Part::Text { text: AWKWARD.into() },
                call("call:1/α", arguments, Some("sig\u{1}")),
                call("gemini-call-7", r#"{"path": "b.txt""#, None),
                call("call-3", "[1,2]", None),
                call("", "", Some("")),
            ],
        },
        Message { role: Role::Model, parts: vec![] },
        Message { role: Role::Model, parts: vec![call("call-4", "{}", None)] },
        Message {
            role: Role::User,
            parts: vec![
                Part::Text { text: "text before results".into() },
                response("call:1/α", AWKWARD, false),
                response("gemini-call-7", "no such file: b.txt", true),
            ],
        },
        Message { role: Role::User, parts: vec![response("call-3", "", false), response("", "", true)] },
        Message { role: Role::User, parts: vec![response("call-4", "ok", false), Part::Text { text: "more".into() }] },
        text(Role::Model, "done"),
        text(Role::User, ""),
        text(Role::User, "next prompt"),
    ]
}

fn varied_tools() -> Vec<ToolDeclaration> {
    vec![
        ToolDeclaration {
            name: "read_file".into(),
            description: AWKWARD.into(),
            parameters: json!({
                "$schema": "https://json-schema.org/draft/2020-12/schema",
                "type": "object",
                "properties": { "path": { "type": "string", "description": "é \u{1}" } },
                "required": ["path"],
            }),
        },
        ToolDeclaration { name: "no_params".into(), description: String::new(), parameters: Value::Null },
        ToolDeclaration { name: "list".into(), description: "d".into(), parameters: json!([1, 2]) },
    ]
}

/// What the `Value` tree of the old encoder serialised to.
fn reference_bytes(kind: ProviderKind, request: &ModelRequest<'_>) -> String {
    let config = config(kind, "http://127.0.0.1:1");
    let tree = match kind {
        ProviderKind::Openai => reference::openai(&config.model, request),
        ProviderKind::Gemini => reference::gemini(request),
        ProviderKind::Anthropic => reference::anthropic(&config.model, config.max_tokens, request),
    };
    // The tree's keys in sorted order, as the wires write them (and as a `Value` printed them
    // before `preserve_order`).
    let mut bytes = Vec::new();
    crate::json::value(&mut bytes, &tree);
    String::from_utf8(bytes).unwrap_or_default()
}

fn new_bytes(kind: ProviderKind, request: &ModelRequest<'_>) -> String {
    let body = request_body(&config(kind, "http://127.0.0.1:1"), request);
    match String::from_utf8(body) {
        Ok(body) => body,
        Err(error) => panic!("{kind:?} wrote a body that is not UTF-8: {error}"),
    }
}

#[test]
fn values_are_written_with_sorted_keys_whatever_order_their_maps_keep() {
    // serde_json's `preserve_order` (the ACP SDK turns it on) keeps insertion order in a
    // `Value`; a request body's bytes must not depend on it.
    let mut out = Vec::new();
    crate::json::value(&mut out, &json!({ "b": 1, "a": { "d": [ { "z": 1, "y": 2 } ], "c": "x" } }));
    assert_eq!(String::from_utf8(out).unwrap(), r#"{"a":{"c":"x","d":[{"y":2,"z":1}]},"b":1}"#);
}

#[test]
fn every_wire_writes_the_bytes_the_value_tree_wrote() {
    let history = varied_history();
    let tools = varied_tools();
    for kind in ProviderKind::ALL {
        for system in [Some(AWKWARD), Some(""), None] {
            for tools in [&tools[..], &[]] {
                for messages in [&history[..], &history[..1], &[]] {
                    let request = ModelRequest { system, messages, tools, cache: None, output_schema: None };
                    let expected = reference_bytes(kind, &request);
                    assert_eq!(new_bytes(kind, &request), expected, "{kind:?}, system {system:?}");
                }
            }
        }
    }
}

#[test]
fn cached_encodings_give_the_same_bytes_across_turns_and_replacements() {
    let tools = varied_tools();
    for kind in ProviderKind::ALL {
        let mut history = History::default();
        for message in varied_history() {
            history.push(message);
            // Twice: once making the new message's encoding, once taking it from the cache.
            for _ in 0..2 {
                let expected =
                    reference_bytes(kind, &ModelRequest { cache: None, ..history.request(Some("s"), &tools) });
                assert_eq!(new_bytes(kind, &history.request(Some("s"), &tools)), expected, "{kind:?}");
            }
        }
        let mut changed = varied_history();
        changed[0] = text(Role::User, "a changed first prompt");
        history.replace(changed.clone());
        let body = new_bytes(kind, &history.request(None, &tools));
        assert!(body.contains("a changed first prompt"), "{kind:?}: {body}");
        assert_eq!(
            body,
            reference_bytes(
                kind,
                &ModelRequest { system: None, messages: &changed, tools: &tools, cache: None, output_schema: None }
            )
        );
        history.compress(3, text(Role::User, "summary of the start"));
        let body = new_bytes(kind, &history.request(None, &tools));
        assert!(body.contains("summary of the start") && !body.contains("a changed first prompt"), "{kind:?}: {body}");
        assert_eq!(body, reference_bytes(kind, &ModelRequest { cache: None, ..history.request(None, &tools) }));
    }
}

#[test]
fn one_cache_serves_another_wire_after_a_switch() {
    let history = History::new(varied_history());
    let tools = varied_tools();
    for kind in [ProviderKind::Openai, ProviderKind::Gemini, ProviderKind::Openai, ProviderKind::Anthropic] {
        let expected = reference_bytes(kind, &ModelRequest { cache: None, ..history.request(Some("s"), &tools) });
        assert_eq!(new_bytes(kind, &history.request(Some("s"), &tools)), expected, "{kind:?}");
    }
}
