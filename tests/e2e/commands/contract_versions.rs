//! Both released contract versions in one session: a component built against
//! `airlock:tool@0.1.0`, kept byte for byte in `tests/frozen/`, loads and runs beside the
//! 0.2.0 built-ins (the shell among them) and a 0.2.0 plugin that starts programs.

use std::path::{Path, PathBuf};

use airlock_tests::{MockModel, Turn, Wire, call, fixtures, function_responses};
use serde_json::{Value, json};
use sha2::{Digest, Sha256};

use super::{session, write_policy};

/// The frozen 0.1.0 component and the digest it must keep forever.
const FROZEN: &str = "echo_tools-v0.1.0.wasm";
const FROZEN_SHA256: &str = "b43ecc97b719fc8e9b3d7694fed021dd40bc6bc3333ae19e6ecd1e4075b5813c";

fn frozen() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/frozen").join(FROZEN)
}

#[test]
fn the_frozen_component_never_changes() {
    let bytes = std::fs::read(frozen()).unwrap_or_else(|e| panic!("{}: {e}", frozen().display()));
    assert_eq!(hex::encode(Sha256::digest(&bytes)), FROZEN_SHA256, "tests/frozen/{FROZEN} was rebuilt or edited");
}

#[test]
fn a_frozen_0_1_0_component_runs_beside_0_2_0_ones_in_one_session() {
    let s = session();
    s.install_plugin(&frozen().display().to_string());
    s.install_plugin(fixtures::PROCESS_PROBE);
    write_policy(&s, "[grants.process-probe]\nfiles = [\".:read-write\"]\nprocesses = [\"echo\"]\n");
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(vec![
        call("echo", json!({ "text": "old contract" })),
        call("shout", json!({ "text": "old contract" })),
        call("echo", json!({ "text": "invalid" })),
        call("run_shell_command", json!({ "command": "echo new contract" })),
        call("spawn_probe", json!({ "argv": ["echo", "plugin"] })),
        call("read_file", json!({ "file_path": "note.txt" })),
    ]));
    mock.push_turn(Turn::text("done"));
    s.write("note.txt", "a built-in reads this");
    let done = s.airlock(&mock, &["-p", "both", "--approval-mode", "yolo"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let sent: Vec<String> = function_responses(&mock.requests()[1]).into_iter().map(|(_, text)| text).collect();
    assert_eq!(sent[0], "old contract");
    assert_eq!(sent[1], "OLD CONTRACT");
    assert!(sent[2].contains("text may not be 'invalid'"), "its validate runs: {}", sent[2]);
    assert!(sent[3].contains("new contract") && sent[3].contains("Exit Code: 0"), "{}", sent[3]);
    let probe: Value = serde_json::from_str(&sent[4]).unwrap_or_else(|e| panic!("{e}: {}", sent[4]));
    assert_eq!(probe["stdout"], "plugin\n");
    assert!(sent[5].contains("a built-in reads this"), "{}", sent[5]);
    // Its stdout and stderr never reach the terminal.
    assert!(!done.stdout.contains("echo_tools stdout") && !done.stderr.contains("echo_tools stderr"));
}
