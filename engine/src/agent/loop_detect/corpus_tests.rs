//! The loop corpus (`corpus/`, its README says where each group comes from), streamed
//! through the detector the way providers stream: ordinary answers are never stopped, real
//! loops always are, whatever the chunking; and sequences of tool calls.

use std::path::{Path, PathBuf};

use super::period::Tail;
use super::*;
use airlock_model::FunctionCall;

fn corpus(group: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src/agent/loop_detect/corpus").join(group)
}

/// Every file of `dir` with its text, by name.
fn files(dir: &Path) -> Vec<(String, String)> {
    let mut files: Vec<(String, String)> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| {
            let path = entry.unwrap().path();
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            (path.file_name().unwrap().to_string_lossy().into_owned(), text)
        })
        .filter(|(name, _)| name != "README.md")
        .collect();
    files.sort();
    files
}

/// `text` cut into pieces of `size` characters (the last one shorter).
fn pieces_of(text: &str, size: usize) -> Vec<&str> {
    let mut pieces = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        let end = rest.char_indices().nth(size).map_or(rest.len(), |(at, _)| at);
        pieces.push(&rest[..end]);
        rest = &rest[end..];
    }
    pieces
}

/// `text` cut into pieces of 1 to 40 characters, varying as a provider's deltas do.
fn varying_pieces(text: &str) -> Vec<&str> {
    let mut state = 0x9e37_79b9_u32 ^ text.len() as u32;
    let mut pieces = Vec::new();
    let mut rest = text;
    while !rest.is_empty() {
        state ^= state << 13;
        state ^= state >> 17;
        state ^= state << 5;
        let size = 1 + (state % 40) as usize;
        let end = rest.char_indices().nth(size).map_or(rest.len(), |(at, _)| at);
        pieces.push(&rest[..end]);
        rest = &rest[end..];
    }
    pieces
}

/// The chunkings every text is streamed in: one character at a time, token-sized pieces
/// (OpenAI, Anthropic), larger ones (Gemini), the whole answer at once, and a varying size.
fn chunkings(text: &str) -> Vec<(String, Vec<&str>)> {
    let mut chunkings: Vec<(String, Vec<&str>)> =
        [1, 3, 7, 16, 64, 512].into_iter().map(|size| (format!("{size} chars"), pieces_of(text, size))).collect();
    chunkings.push(("whole".into(), vec![text]));
    chunkings.push(("1-40 chars".into(), varying_pieces(text)));
    chunkings
}

/// What the detector makes of `pieces`: the loop and the bytes streamed when it was found.
fn stream(pieces: &[&str]) -> Option<(Repetition, usize)> {
    let mut repeats = ContentRepeats::default();
    let mut streamed = 0;
    for piece in pieces {
        streamed += piece.len();
        if let Some(found) = repeats.push(piece) {
            return Some((found, streamed));
        }
    }
    None
}

/// How close `text` comes to each rule of [`Thresholds::DEFAULT`] at its closest point:
/// for the exact repetition in prose, the one inside blocks or of short units, and the
/// counting one, the largest share of the needed copies and bytes it reaches at once
/// (1.0 or more is a stop).
fn closeness(text: &str) -> [f64; 3] {
    let t = Thresholds::DEFAULT;
    let share = |tail: &Tail, copies: usize, span: usize| {
        (tail.copies() as f64 / copies as f64).min(tail.span as f64 / span as f64)
    };
    let mut repeats = ContentRepeats::default();
    let mut closest = [0.0f64; 3];
    for &byte in text.as_bytes() {
        let (exact, folded) = repeats.step(byte, 1, 1);
        if let Some(tail) = exact {
            let block = tail.structured || tail.unit < t.short_unit;
            let (rule, span) = if block { (1, t.block_span) } else { (0, t.prose_span) };
            closest[rule] = closest[rule].max(share(&tail, t.min_copies, span));
        }
        if let Some(tail) = folded.filter(|tail| !tail.structured) {
            closest[2] = closest[2].max(share(&tail, t.counting_copies, t.counting_span));
        }
    }
    closest
}

/// The rules [`closeness`] measures, by name.
const RULES: [&str; 3] = ["exact, in prose", "exact, in blocks or of short units", "numbers changing, in prose"];

/// For each rule, the answers by how close they come to it, closest first.
fn closest_per_rule(answers: &[(String, String)]) -> [Vec<(f64, String)>; 3] {
    let mut per_rule: [Vec<(f64, String)>; 3] = Default::default();
    for (name, text) in answers {
        for (rule, share) in closeness(text).into_iter().enumerate() {
            per_rule[rule].push((share, name.clone()));
        }
    }
    for list in &mut per_rule {
        list.sort_by(|a, b| b.0.total_cmp(&a.0));
    }
    per_rule
}

fn print_closest(per_rule: &[Vec<(f64, String)>; 3]) {
    for (rule, list) in RULES.iter().zip(per_rule) {
        println!("{rule}:");
        for (share, name) in list.iter().take(5) {
            println!("  {:5.1}%  {name}", share * 100.0);
        }
    }
}

