//! Loop detection's cost, (l): the detector runs on every streamed piece of every answer, so
//! this streams the ordinary answers of the loop corpus (`src/agent/loop_detect/corpus/`)
//! through `ContentRepeats` in pieces of 4, 16, 64 and 256 bytes (a token is about 4), a
//! fresh detector per answer as in a turn, and reports the time per piece and per byte. Then
//! the same for one long answer (all the corpus in one, 320 KB), to show the cost does not
//! grow with the answer, and the cost of a fresh detector.
//!
//! `cargo bench -p airlock --bench loop_detect`; `AIRLOCK_BENCH_RUNS` sets the timed passes
//! (default 30, after 3 untimed ones).

#![allow(
    clippy::print_stdout,
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "a benchmark is a test program: it prints its report and stops loudly on a broken setup"
)]

mod support;

use std::hint::black_box;
use std::path::Path;
use std::time::Duration;

use airlock_engine::agent::loop_detect::ContentRepeats;
use support::{Summary, count_from_env, header, report, sample};

fn main() {
    let runs = count_from_env("AIRLOCK_BENCH_RUNS", 30);
    header("loop detection (release library, in process)", &format!("{runs} timed passes after 3"));
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("src/agent/loop_detect/corpus/answers");
    let mut answers: Vec<String> = std::fs::read_dir(&dir)
        .expect("the corpus")
        .map(|entry| std::fs::read_to_string(entry.expect("an entry").path()).expect("an answer"))
        .collect();
    answers.sort();
    let bytes: usize = answers.iter().map(String::len).sum();
    println!("{} answers, {bytes} bytes", answers.len());
    for size in [4, 16, 64, 256] {
        let streamed: Vec<Vec<&str>> = answers.iter().map(|a| pieces(a, size)).collect();
        let count: usize = streamed.iter().map(Vec::len).sum();
        let passes = sample(3, runs, || {
            for pieces in &streamed {
                let mut repeats = ContentRepeats::default();
                for piece in pieces {
                    assert!(black_box(repeats.push(piece)).is_none());
                }
            }
        });
        report(&format!("per piece of {size} bytes ({count} pieces a pass)"), &per(&passes, count));
        report(&format!("  per byte, in pieces of {size}"), &per(&passes, bytes));
    }
    let long = answers.concat();
    let streamed = pieces(&long, 16);
    let passes = sample(3, runs, || {
        let mut repeats = ContentRepeats::default();
        for piece in &streamed {
            assert!(black_box(repeats.push(piece)).is_none());
        }
    });
    report(&format!("one {} KB answer, per piece of 16 bytes", long.len() / 1000), &per(&passes, streamed.len()));
    let fresh = sample(100, runs * 100, || drop(black_box(ContentRepeats::default())));
    report("a fresh detector (one per model response)", &Summary::of(&fresh));
}

/// `text` in pieces of about `size` bytes, cut at character boundaries.
fn pieces(text: &str, size: usize) -> Vec<&str> {
    let mut pieces = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let end = rest.ceil_char_boundary(size.min(rest.len()));
        pieces.push(&rest[..end]);
        rest = &rest[end..];
    }
    pieces
}

/// Each pass's time divided by `count`.
fn per(passes: &[Duration], count: usize) -> Summary {
    let count = u32::try_from(count).expect("a count that fits");
    Summary::of(&passes.iter().map(|pass| *pass / count).collect::<Vec<_>>())
}
