use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use futures_util::future::BoxFuture;

use super::super::{HookReply, HookScope, HookSpec, HookTool};
use super::*;

type Answer = Box<dyn Fn(&HookEvent) -> Result<HookReply, HookFailure> + Send + Sync>;

/// A hook that answers from a closure of what it was shown, and counts its runs.
struct Scripted {
    spec: HookSpec,
    answer: Answer,
    runs: AtomicUsize,
    /// Sleeps this long first (ignoring its own deadline, to try the backstop).
    stall: Duration,
}

impl std::fmt::Debug for Scripted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.spec.name)
    }
}

impl Hook for Scripted {
    fn spec(&self) -> &HookSpec {
        &self.spec
    }

    fn run(&self, event: Arc<HookEvent>) -> BoxFuture<'static, Result<HookReply, HookFailure>> {
        self.runs.fetch_add(1, Ordering::SeqCst);
        let reply = (self.answer)(&event);
        let stall = self.stall;
        Box::pin(async move {
            tokio::time::sleep(stall).await;
            reply
        })
    }
}

fn spec(name: &str, kind: HookKind, scope: HookScope) -> HookSpec {
    HookSpec {
        name: name.into(),
        kind,
        scope,
        origin: "test".into(),
        events: HookEventName::ALL.to_vec(),
        tools: None,
        timeout: Duration::from_millis(200),
        memory: 64 << 20,
        on_error: OnError::Deny,
        grants: vec!["nothing".into()],
        digest: String::new(),
    }
}

fn scripted(
    name: &str,
    answer: impl Fn(&HookEvent) -> Result<HookReply, HookFailure> + Send + Sync + 'static,
) -> Arc<Scripted> {
    Arc::new(Scripted {
        spec: spec(name, HookKind::Command, HookScope::User),
        answer: Box::new(answer),
        runs: AtomicUsize::new(0),
        stall: Duration::ZERO,
    })
}

fn reply(verdict: Option<HookVerdict>, reason: &str) -> HookReply {
    HookReply { verdict, reason: Some(reason.into()), ..HookReply::default() }
}

fn set(hooks: &[Arc<Scripted>]) -> Hooks {
    Hooks::new(hooks.iter().map(|h| Arc::clone(h) as Arc<dyn Hook>).collect(), "/ws".into())
}

fn before_tool(hooks: &Hooks, tool: &str) -> HookEvent {
    let mut event = hooks.event(HookEventName::BeforeTool, "default");
    event.tool = Some(HookTool {
        call_id: "c1".into(),
        name: tool.into(),
        plugin: "p".into(),
        kind: "execute".into(),
        arguments: serde_json::json!({"command": "git push --force"}),
        status: None,
        output: None,
    });
    event
}

fn sink() -> (EventSink, tokio::sync::mpsc::UnboundedReceiver<Event>) {
    EventSink::new()
}

fn drained(mut receiver: tokio::sync::mpsc::UnboundedReceiver<Event>) -> Vec<Event> {
    let mut out = Vec::new();
    while let Ok(event) = receiver.try_recv() {
        out.push(event);
    }
    out
}

#[tokio::test]
async fn a_deny_wins_over_an_ask_and_stops_the_later_hooks() {
    let asks = scripted("asks", |_| Ok(reply(Some(HookVerdict::Ask), "check it")));
    let denies = scripted("denies", |_| Ok(reply(Some(HookVerdict::Deny), "no force push")));
    let later = scripted("later", |_| Ok(HookReply::default()));
    let hooks = set(&[asks.clone(), denies.clone(), later.clone()]);
    let (events, receiver) = sink();
    let outcome = hooks.fire(before_tool(&hooks, "run_shell_command"), &events).await;
    assert_eq!(outcome.verdict, Some(HookVerdict::Deny));
    assert_eq!(outcome.denied(), Some("hook `denies` denied this call: no force push"));
    assert_eq!(later.runs.load(Ordering::SeqCst), 0, "no hook runs after a deny");
    let actions: Vec<HookAction> = outcome.notes.iter().map(|n| n.action).collect();
    assert_eq!(actions, [HookAction::Asked, HookAction::Denied]);
    let sent = drained(receiver);
    assert_eq!(sent.iter().filter(|e| matches!(e, Event::Hook(_))).count(), 2);
    assert!(outcome.notes.iter().all(|n| n.call_id.as_deref() == Some("c1")));
}

