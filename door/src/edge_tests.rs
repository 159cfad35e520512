//! Unit tests of `edge.rs`: the protocol prints what the engine's events always printed,
//! and what a question shows is made safe.

use super::*;
use airlock_engine::contract::{Confirmation, Display, ErrorKind, Risk, ToolError};
use airlock_engine::policy::{AlwaysScope, ApprovalRequest, GrantRequest};

/// A hostile string: screen clear, OSC 52 clipboard write, bell, carriage return, a forged
/// line, a bidi override and isolate, an 8-bit CSI.
const HOSTILE: &str = "ok\u{1b}[2J\u{1b}]52;c;ZXZpbA==\u{7}\rfake\n  y   Allow once\u{202e}x\u{2066}\u{9b}31m";

fn assert_safe(what: &str, text: &str, allowed: &[char]) {
    for c in text.chars() {
        assert!(!airlock_engine::sanitize::is_hidden(c) || allowed.contains(&c), "{what}: raw {c:?} in {text:?}");
    }
}

/// Every kind of event, each field set.
fn events() -> Vec<Event> {
    let mut update = CallUpdate::new("c1", "run_shell_command", events::CallStatus::Success);
    update.args = Some(serde_json::json!({"command": "ls"}));
    update.description = Some("ls".into());
    update.confirmation = Some(Confirmation::Exec {
        command: "ls".into(),
        root_command: "ls".into(),
        directory: ".".into(),
        risk: Risk::Low,
    });
    update.output = Some("a\nb".into());
    update.display = Some(Display::Markdown { text: "**ok**".into() });
    update.error = Some(ToolError::new(ErrorKind::NotFound, "gone"));
    update.duration = Some(std::time::Duration::from_micros(1500));
    update.run = Some(std::time::Duration::from_micros(700));
    update.cost = Some(events::CallCost {
        wall_ms: 2,
        peak_memory_bytes: 65536,
        bytes_read: 3,
        bytes_written: 4,
        network_requests: 5,
    });
    update.command = Some(events::CommandRun { count: 1, exit_code: Some(3), cpu_ms: 9, ..Default::default() });
    update.shown = Some(events::Shown::new(Some(HOSTILE), HOSTILE));
    let mut diff = CallUpdate::new("c2", "write_file", events::CallStatus::Executing);
    diff.display = Some(Display::Diff { path: "a".into(), original: "x".into(), proposed: "y".into() });
    diff.confirmation =
        Some(Confirmation::Edit { path: "a".into(), original: "x".into(), proposed: "y".into(), is_new_file: false });
    let mut info = CallUpdate::new("c3", "web_fetch", events::CallStatus::AwaitingApproval);
    info.confirmation = Some(Confirmation::Info { prompt: "p".into(), urls: vec!["https://x".into()] });
    vec![
        Event::Init {
            session_id: "s".into(),
            provider: "openai".into(),
            model: "m".into(),
            workspace: "/w".into(),
            tools: vec!["read_file".into()],
        },
        Event::PluginProblem(airlock_engine::registry::LoadProblem { path: "p.wasm".into(), reason: "bad".into() }),
        Event::TurnStarted { turn: 2 },
        Event::Text { delta: HOSTILE.into() },
        Event::Thought { delta: "hm".into() },
        Event::ToolCall(Box::new(update)),
        Event::ToolCall(Box::new(diff)),
        Event::ToolCall(Box::new(info)),
        Event::ToolOutput { call_id: "c1".into(), chunk: "out".into() },
        Event::Usage { turn: 1, kind: UsageKind::Summary, usage: Usage { input_tokens: 10, output_tokens: 2 } },
        Event::Warning { message: "w".into() },
        Event::Notice { message: "n".into() },
        Event::Todos { todos: vec![events::Todo { description: "t".into(), status: events::TodoStatus::InProgress }] },
    ]
}

