//! The scheduler against real components: the built-ins and the fixture plugins.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use airlock_tests::fixtures;
use serde_json::json;

use super::*;
use crate::contract::ErrorKind;
use crate::events::CallStatus::*;
use crate::events::Event;
use crate::policy::{ApprovalMode, ApprovalOutcome, ApprovalRequest, RefuseAll};
use crate::testing::{Recorder, Setup, runtime, statuses};

fn call(id: &str, name: &str, args: serde_json::Value) -> FunctionCall {
    FunctionCall { id: id.into(), name: name.into(), arguments: args.to_string(), signature: None }
}

/// Answers every approval with the same outcome.
struct Always(ApprovalOutcome);

impl Approver for Always {
    fn ask(&self, _: ApprovalRequest) -> Pin<Box<dyn Future<Output = ApprovalOutcome> + Send + '_>> {
        let outcome = self.0.clone();
        Box::pin(async move { outcome })
    }
}

async fn scheduler(setup: &Setup, mode: ApprovalMode, approver: Arc<dyn Approver>, limits: CallLimits) -> Scheduler {
    granted(setup, mode, approver, limits, "").await
}

/// A scheduler whose user policy holds `policy`.
async fn granted(
    setup: &Setup,
    mode: ApprovalMode,
    approver: Arc<dyn Approver>,
    limits: CallLimits,
    policy: &str,
) -> Scheduler {
    let runtime = runtime();
    let registry = setup.registry(&runtime).await;
    Scheduler::new(runtime, registry, setup.policy(mode, policy), approver, limits)
}

/// A scheduler that refuses every approval, as a headless run does.
async fn headless(setup: &Setup, mode: ApprovalMode, limits: CallLimits) -> Scheduler {
    scheduler(setup, mode, Arc::new(RefuseAll { mode }), limits).await
}

/// Runs one batch and returns its completed calls and every event it sent.
async fn run(scheduler: &Scheduler, calls: &[FunctionCall], cancel: &Cancellation) -> (Vec<CompletedCall>, Vec<Event>) {
    let recorder = Recorder::new();
    let done = scheduler.run_batch(calls, &recorder.sink, cancel).await;
    (done, recorder.finish().await)
}

fn error_of(done: &CompletedCall) -> &crate::contract::ToolError {
    done.result.as_ref().err().unwrap_or_else(|| panic!("{} succeeded: {:?}", done.call.name, done.result))
}

#[tokio::test]
async fn walks_each_call_through_its_states_and_isolates_failures() {
    let setup = Setup::new(&[fixtures::ECHO_TOOLS, fixtures::TRAP]);
    std::fs::write(setup.workspace.join("a.txt"), "alpha\n").unwrap();
    let scheduler = headless(&setup, ApprovalMode::Default, CallLimits::default()).await;
    let calls = vec![
        call("ok", "read_file", json!({"file_path": "a.txt"})),
        call("unknown", "read_fil", json!({})),
        call("schema", "read_file", json!({"file_path": 5})),
        call("validate", "echo", json!({"text": "invalid"})),
        call("refused", "write_file", json!({"file_path": "b.txt", "content": "x"})),
        call("trap", "trap_now", json!({})),
        call("shout", "shout", json!({"text": "hi"})),
    ];
    let (done, events) = run(&scheduler, &calls, &Cancellation::default()).await;

    assert_eq!(statuses(&events, "ok"), [Validating, Scheduled, Executing, Success]);
    assert_eq!(done[0].result.as_ref().unwrap().llm_text().trim(), "alpha");
    assert_eq!(statuses(&events, "unknown"), [Validating, Error]);
    assert_eq!(error_of(&done[1]).kind, ErrorKind::ToolNotFound);
    assert!(error_of(&done[1]).message.contains("Did you mean `read_file`?"), "{}", error_of(&done[1]).message);
    assert_eq!(statuses(&events, "schema"), [Validating, Error]);
    assert_eq!(error_of(&done[2]).kind, ErrorKind::InvalidParams);
    assert!(error_of(&done[2]).message.contains("/file_path"), "{}", error_of(&done[2]).message);
    assert_eq!(statuses(&events, "validate"), [Validating, Error]);
    assert_eq!(error_of(&done[3]).message, "text may not be 'invalid'");
    assert_eq!(statuses(&events, "refused"), [Validating, AwaitingApproval, Error]);
    assert_eq!(error_of(&done[4]).kind, ErrorKind::PolicyDenied);
    assert!(!setup.workspace.join("b.txt").exists(), "a refused write must not happen");
    assert_eq!(statuses(&events, "trap"), [Validating, Scheduled, Executing, Error]);
    assert_eq!(error_of(&done[5]).kind, ErrorKind::PluginFault);
    assert!(error_of(&done[5]).message.contains("crashed"), "{}", error_of(&done[5]).message);
    assert_eq!(done[6].result.as_ref().unwrap().llm_text(), "HI");
    // Every response keeps the call's id, in order.
    let ids: Vec<_> = done.iter().map(|d| d.response().id).collect();
    assert_eq!(ids, ["ok", "unknown", "schema", "validate", "refused", "trap", "shout"]);
}

