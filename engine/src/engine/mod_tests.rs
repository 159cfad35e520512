//! A session driven purely through orders and outputs, as a TUI or an MCP server would
//! drive it: real components, real files, the mock model on 127.0.0.1, no terminal.

use std::path::Path;
use std::time::Duration;

use airlock_tests::fixtures;
use airlock_tests::mock_model::{MockModel, Turn, Wire, call, function_responses};
use serde_json::json;
use tokio::sync::mpsc::UnboundedReceiver;

use super::*;
use crate::agent::Outcome;
use crate::capability::CallLimits;
use crate::contract::Confirmation;
use crate::events::CallStatus;
use crate::paths::Paths;
use crate::policy::AlwaysScope;
use crate::testing::{Setup, shared_cache};
use airlock_model::ProviderKind;
use airlock_model::test_support::config;

/// Long enough for a loaded machine, short enough that a hang fails the test instead of
/// the suite.
const PATIENCE: Duration = Duration::from_secs(60);

async fn start(setup: &Setup, mock: &MockModel, mode: ApprovalMode) -> (Session, UnboundedReceiver<Output>) {
    let paths = Paths::new(setup.home.path(), Some(&shared_cache())).unwrap();
    let tools = Tools::load(&paths, &setup.workspace, mode, None, None).await.unwrap();
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
        prompts: super::PromptSettings::default(),
        hooks: Default::default(),
        audit: true,
        checkpoints: Default::default(),
    };
    Session::start(settings, tools).unwrap()
}

/// The next output, or a failure when none comes.
async fn next(outputs: &mut UnboundedReceiver<Output>) -> Output {
    tokio::time::timeout(PATIENCE, outputs.recv()).await.expect("the engine went quiet").expect("the stream ended")
}

/// Events until a question or the turn's end, whichever comes first.
async fn until_question_or_done(outputs: &mut UnboundedReceiver<Output>, seen: &mut Vec<Event>) -> Output {
    loop {
        match next(outputs).await {
            Output::Event(event) => seen.push(event),
            other => return other,
        }
    }
}

fn report(output: Output) -> Box<Report> {
    match output {
        Output::TurnDone(report) => report,
        other => panic!("expected the end of the turn, got {other:?}"),
    }
}