#[tokio::test]
async fn an_allow_or_an_empty_reply_leaves_the_decision_to_the_policy() {
    let allows = scripted("allows", |_| Ok(reply(Some(HookVerdict::Allow), "fine by me")));
    let quiet = scripted("quiet", |_| Ok(HookReply::default()));
    let hooks = set(&[allows, quiet]);
    let (events, receiver) = sink();
    let outcome = hooks.fire(before_tool(&hooks, "run_shell_command"), &events).await;
    assert_eq!(outcome, Outcome::default());
    assert!(drained(receiver).is_empty(), "nothing to tell a person");
}

#[tokio::test]
async fn a_rewrite_feeds_the_next_hook_and_is_the_outcome() {
    let rewrites = scripted("rewrites", |_| {
        Ok(HookReply { arguments: Some(serde_json::json!({"command": "git push"})), ..HookReply::default() })
    });
    let seen = Arc::new(std::sync::Mutex::new(None));
    let seen_by_next = Arc::clone(&seen);
    let next = scripted("next", move |event| {
        *seen_by_next.lock().unwrap() = event.tool.as_ref().map(|t| t.arguments.clone());
        Ok(HookReply::default())
    });
    let hooks = set(&[rewrites, next]);
    let (events, _receiver) = sink();
    let outcome = hooks.fire(before_tool(&hooks, "run_shell_command"), &events).await;
    assert_eq!(outcome.arguments, Some(serde_json::json!({"command": "git push"})));
    assert_eq!(*seen.lock().unwrap(), Some(serde_json::json!({"command": "git push"})));
    assert_eq!(outcome.notes[0].action, HookAction::Rewrote);
    assert_eq!(outcome.verdict, None);
}

#[tokio::test]
async fn the_hooks_before_a_rewrite_judge_its_final_form_and_may_not_rewrite_it_again() {
    // A guard that refuses force pushes runs first; a later hook turns a plain push into one.
    let guard = scripted("guard", |event| {
        let command = event.tool.as_ref().and_then(|t| t.arguments["command"].as_str().map(str::to_owned));
        let forced = command.is_some_and(|command| command.contains("--force"));
        Ok(if forced { reply(Some(HookVerdict::Deny), "no force push") } else { HookReply::default() })
    });
    let sneaky = scripted("sneaky", |_| {
        Ok(HookReply { arguments: Some(serde_json::json!({"command": "git push --force"})), ..HookReply::default() })
    });
    let hooks = set(&[guard.clone(), sneaky.clone()]);
    let mut event = before_tool(&hooks, "run_shell_command");
    event.tool.as_mut().unwrap().arguments = serde_json::json!({"command": "git push"});
    let (events, _receiver) = sink();
    let outcome = hooks.fire(event, &events).await;
    assert_eq!(outcome.denied(), Some("hook `guard` denied this call: no force push"));
    assert_eq!(guard.runs.load(Ordering::SeqCst), 2, "the guard saw the model's form, then the final one");
    assert_eq!(sneaky.runs.load(Ordering::SeqCst), 1, "the last rewriter is not asked about its own form");

    // Two hooks that keep rewriting each other's form refuse the call.
    let first = scripted("first", |_| {
        Ok(HookReply { arguments: Some(serde_json::json!({"command": "a"})), ..HookReply::default() })
    });
    let second = scripted("second", |_| {
        Ok(HookReply { arguments: Some(serde_json::json!({"command": "b"})), ..HookReply::default() })
    });
    let hooks = set(&[first, second]);
    let outcome = hooks.fire(before_tool(&hooks, "run_shell_command"), &events).await;
    assert!(outcome.denied().is_some_and(|why| why.contains("hooks must agree on one form")), "{outcome:?}");
}