#[tokio::test]
async fn approved_edits_run_one_after_another_in_order() {
    let setup = Setup::new(&[]);
    std::fs::write(setup.workspace.join("f.txt"), "one\n").unwrap();
    let scheduler =
        scheduler(&setup, ApprovalMode::Default, Arc::new(Always(ApprovalOutcome::AllowOnce)), CallLimits::default())
            .await;
    // The second edit only matches after the first one ran.
    let calls = vec![
        call("1", "replace", json!({"file_path": "f.txt", "old_string": "one", "new_string": "two"})),
        call("2", "replace", json!({"file_path": "f.txt", "old_string": "two", "new_string": "three"})),
    ];
    let (done, events) = run(&scheduler, &calls, &Cancellation::default()).await;
    assert_eq!(statuses(&events, "1"), [Validating, AwaitingApproval, Scheduled, Executing, Success]);
    assert!(done[0].result.is_ok(), "{:?}", done[0].result);
    // Validation of the second call ran before the first edit, against "one\n", and failed.
    assert_eq!(std::fs::read_to_string(setup.workspace.join("f.txt")).unwrap(), "two\n");
    assert_eq!(error_of(&done[1]).kind, ErrorKind::InvalidParams);
}

#[tokio::test]
async fn cancelling_one_approval_cancels_the_batch() {
    let setup = Setup::new(&[]);
    let scheduler =
        scheduler(&setup, ApprovalMode::Default, Arc::new(Always(ApprovalOutcome::Cancel)), CallLimits::default())
            .await;
    let calls = vec![
        call("w", "write_file", json!({"file_path": "x.txt", "content": "x"})),
        call("r", "list_directory", json!({"dir_path": "."})),
    ];
    let (done, events) = run(&scheduler, &calls, &Cancellation::default()).await;
    assert_eq!(done[0].status, Cancelled);
    assert_eq!(done[1].status, Cancelled);
    // Approvals come in the model's order: `r` was not yet approved when the batch ended.
    assert_eq!(statuses(&events, "r"), [Validating, Cancelled]);
    assert!(!setup.workspace.join("x.txt").exists());
}

#[tokio::test]
async fn a_plugin_that_spins_hits_its_deadline_and_the_next_call_still_runs() {
    let setup = Setup::new(&[fixtures::SPIN_FOREVER, fixtures::ECHO_TOOLS]);
    let limits = CallLimits { deadline: Duration::from_millis(300), ..CallLimits::default() };
    let scheduler = headless(&setup, ApprovalMode::Yolo, limits).await;
    let calls = vec![call("spin", "spin", json!({})), call("echo", "echo", json!({"text": "still here"}))];
    let (done, _) = run(&scheduler, &calls, &Cancellation::default()).await;
    assert_eq!(error_of(&done[0]).kind, ErrorKind::Timeout);
    assert!(error_of(&done[0]).message.contains("deadline"), "{}", error_of(&done[0]).message);
    assert_eq!(done[1].result.as_ref().unwrap().llm_text(), "still here");
}

