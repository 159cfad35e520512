//! The rewind orders of a running session, as a TUI sends them: the turns, a preview, the
//! rewind itself, what the model is sent next, and the undo — real files, the real store, the
//! mock model on 127.0.0.1.

use std::time::Duration;

use airlock_tests::mock_model::{MockModel, Turn, Wire, call};
use serde_json::json;
use tokio::sync::mpsc::UnboundedReceiver;

use super::super::{ApprovalMode, Event, Op, Output, PromptSettings, Session, Settings, Tools};
use crate::capability::CallLimits;
use crate::paths::Paths;
use crate::testing::{Setup, shared_cache};
use airlock_model::ProviderKind;
use airlock_model::test_support::config;
use airlock_protocol::{FileChangeKind, RestoreWhat, RewindTarget};

const PATIENCE: Duration = Duration::from_secs(60);

async fn start(setup: &Setup, mock: &MockModel) -> (Session, UnboundedReceiver<Output>) {
    let paths = Paths::new(setup.home.path(), Some(&shared_cache())).unwrap();
    let tools = Tools::load(&paths, &setup.workspace, ApprovalMode::Yolo, None, None).await.unwrap();
    let settings = Settings {
        paths,
        workspace: setup.workspace.clone(),
        cwd: None,
        provider: Some(config(ProviderKind::Gemini, &mock.base_url())),
        max_turns: 10,
        loop_detection: true,
        limits: CallLimits::default(),
        resume: None,
        commands: airlock_sandbox::folders::Settings::default(),
        output_schema: None,
        media: crate::media::MediaLimits::default(),
        prompts: PromptSettings::default(),
        hooks: Default::default(),
        audit: true,
        checkpoints: Default::default(),
    };
    Session::start(settings, tools).unwrap()
}

/// The first event `pick` takes, skipping the rest; panics when the stream goes quiet.
async fn until<T>(outputs: &mut UnboundedReceiver<Output>, pick: impl Fn(Event) -> Option<T>) -> T {
    loop {
        let output = tokio::time::timeout(PATIENCE, outputs.recv()).await.expect("quiet").expect("ended");
        if let Output::Event(event) = output {
            if let Event::Warning { message } = &event {
                assert!(!message.starts_with("cannot rewind"), "{message}");
            }
            if let Some(found) = pick(event) {
                return found;
            }
        }
    }
}