#[test]
fn every_event_prints_as_the_engine_event_printed() {
    for engine_event in events() {
        let mut converted = event(&engine_event);
        if let wire::Event::ToolCall(call) = &mut converted {
            // The card's text is for front ends that draw; the engine's JSON never had it.
            call.shown = None;
        }
        let engine_json = serde_json::to_value(&engine_event).unwrap();
        assert_eq!(serde_json::to_value(&converted).unwrap(), engine_json);
        // And a program reads the line back to the same value.
        let back: wire::Event = serde_json::from_value(engine_json).unwrap();
        assert_eq!(back, converted);
    }
}

#[test]
fn a_cards_text_is_made_safe() {
    let Event::ToolCall(update) = &events()[5] else { panic!("not a call") };
    let wire::Event::ToolCall(call) = event(&Event::ToolCall(update.clone())) else { panic!("not a call") };
    let shown = call.shown.unwrap();
    assert_safe("summary", shown.summary.as_deref().unwrap(), &['\n']);
    assert!(!shown.tail.is_empty());
    for line in &shown.tail {
        assert_safe("tail", line, &[]);
    }
}

fn approval(confirmation: Confirmation) -> engine::Question {
    let mut sandbox = airlock_engine::capability::Held::default();
    sandbox
        .folders
        .push(airlock_engine::capability::HeldFolder { path: format!("/w/{HOSTILE}").into(), writable: true });
    sandbox.network.push(HOSTILE.into());
    sandbox.env.push(HOSTILE.into());
    sandbox.commands = Some(HOSTILE.into());
    engine::Question {
        id: 7,
        request: ApprovalRequest {
            call_id: "c1".into(),
            tool: HOSTILE.into(),
            description: HOSTILE.into(),
            confirmation,
            path: None,
            writable: Vec::new(),
            bound: false,
            sandbox,
            line: None,
        },
        scope: AlwaysScope::File(HOSTILE.into()),
        editable: true,
    }
}

#[test]
fn every_text_of_an_approval_question_is_made_safe() {
    let confirmations = [
        Confirmation::Edit {
            path: HOSTILE.into(),
            original: HOSTILE.into(),
            proposed: HOSTILE.into(),
            is_new_file: false,
        },
        Confirmation::Exec {
            command: HOSTILE.into(),
            root_command: HOSTILE.into(),
            directory: HOSTILE.into(),
            risk: Risk::High,
        },
        Confirmation::Info { prompt: HOSTILE.into(), urls: vec![HOSTILE.into()] },
    ];
    for confirmation in confirmations {
        let shown = question(&approval(confirmation));
        assert_eq!((shown.id, shown.call_id.as_str(), shown.always, shown.editable), (7, "c1", true, true));
        // Every string of the JSON is a shown text (the ids excepted): none holds a raw
        // control character, and only multi-line texts hold a newline.
        let json = serde_json::to_value(&shown).unwrap();
        fn strings(value: &serde_json::Value, out: &mut Vec<String>) {
            match value {
                serde_json::Value::String(s) => out.push(s.clone()),
                serde_json::Value::Array(items) => items.iter().for_each(|v| strings(v, out)),
                serde_json::Value::Object(map) => map.values().for_each(|v| strings(v, out)),
                _ => {}
            }
        }
        let mut all = Vec::new();
        strings(&json, &mut all);
        assert!(all.len() >= 9, "{json:#}");
        for text in &all {
            assert_safe("question", text, &['\n']);
        }
        assert!(shown.tool.contains("\\u{202e}") && shown.scope.contains("\\x1b[2J"), "{shown:?}");
    }
}

#[test]
fn every_text_of_a_grant_question_is_made_safe() {
    let request = GrantRequest {
        call_id: "c1".into(),
        tool: HOSTILE.into(),
        plugin: HOSTILE.into(),
        missing: vec![HOSTILE.into()],
        policy_file: HOSTILE.into(),
        reason: Some(HOSTILE.into()),
    };
    let shown = grant_question(&GrantQuestion { id: 3, request });
    let texts = [&shown.plugin, &shown.tool, &shown.missing[0], &shown.policy_file, shown.reason.as_ref().unwrap()];
    for text in texts {
        assert_safe("grant", text, &[]);
        assert!(text.contains("\\u{202e}x\\u{2066}\\u{9b}31m"), "{text}");
    }
}

