//! Faulty plugins through the real binary: the session goes on, the model learns what
//! happened, and nothing a plugin prints reaches the terminal.

use airlock_tests::{MockModel, Session, Turn, Wire, call, fixtures, function_responses};
use serde_json::json;

use crate::session;

#[test]
fn trapping_spinning_and_memory_hungry_plugins_become_errors_and_the_session_goes_on() {
    let s = session();
    for plugin in [fixtures::TRAP, fixtures::SPIN_FOREVER, fixtures::MEMORY_BOMB, fixtures::ECHO_TOOLS] {
        s.install_plugin(plugin);
    }
    std::fs::create_dir_all(s.airlock_home()).unwrap();
    std::fs::write(s.airlock_home().join("config.toml"), "[tools]\ntimeout_secs = 1\nmemory_mb = 32\n").unwrap();
    let mock = MockModel::start(Wire::Gemini);
    mock.push_turn(Turn::calls(vec![
        call("trap_now", json!({})),
        call("trap_in_validate", json!({})),
        call("spin", json!({})),
        call("allocate", json!({})),
        call("echo", json!({"text": "alive"})),
    ]));
    mock.push_turn(Turn::calls(vec![call("shout", json!({"text": "next turn"}))]));
    mock.push_turn(Turn::text("Survived."));
    let done = s.airlock(&mock, &["-p", "break things", "--approval-mode", "yolo"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert_eq!(done.stdout, "Survived.\n");
    let sent = function_responses(&mock.requests()[1]);
    assert!(sent[0].1.contains("plugin_fault") && sent[0].1.contains("crashed"), "{sent:?}");
    assert!(sent[1].1.contains("plugin_fault"), "{sent:?}");
    assert!(sent[2].1.contains("timeout") && sent[2].1.contains("deadline"), "{sent:?}");
    assert!(sent[3].1.contains("memory limit of 32 MiB"), "{sent:?}");
    assert_eq!(sent[4].1, "alive");
    assert_eq!(function_responses(&mock.requests()[2])[0].1, "NEXT TURN");
    // What plugins print goes to the log, never to the terminal.
    assert!(!done.stdout.contains("echo_tools") && !done.stderr.contains("echo_tools std"), "{}", done.stderr);
    let log = s.log();
    assert!(log.contains("echo_tools stdout: echo"), "{log}");
    assert!(log.contains("echo called"), "{log}");
}

#[test]
fn a_plugin_sees_none_of_the_hosts_environment() {
    let s = session();
    s.install_plugin(fixtures::ENV_PEEK);
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![call("peek_env", json!({}))]));
    mock.push_turn(Turn::text("ok"));
    let done = Session::run({
        let mut c = s.command(&mock);
        c.args(["-p", "peek"]).env("OPENAI_API_KEY", "sk-secret-host-key");
        c
    });
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let sent = function_responses(&mock.requests()[1]);
    assert_eq!(sent[0].1, "[]");
}

#[test]
fn broken_plugins_are_reported_and_the_rest_work() {
    let s = session();
    for plugin in [fixtures::BAD_SCHEMA, fixtures::TRAP_IN_DESCRIBE, fixtures::DUP_READ_FILE, fixtures::ECHO_TOOLS] {
        s.install_plugin(plugin);
    }
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![call("echo", json!({"text": "fine"}))]));
    mock.push_turn(Turn::text("ok"));
    let done = s.airlock(&mock, &["-p", "go"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    for file in ["bad_schema.wasm", "trap_in_describe.wasm", "dup_read_file.wasm"] {
        assert!(done.stderr.contains(file), "{file} not reported: {}", done.stderr);
    }
    assert_eq!(function_responses(&mock.requests()[1])[0].1, "fine");
}

/// Files in the plugin folder that are not airlock plugins, each with what its one line
/// must say.
fn not_plugins(s: &Session) -> Vec<(&'static str, &'static str)> {
    let dir = s.airlock_home().join("plugins");
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let echo = std::fs::read(fixtures::ECHO_TOOLS).unwrap_or_else(|e| panic!("{e}"));
    let files: [(&str, Vec<u8>, &str); 5] = [
        ("empty.wasm", Vec::new(), "an empty file"),
        ("notes.wasm", b"hello, world\n".to_vec(), "not a WebAssembly file (it starts with `hello, w`)"),
        ("core.wasm", b"\0asm\x01\0\0\0".to_vec(), "a WebAssembly module, not a component: build for wasm32-wasip2"),
        ("cut.wasm", echo[..echo.len() / 2].to_vec(), "a truncated component"),
        // An empty component: valid, but it exports nothing airlock can call.
        ("other_world.wasm", b"\0asm\x0d\0\x01\0".to_vec(), "a component, but not an airlock tool"),
    ];
    files
        .into_iter()
        .map(|(name, bytes, says)| {
            std::fs::write(dir.join(name), bytes).unwrap_or_else(|e| panic!("{e}"));
            (name, says)
        })
        .collect()
}

#[test]
fn files_that_are_not_plugins_get_one_line_each_saying_what_they_are_and_what_to_do() {
    let s = session();
    s.install_plugin(fixtures::ECHO_TOOLS);
    let expected = not_plugins(&s);
    let mut command = s.bare_command();
    command.args(["tools", "list"]);
    let listed = Session::run(command);
    assert_eq!(listed.code, Some(0), "{}", listed.stderr);
    assert!(listed.stdout.lines().any(|l| l.starts_with("echo (")), "good tools still load: {}", listed.stdout);
    assert_eq!(
        listed.stdout.lines().filter(|l| l.starts_with("problem:")).count(),
        expected.len(),
        "{}",
        listed.stdout
    );

    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![call("echo", json!({"text": "fine"}))]));
    mock.push_turn(Turn::text("ok"));
    let done = s.airlock(&mock, &["-p", "go"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    assert_eq!(function_responses(&mock.requests()[1])[0].1, "fine");

    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::text("ok"));
    let json = s.airlock(&mock, &["-p", "go", "-o", "json"]);
    let output: serde_json::Value =
        serde_json::from_str(&json.stdout).unwrap_or_else(|e| panic!("{e}: {}", json.stdout));
    let warnings: Vec<&str> =
        output["warnings"].as_array().into_iter().flatten().filter_map(serde_json::Value::as_str).collect();

    for (file, says) in expected {
        for (what, lines) in [
            ("tools list", listed.stdout.lines().collect::<Vec<_>>()),
            ("run", done.stderr.lines().collect()),
            ("json", warnings.clone()),
        ] {
            let about: Vec<&&str> = lines.iter().filter(|l| l.contains(file)).collect();
            assert_eq!(about.len(), 1, "{what}: {file}: {lines:#?}");
            assert!(about[0].contains(says), "{what}: {file}: {}", about[0]);
            assert!(
                !about[0].contains('\n') && !about[0].contains("\\n") && !about[0].contains("0x61"),
                "{}",
                about[0]
            );
        }
    }
}