#[tokio::test]
async fn cancellation_stops_a_running_call() {
    let setup = Setup::new(&[fixtures::SPIN_FOREVER]);
    let scheduler = headless(&setup, ApprovalMode::Yolo, CallLimits::default()).await;
    let cancel = Cancellation::default();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(200)).await;
        trigger.cancel();
    });
    let started = std::time::Instant::now();
    let (done, events) = run(&scheduler, &[call("spin", "spin", json!({}))], &cancel).await;
    assert_eq!(done[0].status, Cancelled);
    assert_eq!(statuses(&events, "spin"), [Validating, Scheduled, Executing, Cancelled]);
    // The default deadline is a minute: only cancellation can have stopped it this soon.
    assert!(started.elapsed() < Duration::from_secs(30));
}

#[tokio::test]
async fn a_memory_bomb_is_stopped_at_the_cap() {
    let setup = Setup::new(&[fixtures::MEMORY_BOMB]);
    let limits = CallLimits { memory: 32 << 20, ..CallLimits::default() };
    let scheduler = headless(&setup, ApprovalMode::Yolo, limits).await;
    let (done, _) = run(&scheduler, &[call("bomb", "allocate", json!({}))], &Cancellation::default()).await;
    let error = error_of(&done[0]);
    assert_eq!(error.kind, ErrorKind::PluginFault);
    assert!(error.message.contains("memory limit of 32 MiB"), "{}", error.message);
}

#[tokio::test]
async fn a_read_only_tool_cannot_write_even_if_it_asks() {
    let setup = Setup::new(&[fixtures::WRITER_CLAIMS_READ]);
    let policy = "[grants.writer_claims_read]\nfiles = [\".:read-write\"]\n";
    let mode = ApprovalMode::Yolo;
    let scheduler = granted(&setup, mode, Arc::new(RefuseAll { mode }), CallLimits::default(), policy).await;
    let (done, _) = run(&scheduler, &[call("w", "sneaky_write", json!({}))], &Cancellation::default()).await;
    assert_eq!(error_of(&done[0]).kind, ErrorKind::Execution);
    assert!(!setup.workspace.join("pwned.txt").exists());
}

#[tokio::test]
async fn a_plugin_sees_no_environment() {
    let setup = Setup::new(&[fixtures::ENV_PEEK]);
    let scheduler = headless(&setup, ApprovalMode::Default, CallLimits::default()).await;
    let (done, _) = run(&scheduler, &[call("e", "peek_env", json!({}))], &Cancellation::default()).await;
    assert_eq!(done[0].result.as_ref().unwrap().llm_text(), "[]");
    assert!(std::env::var_os("PATH").is_some(), "the host itself has an environment");
}

#[cfg(unix)]
#[tokio::test]
async fn an_edit_keeps_the_files_permissions() {
    use std::os::unix::fs::PermissionsExt;
    let setup = Setup::new(&[]);
    let script = setup.workspace.join("run.sh");
    std::fs::write(&script, "echo one\n").unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o750)).unwrap();
    let scheduler = headless(&setup, ApprovalMode::AutoEdit, CallLimits::default()).await;
    let calls = vec![call("e", "replace", json!({"file_path": "run.sh", "old_string": "one", "new_string": "two"}))];
    let (done, _) = run(&scheduler, &calls, &Cancellation::default()).await;
    assert!(done[0].result.is_ok(), "{:?}", done[0].result);
    assert_eq!(std::fs::read_to_string(&script).unwrap(), "echo two\n");
    assert_eq!(std::fs::metadata(&script).unwrap().permissions().mode() & 0o777, 0o750);
}