#[test]
fn orders_read_from_json_become_the_engines_ops() {
    let cases = [
        (r#"{"type":"user_turn","text":"hi"}"#, Op::UserTurn { text: "hi".into(), attachments: Vec::new() }),
        (r#"{"type":"interrupt"}"#, Op::Interrupt),
        (
            r#"{"type":"approve","id":4,"answer":{"choice":"once"}}"#,
            Op::Approve { id: 4, answer: engine::Answer::Once },
        ),
        (
            r#"{"type":"approve","id":4,"answer":{"choice":"refuse","message":"no"}}"#,
            Op::Approve { id: 4, answer: engine::Answer::Refuse("no".into()) },
        ),
        (r#"{"type":"set_mode","mode":"auto-edit"}"#, Op::SetMode(ApprovalMode::AutoEdit)),
        (r#"{"type":"grant","id":5,"answer":"this_call"}"#, Op::Grant { id: 5, answer: engine::GrantAnswer::ThisCall }),
        (r#"{"type":"resume","session":"latest"}"#, Op::Resume { session: "latest".into() }),
        (r#"{"type":"shutdown"}"#, Op::Shutdown),
    ];
    for (json, op) in cases {
        let read: wire::Order = serde_json::from_str(json).unwrap();
        assert_eq!(order(read), op, "{json}");
    }
    // An order the protocol does not have is an error, never a guess.
    assert!(serde_json::from_str::<wire::Order>(r#"{"type":"grant_everything"}"#).is_err());
}

#[test]
fn every_order_of_the_protocol_reaches_the_engine_as_its_own() {
    let cases = [
        (
            wire::Order::UserTurn { text: "hi".into(), attachments: Vec::new() },
            Op::UserTurn { text: "hi".into(), attachments: Vec::new() },
        ),
        (wire::Order::Interrupt, Op::Interrupt),
        (
            wire::Order::Approve { id: 3, answer: wire::Answer::Refuse { message: "no".into() } },
            Op::Approve { id: 3, answer: engine::Answer::Refuse("no".into()) },
        ),
        (wire::Order::SetMode { mode: wire::ApprovalMode::AutoEdit }, Op::SetMode(ApprovalMode::AutoEdit)),
        (
            wire::Order::Grant { id: 4, answer: wire::GrantAnswer::ThisCall },
            Op::Grant { id: 4, answer: engine::GrantAnswer::ThisCall },
        ),
        (wire::Order::AddDir { folder: "/x:read".into() }, Op::AddDir { folder: "/x:read".into() }),
        (wire::Order::Shutdown, Op::Shutdown),
    ];
    for (order, op) in cases {
        assert_eq!(super::order(order), op);
    }
}

#[test]
fn an_approval_mode_goes_to_the_engine_and_back_unchanged() {
    for mode in wire::ApprovalMode::ALL {
        assert_eq!(wire_mode(approval_mode(mode)), mode);
        assert_eq!(wire::ApprovalMode::named(mode.as_str()), Some(mode));
    }
    assert_eq!(wire::ApprovalMode::named("YOLO"), Some(wire::ApprovalMode::Yolo));
    assert_eq!(wire::ApprovalMode::named("everything"), None);
}

#[test]
fn a_user_turns_attachments_are_decoded_and_bad_base64_is_named_in_the_prompt() {
    let json = r#"{"type":"user_turn","text":"see","attachments":[
        {"mime_type":"image/png","data":"UE5H","name":"a.png"},
        {"mime_type":"application/pdf","data":"not base64!"}]}"#;
    let read: wire::Order = serde_json::from_str(json).unwrap();
    let Op::UserTurn { text, attachments } = order(read) else { panic!("not a user turn") };
    assert_eq!(attachments, [airlock_model::Media::new("image/png", Some("a.png".into()), &b"PNG"[..])]);
    assert_eq!(
        text, "see\n[application/pdf, 0 bytes, not shown to the model: its data was not valid base64]",
        "the turn still runs, and the model is told"
    );
}
