//! What a plugin hands back, against the `runtime_hostile` fixture: every string it returns
//! is capped where it becomes a host value, live output is coalesced into few events however
//! it is chunked, and `exit()` is named as such.

use std::time::Duration;

use airlock_tests::fixtures;
use serde_json::json;

use super::super::*;
use crate::contract::{ContentPart, Display, ErrorKind};

async fn instance(sandbox: &Sandbox) -> Instance {
    let runtime = crate::testing::runtime();
    let bytes = std::fs::read(fixtures::RUNTIME_HOSTILE).unwrap();
    let (component, _) = runtime.load(&airlock_files::content_hash(&bytes), || Ok(bytes.clone())).unwrap();
    runtime.instantiate(&component, Arc::from("runtime_hostile"), sandbox).await.unwrap()
}

fn sandbox() -> Sandbox {
    Sandbox::empty(256 << 20, Duration::from_secs(30))
}

fn huge(field: &str, bytes: usize) -> String {
    json!({"field": field, "bytes": bytes}).to_string()
}

/// `text` was cut to `cap` bytes and says so.
fn assert_cut(text: &str, cap: usize, what: &str) {
    assert!(text.len() < cap + 100, "{what}: {} bytes", text.len());
    assert!(text.contains(&format!("[cut at {cap} of ")), "{what}: no note in {:?}", &text[text.len() - 60..]);
}

#[tokio::test]
async fn error_messages_and_describe_call_lines_are_capped() {
    let mut plugin = instance(&sandbox()).await;
    let error = plugin.validate("huge", &huge("validate_error", 50 << 20)).await.unwrap().unwrap_err();
    assert_eq!(error.kind, ErrorKind::InvalidParams);
    assert_cut(&error.message, convert::MAX_ERROR, "validate error");

    let error = plugin.execute("huge", &huge("execute_error", 50 << 20)).await.unwrap().unwrap_err();
    assert_cut(&error.message, convert::MAX_ERROR, "execute error");

    let line = plugin.describe_call("huge", &huge("describe_call", 20 << 20)).await.unwrap();
    assert_cut(&line, convert::MAX_DESCRIBE_CALL, "describe-call");
}

#[tokio::test]
async fn every_confirmation_field_is_capped_but_real_edits_fit() {
    let mut plugin = instance(&sandbox()).await;
    let confirm = async |plugin: &mut Instance, field: &str, bytes: usize| {
        plugin.confirm("huge", &huge(field, bytes)).await.unwrap().unwrap().unwrap()
    };
    for field in ["edit_path", "edit_original", "edit_proposed"] {
        let Confirmation::Edit { path, original, proposed, .. } = confirm(&mut plugin, field, 40 << 20).await else {
            panic!("{field}: not an edit");
        };
        match field {
            "edit_path" => assert_cut(&path, convert::MAX_PATH, field),
            "edit_original" => assert_cut(&original, convert::MAX_CONTENT, field),
            _ => assert_cut(&proposed, convert::MAX_CONTENT, field),
        }
    }
    // A 3 MiB rewrite of a file is shown whole.
    let Confirmation::Edit { proposed, .. } = confirm(&mut plugin, "edit_proposed", 3 << 20).await else {
        panic!("not an edit");
    };
    assert_eq!(proposed.len(), 3 << 20);

    let Confirmation::Exec { command, root_command, directory, .. } =
        confirm(&mut plugin, "exec_command", 10 << 20).await
    else {
        panic!("not an exec");
    };
    assert_cut(&command, convert::MAX_PROMPT, "command");
    assert_cut(&root_command, convert::MAX_PATH, "root command");
    assert_cut(&directory, convert::MAX_PATH, "directory");

    let Confirmation::Info { prompt, .. } = confirm(&mut plugin, "info_prompt", 10 << 20).await else {
        panic!("not an info");
    };
    assert_cut(&prompt, convert::MAX_PROMPT, "prompt");
    let Confirmation::Info { urls, .. } = confirm(&mut plugin, "info_urls", 5_000).await else {
        panic!("not an info");
    };
    assert_eq!(urls.len(), convert::MAX_URLS + 1, "10,000 URLs");
    assert_cut(&urls[0], convert::MAX_URL, "url");
    assert!(urls[convert::MAX_URLS].contains("cut at 64 of 10000 entries"), "{}", urls[convert::MAX_URLS]);
}

