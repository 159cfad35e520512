//! `before_tool` and `after_tool` against the real built-in tools and the real policy, with
//! small in-process hooks (the hook kinds themselves are proven end to end).

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures_util::future::BoxFuture;
use serde_json::json;

use super::*;
use crate::capability::CallLimits;
use crate::contract::{Confirmation, ErrorKind};
use crate::events::CallStatus::*;
use crate::events::Event;
use crate::hooks::{
    Hook, HookAction, HookEvent, HookEventName, HookFailure, HookKind, HookReply, HookScope, HookSpec, HookVerdict,
    Hooks, OnError,
};
use crate::policy::{ApprovalMode, ApprovalOutcome, ApprovalRequest, Approver, RefuseAll};
use crate::testing::{Recorder, Setup, runtime, statuses};

/// A hook that gives the same reply to every event it runs at, and keeps what it was shown.
#[derive(Debug)]
struct Replying {
    spec: HookSpec,
    reply: HookReply,
    shown: Arc<Mutex<Vec<HookEvent>>>,
}

impl Hook for Replying {
    fn spec(&self) -> &HookSpec {
        &self.spec
    }

    fn run(&self, event: Arc<HookEvent>) -> BoxFuture<'static, Result<HookReply, HookFailure>> {
        self.shown.lock().unwrap().push((*event).clone());
        let reply = self.reply.clone();
        Box::pin(async move { Ok(reply) })
    }
}

fn hook(name: &str, events: &[HookEventName], reply: HookReply) -> Arc<Replying> {
    Arc::new(Replying {
        spec: HookSpec {
            name: name.into(),
            kind: HookKind::Command,
            scope: HookScope::User,
            origin: "test".into(),
            events: events.to_vec(),
            tools: None,
            timeout: Duration::from_secs(5),
            memory: 64 << 20,
            on_error: OnError::Deny,
            grants: Vec::new(),
            digest: String::new(),
        },
        reply,
        shown: Arc::default(),
    })
}

fn verdict(verdict: HookVerdict, reason: &str) -> HookReply {
    HookReply { verdict: Some(verdict), reason: Some(reason.into()), ..HookReply::default() }
}

/// Answers every approval with `AllowOnce`, keeping the requests.
#[derive(Default)]
struct Allowing(Mutex<Vec<ApprovalRequest>>);

impl Approver for Allowing {
    fn ask(&self, request: ApprovalRequest) -> Pin<Box<dyn Future<Output = ApprovalOutcome> + Send + '_>> {
        self.0.lock().unwrap().push(request);
        Box::pin(async { ApprovalOutcome::AllowOnce })
    }
}

async fn scheduler(
    setup: &Setup,
    mode: ApprovalMode,
    approver: Arc<dyn Approver>,
    policy: &str,
    hooks: &[Arc<Replying>],
) -> Scheduler {
    let runtime = runtime();
    let registry = setup.registry(&runtime).await;
    let mut scheduler = Scheduler::new(runtime, registry, setup.policy(mode, policy), approver, CallLimits::default());
    let hooks = hooks.iter().map(|h| Arc::clone(h) as Arc<dyn Hook>).collect();
    scheduler.set_hooks(Arc::new(Hooks::new(hooks, setup.workspace.display().to_string())));
    scheduler
}

fn call(id: &str, name: &str, args: serde_json::Value) -> FunctionCall {
    FunctionCall { id: id.into(), name: name.into(), arguments: args.to_string(), signature: None }
}

async fn run(scheduler: &Scheduler, calls: &[FunctionCall]) -> (Vec<CompletedCall>, Vec<Event>) {
    let recorder = Recorder::new();
    let done = scheduler.run_batch(calls, &recorder.sink, &Cancellation::default()).await;
    (done, recorder.finish().await)
}

fn write(file: &str) -> FunctionCall {
    call("w", "write_file", json!({"file_path": file, "content": "x\n"}))
}

const DENY_WRITES: &str = "[[rule]]\ntool = \"write_file\"\ndecision = \"deny\"\n";

#[tokio::test]
async fn a_hooks_allow_does_not_make_a_denied_call_run() {
    let setup = Setup::new(&[]);
    let allows = hook("allows", &[HookEventName::BeforeTool], verdict(HookVerdict::Allow, "fine"));
    let scheduler = scheduler(&setup, ApprovalMode::Yolo, Arc::new(Allowing::default()), DENY_WRITES, &[allows]).await;
    let (done, events) = run(&scheduler, &[write("a.txt")]).await;
    let error = done[0].result.as_ref().unwrap_err();
    assert_eq!(error.kind, ErrorKind::PolicyDenied);
    assert!(!error.message.contains("allows"), "the policy refused, not the hook: {}", error.message);
    assert!(!setup.workspace.join("a.txt").exists());
    assert_eq!(statuses(&events, "w"), [Validating, Error]);
}

#[tokio::test]
async fn a_hooks_deny_ends_the_call_naming_the_hook_and_its_reason() {
    let setup = Setup::new(&[]);
    let denies = hook("no-writes", &[HookEventName::BeforeTool], verdict(HookVerdict::Deny, "frozen branch"));
    let scheduler = scheduler(&setup, ApprovalMode::Yolo, Arc::new(Allowing::default()), "", &[denies]).await;
    let (done, events) = run(&scheduler, &[write("a.txt")]).await;
    let response = done[0].response();
    assert!(response.is_error);
    assert!(response.content.contains("hook `no-writes` denied this call: frozen branch"), "{}", response.content);
    assert!(!setup.workspace.join("a.txt").exists());
    assert_eq!(statuses(&events, "w"), [Validating, Error]);
    assert_eq!(done[0].hooks[0].action, HookAction::Denied);
    assert!(events.iter().any(|e| matches!(e, Event::Hook(note) if note.call_id.as_deref() == Some("w"))));
}