#[tokio::test]
async fn a_plugin_blocked_in_a_host_call_is_stopped_at_its_deadline_and_by_cancellation() {
    let setup = Setup::new(&[fixtures::SPIN_FOREVER]);
    let limits = CallLimits { deadline: Duration::from_millis(300), ..CallLimits::default() };
    let scheduler = headless(&setup, ApprovalMode::Yolo, limits).await;
    let started = std::time::Instant::now();
    let (done, _) = run(&scheduler, &[call("s", "sleep", json!({}))], &Cancellation::default()).await;
    assert_eq!(error_of(&done[0]).kind, ErrorKind::Timeout, "{:?}", done[0].result);
    assert!(started.elapsed() < Duration::from_secs(30));

    let scheduler = headless(&setup, ApprovalMode::Yolo, CallLimits::default()).await;
    let cancel = Cancellation::default();
    let trigger = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(200)).await;
        trigger.cancel();
    });
    let (done, _) = run(&scheduler, &[call("s", "sleep", json!({}))], &cancel).await;
    assert_eq!(done[0].status, Cancelled);
}

/// Answers every approval with the same outcome, noting which call asked.
struct Noting(ApprovalOutcome, Arc<std::sync::Mutex<Vec<String>>>);

impl Approver for Noting {
    fn ask(&self, request: ApprovalRequest) -> Pin<Box<dyn Future<Output = ApprovalOutcome> + Send + '_>> {
        self.1.lock().unwrap().push(request.call_id);
        let outcome = self.0.clone();
        Box::pin(async move {
            // Time for another question to cut in, were questions asked at once.
            tokio::time::sleep(Duration::from_millis(20)).await;
            outcome
        })
    }
}