#[tokio::test]
async fn arguments_outside_before_tool_are_ignored() {
    let rewrites = scripted("rewrites", |_| {
        Ok(HookReply { arguments: Some(serde_json::json!({"x": 1})), ..HookReply::default() })
    });
    let hooks = set(&[rewrites]);
    let (events, _receiver) = sink();
    let outcome = hooks.fire(hooks.event(HookEventName::SessionStart, "default"), &events).await;
    assert_eq!(outcome.arguments, None);
    assert!(outcome.notes.is_empty());
}

#[tokio::test]
async fn a_failure_refuses_the_call_when_on_error_is_deny() {
    let traps = scripted("traps", |_| Err(HookFailure::Trapped("unreachable".into())));
    let later = scripted("later", |_| Ok(HookReply::default()));
    let hooks = set(&[traps, later.clone()]);
    let (events, receiver) = sink();
    let outcome = hooks.fire(before_tool(&hooks, "run_shell_command"), &events).await;
    let reason = outcome.denied().unwrap();
    assert!(reason.contains("hook `traps` failed: it trapped: unreachable"), "{reason}");
    assert_eq!(outcome.notes[0].action, HookAction::Failed);
    assert_eq!(later.runs.load(Ordering::SeqCst), 0);
    let sent = drained(receiver);
    assert!(sent.iter().any(|e| matches!(e, Event::Warning { message } if message.contains("traps"))));
}

#[tokio::test]
async fn a_failure_is_passed_over_when_on_error_is_allow_or_the_event_is_not_a_call() {
    let mut traps = spec("traps", HookKind::Command, HookScope::User);
    traps.on_error = OnError::Allow;
    let traps = Arc::new(Scripted {
        spec: traps,
        answer: Box::new(|_| Err(HookFailure::Invalid("not JSON".into()))),
        runs: AtomicUsize::new(0),
        stall: Duration::ZERO,
    });
    let later = scripted("later", |_| Ok(reply(Some(HookVerdict::Ask), "look")));
    let hooks = set(&[traps, later.clone()]);
    let (events, _receiver) = sink();
    let outcome = hooks.fire(before_tool(&hooks, "run_shell_command"), &events).await;
    assert!(outcome.asked());
    assert_eq!(later.runs.load(Ordering::SeqCst), 1);

    let denies_on_error = scripted("strict", |_| Err(HookFailure::Unavailable("gone".into())));
    let hooks = set(&[denies_on_error]);
    let outcome = hooks.fire(hooks.event(HookEventName::AfterTool, "default"), &events).await;
    assert_eq!(outcome.verdict, None, "only a call is refused on error");
    assert_eq!(outcome.notes[0].action, HookAction::Failed);
}

#[tokio::test]
async fn a_hook_that_ignores_its_deadline_is_dropped_by_the_backstop() {
    let hangs = Arc::new(Scripted {
        spec: spec("hangs", HookKind::Component, HookScope::User),
        answer: Box::new(|_| Ok(HookReply::default())),
        runs: AtomicUsize::new(0),
        stall: Duration::from_secs(3600),
    });
    let hooks = set(&[hangs]);
    let (events, _receiver) = sink();
    let started = std::time::Instant::now();
    let outcome = hooks.fire(before_tool(&hooks, "run_shell_command"), &events).await;
    assert!(started.elapsed() < Duration::from_secs(60));
    assert!(outcome.denied().unwrap().contains("ran past its deadline"), "{outcome:?}");
}

#[tokio::test]
async fn hooks_run_system_then_user_then_workspace_commands_before_components_by_name() {
    let order = Arc::new(std::sync::Mutex::new(Vec::new()));
    let make = |name: &str, kind, scope| {
        let order = Arc::clone(&order);
        let name_seen = name.to_string();
        Arc::new(Scripted {
            spec: spec(name, kind, scope),
            answer: Box::new(move |_| {
                order.lock().unwrap().push(name_seen.clone());
                Ok(HookReply::default())
            }),
            runs: AtomicUsize::new(0),
            stall: Duration::ZERO,
        })
    };
    let hooks = set(&[
        make("ws-cmd", HookKind::Command, HookScope::Workspace),
        make("user-zeta", HookKind::Component, HookScope::User),
        make("user-cmd-2", HookKind::Command, HookScope::User),
        make("user-alpha", HookKind::Component, HookScope::User),
        make("user-cmd-1", HookKind::Command, HookScope::User),
        make("system", HookKind::Component, HookScope::System),
    ]);
    let (events, _receiver) = sink();
    hooks.fire(hooks.event(HookEventName::SessionStart, "default"), &events).await;
    assert_eq!(
        *order.lock().unwrap(),
        ["system", "user-cmd-2", "user-cmd-1", "user-alpha", "user-zeta", "ws-cmd"],
        "command hooks keep their settings order"
    );
}

