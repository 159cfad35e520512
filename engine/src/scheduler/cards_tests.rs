//! What the scheduler tells front ends for a call's card (issue 24): calls appear in the
//! model's order, a call's time is its own run, and an ended call says what a person reads
//! of it — the tool's summary, the end of its output, and its whole output for a pager.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

use airlock_tests::fixtures;
use serde_json::json;

use super::*;
use crate::events::{CallUpdate, Event, MAX_FULL_OUTPUT, TAIL_LINES};
use crate::policy::{ApprovalMode, ApprovalOutcome, ApprovalRequest, RefuseAll};
use crate::testing::{Recorder, Setup, runtime};

fn call(id: &str, name: &str, args: serde_json::Value) -> FunctionCall {
    FunctionCall { id: id.into(), name: name.into(), arguments: args.to_string(), signature: None }
}

/// Answers every approval after a pause, as a person takes time to read.
struct Slow(Duration);

impl Approver for Slow {
    fn ask(&self, _: ApprovalRequest) -> Pin<Box<dyn Future<Output = ApprovalOutcome> + Send + '_>> {
        Box::pin(async move {
            tokio::time::sleep(self.0).await;
            ApprovalOutcome::AllowOnce
        })
    }
}

async fn scheduler(setup: &Setup, approver: Arc<dyn Approver>, policy: &str) -> Scheduler {
    let runtime = runtime();
    let registry = setup.registry(&runtime).await;
    Scheduler::new(runtime, registry, setup.policy(ApprovalMode::Default, policy), approver, CallLimits::default())
}

async fn run(scheduler: &Scheduler, calls: &[FunctionCall]) -> (Vec<CompletedCall>, Vec<Event>) {
    let recorder = Recorder::new();
    let done = scheduler.run_batch(calls, &recorder.sink, &Cancellation::default()).await;
    (done, recorder.finish().await)
}

/// The terminal update of call `id`.
fn ended<'a>(events: &'a [Event], id: &str) -> &'a CallUpdate {
    events
        .iter()
        .find_map(|event| match event {
            Event::ToolCall(update) if update.call_id == id && update.status.is_terminal() => Some(&**update),
            _ => None,
        })
        .unwrap_or_else(|| panic!("no end of {id}: {events:?}"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_batch_says_its_calls_in_the_model_order_though_they_are_validated_at_once() {
    let setup = Setup::new(&[]);
    for n in 0..12 {
        std::fs::write(setup.workspace.join(format!("f{n}.txt")), "x\n").unwrap();
    }
    let scheduler = scheduler(&setup, Arc::new(RefuseAll { mode: ApprovalMode::Default }), "").await;
    let calls: Vec<_> =
        (0..12).map(|n| call(&format!("c{n:02}"), "read_file", json!({"file_path": format!("f{n}.txt")}))).collect();
    let (_, events) = run(&scheduler, &calls).await;
    let first_seen: Vec<&str> = events
        .iter()
        .filter_map(|event| match event {
            Event::ToolCall(update) if update.status == CallStatus::Validating => Some(update.call_id.as_str()),
            _ => None,
        })
        .collect();
    let expected: Vec<String> = (0..12).map(|n| format!("c{n:02}")).collect();
    assert_eq!(first_seen, expected);
}

#[tokio::test]
async fn a_calls_time_is_its_own_run_not_the_wait_for_another_calls_approval() {
    let setup = Setup::new(&[]);
    std::fs::write(setup.workspace.join("a.txt"), "alpha\n").unwrap();
    let wait = Duration::from_millis(700);
    let slow = scheduler(&setup, Arc::new(Slow(wait)), "").await;
    // The read needs no approval; the write does, and the batch runs once it is answered.
    let calls = vec![
        call("read", "read_file", json!({"file_path": "a.txt"})),
        call("write", "write_file", json!({"file_path": "b.txt", "content": "beta\n"})),
    ];
    let (done, events) = run(&slow, &calls).await;
    assert!(done.iter().all(|d| d.status == CallStatus::Success), "{done:?}");
    let read = ended(&events, "read");
    let (duration, ran) = (read.duration.unwrap(), read.run.unwrap());
    assert!(duration >= wait, "the read waited for the write's approval: {duration:?}");
    assert!(duration - ran >= wait, "the read's run counts the approval's wait: run {ran:?} of {duration:?}");
    assert_eq!(done[0].run, Some(ran));
    // A call that never ran has no run time.
    let refusing = scheduler(&setup, Arc::new(RefuseAll { mode: ApprovalMode::Default }), "").await;
    let (done, events) = run(&refusing, &calls[1..]).await;
    assert_eq!(done[0].status, CallStatus::Error);
    assert_eq!(ended(&events, "write").run, None);
}

#[tokio::test]
async fn an_ended_call_gives_its_summary_the_end_of_its_live_output_and_the_whole_of_it() {
    let setup = Setup::new(&[fixtures::SCHED_PROBE]);
    let scheduler = scheduler(&setup, Arc::new(RefuseAll { mode: ApprovalMode::Default }), "").await;
    std::fs::write(setup.workspace.join("a.txt"), (1..=40).map(|n| format!("row {n}\n")).collect::<String>()).unwrap();
    let calls = vec![
        call("stream", "stream", json!({"lines": 40, "pause_ms": 0})),
        call("read", "read_file", json!({"file_path": "a.txt"})),
        call("missing", "read_file", json!({"file_path": "nope.txt"})),
    ];
    let (done, events) = run(&scheduler, &calls).await;
    // A streaming tool: the end of what it streamed (not the first line of its answer).
    let stream = ended(&events, "stream");
    let shown = stream.shown.as_ref().unwrap();
    assert_eq!(shown.tail.len(), TAIL_LINES);
    assert_eq!(shown.tail.last().map(String::as_str), Some("line 40"));
    assert_eq!(shown.earlier_lines, 40 - TAIL_LINES);
    let full = stream.full_output.as_deref().unwrap();
    assert_eq!(full.lines().count(), 40, "{full}");
    assert!(full.starts_with("line 1\n") && full.ends_with("line 40\n"), "{full}");
    assert_eq!(&done[0].shown, shown);
    // A tool with a summary: the summary, and its whole answer for the pager.
    let read = ended(&events, "read");
    let shown = read.shown.as_ref().unwrap();
    assert_eq!(shown.summary.as_deref(), Some("Read lines 1-40 of 40 from a.txt"));
    assert!(read.full_output.as_deref().unwrap().contains("row 40"), "{read:?}");
    // A failure: the end of the error.
    let missing = ended(&events, "missing");
    assert!(missing.shown.as_ref().unwrap().tail.join("\n").contains("File not found"), "{missing:?}");
    // None of it reaches the JSON output, which has the output and the error whole.
    let json = serde_json::to_string(stream).unwrap();
    assert!(!json.contains("\"shown\"") && !json.contains("full_output") && json.contains("\"run_ms\""), "{json}");
}

#[test]
fn a_flood_of_live_output_keeps_its_end_and_says_what_it_dropped() {
    let mut kept = super::output::Kept::default();
    let line = "0123456789abcdef\n";
    let lines = 3 * MAX_FULL_OUTPUT / line.len();
    for n in 0..lines {
        kept.push(&format!("{n:07} {line}"));
    }
    let text = kept.text().unwrap();
    assert!(text.len() <= MAX_FULL_OUTPUT + 100, "{}", text.len());
    assert!(text.starts_with("[the first "), "{}", &text[..80]);
    assert!(text.ends_with(&format!("{:07} {line}", lines - 1)), "the end is kept");
    assert!(super::output::Kept::default().text().is_none(), "nothing streamed, nothing kept");
}