async fn prompt(session: &Session, outputs: &mut UnboundedReceiver<Output>, text: &str) {
    session.submit(Op::UserTurn { text: text.into(), attachments: Vec::new() });
    loop {
        match tokio::time::timeout(PATIENCE, outputs.recv()).await.expect("quiet").expect("ended") {
            Output::TurnDone(_) => return,
            Output::Question(question) => panic!("yolo asked: {question:?}"),
            _ => {}
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_running_session_lists_previews_rewinds_and_undoes() {
    let setup = Setup::new(&[]);
    std::fs::write(setup.workspace.join("a.txt"), "alpha\n").unwrap();
    let mock = MockModel::start(Wire::Gemini);
    let (session, mut outputs) = start(&setup, &mock).await;
    mock.push_turn(Turn::calls(vec![call("write_file", json!({"file_path": "a.txt", "content": "ALPHA\n"}))]));
    mock.push_turn(Turn::text("one done"));
    prompt(&session, &mut outputs, "prompt one").await;
    mock.push_turn(Turn::calls(vec![call("write_file", json!({"file_path": "b.txt", "content": "beta\n"}))]));
    mock.push_turn(Turn::text("two done"));
    prompt(&session, &mut outputs, "prompt two\nmore lines").await;

    session.submit(Op::RewindTurns);
    let turns = until(&mut outputs, |e| if let Event::RewindTurns(t) = e { Some(t) } else { None }).await;
    let listed: Vec<(u32, &str, usize)> = turns.iter().map(|t| (t.prompt, t.text.as_str(), t.files.len())).collect();
    assert_eq!(listed, [(1, "prompt one", 1), (2, "prompt two", 1)]);
    assert_eq!(turns[1].files[0].change, FileChangeKind::Created);

    let target = RewindTarget::Prompt { prompt: 2 };
    session.submit(Op::Rewind {
        target: target.clone(),
        what: RestoreWhat::Both,
        apply: false,
        overwrite_changed: false,
    });
    let plan = until(&mut outputs, |e| if let Event::RewindPlan(p) = e { Some(p) } else { None }).await;
    assert_eq!(plan.files.len(), 1);
    assert_eq!((plan.files[0].path.as_str(), plan.files[0].change), ("b.txt", FileChangeKind::Deleted));
    assert_eq!(plan.prompt.as_deref(), Some("prompt two\nmore lines"));
    assert!(plan.messages_dropped >= 4, "{plan:?}");
    // A preview writes nothing.
    assert!(setup.workspace.join("b.txt").exists());

    session.submit(Op::Rewind { target, what: RestoreWhat::Both, apply: true, overwrite_changed: false });
    let done = until(&mut outputs, |e| if let Event::Rewound(d) = e { Some(d) } else { None }).await;
    assert_eq!(done.restored, 1);
    assert!(done.undo.is_some());
    assert!(!setup.workspace.join("b.txt").exists());
    assert_eq!(std::fs::read_to_string(setup.workspace.join("a.txt")).unwrap(), "ALPHA\n");

    // The next prompt is number 2 again, and the model no longer sees the dropped one.
    mock.push_turn(Turn::text("again"));
    prompt(&session, &mut outputs, "prompt two again").await;
    let sent = mock.last_request().unwrap().to_string();
    assert!(sent.contains("prompt one") && !sent.contains("more lines"), "{sent}");
    session.submit(Op::RewindTurns);
    let turns = until(&mut outputs, |e| if let Event::RewindTurns(t) = e { Some(t) } else { None }).await;
    assert_eq!(turns.iter().map(|t| t.prompt).collect::<Vec<_>>(), [1, 2]);
    assert_eq!(turns[1].text, "prompt two again");

    session.submit(Op::Rewind {
        target: RewindTarget::Undo,
        what: RestoreWhat::Both,
        apply: true,
        overwrite_changed: false,
    });
    let undone = until(&mut outputs, |e| if let Event::Rewound(d) = e { Some(d) } else { None }).await;
    assert_eq!(undone.restored, 1);
    assert_eq!(std::fs::read_to_string(setup.workspace.join("b.txt")).unwrap(), "beta\n");

    // Nothing to rewind to: a warning that says why.
    session.submit(Op::Rewind {
        target: RewindTarget::Prompt { prompt: 9 },
        what: RestoreWhat::Code,
        apply: true,
        overwrite_changed: false,
    });
    let warning = loop {
        match tokio::time::timeout(PATIENCE, outputs.recv()).await.expect("quiet").expect("ended") {
            Output::Event(Event::Warning { message }) if message.starts_with("cannot rewind") => break message,
            _ => {}
        }
    };
    assert!(warning.contains("no prompt 9"), "{warning}");
    session.shutdown().await;
}

/// The rewind's warning, skipping other events.
async fn cannot_rewind(outputs: &mut UnboundedReceiver<Output>) -> String {
    loop {
        match tokio::time::timeout(PATIENCE, outputs.recv()).await.expect("quiet").expect("ended") {
            Output::Event(Event::Warning { message }) if message.starts_with("cannot rewind") => return message,
            _ => {}
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restore_that_stops_partway_is_recorded_and_undone() {
    let setup = Setup::new(&[]);
    std::fs::write(setup.workspace.join("a.txt"), "alpha\n").unwrap();
    std::fs::create_dir(setup.workspace.join("sub")).unwrap();
    // Over 1 MiB: a preview counts no lines in it, so only the restore reads its content.
    let big = vec![b'x'; 1_100_000];
    std::fs::write(setup.workspace.join("sub/x.txt"), &big).unwrap();
    let mock = MockModel::start(Wire::Gemini);
    let (session, mut outputs) = start(&setup, &mock).await;
    mock.push_turn(Turn::calls(vec![call("write_file", json!({"file_path": "a.txt", "content": "ALPHA\n"}))]));
    mock.push_turn(Turn::calls(vec![call("write_file", json!({"file_path": "sub/x.txt", "content": "X\n"}))]));
    mock.push_turn(Turn::text("done"));
    prompt(&session, &mut outputs, "prompt one").await;
    // The store loses the content `sub/x.txt` goes back to: its restore fails, after
    // `a.txt` (which sorts first) may already be back.
    let hash = blake3::hash(&big).to_hex().to_string();
    let store = airlock_checkpoint::store_dir(setup.home.path(), &setup.workspace);
    std::fs::remove_file(store.join("objects").join(&hash[..2]).join(&hash[2..])).unwrap();

    let target = RewindTarget::Prompt { prompt: 1 };
    session.submit(Op::Rewind {
        target: target.clone(),
        what: RestoreWhat::Both,
        apply: false,
        overwrite_changed: false,
    });
    let plan = until(&mut outputs, |e| if let Event::RewindPlan(p) = e { Some(p) } else { None }).await;
    assert_eq!(plan.files.len(), 2, "{plan:?}");
    session.submit(Op::Rewind { target, what: RestoreWhat::Both, apply: true, overwrite_changed: false });
    let warning = cannot_rewind(&mut outputs).await;
    assert!(warning.contains("stopped at") && warning.contains("/rewind undo"), "{warning}");
    let file = std::fs::read_dir(setup.home.path().join("sessions"))
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.to_string_lossy().ends_with(".jsonl") && !p.to_string_lossy().ends_with(".audit.jsonl"))
        .unwrap();
    let text = std::fs::read_to_string(file).unwrap();
    let rewound: serde_json::Value = text
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .find(|r: &serde_json::Value| r["type"] == "rewound")
        .unwrap();
    // The conversation stays: only the code part was (partly) done.
    assert_eq!(rewound["what"], "code", "{rewound}");
    assert!(rewound["failed_at"].as_str().is_some_and(|at| at.contains("missing")), "{rewound}");
    assert!(rewound.get("history").is_none(), "{rewound}");

    session.submit(Op::Rewind {
        target: RewindTarget::Undo,
        what: RestoreWhat::Both,
        apply: true,
        overwrite_changed: false,
    });
    until(&mut outputs, |e| if let Event::Rewound(d) = e { Some(d) } else { None }).await;
    assert_eq!(std::fs::read_to_string(setup.workspace.join("a.txt")).unwrap(), "ALPHA\n");
    session.shutdown().await;
}
