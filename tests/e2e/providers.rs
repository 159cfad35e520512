//! The real `airlock` binary against faults the mock model injects, on all three wire
//! formats: rate limits and server errors are retried with a visible notice, persisting
//! errors and stalls end the run non-zero with a clear message, bad calls become errors
//! for the model. Plus named provider tables from `config.toml`: kind, key variable,
//! extra headers, and the errors for unknown names and missing keys.

use std::time::{Duration, Instant};

use airlock_tests::{FAST_RETRIES, Finished, MockModel, Session, Turn, Wire, call, function_responses};
use serde_json::json;

use crate::session;

const WIRES: [Wire; 3] = [Wire::Gemini, Wire::OpenAi, Wire::Anthropic];

/// Runs `airlock -p <prompt>` against `mock` (with the session's config).
fn run(s: &Session, mock: &MockModel, prompt: &str) -> Finished {
    s.airlock(mock, &["-p", prompt])
}

#[test]
fn rate_limits_twice_then_success_finishes_with_visible_retries() {
    for wire in WIRES {
        let s = session();
        let mock = MockModel::start(wire);
        for _ in 0..2 {
            mock.push_turn(Turn::status_with_headers(
                429,
                [("retry-after", "0")],
                r#"{"error": {"message": "rate limit reached"}}"#,
            ));
        }
        mock.push_turn(Turn::text("Recovered."));
        let done = run(&s, &mock, "hi");
        assert_eq!(done.code, Some(0), "{wire:?}: {}", done.stderr);
        assert_eq!(done.stdout, "Recovered.\n", "{wire:?}");
        assert!(done.stderr.contains("retrying (1/4) in 0.0s"), "{wire:?}: {}", done.stderr);
        assert!(done.stderr.contains("retrying (2/4)"), "{wire:?}: {}", done.stderr);
        assert!(done.stderr.contains("429") && done.stderr.contains("rate limit reached"), "{}", done.stderr);
        assert_eq!(mock.requests().len(), 3, "{wire:?}");
    }
}