#[tokio::test]
async fn outputs_displays_and_rebuilt_arguments_are_capped() {
    let mut plugin = instance(&sandbox()).await;
    let output = plugin.execute("huge", &huge("output_text", 40 << 20)).await.unwrap().unwrap();
    let ContentPart::Text { text } = &output.llm_content[0] else { panic!("not text") };
    assert_cut(text, convert::MAX_OUTPUT, "output text");
    assert_eq!(output.llm_content.len(), convert::MAX_PARTS + 1, "100,001 parts");
    assert!(output.llm_text().len() < convert::MAX_OUTPUT + 64 * 1024);

    let output = plugin.execute("huge", &huge("output_mime", 1 << 20)).await.unwrap().unwrap();
    let ContentPart::Media { mime_type, .. } = &output.llm_content[0] else { panic!("not media") };
    assert_cut(mime_type, convert::MAX_PATH, "mime type");

    let output = plugin.execute("huge", &huge("display_markdown", 40 << 20)).await.unwrap().unwrap();
    let Some(Display::Markdown { text }) = &output.display else { panic!("no markdown") };
    assert_cut(text, convert::MAX_MARKDOWN, "markdown");

    let output = plugin.execute("huge", &huge("display_diff", 20 << 20)).await.unwrap().unwrap();
    let Some(Display::Diff { path, original, proposed }) = &output.display else { panic!("no diff") };
    assert_cut(path, convert::MAX_PATH, "diff path");
    assert_cut(original, convert::MAX_CONTENT, "diff original");
    assert_cut(proposed, convert::MAX_CONTENT, "diff proposed");

    let error = plugin.modify_args("huge", &huge("modify_args", 40 << 20), "x").await.unwrap().unwrap_err();
    assert_eq!(error.kind, ErrorKind::PluginFault);
    assert!(error.message.contains("more than the cap"), "{}", error.message);
    let args = plugin.modify_args("huge", &huge("modify_args", 1 << 20), "x").await.unwrap().unwrap();
    assert!(args.len() > 1 << 20, "arguments under the cap pass whole");
}

#[tokio::test]
async fn a_plugin_that_calls_exit_is_named_as_such() {
    for code in [0, 3] {
        let mut plugin = instance(&sandbox()).await;
        let fault = plugin.execute("exit_now", &json!({"code": code}).to_string()).await.unwrap_err();
        assert!(matches!(fault, CallFault::Exited(_)), "{fault:?}");
        let message = fault.to_string();
        assert!(message.contains("called exit(") && message.contains("instead of returning"), "{message}");
        assert!(!message.contains("crashed") && !message.contains("backtrace"), "{message}");
    }
}

#[tokio::test]
async fn a_hundred_thousand_one_byte_chunks_become_few_messages() {
    let (sender, mut receiver) = tokio::sync::mpsc::unbounded_channel();
    let mut sandbox = sandbox();
    sandbox.live_output = Some(sender);
    let mut plugin = instance(&sandbox).await;
    // Only the instance may hold a sender: the channel closes when it is dropped.
    drop(sandbox);
    let started = std::time::Instant::now();
    let output = plugin.execute("drip", r#"{"count": 100000}"#).await.unwrap().unwrap();
    let intervals = (started.elapsed().as_millis() / state::LIVE_INTERVAL.as_millis()) as usize;
    assert_eq!(output.llm_text(), "dripped 100000");
    drop(plugin);
    let mut messages = 0;
    let mut bytes = 0;
    while let Some(chunk) = receiver.recv().await {
        messages += 1;
        bytes += chunk.len();
    }
    assert_eq!(bytes, 100_000, "every byte arrives");
    // One per interval at most, one per 64 KiB held, and the rest at the end.
    assert!(messages <= intervals + 4, "{messages} messages for 100,000 emits in {intervals} intervals");
}

#[tokio::test]
async fn live_output_reaches_the_front_end_in_few_events() {
    use crate::cancel::Cancellation;
    use crate::capability::CallLimits;
    use crate::events::Event;
    use crate::policy::{ApprovalMode, RefuseAll};
    use crate::scheduler::Scheduler;
    use airlock_model::FunctionCall;

    let runtime = crate::testing::runtime();
    let setup = crate::testing::Setup::new(&[fixtures::RUNTIME_HOSTILE]);
    let registry = setup.registry(&runtime).await;
    let mode = ApprovalMode::Default;
    let scheduler =
        Scheduler::new(runtime, registry, setup.policy(mode, ""), Arc::new(RefuseAll { mode }), CallLimits::default());
    let calls: Vec<FunctionCall> = (0..3)
        .map(|i| FunctionCall {
            id: format!("drip{i}"),
            name: "drip".into(),
            arguments: json!({"count": 100_000}).to_string(),
            signature: None,
        })
        .collect();
    let recorder = crate::testing::Recorder::new();
    let started = std::time::Instant::now();
    let done = scheduler.run_batch(&calls, &recorder.sink, &Cancellation::default()).await;
    let intervals = (started.elapsed().as_millis() / state::LIVE_INTERVAL.as_millis()) as usize;
    // Let the forwarders deliver what was left when the calls ended.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let events = recorder.finish().await;
    for call in &done {
        assert_eq!(call.result.as_ref().unwrap().llm_text(), "dripped 100000");
    }
    for call in &calls {
        let chunks: Vec<&String> = events
            .iter()
            .filter_map(|e| match e {
                Event::ToolOutput { call_id, chunk } if *call_id == call.id => Some(chunk),
                _ => None,
            })
            .collect();
        assert_eq!(chunks.iter().map(|c| c.len()).sum::<usize>(), 100_000, "{}: every byte arrives", call.id);
        assert!(chunks.len() <= intervals + 4, "{}: {} events in {intervals} intervals", call.id, chunks.len());
    }
}
