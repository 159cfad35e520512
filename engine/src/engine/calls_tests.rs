//! Calls outside a model turn, in a session started without a model: real components,
//! real files, no model server at all.

use std::time::Duration;

use airlock_tests::fixtures;
use tokio::sync::mpsc::UnboundedReceiver;

use super::*;
use crate::capability::CallLimits;
use crate::events::CallStatus;
use crate::paths::Paths;
use crate::testing::{Setup, shared_cache};

const PATIENCE: Duration = Duration::from_secs(60);

async fn start(setup: &Setup, mode: ApprovalMode) -> (Session, UnboundedReceiver<Output>) {
    let paths = Paths::new(setup.home.path(), Some(&shared_cache())).unwrap();
    let tools = Tools::load(&paths, &setup.workspace, mode, None, None).await.unwrap();
    let settings = Settings {
        paths,
        workspace: setup.workspace.clone(),
        cwd: None,
        provider: None,
        max_turns: 10,
        loop_detection: true,
        limits: CallLimits::default(),
        resume: None,
        commands: airlock_sandbox::folders::Settings::default(),
        output_schema: None,
        media: crate::media::MediaLimits::default(),
        prompts: super::PromptSettings::default(),
        hooks: Default::default(),
        audit: false,
        checkpoints: Default::default(),
    };
    Session::start(settings, tools).unwrap()
}

async fn next(outputs: &mut UnboundedReceiver<Output>) -> Output {
    tokio::time::timeout(PATIENCE, outputs.recv()).await.expect("the engine went quiet").expect("the stream ended")
}

/// Outputs until a question, skipping events.
async fn question(outputs: &mut UnboundedReceiver<Output>) -> Box<Question> {
    loop {
        match next(outputs).await {
            Output::Question(question) => return question,
            Output::Event(_) => {}
            other => panic!("expected a question, got {other:?}"),
        }
    }
}

fn args(value: serde_json::Value) -> String {
    value.to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_without_a_model_runs_calls_and_records_no_session() {
    let setup = Setup::new(&[]);
    std::fs::write(setup.workspace.join("notes.txt"), "hello\n").unwrap();
    let (session, mut outputs) = start(&setup, ApprovalMode::Default).await;
    let Output::Event(Event::Init { provider, model, .. }) = next(&mut outputs).await else {
        panic!("the first output is not `init`");
    };
    assert_eq!((provider.as_str(), model.as_str()), (NO_MODEL, NO_MODEL));

    let call = session.call("read_file", args(serde_json::json!({"file_path": "notes.txt"})), Cancellation::default());
    let id = call.id().to_owned();
    let done = call.finish().await.unwrap();
    assert_eq!(done.status, CallStatus::Success, "{:?}", done.result);
    assert!(done.response().content.contains("hello"), "{}", done.response().content);
    // Its events carry its id.
    let mut statuses = Vec::new();
    while let Ok(Some(Output::Event(Event::ToolCall(update)))) =
        tokio::time::timeout(Duration::from_millis(200), outputs.recv()).await
    {
        assert_eq!(update.call_id, id);
        statuses.push(update.status);
    }
    assert_eq!(statuses.first(), Some(&CallStatus::Validating));
    assert_eq!(statuses.last(), Some(&CallStatus::Success));

    // An unknown tool is an error answer, as the model would get.
    let unknown = session.call("no_such_tool", "{}".into(), Cancellation::default()).finish().await.unwrap();
    assert!(unknown.response().is_error);

    // A turn fails clearly, and nothing was recorded.
    session.submit(Op::UserTurn { text: "hi".into(), attachments: Vec::new() });
    let report = loop {
        if let Output::TurnDone(report) = next(&mut outputs).await {
            break report;
        }
    };
    assert!(matches!(report.outcome, Outcome::ModelFailed(airlock_model::ModelError::NoModel)), "{:?}", report.outcome);
    let sessions = crate::session::dir(setup.home.path());
    let files: Vec<_> = std::fs::read_dir(&sessions).into_iter().flatten().flatten().map(|e| e.file_name()).collect();
    assert!(files.iter().all(|f| !f.to_string_lossy().ends_with(".jsonl")), "{files:?}");
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_edit_asks_under_its_call_id_and_runs_once_approved() {
    let setup = Setup::new(&[]);
    let (session, mut outputs) = start(&setup, ApprovalMode::Default).await;
    let write = serde_json::json!({"file_path": "out.txt", "content": "written\n"});
    let call = session.call("write_file", args(write.clone()), Cancellation::default());
    let id = call.id().to_owned();
    let running = tokio::spawn(call.finish());
    let asked = question(&mut outputs).await;
    assert_eq!(asked.request.call_id, id);
    assert!(!setup.workspace.join("out.txt").exists(), "written before it was approved");
    session.submit(Op::Approve { id: asked.id, answer: Answer::Once });
    let done = running.await.unwrap().unwrap();
    assert_eq!(done.status, CallStatus::Success, "{:?}", done.result);
    assert_eq!(std::fs::read_to_string(setup.workspace.join("out.txt")).unwrap(), "written\n");

    // A refusal is the call's error answer, and nothing is written.
    let call = session.call(
        "write_file",
        args(serde_json::json!({"file_path": "no.txt", "content": "x"})),
        Cancellation::default(),
    );
    let running = tokio::spawn(call.finish());
    let asked = question(&mut outputs).await;
    session.submit(Op::Approve { id: asked.id, answer: Answer::Refuse("not now".into()) });
    let done = running.await.unwrap().unwrap();
    assert!(done.response().is_error && done.response().content.contains("not now"), "{:?}", done.response());
    assert!(!setup.workspace.join("no.txt").exists());
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_run_at_once_and_a_cancelled_one_stops_alone() {
    let setup = Setup::new(&[fixtures::SPIN_FOREVER]);
    std::fs::write(setup.workspace.join("a.txt"), "a\n").unwrap();
    let (session, _outputs) = start(&setup, ApprovalMode::Yolo).await;
    let cancel = Cancellation::default();
    let spin = tokio::spawn(session.call("spin", "{}".into(), cancel.clone()).finish());
    // The spinning call does not hold up another one.
    let read = session.call("read_file", args(serde_json::json!({"file_path": "a.txt"})), Cancellation::default());
    let read = tokio::time::timeout(PATIENCE, read.finish()).await.unwrap().unwrap();
    assert_eq!(read.status, CallStatus::Success);
    assert!(!spin.is_finished());
    cancel.cancel();
    let spun = tokio::time::timeout(PATIENCE, spin).await.unwrap().unwrap().unwrap();
    assert_eq!(spun.status, CallStatus::Cancelled);
    session.shutdown().await;
}