/// The most of a rule's thresholds an ordinary answer of the corpus may reach.
const MARGIN: f64 = 0.67;

#[test]
fn no_ordinary_answer_of_the_corpus_is_stopped_whatever_the_chunking() {
    let answers = files(&corpus("answers"));
    assert!(answers.len() >= 200, "the corpus has {} answers", answers.len());
    let mut false_stops = Vec::new();
    for (name, text) in &answers {
        for (chunking, pieces) in chunkings(text) {
            if let Some((found, at)) = stream(&pieces) {
                false_stops.push(format!("{name} ({chunking}): {} at byte {at}", found.describe()));
            }
        }
    }
    assert!(false_stops.is_empty(), "false stops:\n{}", false_stops.join("\n"));
}

#[test]
fn ordinary_answers_stay_clear_of_the_thresholds() {
    // `--nocapture` prints the answers that come closest to each rule.
    let per_rule = closest_per_rule(&files(&corpus("answers")));
    print_closest(&per_rule);
    for (rule, list) in RULES.iter().zip(&per_rule) {
        let (share, name) = &list[0];
        assert!(*share < MARGIN, "{name} comes within {:.0}% of the rule \"{rule}\"", share * 100.0);
    }
}

#[test]
fn every_real_loop_of_the_corpus_is_caught_whatever_the_chunking() {
    let loops = files(&corpus("loops"));
    assert!(loops.len() >= 20, "the corpus has {} loops", loops.len());
    for (name, text) in &loops {
        for (chunking, pieces) in chunkings(text) {
            let Some((found, at)) = stream(&pieces) else {
                panic!("{name} ({chunking}): the loop was not caught");
            };
            let Repetition::Content { kept, .. } = found else { panic!("{name}: {found:?}") };
            assert!(kept < at && at <= text.len(), "{name} ({chunking}): kept {kept} of {at} streamed");
            if chunking == "1 chars" {
                println!("{name}: stopped at byte {at} of {}, {} kept: {}", text.len(), kept, found.describe());
            }
        }
    }
}

#[test]
fn the_loops_that_number_their_copies_are_told_apart() {
    for (name, text) in files(&corpus("loops")) {
        let Some((Repetition::Content { counting, .. }, _)) = stream(&[&text]) else {
            panic!("{name}: not caught");
        };
        assert_eq!(counting, name.starts_with("counting-"), "{name}");
    }
}

/// The calls of a file of `calls/`, one JSON object per line: `name`, and `arguments` as
/// an object or as the raw text a model sent.
fn calls_of(text: &str) -> Vec<FunctionCall> {
    text.lines()
        .map(|line| {
            let call: serde_json::Value = serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"));
            let arguments = match &call["arguments"] {
                serde_json::Value::String(raw) => raw.clone(),
                other => other.to_string(),
            };
            FunctionCall { id: "c".into(), name: call["name"].as_str().unwrap().to_owned(), arguments, signature: None }
        })
        .collect()
}

#[test]
fn call_sequences_are_loops_only_when_the_same_call_comes_back_to_back() {
    let sequences = files(&corpus("calls"));
    assert!(sequences.len() >= 10, "{}", sequences.len());
    for (name, text) in sequences {
        let mut repeats = CallRepeats::default();
        let found = calls_of(&text).iter().find_map(|call| repeats.observe(call));
        assert_eq!(found.is_some(), name.starts_with("loop-"), "{name}: {found:?}");
    }
}

/// Answers the corpus does not hold, from a folder named by `AIRLOCK_LOOP_TRANSCRIPTS`, one
/// answer per file (the corpus README says how published transcripts were split): none is
/// stopped, except the files whose name holds `.loop.`, which must be.
/// `cargo test -p airlock --lib loop_detect::corpus_tests -- --ignored --nocapture`.
#[test]
#[ignore = "reads answers from the folder named by AIRLOCK_LOOP_TRANSCRIPTS"]
fn answers_from_a_folder_are_not_stopped() {
    let dir = std::env::var_os("AIRLOCK_LOOP_TRANSCRIPTS").expect("AIRLOCK_LOOP_TRANSCRIPTS names a folder");
    let answers = files(Path::new(&dir));
    let bytes: usize = answers.iter().map(|(_, text)| text.len()).sum();
    let caught = |text: &str| stream(&[text]).map(|(found, _)| found);
    let (loops, ordinary): (Vec<_>, Vec<_>) = answers.into_iter().partition(|(name, _)| name.contains(".loop."));
    println!("{} answers, {bytes} bytes, {} of them marked `.loop.`", loops.len() + ordinary.len(), loops.len());
    print_closest(&closest_per_rule(&ordinary));
    let stops: Vec<_> = ordinary.iter().filter_map(|(name, text)| Some((name, caught(text)?))).collect();
    assert!(stops.is_empty(), "false stops: {stops:#?}");
    for (name, text) in &loops {
        let found = caught(text).unwrap_or_else(|| panic!("{name}: not caught"));
        println!("{name}: {}", found.describe());
    }
}
