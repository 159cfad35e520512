//! OpenTelemetry export end to end: the real binary, the scripted mock model, and a real
//! OTLP receiver (`tests/otel/receiver.py`, OpenTelemetry's protobuf definitions) on
//! 127.0.0.1. A scripted session sends its spans (names, parents, attributes), metrics and
//! log events; prompt and argument text stay home unless `log_prompts`; a receiver that is
//! down or never answers leaves the run's exit as it was, with a warning; a workspace
//! cannot turn telemetry on.
// Set-up helpers unwrap: a failed set-up step should fail the test loudly.
#![allow(clippy::unwrap_used)]

use airlock_tests::otel::{Mode, Receiver, attribute};
use airlock_tests::{Finished, MockModel, Session, Turn, Wire, call};
use serde_json::{Value, json};

use crate::{run_args, session, write_policy};

/// A prompt no span, metric or log record may carry unless `log_prompts` is on.
const PROMPT: &str = "say hello through the shell, prompt-marker-7f3a";
/// The command the model runs: its text is an argument, kept home like the prompt.
const COMMAND: &str = "echo argument-marker-91c2";

/// Two model requests with known token counts: the first calls `run_shell_command` (which
/// asks for confirmation, and a user rule allows), the second answers.
fn scripted(s: &Session, endpoint: &str, log_prompts: bool) -> (Finished, MockModel) {
    s.write_config(&format!(
        "{}\n[telemetry]\nenabled = true\nendpoint = \"{endpoint}\"\nlog_prompts = {log_prompts}\n",
        airlock_tests::FAST_RETRIES
    ));
    write_policy(s, "[[rule]]\ntool = \"run_shell_command\"\ncommand = \"echo\"\ndecision = \"allow\"\n");
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(
        Turn::calls(vec![call("run_shell_command", json!({"command": COMMAND})).with_id("call-1")]).with_usage(11, 7),
    );
    mock.push_turn(Turn::text("done").with_usage(23, 5));
    let done = s.airlock(&mock, &["-p", PROMPT]);
    (done, mock)
}

fn named<'a>(spans: &'a [Value], name: &str) -> Vec<&'a Value> {
    spans.iter().filter(|s| s["name"] == name).collect()
}

fn one<'a>(spans: &'a [Value], name: &str) -> &'a Value {
    let found = named(spans, name);
    assert_eq!(found.len(), 1, "{name}: {spans:#?}");
    found[0]
}

/// The sum of the points of metric `name` whose attribute `key` is `value`, from the last
/// export that holds it (the values are cumulative).
fn metric_sum(metrics: &[Value], name: &str, key: &str, value: &str) -> f64 {
    let Some(metric) = metrics.iter().rev().find(|m| m["name"] == name) else { panic!("no {name}: {metrics:#?}") };
    let points = metric["histogram"]["data_points"].as_array().or(metric["sum"]["data_points"].as_array()).unwrap();
    points
        .iter()
        .filter(|p| attribute(p, key).is_some_and(|v| v == value))
        .map(|p| {
            let field = if p.get("sum").is_some() { &p["sum"] } else { &p["as_int"] };
            field.as_f64().or_else(|| field.as_str().and_then(|s| s.parse().ok())).unwrap_or(0.0)
        })
        .sum()
}