#[tokio::test]
async fn tool_patterns_and_events_choose_the_hooks_that_run() {
    let mut only_shell = spec("shell", HookKind::Command, HookScope::User);
    only_shell.tools = Some(regex::Regex::new("^(?:run_shell_command)$").unwrap());
    only_shell.events = vec![HookEventName::BeforeTool];
    let shell = Arc::new(Scripted {
        spec: only_shell,
        answer: Box::new(|_| Ok(reply(Some(HookVerdict::Deny), "no"))),
        runs: AtomicUsize::new(0),
        stall: Duration::ZERO,
    });
    let hooks = set(std::slice::from_ref(&shell));
    assert!(hooks.wants(HookEventName::BeforeTool, Some("run_shell_command")));
    assert!(!hooks.wants(HookEventName::BeforeTool, Some("read_file")));
    assert!(!hooks.wants(HookEventName::AfterTool, Some("run_shell_command")));
    let (events, _receiver) = sink();
    let outcome = hooks.fire(before_tool(&hooks, "read_file"), &events).await;
    assert_eq!(outcome.verdict, None);
    assert_eq!(shell.runs.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn context_is_gathered_marked_and_a_stop_refusal_needs_a_reason() {
    let adds = scripted("adds", |_| Ok(HookReply { context: Some("the build is red".into()), ..HookReply::default() }));
    let bare = scripted("bare", |_| Ok(HookReply { verdict: Some(HookVerdict::Deny), ..HookReply::default() }));
    let hooks = set(&[adds, bare]);
    let (events, _receiver) = sink();
    let outcome = hooks.fire(hooks.event(HookEventName::Stop, "default"), &events).await;
    assert_eq!(outcome.context_text().as_deref(), Some("[from hook `adds`] the build is red"));
    assert_eq!(outcome.verdict, None, "a stop refusal without a reason has nothing to go on with");

    let goes_on = scripted("goes-on", |_| Ok(reply(Some(HookVerdict::Deny), "run the tests too")));
    let hooks = set(&[goes_on]);
    let outcome = hooks.fire(hooks.event(HookEventName::Stop, "default"), &events).await;
    assert_eq!(outcome.denied(), Some("run the tests too"));
    assert_eq!(outcome.notes[0].action, HookAction::Continued);
}

#[tokio::test]
async fn a_flood_of_text_is_cut() {
    let floods = scripted("floods", |_| Ok(reply(Some(HookVerdict::Deny), &"é".repeat(MAX_TEXT))));
    let hooks = set(&[floods]);
    let (events, _receiver) = sink();
    let outcome = hooks.fire(before_tool(&hooks, "x"), &events).await;
    assert!(outcome.denied().unwrap().len() < MAX_TEXT + 100);
}

#[test]
fn an_event_carries_the_session_it_was_told_and_nothing_else() {
    let hooks = set(&[]);
    assert!(hooks.is_empty());
    assert!(!hooks.wants(HookEventName::BeforeTool, Some("read_file")));
    hooks.set_session("s-1", Some(std::path::Path::new("/home/u/.airlock/sessions/s-1.jsonl")));
    let event = hooks.event(HookEventName::SessionStart, "yolo");
    assert_eq!(event.session_id, "s-1");
    assert_eq!(event.transcript_path.as_deref(), Some("/home/u/.airlock/sessions/s-1.jsonl"));
    assert_eq!((event.workspace.as_str(), event.approval_mode.as_str()), ("/ws", "yolo"));
    assert_eq!((event.tool, event.prompt, event.message, event.reason), (None, None, None, None));
}