#[tokio::test]
async fn a_hooks_ask_questions_a_call_yolo_allows_and_headless_refuses_it() {
    let setup = Setup::new(&[]);
    let asks = hook("asks", &[HookEventName::BeforeTool], verdict(HookVerdict::Ask, "look first"));
    let mode = ApprovalMode::Yolo;
    let scheduler = scheduler(&setup, mode, Arc::new(RefuseAll { mode }), "", std::slice::from_ref(&asks)).await;
    let (done, events) = run(&scheduler, &[write("a.txt")]).await;
    assert_eq!(statuses(&events, "w"), [Validating, AwaitingApproval, Error]);
    assert_eq!(done[0].result.as_ref().unwrap_err().kind, ErrorKind::PolicyDenied);
    assert!(!setup.workspace.join("a.txt").exists());

    // With a person who allows it, it runs.
    let approver = Arc::new(Allowing::default());
    let scheduler = scheduler_with(&setup, mode, approver.clone(), &[asks]).await;
    let (done, _) = run(&scheduler, &[write("a.txt")]).await;
    assert!(done[0].result.is_ok(), "{:?}", done[0].result);
    assert_eq!(approver.0.lock().unwrap().len(), 1);
}

async fn scheduler_with(
    setup: &Setup,
    mode: ApprovalMode,
    approver: Arc<dyn Approver>,
    hooks: &[Arc<Replying>],
) -> Scheduler {
    scheduler(setup, mode, approver, "", hooks).await
}

#[tokio::test]
async fn a_rewrite_is_validated_again_and_the_confirmation_shows_it() {
    let setup = Setup::new(&[]);
    let rewrite =
        HookReply { arguments: Some(json!({"file_path": "b.txt", "content": "rewritten\n"})), ..HookReply::default() };
    let rewrites = hook("to-b", &[HookEventName::BeforeTool], rewrite);
    let approver = Arc::new(Allowing::default());
    let scheduler = scheduler_with(&setup, ApprovalMode::Default, approver.clone(), &[rewrites]).await;
    let (done, _) = run(&scheduler, &[write("a.txt")]).await;
    assert!(done[0].result.is_ok(), "{:?}", done[0].result);
    let requests = approver.0.lock().unwrap();
    match &requests[0].confirmation {
        Confirmation::Edit { path, proposed, .. } => {
            assert!(path.ends_with("b.txt"), "{path}");
            assert_eq!(proposed, "rewritten\n");
        }
        other => panic!("not an edit: {other:?}"),
    }
    assert_eq!(std::fs::read_to_string(setup.workspace.join("b.txt")).unwrap(), "rewritten\n");
    assert!(!setup.workspace.join("a.txt").exists());
    assert_eq!(done[0].hooks[0].action, HookAction::Rewrote);
}

#[tokio::test]
async fn a_rewrite_that_fails_validation_ends_the_call_with_that_error() {
    let setup = Setup::new(&[]);
    let rewrite = HookReply { arguments: Some(json!({"file_path": 7})), ..HookReply::default() };
    let rewrites = hook("broken", &[HookEventName::BeforeTool], rewrite);
    let scheduler = scheduler_with(&setup, ApprovalMode::Yolo, Arc::new(Allowing::default()), &[rewrites]).await;
    let (done, _) = run(&scheduler, &[write("a.txt")]).await;
    assert_eq!(done[0].result.as_ref().unwrap_err().kind, ErrorKind::InvalidParams);
    assert!(!setup.workspace.join("a.txt").exists());
}

#[tokio::test]
async fn after_tool_sees_the_result_and_its_context_joins_what_the_model_reads() {
    let setup = Setup::new(&[]);
    std::fs::write(setup.workspace.join("a.txt"), "alpha\n").unwrap();
    let reply = HookReply { context: Some("remember the style guide".into()), ..HookReply::default() };
    let after = hook("after", &[HookEventName::AfterTool], reply);
    let scheduler =
        scheduler_with(&setup, ApprovalMode::Default, Arc::new(Allowing::default()), std::slice::from_ref(&after))
            .await;
    let (done, _) = run(&scheduler, &[call("r", "read_file", json!({"file_path": "a.txt"}))]).await;
    let text = done[0].response().content;
    assert!(text.contains("alpha"), "{text}");
    assert!(text.contains("[from hook `after`] remember the style guide"), "{text}");
    let shown = after.shown.lock().unwrap();
    let tool = shown[0].tool.as_ref().unwrap();
    assert_eq!(tool.status, Some(airlock_protocol::event::CallStatus::Success));
    assert!(tool.output.as_deref().unwrap().contains("alpha"));
    assert_eq!(tool.kind, "read");
}

#[tokio::test]
async fn before_tool_is_shown_the_call_with_the_session_fields() {
    let setup = Setup::new(&[]);
    let quiet = hook("quiet", &[HookEventName::BeforeTool], HookReply::default());
    let scheduler =
        scheduler_with(&setup, ApprovalMode::AutoEdit, Arc::new(Allowing::default()), std::slice::from_ref(&quiet))
            .await;
    run(&scheduler, &[write("a.txt")]).await;
    let shown = quiet.shown.lock().unwrap();
    assert_eq!(shown.len(), 1);
    assert_eq!(shown[0].approval_mode, "auto-edit");
    let tool = shown[0].tool.as_ref().unwrap();
    assert_eq!((tool.name.as_str(), tool.call_id.as_str()), ("write_file", "w"));
    assert_eq!(tool.arguments, json!({"file_path": "a.txt", "content": "x\n"}));
}