#[test]
fn a_scripted_session_sends_its_spans_metrics_and_log_events() {
    let s = session();
    let receiver = Receiver::start(Mode::Answer);
    let (done, _mock) = scripted(&s, &receiver.endpoint, false);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert!(!done.stderr.contains("telemetry"), "{}", done.stderr);

    let spans = receiver.spans();
    let session = one(&spans, "airlock.session");
    let turn = one(&spans, "invoke_agent airlock");
    let chats = named(&spans, "chat test-model");
    assert_eq!(chats.len(), 2, "{spans:#?}");
    let tool = one(&spans, "execute_tool run_shell_command");
    assert_eq!(turn["parent_span_id"], session["span_id"]);
    for chat in &chats {
        assert_eq!(chat["parent_span_id"], turn["span_id"]);
        assert_eq!(chat["trace_id"], session["trace_id"]);
    }
    let (first, second) = if attribute(chats[0], "airlock.request") == Some(json!(1)) {
        (chats[0], chats[1])
    } else {
        (chats[1], chats[0])
    };
    assert_eq!(tool["parent_span_id"], first["span_id"]);
    for phase in ["validating", "executing"] {
        assert_eq!(one(&spans, phase)["parent_span_id"], tool["span_id"], "{phase}");
    }

    let conversation = attribute(session, "gen_ai.conversation.id").unwrap();
    assert!(conversation.as_str().is_some_and(|id| !id.is_empty()));
    assert_eq!(attribute(turn, "gen_ai.operation.name"), Some(json!("invoke_agent")));
    assert_eq!(attribute(turn, "gen_ai.conversation.id"), Some(conversation.clone()));
    assert_eq!(attribute(turn, "gen_ai.usage.input_tokens"), Some(json!(34)));
    assert_eq!(attribute(first, "gen_ai.operation.name"), Some(json!("chat")));
    assert_eq!(attribute(first, "gen_ai.provider.name"), Some(json!("openai")));
    assert_eq!(attribute(first, "gen_ai.request.model"), Some(json!("test-model")));
    assert_eq!(attribute(first, "gen_ai.usage.input_tokens"), Some(json!(11)));
    assert_eq!(attribute(first, "gen_ai.usage.output_tokens"), Some(json!(7)));
    assert_eq!(attribute(second, "gen_ai.usage.input_tokens"), Some(json!(23)));
    let reasons = |span: &Value| attribute(span, "gen_ai.response.finish_reasons").unwrap().to_string();
    assert!(reasons(first).contains("tool_calls"), "{}", reasons(first));
    assert!(reasons(second).contains("stop"), "{}", reasons(second));
    assert_eq!(attribute(tool, "gen_ai.tool.name"), Some(json!("run_shell_command")));
    assert_eq!(attribute(tool, "gen_ai.tool.call.id"), Some(json!("call-1")));
    assert_eq!(attribute(tool, "airlock.approval.decision"), Some(json!("allowed")));
    assert_eq!(attribute(tool, "airlock.call.status"), Some(json!("success")));
    let digest = attribute(tool, "airlock.plugin.digest").unwrap();
    assert!(digest.as_str().is_some_and(|d| d.len() == 64), "{digest}");
    assert!(attribute(tool, "airlock.plugin").is_some());
    assert!(attribute(tool, "gen_ai.tool.call.arguments").is_none());
    assert_eq!(receiver.service_name().as_deref(), Some("\"airlock\""));

    let metrics = receiver.metrics();
    assert_eq!(metric_sum(&metrics, "gen_ai.client.token.usage", "gen_ai.token.type", "input"), 34.0);
    assert_eq!(metric_sum(&metrics, "gen_ai.client.token.usage", "gen_ai.token.type", "output"), 12.0);
    assert_eq!(metric_sum(&metrics, "airlock.tool.approvals", "airlock.approval.decision", "allowed"), 1.0);
    for name in ["gen_ai.client.operation.duration", "gen_ai.execute_tool.duration", "airlock.tool.memory"] {
        assert!(metrics.iter().any(|m| m["name"] == name), "no {name}");
    }

    let logs = receiver.logs();
    let event =
        |name: &str| logs.iter().find(|l| l["event_name"] == name).unwrap_or_else(|| panic!("{name}: {logs:#?}"));
    let prompt = event("gen_ai.user.message");
    assert!(prompt.get("body").is_none(), "{prompt}");
    assert_eq!(attribute(prompt, "airlock.prompt.length"), Some(json!(PROMPT.chars().count())));
    assert_eq!(attribute(event("airlock.tool.decision"), "airlock.approval.decision"), Some(json!("allowed")));
    let result = event("gen_ai.tool.message");
    assert_eq!(result["span_id"], tool["span_id"]);

    for signal in ["traces", "metrics", "logs"] {
        let text = serde_json::to_string(&receiver.requests(signal)).unwrap();
        assert!(!text.contains("prompt-marker-7f3a"), "{signal} carries the prompt");
        assert!(!text.contains("argument-marker-91c2"), "{signal} carries the arguments or output");
    }
}

#[test]
fn log_prompts_sends_the_prompt_the_arguments_and_the_result() {
    let s = session();
    let receiver = Receiver::start(Mode::Answer);
    let (done, _mock) = scripted(&s, &receiver.endpoint, true);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let logs = receiver.logs();
    let prompt = logs.iter().find(|l| l["event_name"] == "gen_ai.user.message").unwrap();
    assert_eq!(prompt["body"]["string_value"], PROMPT);
    let spans = receiver.spans();
    let tool = one(&spans, "execute_tool run_shell_command");
    let arguments = attribute(tool, "gen_ai.tool.call.arguments").unwrap();
    assert!(arguments.as_str().unwrap().contains(COMMAND), "{arguments}");
    let result = attribute(tool, "gen_ai.tool.call.result").unwrap();
    assert!(result.as_str().unwrap().contains("argument-marker-91c2"), "{result}");
}

#[test]
fn a_receiver_that_is_down_costs_a_warning_and_not_the_exit() {
    let s = session();
    // A port that was free a moment ago: nothing listens there.
    let port = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    let (done, mock) = scripted(&s, &format!("http://127.0.0.1:{port}"), false);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert_eq!(mock.requests().len(), 2);
    assert!(done.stderr.contains("telemetry: ") && done.stderr.contains("not delivered"), "{}", done.stderr);
}

#[test]
fn a_receiver_that_never_answers_costs_a_warning_and_not_the_exit() {
    let s = session();
    let receiver = Receiver::start(Mode::Stall);
    let (done, mock) = scripted(&s, &receiver.endpoint, false);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert_eq!(mock.requests().len(), 2);
    assert!(done.stderr.contains("did not take the last data"), "{}", done.stderr);
}

#[test]
fn a_workspace_cannot_turn_telemetry_on() {
    let s = session();
    let receiver = Receiver::start(Mode::Answer);
    s.write(".airlock/config.toml", &format!("[telemetry]\nenabled = true\nendpoint = \"{}\"\n", receiver.endpoint));
    let trusted = run_args(&s, &["trust"]);
    assert_eq!(trusted.code, Some(0), "{}", trusted.stderr);
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::text("hi"));
    let done = s.airlock(&mock, &["-p", "hello"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert!(
        done.stderr.contains("telemetry at")
            && done.stderr.contains("a workspace's settings may not set it")
            && done.stderr.contains("collector"),
        "{}",
        done.stderr
    );
    assert!(receiver.requests("traces").is_empty());
}
