//! Issue 24 item 10: `kill -9` of airlock at random moments of a 5 MB `write_file` keeps the
//! file whole (its old content or the new one), and no temporary file of airlock's naming is
//! left in the workspace once airlock has started again.

use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use airlock_tests::{MockModel, Session, Turn, Wire, call};
use serde_json::json;

use super::{airlock, session, temporary_files};

/// Kills in the loop; half of them the moment the tool's temporary file has bytes in it
/// (surely mid-write), half at a random moment of the run.
const KILLS: usize = 40;
const SIZE: usize = 5 << 20;

/// 5 MB of text made of `line`.
fn content(line: &str) -> String {
    line.repeat(SIZE / line.len())
}

/// A small random number below `bound`, from the clock (no generator needed for spread).
fn random_below(bound: u64) -> u64 {
    let nanos = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.subsec_nanos());
    u64::from(nanos) % bound.max(1)
}

/// Scripts a model that writes `text` to `big.txt`.
fn script(mock: &MockModel, text: &str) {
    mock.push_turn(Turn::calls(vec![call("write_file", json!({"file_path": "big.txt", "content": text}))]));
    mock.push_turn(Turn::text("written"));
}

/// Starts a headless run whose model writes `text` to `big.txt`.
fn start(s: &Session, mock: &MockModel, text: &str) -> Child {
    script(mock, text);
    let mut command = s.command(mock);
    command.args(["-p", "write it", "--approval-mode", "yolo"]).stdout(Stdio::null()).stderr(Stdio::null());
    command.spawn().unwrap_or_else(|e| panic!("cannot run airlock: {e}"))
}

/// Whether a temporary file with bytes in it is in the workspace now.
fn mid_write(s: &Session) -> bool {
    std::fs::read_dir(&s.workspace).into_iter().flatten().flatten().any(|entry| {
        entry.file_name().to_string_lossy().contains(".airlock-") && entry.metadata().is_ok_and(|m| m.len() > 0)
    })
}

#[test]
fn kill_9_mid_write_keeps_every_file_whole_and_the_next_start_leaves_no_temporary_file() {
    let s = session();
    let versions = [content("old old old old\n"), content("first version!!\n"), content("second version.\n")];
    s.write("big.txt", &versions[0]);
    // How long one whole run takes here, for the random kills.
    let started = Instant::now();
    let mock = MockModel::start(Wire::OpenAi);
    script(&mock, &versions[1]);
    let whole = s.airlock(&mock, &["-p", "write it", "--approval-mode", "yolo"]);
    assert_eq!(whole.code, Some(0), "a whole run failed: {}", whole.stderr);
    let whole_run = started.elapsed();
    assert_eq!(s.read("big.txt").as_deref(), Some(versions[1].as_str()));

    let mut left_behind = 0;
    let mut killed_mid_write = 0;
    for round in 0..KILLS {
        let mock = MockModel::start(Wire::OpenAi);
        let mut child = start(&s, &mock, &versions[1 + round % 2]);
        let launched = Instant::now();
        if round % 2 == 0 {
            // The moment the tool's temporary file has bytes.
            while launched.elapsed() < whole_run * 4 && !mid_write(&s) {
                if child.try_wait().ok().flatten().is_some() {
                    break;
                }
                std::thread::sleep(Duration::from_micros(200));
            }
            killed_mid_write += usize::from(mid_write(&s));
        } else {
            let at = Duration::from_millis(random_below(whole_run.as_millis() as u64));
            std::thread::sleep(at);
        }
        let _ = child.kill();
        let _ = child.wait();
        let now = s.read("big.txt").unwrap_or_default();
        assert!(versions.contains(&now), "round {round}: big.txt is not whole ({} bytes)", now.len());
        left_behind = left_behind.max(temporary_files(&s.workspace).len());
    }
    assert!(killed_mid_write >= KILLS / 4, "only {killed_mid_write} kills landed mid-write");
    assert!(left_behind > 0, "no kill left a temporary file: the test did not test anything");

    // The next start of airlock, whatever it does, removes them.
    let started_again = airlock(&s, &["tools", "list"]);
    assert_eq!(started_again.code, Some(0), "{}", started_again.stderr);
    assert_eq!(temporary_files(&s.workspace), Vec::<String>::new());
    let journals = super::names_below(&s.airlock_home().join("journal"));
    assert!(journals.len() <= 1, "journals of dead runs stay: {journals:?}");
}