fn read(workspace: &Path, file: &str) -> String {
    std::fs::read_to_string(workspace.join(file)).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_runs_on_orders_and_outputs_alone() {
    let setup = Setup::new(&[fixtures::SPIN_FOREVER]);
    std::fs::write(setup.workspace.join("notes.txt"), "old\n").unwrap();
    let mock = MockModel::start(Wire::Gemini);
    let (session, mut outputs) = start(&setup, &mock, ApprovalMode::Default).await;

    // Start-up events come from the engine, before any order.
    let Output::Event(Event::Init { session_id, tools, .. }) = next(&mut outputs).await else {
        panic!("the first output is not `init`");
    };
    assert_eq!(session_id, session.info().id);
    assert!(tools.iter().any(|t| t == "write_file") && tools.iter().any(|t| t == "spin"), "{tools:?}");

    // 1. An edit needs approval: it arrives as a question and is answered by an order.
    mock.push_turn(Turn::calls(vec![
        call("write_file", json!({ "file_path": "notes.txt", "content": "approved\n" })).with_id("edit-1"),
    ]));
    mock.push_turn(Turn::text("Written."));
    session.submit(Op::UserTurn { text: "Update the notes".into(), attachments: Vec::new() });
    let mut seen = Vec::new();
    let Output::Question(question) = until_question_or_done(&mut outputs, &mut seen).await else {
        panic!("the edit did not ask");
    };
    assert_eq!(question.request.call_id, "edit-1");
    assert!(matches!(&question.request.confirmation, Confirmation::Edit { proposed, .. } if proposed == "approved\n"));
    assert!(
        seen.iter().any(|e| matches!(e, Event::ToolCall(u) if u.status == CallStatus::AwaitingApproval)),
        "the call's awaiting_approval update precedes its question"
    );
    assert_eq!(read(&setup.workspace, "notes.txt"), "old\n", "nothing is written before the answer");
    // An answer to a question nobody asked is dropped, and answers nothing.
    session.submit(Op::Approve { id: question.id + 100, answer: Answer::Cancel });
    session.submit(Op::Approve { id: question.id, answer: Answer::Once });
    let done = report(until_question_or_done(&mut outputs, &mut seen).await);
    assert!(matches!(done.outcome, Outcome::Completed), "{:?}", done.outcome);
    assert_eq!(done.response, "Written.");
    assert_eq!(done.calls.len(), 1);
    assert_eq!(done.calls[0].status, CallStatus::Success);
    assert_eq!(read(&setup.workspace, "notes.txt"), "approved\n");

    // 2. A refusal by order: nothing written, and the model is told the user's reason.
    mock.push_turn(Turn::calls(vec![
        call("write_file", json!({ "file_path": "notes.txt", "content": "refused\n" })).with_id("edit-2"),
    ]));
    mock.push_turn(Turn::text("Understood."));
    session.submit(Op::UserTurn { text: "Try again".into(), attachments: Vec::new() });
    let Output::Question(question) = until_question_or_done(&mut outputs, &mut Vec::new()).await else {
        panic!("the second edit did not ask");
    };
    session.submit(Op::Approve { id: question.id, answer: Answer::Refuse("not today".into()) });
    let done = report(until_question_or_done(&mut outputs, &mut Vec::new()).await);
    assert_eq!(done.calls[0].status, CallStatus::Error);
    assert_eq!(read(&setup.workspace, "notes.txt"), "approved\n");
    let told = function_responses(&mock.last_request().unwrap());
    assert!(told.iter().any(|(name, text)| name == "write_file" && text.contains("not today")), "{told:?}");

    // 3. A call that never ends is cancelled by an interrupt; the session goes on.
    mock.push_turn(Turn::calls(vec![call("spin", json!({})).with_id("spin-1")]));
    session.submit(Op::UserTurn { text: "Think hard".into(), attachments: Vec::new() });
    loop {
        match next(&mut outputs).await {
            Output::Event(Event::ToolCall(update)) if update.status == CallStatus::Executing => break,
            Output::Event(_) => {}
            other => panic!("unexpected {other:?}"),
        }
    }
    session.submit(Op::Interrupt);
    let done = report(until_question_or_done(&mut outputs, &mut Vec::new()).await);
    assert!(matches!(done.outcome, Outcome::Cancelled), "{:?}", done.outcome);
    assert_eq!(done.calls[0].status, CallStatus::Cancelled);

    // 4. A mode change by order: the same edit now runs without a question.
    session.submit(Op::SetMode(ApprovalMode::AutoEdit));
    mock.push_turn(Turn::calls(vec![
        call("write_file", json!({ "file_path": "notes.txt", "content": "auto\n" })).with_id("edit-3"),
    ]));
    mock.push_turn(Turn::text("Done."));
    session.submit(Op::UserTurn { text: "Once more".into(), attachments: Vec::new() });
    let done = report(until_question_or_done(&mut outputs, &mut Vec::new()).await);
    assert_eq!(done.calls[0].status, CallStatus::Success);
    assert_eq!(read(&setup.workspace, "notes.txt"), "auto\n");

    session.shutdown().await;
    while let Ok(output) = outputs.try_recv() {
        assert!(matches!(output, Output::Event(_)), "after shutdown: {output:?}");
    }
    assert!(outputs.recv().await.is_none(), "the stream ends with the session");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_interrupt_stops_the_turn_and_what_waits_behind_it_and_withdraws_its_question() {
    let setup = Setup::new(&[]);
    let mock = MockModel::start(Wire::Gemini);
    let (session, mut outputs) = start(&setup, &mock, ApprovalMode::Default).await;
    mock.push_turn(Turn::calls(vec![
        call("write_file", json!({ "file_path": "a.txt", "content": "a\n" })).with_id("edit-a"),
    ]));
    session.submit(Op::UserTurn { text: "first".into(), attachments: Vec::new() });
    let Output::Question(question) = until_question_or_done(&mut outputs, &mut Vec::new()).await else {
        panic!("the edit did not ask");
    };
    // A prompt sent while the first waits is put off; the interrupt after it voids both.
    session.submit(Op::UserTurn { text: "second".into(), attachments: Vec::new() });
    session.submit(Op::Interrupt);
    mock.push_turn(Turn::text("Third answer."));
    session.submit(Op::UserTurn { text: "third".into(), attachments: Vec::new() });
    let Output::Withdrawn { id } = until_question_or_done(&mut outputs, &mut Vec::new()).await else {
        panic!("the question was not withdrawn");
    };
    assert_eq!(id, question.id);
    let first = report(until_question_or_done(&mut outputs, &mut Vec::new()).await);
    assert!(matches!(first.outcome, Outcome::Cancelled), "{:?}", first.outcome);
    assert_eq!(first.calls[0].status, CallStatus::Cancelled);
    let second = report(until_question_or_done(&mut outputs, &mut Vec::new()).await);
    assert!(matches!(second.outcome, Outcome::Cancelled) && second.turns == 0, "{:?}", second.outcome);
    // The withdrawn question's late answer reaches nothing: no file appears.
    session.submit(Op::Approve { id: question.id, answer: Answer::Once });
    let third = report(until_question_or_done(&mut outputs, &mut Vec::new()).await);
    assert_eq!(third.response, "Third answer.");
    assert!(!setup.workspace.join("a.txt").exists());
    let requests = mock.requests();
    assert_eq!(requests.len(), 2, "the voided prompt never reached the model");
    let last = requests[1].to_string();
    assert!(last.contains("third") && !last.contains("second"), "{last}");
    // The first turn's cancelled call is answered in the history the model sees.
    assert!(function_responses(&requests[1]).iter().any(|(name, _)| name == "write_file"));
    session.shutdown().await;
}

/// Orders sent before the engine looks at any are sorted as sent: an interrupt voids the
/// turns before it, not the one after it (a current-thread runtime holds the engine until
/// the test awaits, so all four are waiting at once).
#[tokio::test(flavor = "current_thread")]
async fn an_interrupt_sent_with_other_orders_voids_only_those_before_it() {
    let setup = Setup::new(&[]);
    let mock = MockModel::start(Wire::Gemini);
    let (session, mut outputs) = start(&setup, &mock, ApprovalMode::Default).await;
    mock.push_turn(Turn::text("After the interrupt."));
    session.submit(Op::Interrupt);
    session.submit(Op::UserTurn { text: "one".into(), attachments: Vec::new() });
    session.submit(Op::UserTurn { text: "two".into(), attachments: Vec::new() });
    session.submit(Op::Interrupt);
    session.submit(Op::UserTurn { text: "three".into(), attachments: Vec::new() });
    for _ in 0..2 {
        let voided = report(until_question_or_done(&mut outputs, &mut Vec::new()).await);
        assert!(matches!(voided.outcome, Outcome::Cancelled) && voided.turns == 0, "{:?}", voided.outcome);
    }
    let three = report(until_question_or_done(&mut outputs, &mut Vec::new()).await);
    assert_eq!(three.response, "After the interrupt.");
    assert_eq!(mock.requests().len(), 1);
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn answers_are_choices_bound_to_their_question() {
    let setup = Setup::new(&[fixtures::HOSTILE_TEXT]);
    let mock = MockModel::start(Wire::Gemini);
    let (session, mut outputs) = start(&setup, &mock, ApprovalMode::Default).await;

    // Editing is offered for an edit only: a Modify answer to a command is not taken, and
    // the question stays open for a real answer.
    mock.push_turn(Turn::calls(vec![call("ask_exec", json!({})).with_id("exec-1")]));
    mock.push_turn(Turn::text("ok"));
    session.submit(Op::UserTurn { text: "run it".into(), attachments: Vec::new() });
    let Output::Question(question) = until_question_or_done(&mut outputs, &mut Vec::new()).await else {
        panic!("the command did not ask");
    };
    assert!(!question.editable);
    assert!(matches!(question.scope, AlwaysScope::Commands(_)), "{:?}", question.scope);
    session.submit(Op::Approve { id: question.id, answer: Answer::Modify { proposed: "rm -rf ~".into() } });
    session.submit(Op::Approve { id: question.id, answer: Answer::Refuse("refused by the order".into()) });
    let mut seen = Vec::new();
    let done = report(until_question_or_done(&mut outputs, &mut seen).await);
    assert!(
        seen.iter()
            .any(|e| matches!(e, Event::Warning { message } if message.contains("cannot be answered by modifying"))),
        "{seen:?}"
    );
    assert_eq!(done.calls[0].status, CallStatus::Error);
    assert!(
        function_responses(&mock.last_request().unwrap()).iter().any(|(_, text)| text.contains("refused by the order"))
    );

    // "Always, saved" covers the file asked about, and nothing else.
    let edit = |file: &str, id: &str| call("write_file", json!({ "file_path": file, "content": "x\n" })).with_id(id);
    mock.push_turn(Turn::calls(vec![edit("notes.txt", "e1")]));
    mock.push_turn(Turn::text("saved"));
    session.submit(Op::UserTurn { text: "edit notes".into(), attachments: Vec::new() });
    let Output::Question(question) = until_question_or_done(&mut outputs, &mut Vec::new()).await else {
        panic!("the edit did not ask");
    };
    assert_eq!(question.scope, AlwaysScope::File("notes.txt".into()));
    session.submit(Op::Approve { id: question.id, answer: Answer::AlwaysSaved });
    report(until_question_or_done(&mut outputs, &mut Vec::new()).await);
    let policy = std::fs::read_to_string(setup.home.path().join("policy.toml")).unwrap();
    assert!(policy.contains("notes.txt") && policy.contains("write_file"), "{policy}");
    mock.push_turn(Turn::calls(vec![edit("notes.txt", "e2"), edit("other.txt", "e3")]));
    mock.push_turn(Turn::text("done"));
    session.submit(Op::UserTurn { text: "edit both".into(), attachments: Vec::new() });
    let Output::Question(question) = until_question_or_done(&mut outputs, &mut Vec::new()).await else {
        panic!("the other file did not ask");
    };
    assert_eq!(question.request.call_id, "e3", "only the file outside the saved rule asks");
    session.submit(Op::Approve { id: question.id, answer: Answer::Refuse("not that one".into()) });
    let done = report(until_question_or_done(&mut outputs, &mut Vec::new()).await);
    assert_eq!(done.calls.iter().map(|c| c.status).collect::<Vec<_>>(), [CallStatus::Success, CallStatus::Error]);
    assert!(!setup.workspace.join("other.txt").exists());
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn compress_and_resume_are_orders_too() {
    let setup = Setup::new(&[]);
    let mock = MockModel::start(Wire::Gemini);
    let (session, mut outputs) = start(&setup, &mock, ApprovalMode::Default).await;
    let first_id = session.info().id.clone();
    for answer in ["One.", "Two."] {
        mock.push_turn(Turn::text(answer));
        session.submit(Op::UserTurn { text: format!("say {answer}"), attachments: Vec::new() });
        report(until_question_or_done(&mut outputs, &mut Vec::new()).await);
    }
    mock.push_turn(Turn::text("The user asked for one and two."));
    session.submit(Op::Compress);
    mock.push_turn(Turn::text("Three."));
    session.submit(Op::UserTurn { text: "say three".into(), attachments: Vec::new() });
    let mut seen = Vec::new();
    report(until_question_or_done(&mut outputs, &mut seen).await);
    assert!(
        seen.iter().any(|e| matches!(e, Event::Notice { message } if message.starts_with("compressed "))),
        "{seen:?}"
    );
    let requests = mock.requests();
    let last = requests.last().unwrap().to_string();
    assert!(last.contains(crate::agent::SUMMARY_PREFIX) && last.contains("say three"), "{last}");
    assert!(!last.contains("say One."), "the compressed prompt is gone from the request: {last}");

    // A second session resumes the first by order.
    session.shutdown().await;
    let (session, mut outputs) = start(&setup, &mock, ApprovalMode::Default).await;
    session.submit(Op::Resume { session: first_id.clone() });
    session.submit(Op::Resume { session: "no-such-session".into() });
    mock.push_turn(Turn::text("Four."));
    session.submit(Op::UserTurn { text: "say four".into(), attachments: Vec::new() });
    let mut seen = Vec::new();
    // The resume hands the front end the conversation so far, before the turn's events.
    let replayed = loop {
        match next(&mut outputs).await {
            Output::Event(event) => seen.push(event),
            Output::Replay(replay) => break replay.messages.clone(),
            other => panic!("expected the replay of the resumed session, got {other:?}"),
        }
    };
    let replayed_text = format!("{replayed:?}");
    assert!(replayed_text.contains("say three") && replayed_text.contains("Three."), "{replayed_text}");
    report(until_question_or_done(&mut outputs, &mut seen).await);
    assert!(seen.iter().any(|e| matches!(e, Event::Notice { message } if message.contains(&first_id))), "{seen:?}");
    assert!(seen.iter().any(|e| matches!(e, Event::Warning { message } if message.starts_with("cannot resume"))));
    let last = mock.last_request().unwrap().to_string();
    assert!(last.contains("say three") && last.contains("say four"), "{last}");
    session.shutdown().await;
}

/// Events until the turn's end; its report and what was seen.
async fn turn(outputs: &mut UnboundedReceiver<Output>) -> (Box<Report>, Vec<Event>) {
    let mut seen = Vec::new();
    let done = until_question_or_done(outputs, &mut seen).await;
    (report(done), seen)
}

/// The model a Gemini request went to (its URL names it).
fn requested_model(mock: &MockModel) -> String {
    let recorded = mock.recorded();
    let last = recorded.last().expect("a request");
    last.path.split("/models/").nth(1).and_then(|m| m.split(':').next()).unwrap_or_default().to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn set_model_switches_the_next_turn_and_refuses_a_bad_name() {
    let setup = Setup::new(&[]);
    let mock = MockModel::start(Wire::Gemini);
    let (session, mut outputs) = start(&setup, &mock, ApprovalMode::Default).await;
    mock.push_turn(Turn::text("first"));
    mock.push_turn(Turn::text("second"));
    session.submit(Op::UserTurn { text: "one".into(), attachments: Vec::new() });
    turn(&mut outputs).await;
    let before = requested_model(&mock);
    session.submit(Op::SetModel { model: "\x1b[2Jevil".into() });
    session.submit(Op::SetModel { model: "other-model".into() });
    session.submit(Op::UserTurn { text: "two".into(), attachments: Vec::new() });
    let (_, seen) = turn(&mut outputs).await;
    let warned = seen.iter().any(|e| matches!(e, Event::Warning { message } if message.contains("not a model name")));
    assert!(warned, "a control character in a name is refused: {seen:?}");
    assert!(seen.iter().any(|e| matches!(e, Event::Notice { message } if message == "model: other-model")), "{seen:?}");
    assert_ne!(before, "other-model");
    assert_eq!(requested_model(&mock), "other-model", "the next turn goes to the new model");
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn new_session_starts_an_empty_conversation_in_a_new_file() {
    let setup = Setup::new(&[]);
    let mock = MockModel::start(Wire::Gemini);
    let (session, mut outputs) = start(&setup, &mock, ApprovalMode::Default).await;
    let Output::Event(Event::Init { session_id: first, .. }) = next(&mut outputs).await else { panic!("no init") };
    mock.push_turn(Turn::text("remembered answer"));
    mock.push_turn(Turn::text("fresh answer"));
    session.submit(Op::UserTurn { text: "secret first prompt".into(), attachments: Vec::new() });
    turn(&mut outputs).await;
    session.submit(Op::NewSession);
    session.submit(Op::UserTurn { text: "second prompt".into(), attachments: Vec::new() });
    let (_, seen) = turn(&mut outputs).await;
    let second = seen.iter().find_map(|e| match e {
        Event::Init { session_id, .. } => Some(session_id.clone()),
        _ => None,
    });
    let second = second.unwrap_or_else(|| panic!("a new init event: {seen:?}"));
    assert_ne!(first, second);
    let sent = mock.last_request().unwrap().to_string();
    assert!(sent.contains("second prompt") && !sent.contains("secret first prompt"), "no old history: {sent}");
    let files = crate::session::list(&crate::session::dir(setup.home.path())).unwrap();
    assert!(files.iter().any(|s| s.id == first) && files.iter().any(|s| s.id == second), "both sessions are kept");
    session.shutdown().await;
}

/// Events until a notice (or plugin problem) that `wanted` accepts; panics after a while.
async fn until_event(
    outputs: &mut UnboundedReceiver<Output>,
    what: &str,
    wanted: impl Fn(&Event) -> bool,
) -> Vec<Event> {
    let mut seen = Vec::new();
    loop {
        match next(outputs).await {
            Output::Event(event) => {
                let hit = wanted(&event);
                seen.push(event);
                if hit {
                    return seen;
                }
            }
            other => panic!("waiting for {what}, got {other:?}"),
        }
    }
}

fn notice_says(text: &'static str) -> impl Fn(&Event) -> bool {
    move |e| matches!(e, Event::Notice { message } if message.contains(text))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn plugins_dropped_in_replaced_or_removed_change_the_tools_of_the_next_turn() {
    let setup = Setup::new(&[]);
    let plugins = setup.home.path().join("plugins");
    let mock = MockModel::start(Wire::Gemini);
    let (session, mut outputs) = start(&setup, &mock, ApprovalMode::Default).await;
    let declared = |mock: &MockModel| airlock_tests::declared_tools(&mock.last_request().unwrap());

    // Added, written in two parts: only the whole file is loaded.
    let bytes = std::fs::read(fixtures::ECHO_TOOLS).unwrap();
    let target = plugins.join("echo_tools.wasm");
    std::fs::write(&target, &bytes[..bytes.len() / 2]).unwrap();
    tokio::time::sleep(Duration::from_millis(100)).await;
    std::fs::write(&target, &bytes).unwrap();
    let seen = until_event(&mut outputs, "the added notice", notice_says("plugin echo_tools added")).await;
    assert!(!seen.iter().any(|e| matches!(e, Event::PluginProblem(_))), "a half-written file was loaded: {seen:?}");
    mock.push_turn(Turn::calls(vec![call("echo", json!({"text": "hot"}))]));
    mock.push_turn(Turn::text("done"));
    session.submit(Op::UserTurn { text: "use the new tool".into(), attachments: Vec::new() });
    let (done, _) = turn(&mut outputs).await;
    assert_eq!(done.calls.len(), 1);
    assert!(done.calls[0].result.is_ok(), "{:?}", done.calls[0].result);
    assert!(declared(&mock).contains(&"echo".to_string()));

    // A broken plugin beside it: reported, the others stay.
    std::fs::write(plugins.join("broken.wasm"), b"\0asm not really").unwrap();
    let seen = until_event(&mut outputs, "the problem", |e| matches!(e, Event::PluginProblem(_))).await;
    assert!(format!("{seen:?}").contains("broken.wasm"), "{seen:?}");

    // Removed: the tool is gone from the next request.
    std::fs::remove_file(&target).unwrap();
    until_event(&mut outputs, "the removed notice", notice_says("plugin echo_tools removed")).await;
    mock.push_turn(Turn::text("fine"));
    session.submit(Op::UserTurn { text: "again".into(), attachments: Vec::new() });
    turn(&mut outputs).await;
    assert!(!declared(&mock).contains(&"echo".to_string()), "{:?}", declared(&mock));
    assert!(declared(&mock).contains(&"read_file".to_string()), "the built-ins stay");
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_plugin_dropped_into_an_untrusted_workspace_is_loaded_as_at_start_and_holds_nothing() {
    let setup = Setup::new(&[]);
    std::fs::write(setup.workspace.join("secret.txt"), "the secret").unwrap();
    let mock = MockModel::start(Wire::Gemini);
    let (session, mut outputs) = start(&setup, &mock, ApprovalMode::Yolo).await;
    let dir = setup.workspace.join(".airlock/plugins");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(fixtures::FS_PROBE, dir.join("fs_probe.wasm")).unwrap();
    until_event(&mut outputs, "the added notice", notice_says("plugin fs_probe added")).await;
    // The same rule as at start: an untrusted workspace's policy grants nothing, and the
    // user's policy cannot grant a workspace plugin, so it reads nothing.
    // Only a person's answer at the grant prompt could give it the folder; "no" keeps it out.
    let (result, asked) = read_with_grant(&session, &mut outputs, &mock, Some(GrantAnswer::No)).await;
    assert!(asked, "the failure offers the grant to the person");
    let told = function_responses(&mock.last_request().unwrap());
    assert!(!format!("{told:?}").contains("the secret"), "an untrusted workspace plugin read a file: {told:?}");
    assert!(result.is_err(), "{result:?}");
    session.shutdown().await;
}

/// Runs one turn that calls `read_path` on `secret.txt`, answering a grant question with
/// `answer` (or failing when a question comes and `answer` is `None`); the tool's result.
async fn read_with_grant(
    session: &Session,
    outputs: &mut UnboundedReceiver<Output>,
    mock: &MockModel,
    answer: Option<GrantAnswer>,
) -> (Result<crate::contract::ToolOutput, crate::contract::ToolError>, bool) {
    mock.push_turn(Turn::calls(vec![call("read_path", json!({"path": "secret.txt"}))]));
    mock.push_turn(Turn::text("done"));
    session.submit(Op::UserTurn { text: "read the secret".into(), attachments: Vec::new() });
    let mut asked = false;
    loop {
        match next(outputs).await {
            Output::Grant(question) => {
                asked = true;
                assert_eq!(question.request.plugin, "fs_probe");
                let missing = &question.request.missing;
                assert!(missing.iter().any(|m| m.contains("read")), "{missing:?}");
                let Some(answer) = answer else { panic!("asked again: {question:?}") };
                session.submit(Op::Grant { id: question.id, answer });
            }
            Output::TurnDone(report) => return (report.calls[0].result.clone(), asked),
            _ => {}
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_grant_prompt_widens_one_call_the_session_or_the_policy_file_and_only_on_an_answer() {
    let setup = Setup::new(&[fixtures::FS_PROBE]);
    std::fs::write(setup.workspace.join("secret.txt"), "the secret").unwrap();
    let mock = MockModel::start(Wire::Gemini);
    let (session, mut outputs) = start(&setup, &mock, ApprovalMode::Yolo).await;

    // This call only: the call reads; the next one is denied and asks again.
    let (result, asked) = read_with_grant(&session, &mut outputs, &mock, Some(GrantAnswer::ThisCall)).await;
    assert!(asked);
    assert_eq!(result.unwrap().llm_text(), "the secret");
    // An answer with another id, or a second answer, grants nothing.
    session.submit(Op::Grant { id: 9_999, answer: GrantAnswer::Session });
    let (result, asked) = read_with_grant(&session, &mut outputs, &mock, Some(GrantAnswer::No)).await;
    assert!(asked, "the grant reverted after its call, so the next call asks again");
    assert!(result.is_err(), "{result:?}");
    // After a no, the same request is not asked again.
    let (result, asked) = read_with_grant(&session, &mut outputs, &mock, None).await;
    assert!(!asked && result.is_err());
    session.shutdown().await;

    // For the session: granted once, the next call needs no question.
    let (session, mut outputs) = start(&setup, &mock, ApprovalMode::Yolo).await;
    let (result, asked) = read_with_grant(&session, &mut outputs, &mock, Some(GrantAnswer::Session)).await;
    assert!(asked && result.is_ok());
    let (result, asked) = read_with_grant(&session, &mut outputs, &mock, None).await;
    assert!(!asked && result.is_ok(), "{result:?}");
    session.shutdown().await;

    // Always: written to the user's policy file, so a new session reads without asking.
    let (session, mut outputs) = start(&setup, &mock, ApprovalMode::Yolo).await;
    let (result, _) = read_with_grant(&session, &mut outputs, &mock, Some(GrantAnswer::Always)).await;
    assert!(result.is_ok());
    session.shutdown().await;
    let policy = std::fs::read_to_string(setup.home.path().join("policy.toml")).unwrap();
    assert!(policy.contains("[grants.fs_probe]") && policy.contains(".:read"), "{policy}");
    let (session, mut outputs) = start(&setup, &mock, ApprovalMode::Yolo).await;
    let (result, asked) = read_with_grant(&session, &mut outputs, &mock, None).await;
    assert!(!asked && result.is_ok(), "{result:?}");
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_interrupt_withdraws_a_waiting_grant_question() {
    let setup = Setup::new(&[fixtures::FS_PROBE]);
    std::fs::write(setup.workspace.join("secret.txt"), "the secret").unwrap();
    let mock = MockModel::start(Wire::Gemini);
    let (session, mut outputs) = start(&setup, &mock, ApprovalMode::Yolo).await;
    mock.push_turn(Turn::calls(vec![call("read_path", json!({"path": "secret.txt"}))]));
    session.submit(Op::UserTurn { text: "read".into(), attachments: Vec::new() });
    let id = loop {
        if let Output::Grant(question) = next(&mut outputs).await {
            break question.id;
        }
    };
    session.submit(Op::Interrupt);
    let mut withdrawn = false;
    loop {
        match next(&mut outputs).await {
            Output::Withdrawn { id: gone } => withdrawn |= gone == id,
            Output::TurnDone(report) => {
                assert!(matches!(report.outcome, Outcome::Cancelled), "{:?}", report.outcome);
                break;
            }
            _ => {}
        }
    }
    assert!(withdrawn, "the grant question was withdrawn");
    // A late answer grants nothing.
    session.submit(Op::Grant { id, answer: GrantAnswer::Session });
    let (result, asked) = read_with_grant(&session, &mut outputs, &mock, Some(GrantAnswer::No)).await;
    assert!(asked && result.is_err(), "{result:?}");
    session.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_grant_survives_a_reload_only_while_the_plugin_code_is_the_same() {
    let setup = Setup::new(&[fixtures::FS_PROBE]);
    std::fs::write(setup.workspace.join("secret.txt"), "the secret").unwrap();
    let plugins = setup.home.path().join("plugins");
    let mock = MockModel::start(Wire::Gemini);
    let (session, mut outputs) = start(&setup, &mock, ApprovalMode::Yolo).await;
    let (result, asked) = read_with_grant(&session, &mut outputs, &mock, Some(GrantAnswer::Session)).await;
    assert!(asked && result.is_ok(), "{result:?}");

    // Another plugin dropped in: fs_probe's code is the same, so it keeps its session grant.
    std::fs::copy(fixtures::ECHO_TOOLS, plugins.join("echo_tools.wasm")).unwrap();
    until_event(&mut outputs, "the added notice", notice_says("plugin echo_tools added")).await;
    let (result, asked) = read_with_grant(&session, &mut outputs, &mock, None).await;
    assert!(!asked && result.is_ok(), "an unrelated reload dropped the session grant: {result:?}");

    // A different fs_probe.wasm under the same name: what the person gave the old code is
    // not the new code's.
    let bytes = std::fs::read(fixtures::FS_PROBE).unwrap();
    let impostor = airlock_tests::variants::with_custom_section(&bytes, "impostor");
    std::fs::write(plugins.join("fs_probe.wasm"), impostor).unwrap();
    until_event(&mut outputs, "the replaced notice", notice_says("plugin fs_probe replaced")).await;
    let (result, asked) = read_with_grant(&session, &mut outputs, &mock, Some(GrantAnswer::No)).await;
    assert!(asked, "the replaced plugin inherited the session grant");
    assert!(result.is_err(), "{result:?}");
    session.shutdown().await;
}

/// One turn that fetches `url` with the built-in `web_fetch`, answering a grant question with
/// `answer`; the tool's result and the question's missing lines, if one was asked.
async fn fetch_with_grant(
    session: &Session,
    outputs: &mut UnboundedReceiver<Output>,
    mock: &MockModel,
    url: &str,
    answer: GrantAnswer,
) -> (Result<crate::contract::ToolOutput, crate::contract::ToolError>, Option<Vec<String>>) {
    mock.push_turn(Turn::calls(vec![call("web_fetch", json!({"url": url}))]));
    mock.push_turn(Turn::text("done"));
    session.submit(Op::UserTurn { text: "fetch".into(), attachments: Vec::new() });
    let mut asked = None;
    loop {
        match next(outputs).await {
            Output::Grant(question) => {
                asked = Some(question.request.missing.clone());
                session.submit(Op::Grant { id: question.id, answer });
            }
            Output::TurnDone(report) => return (report.calls[0].result.clone(), asked),
            _ => {}
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_private_address_refused_to_a_wildcard_is_offered_exactly_and_never_the_metadata_service() {
    let setup = Setup::new(&[]);
    let server = airlock_tests::http_server::WebServer::start();
    let mock = MockModel::start(Wire::Gemini);
    let (session, mut outputs) = start(&setup, &mock, ApprovalMode::Yolo).await;
    let local = format!("http://localhost:{}/page.html", server.port());
    let (result, asked) = fetch_with_grant(&session, &mut outputs, &mock, &local, GrantAnswer::ThisCall).await;
    assert_eq!(asked, Some(vec![format!("net http://localhost:{}", server.port())]), "not the exact destination");
    assert!(result.as_ref().is_ok_and(|o| o.llm_text().contains("Fetching pages")), "{result:?}");
    // This call only: the next fetch is refused again.
    let (result, asked) = fetch_with_grant(&session, &mut outputs, &mock, &local, GrantAnswer::No).await;
    assert!(asked.is_some() && result.is_err(), "{result:?}");
    // The metadata service is never offered.
    let metadata = "http://169.254.169.254/latest/meta-data/";
    let (result, asked) = fetch_with_grant(&session, &mut outputs, &mock, metadata, GrantAnswer::ThisCall).await;
    assert_eq!(asked, None, "the metadata address was offered");
    assert!(result.is_err());
    assert_eq!(server.requests(), ["/page.html"]);
    session.shutdown().await;
}

#[test]
fn a_kernel_without_landlock_is_said_once_for_the_tools_that_start_programs() {
    use airlock_sandbox::Support;
    let bare = Support { landlock_abi: None, seccomp: true };
    let warning = start::unsandboxed_warning(bare, &["run_shell_command"]).unwrap();
    assert!(warning.contains("run_shell_command") && warning.contains("WITHOUT a file-system sandbox"), "{warning}");
    assert!(warning.contains("seccomp still keeps them off the network"), "{warning}");
    let nothing = Support { landlock_abi: None, seccomp: false };
    assert!(!start::unsandboxed_warning(nothing, &["x"]).unwrap().contains("seccomp"));
    // Confined, or nothing that starts programs: no warning.
    assert_eq!(start::unsandboxed_warning(Support { landlock_abi: Some(7), seccomp: true }, &["x"]), None);
    assert_eq!(start::unsandboxed_warning(bare, &[]), None);
}