fn writes(count: usize) -> Vec<FunctionCall> {
    (0..count)
        .map(|i| call(&i.to_string(), "write_file", json!({"file_path": format!("f{i}.txt"), "content": "x"})))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn approvals_are_asked_one_at_a_time_in_the_model_order() {
    let setup = Setup::new(&[]);
    let asked = Arc::default();
    let approver = Arc::new(Noting(ApprovalOutcome::AllowOnce, Arc::clone(&asked)));
    let scheduler = scheduler(&setup, ApprovalMode::Default, approver, CallLimits::default()).await;
    let (done, _) = run(&scheduler, &writes(8), &Cancellation::default()).await;
    let expected: Vec<String> = (0..8).map(|i| i.to_string()).collect();
    assert_eq!(*asked.lock().unwrap(), expected);
    assert!(done.iter().all(|d| d.result.is_ok()), "{done:?}");
}

#[tokio::test]
async fn an_allow_always_answer_covers_the_later_calls_of_the_batch() {
    let setup = Setup::new(&[]);
    let asked = Arc::default();
    let always = ApprovalOutcome::AllowAlways { scope: crate::policy::AlwaysScope::Tool, save: false };
    let scheduler =
        scheduler(&setup, ApprovalMode::Default, Arc::new(Noting(always, Arc::clone(&asked))), CallLimits::default())
            .await;
    let (done, _) = run(&scheduler, &writes(3), &Cancellation::default()).await;
    assert!(done.iter().all(|d| d.result.is_ok()), "{done:?}");
    assert_eq!(*asked.lock().unwrap(), ["0"]);
}

#[tokio::test]
async fn a_cancelled_question_asks_no_more() {
    let setup = Setup::new(&[]);
    let asked = Arc::default();
    let approver = Arc::new(Noting(ApprovalOutcome::Cancel, Arc::clone(&asked)));
    let scheduler = scheduler(&setup, ApprovalMode::Default, approver, CallLimits::default()).await;
    let (done, _) = run(&scheduler, &writes(3), &Cancellation::default()).await;
    assert!(done.iter().all(|d| d.status == CallStatus::Cancelled), "{done:?}");
    assert_eq!(*asked.lock().unwrap(), ["0"]);
}

#[test]
fn every_question_says_what_commands_run_under_and_names_a_missing_landlock() {
    use airlock_sandbox::Support;
    let full = Support { landlock_abi: Some(7), seccomp: true };
    let confined = sandboxing::commands_sandbox_under(full, Ok(()), false);
    assert_eq!(
        confined,
        "programs it starts run in a read-only view of the system with your secrets hidden, under Landlock ABI 7 \
         + seccomp, no network"
    );
    let flat = sandboxing::commands_sandbox_under(full, Err("unshare: Operation not permitted"), false);
    assert!(flat.contains("WITHOUT the read-only view of the system (unshare: Operation not permitted)"), "{flat}");
    let open = sandboxing::commands_sandbox_under(Support { landlock_abi: None, seccomp: true }, Ok(()), true);
    assert!(open.contains("WITHOUT a file-system sandbox") && open.ends_with("with the network"), "{open}");
}

/// The text a call returned.
fn output_of(done: &CompletedCall) -> String {
    done.result.as_ref().unwrap_or_else(|e| panic!("{} failed: {e:?}", done.call.name)).llm_text()
}

#[tokio::test]
async fn a_read_only_call_executes_in_its_check_instance() {
    let setup = Setup::new(&[fixtures::SCHED_PROBE]);
    let scheduler = headless(&setup, ApprovalMode::Default, CallLimits::default()).await;
    let (done, _) = run(&scheduler, &[call("c", "checked", json!({}))], &Cancellation::default()).await;
    // The execution saw the `validate` of its checks: one instance served both.
    assert_eq!(output_of(&done[0]), "validated 1");
}

#[tokio::test]
async fn an_execution_that_may_write_gets_an_instance_of_its_own() {
    let setup = Setup::new(&[fixtures::SCHED_PROBE]);
    let policy = "[grants.sched_probe]\nfiles = [\".:read-write\"]\n";
    let mode = ApprovalMode::Yolo;
    let scheduler = granted(&setup, mode, Arc::new(RefuseAll { mode }), CallLimits::default(), policy).await;
    let (done, _) = run(&scheduler, &[call("w", "checked_writer", json!({}))], &Cancellation::default()).await;
    // Approved without a question, but its execution holds the workspace writable and its
    // checks did not: a fresh instance, which saw no `validate`.
    assert_eq!(output_of(&done[0]), "validated 0");
}

#[tokio::test]
async fn a_call_a_person_was_asked_about_gets_a_fresh_instance() {
    let setup = Setup::new(&[fixtures::SCHED_PROBE]);
    let policy = "[[rule]]\ntool = \"checked\"\ndecision = \"ask\"\n";
    let allow = Arc::new(Always(ApprovalOutcome::AllowOnce));
    let scheduler = granted(&setup, ApprovalMode::Default, allow, CallLimits::default(), policy).await;
    let (done, events) = run(&scheduler, &[call("a", "checked", json!({}))], &Cancellation::default()).await;
    assert!(statuses(&events, "a").contains(&AwaitingApproval), "{:?}", statuses(&events, "a"));
    // The check instance was dropped before the question: none waits on a person.
    assert_eq!(output_of(&done[0]), "validated 0");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_larger_than_the_process_budget_never_waits_on_kept_instances() {
    let setup = Setup::new(&[fixtures::SCHED_PROBE]);
    // Four instances at once (1 GiB of 256 MiB caps): every kept check instance of the
    // first calls would block the checks of the others, were it not given up for them. A
    // short deadline turns such a wait into a failure, not a hang.
    let limits = CallLimits { deadline: Duration::from_secs(10), ..CallLimits::default() };
    let scheduler = headless(&setup, ApprovalMode::Default, limits).await;
    let calls: Vec<FunctionCall> = (0..24).map(|i| call(&format!("c{i}"), "checked", json!({}))).collect();
    let (done, _) = run(&scheduler, &calls, &Cancellation::default()).await;
    for call in &done {
        let output = output_of(call);
        assert!(output == "validated 1" || output == "validated 0", "{output}");
    }
}
