//! Unit tests of `loop_detect.rs`.

use super::*;

fn call(name: &str, arguments: &str) -> FunctionCall {
    FunctionCall { id: "x".into(), name: name.into(), arguments: arguments.into(), signature: None }
}

#[test]
fn five_identical_calls_in_a_row_are_a_loop_whatever_the_key_order() {
    let mut repeats = CallRepeats::default();
    for _ in 0..2 {
        assert_eq!(repeats.observe(&call("read_file", r#"{"a":1,"b":{"c":2,"d":3}}"#)), None);
        assert_eq!(repeats.observe(&call("read_file", r#"{"b":{"d":3,"c":2},"a":1}"#)), None);
    }
    assert_eq!(
        repeats.observe(&call("read_file", r#"{ "a": 1, "b": {"c": 2, "d": 3} }"#)),
        Some(Repetition::Call { name: "read_file".into(), count: 5 })
    );
}

#[test]
fn a_different_call_in_between_restarts_the_count() {
    let mut repeats = CallRepeats::default();
    for round in 0..3 {
        for _ in 0..4 {
            assert_eq!(repeats.observe(&call("glob", r#"{"pattern":"*"}"#)), None, "round {round}");
        }
        assert_eq!(repeats.observe(&call("glob", r#"{"pattern":"*.rs"}"#)), None);
    }
    for _ in 0..4 {
        repeats.observe(&call("grep", "not json"));
    }
    repeats.reset();
    assert_eq!(repeats.observe(&call("grep", "not json")), None);
}

#[test]
fn chanting_is_a_loop_even_when_streamed_in_odd_pieces() {
    let sentence = "I will now read the file again to be completely sure. ";
    let answer = sentence.repeat(12);
    let mut repeats = ContentRepeats::default();
    let found = answer.as_bytes().chunks(7).find_map(|piece| repeats.push(std::str::from_utf8(piece).unwrap()));
    assert!(
        matches!(found, Some(Repetition::Content { copies, unit: 54, counting: false, kept: 54 }) if copies >= Thresholds::DEFAULT.min_copies),
        "{found:?}"
    );
}

#[test]
fn varied_text_and_repeated_code_are_not_loops() {
    let mut repeats = ContentRepeats::default();
    for n in 0..30 {
        assert_eq!(repeats.push(&format!("Step {n}: looked at file number {n} and found nothing odd. ")), None);
    }
    let mut repeats = ContentRepeats::default();
    let code =
        format!("```rust\n{}```\nDone.", "assert_eq!(parse(\"some input here\"), Ok(expected_value));\n".repeat(20));
    assert_eq!(repeats.push(&code), None);
}

#[test]
fn a_passage_repeating_with_only_a_counter_changing_is_a_loop_once_long_enough() {
    let mut repeats = ContentRepeats::default();
    let found =
        (0..400).find_map(|n| repeats.push(&format!("Step {n}: looked at file number {n} and found nothing odd. ")));
    let Some(Repetition::Content { copies, unit, counting: true, kept }) = found else { panic!("{found:?}") };
    let Thresholds { counting_copies, counting_span, .. } = Thresholds::DEFAULT;
    assert!(
        copies >= counting_copies && copies <= counting_span / unit + 1,
        "caught once long enough: {copies} x {unit}"
    );
    assert_eq!(kept, "Step 0: looked at file number 0 and found nothing odd. ".len(), "the history keeps step 0");
}

#[test]
fn repeats_far_apart_are_not_a_loop() {
    let mut repeats = ContentRepeats::default();
    let refrain = "This paragraph ends with the very same closing words. ";
    for n in 0..12 {
        let filler: String = (0..40).map(|i| format!("w{n}x{i} ")).collect();
        assert_eq!(repeats.push(&format!("{filler}{refrain}")), None);
    }
}

#[test]
fn descriptions_and_nudges_name_the_repetition() {
    let call = Repetition::Call { name: "read_file".into(), count: 5 };
    assert!(call.describe().contains("`read_file`") && call.describe().contains("5 times"));
    assert!(call.nudge().starts_with("[airlock] Loop detected") && call.nudge().contains("not run"));
    let content = Repetition::Content { copies: 12, unit: 55, counting: false, kept: 55 };
    assert!(content.describe().contains("55-byte passage 12 times in a row"), "{}", content.describe());
    assert!(content.nudge().contains("cut off"));
    let counting = Repetition::Content { copies: 40, unit: 30, counting: true, kept: 30 };
    assert!(counting.describe().contains("only its numbers changing"), "{}", counting.describe());
}