#[test]
fn a_persisting_server_error_exits_non_zero_after_the_retries() {
    for wire in WIRES {
        let s = session();
        let mock = MockModel::start(wire);
        mock.push_turn(Turn::status(500, r#"{"error": {"message": "the model is on fire"}}"#).forever());
        let done = run(&s, &mock, "hi");
        assert_eq!(done.code, Some(1), "{wire:?}: {}", done.stderr);
        assert!(done.stderr.contains("retrying (4/4)"), "{wire:?}: {}", done.stderr);
        assert!(
            done.stderr
                .contains("airlock: gave up after 5 attempts: the model API answered HTTP 500: the model is on fire"),
            "{wire:?}: {}",
            done.stderr
        );
        assert_eq!(mock.requests().len(), 5, "{wire:?}");
    }
}

#[test]
fn a_stall_mid_stream_exits_within_seconds_without_repeating_text() {
    for wire in WIRES {
        let s = session();
        s.write_config(&format!("idle_timeout_secs = 1\n{FAST_RETRIES}"));
        let mock = MockModel::start(wire);
        mock.push_turn(Turn::stall_after_text("The answer starts"));
        let started = Instant::now();
        let done = run(&s, &mock, "hi");
        assert!(started.elapsed() < Duration::from_secs(8), "{wire:?}: took {:?}", started.elapsed());
        assert_eq!(done.code, Some(1), "{wire:?}: {}", done.stderr);
        assert_eq!(done.stdout, "The answer starts\n", "{wire:?}");
        assert!(done.stderr.contains("silent for 1s") && done.stderr.contains("idle_timeout_secs"), "{}", done.stderr);
        assert!(done.stderr.contains("did not retry") && !done.stderr.contains("retrying ("), "{}", done.stderr);
        assert_eq!(mock.requests().len(), 1, "{wire:?}");
    }
}

#[test]
fn a_stall_before_any_output_is_retried() {
    for wire in WIRES {
        let s = session();
        s.write_config(&format!("idle_timeout_secs = 1\n{FAST_RETRIES}"));
        let mock = MockModel::start(wire);
        mock.push_turn(Turn::stall());
        mock.push_turn(Turn::text("Second time lucky."));
        let done = run(&s, &mock, "hi");
        assert_eq!(done.code, Some(0), "{wire:?}: {}", done.stderr);
        assert_eq!(done.stdout, "Second time lucky.\n");
        assert!(done.stderr.contains("retrying (1/4)") && done.stderr.contains("silent"), "{}", done.stderr);
    }
}

#[test]
fn a_truncated_stream_is_retried_before_output_and_reported_after() {
    for wire in WIRES {
        let s = session();
        let mock = MockModel::start(wire);
        mock.push_turn(Turn::truncated_after(""));
        mock.push_turn(Turn::text("Whole answer."));
        let done = run(&s, &mock, "hi");
        assert_eq!(done.code, Some(0), "{wire:?}: {}", done.stderr);
        assert_eq!(done.stdout, "Whole answer.\n");

        let mock = MockModel::start(wire);
        mock.push_turn(Turn::truncated_after("Half an ans"));
        let done = run(&s, &mock, "hi");
        assert_eq!(done.code, Some(1), "{wire:?}: {}", done.stderr);
        assert_eq!(done.stdout, "Half an ans\n", "{wire:?}");
        assert!(done.stderr.contains("ended before the response was complete"), "{}", done.stderr);
        assert_eq!(mock.requests().len(), 1);
    }
}

#[test]
fn arguments_that_are_not_json_get_invalid_params_and_the_session_finishes() {
    for wire in WIRES {
        let s = session();
        let mock = MockModel::start(wire);
        mock.push_turn(Turn::call_with_raw_args("read_file", "{\"file_path\": "));
        mock.push_turn(Turn::text("Fixed it."));
        let done = run(&s, &mock, "go");
        assert_eq!(done.code, Some(0), "{wire:?}: {}", done.stderr);
        assert_eq!(done.stdout, "Fixed it.\n");
        let sent = function_responses(&mock.requests()[1]);
        assert_eq!(sent.len(), 1, "{wire:?}: {sent:?}");
        assert_eq!(sent[0].0, "read_file", "{wire:?}");
        assert!(sent[0].1.starts_with("Error") && sent[0].1.contains("invalid_params"), "{wire:?}: {sent:?}");
    }
}

#[test]
fn a_call_to_a_missing_tool_gets_tool_not_found_and_the_session_finishes() {
    for wire in WIRES {
        let s = session();
        let mock = MockModel::start(wire);
        mock.push_turn(Turn::calls(vec![call("no_such_tool", json!({ "x": 1 }))]));
        mock.push_turn(Turn::text("Never mind."));
        let done = run(&s, &mock, "go");
        assert_eq!(done.code, Some(0), "{wire:?}: {}", done.stderr);
        assert_eq!(done.stdout, "Never mind.\n");
        let sent = function_responses(&mock.requests()[1]);
        assert_eq!(sent.len(), 1, "{wire:?}: {sent:?}");
        assert!(sent[0].1.contains("tool_not_found"), "{wire:?}: {sent:?}");
    }
}

#[test]
fn anthropic_sends_tool_use_and_tool_result_blocks_back() {
    let s = session();
    s.write("a.txt", "alpha\n");
    let mock = MockModel::start(Wire::Anthropic);
    mock.push_turn(Turn::text_and_calls("Reading.", vec![call("read_file", json!({ "file_path": "a.txt" }))]));
    mock.push_turn(Turn::text("It says alpha."));
    let done = run(&s, &mock, "read a.txt");
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert_eq!(done.stdout, "Reading.\nIt says alpha.\n", "each turn's text on its own line");
    let second = &mock.requests()[1];
    assert!(second["system"].as_str().is_some_and(|s| !s.is_empty()));
    assert!(second["max_tokens"].as_u64().is_some_and(|n| n > 0));
    assert!(second["tools"].as_array().is_some_and(|t| t.iter().all(|t| t["input_schema"].is_object())));
    let messages = second["messages"].as_array().cloned().unwrap_or_default();
    assert_eq!(messages.len(), 3, "{messages:?}");
    assert_eq!(messages[1]["role"], "assistant");
    assert_eq!(messages[1]["content"][0], json!({ "type": "text", "text": "Reading." }));
    assert_eq!(messages[1]["content"][1]["type"], "tool_use");
    assert_eq!(messages[1]["content"][1]["input"], json!({ "file_path": "a.txt" }));
    assert_eq!(messages[2]["role"], "user");
    assert_eq!(messages[2]["content"][0]["type"], "tool_result");
    assert_eq!(messages[2]["content"][0]["tool_use_id"], messages[1]["content"][1]["id"]);
    let sent = function_responses(second);
    assert_eq!(sent[0].1.trim_end(), "alpha");
}

/// A config with a `[providers.NAME]` table pointing at `mock`.
fn named_provider(mock: &MockModel, name: &str, kind: &str) -> String {
    format!(
        "provider = \"{name}\"\n\n[providers.{name}]\nkind = \"{kind}\"\nbase_url = \"{}\"\nkey_variable = \"LOCAL_KEY\"\n\
         model = \"local-model\"\nheaders = {{ \"X-Org\" = \"acme\", \"X-Trace\" = \"t-1\" }}\n\n{FAST_RETRIES}",
        mock.base_url()
    )
}

#[test]
fn a_named_provider_table_sends_its_key_model_and_headers() {
    for (wire, kind) in [(Wire::Anthropic, "anthropic"), (Wire::OpenAi, "openai"), (Wire::Gemini, "gemini")] {
        let s = session();
        let mock = MockModel::start(wire);
        s.write_config(&named_provider(&mock, "local", kind));
        mock.push_turn(Turn::status(503, "busy"));
        mock.push_turn(Turn::text("From the table."));
        let done = Session::run({
            let mut c = s.bare_command();
            c.args(["-p", "hi", "-o", "json", "--workspace"]).arg(&s.workspace).env("LOCAL_KEY", "secret");
            c
        });
        assert_eq!(done.code, Some(0), "{wire:?}: {}", done.stderr);
        let object: serde_json::Value = serde_json::from_str(&done.stdout).unwrap_or_default();
        assert_eq!((object["provider"].as_str(), object["model"].as_str()), (Some("local"), Some("local-model")));
        let recorded = mock.recorded();
        assert_eq!(recorded.len(), 2, "{wire:?}");
        for request in &recorded {
            assert_eq!((request.header("x-org"), request.header("x-trace")), (Some("acme"), Some("t-1")), "{wire:?}");
            let key = match wire {
                Wire::Anthropic => request.header("x-api-key"),
                Wire::OpenAi => request.header("authorization"),
                Wire::Gemini => request.header("x-goog-api-key"),
            };
            assert!(key.is_some_and(|k| k.ends_with("secret")), "{wire:?}: {key:?}");
        }
        match wire {
            Wire::Gemini => assert!(recorded[0].path.contains("/models/local-model:"), "{}", recorded[0].path),
            Wire::OpenAi | Wire::Anthropic => assert_eq!(recorded[0].body["model"], "local-model"),
        }
    }
}

#[test]
fn the_provider_flag_selects_a_table_and_credential_errors_name_its_variable() {
    let s = session();
    let mock = MockModel::start(Wire::Anthropic);
    let config =
        named_provider(&mock, "proxy", "anthropic").replacen("provider = \"proxy\"", "provider = \"gemini\"", 1);
    s.write_config(&config);
    mock.push_turn(Turn::status(401, r#"{"type":"error","error":{"type":"authentication_error","message":"bad"}}"#));
    let done = Session::run({
        let mut c = s.bare_command();
        c.args(["-p", "hi", "--provider", "proxy", "--workspace"]).arg(&s.workspace).env("LOCAL_KEY", "wrong");
        c
    });
    assert_eq!(done.code, Some(41), "{}", done.stderr);
    assert!(done.stderr.contains("set LOCAL_KEY to a valid API key"), "{}", done.stderr);
    assert_eq!(mock.requests().len(), 1, "credentials errors are not retried");

    let done = Session::run({
        let mut c = s.bare_command();
        c.args(["-p", "hi", "--provider", "proxy", "--workspace"]).arg(&s.workspace);
        c
    });
    assert_eq!(done.code, Some(41), "{}", done.stderr);
    assert!(done.stderr.contains("LOCAL_KEY, which is not set"), "{}", done.stderr);
    assert_eq!(mock.requests().len(), 1);
}

#[test]
fn unknown_provider_names_are_config_errors_listing_the_known_ones() {
    let s = session();
    let mock = MockModel::start(Wire::OpenAi);
    s.write_config(&named_provider(&mock, "local", "openai"));
    let done = Session::run({
        let mut c = s.bare_command();
        c.args(["-p", "hi", "--provider", "lokal", "--workspace"]).arg(&s.workspace);
        c
    });
    assert_eq!(done.code, Some(52), "{}", done.stderr);
    assert!(done.stderr.contains("--provider lokal: unknown provider"), "{}", done.stderr);
    assert!(done.stderr.contains("gemini, openai, anthropic, local"), "{}", done.stderr);

    s.write_config("model = \"m\"\nprovider = \"claude\"\n");
    let done = s.airlock(&mock, &["-p", "hi"]);
    assert_eq!(done.code, Some(52), "{}", done.stderr);
    assert!(
        done.stderr
            .contains("config.toml: line 2: unknown provider `claude`; known providers: gemini, openai, anthropic"),
        "{}",
        done.stderr
    );
    assert!(mock.requests().is_empty());
}
