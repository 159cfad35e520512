//! Unit tests of `compress.rs`.

use super::*;
use airlock_model::{FunctionCall, FunctionResponse};

fn prompt(text: &str) -> Message {
    Message { role: Role::User, parts: vec![Part::Text { text: text.into() }] }
}

fn answer(text: &str) -> Message {
    Message { role: Role::Model, parts: vec![Part::Text { text: text.into() }] }
}

fn call(id: &str, size: usize) -> [Message; 2] {
    [
        Message {
            role: Role::Model,
            parts: vec![Part::FunctionCall(FunctionCall {
                id: id.into(),
                name: "read_file".into(),
                arguments: "{}".into(),
                signature: None,
            })],
        },
        Message {
            role: Role::User,
            parts: vec![Part::FunctionResponse(FunctionResponse {
                id: id.into(),
                name: "read_file".into(),
                content: "x".repeat(size),
                is_error: false,
                media: Vec::new(),
            })],
        },
    ]
}

/// prompt, call+result (big), answer, prompt, call+result (small), answer, prompt.
fn two_prompts_and_a_third() -> Vec<Message> {
    let mut history = vec![prompt("first")];
    history.extend(call("a", 4000));
    history.push(answer("done a"));
    history.push(prompt("second"));
    history.extend(call("b", 40));
    history.push(answer("done b"));
    history.push(prompt("third"));
    history
}

#[test]
fn the_tail_starts_at_the_earliest_prompt_that_fits() {
    let history = two_prompts_and_a_third();
    assert_eq!(split_point(&history, 100), Some(4));
    assert_eq!(split_point(&history, 10), Some(8));
    assert_eq!(split_point(&history, 10_000), Some(4), "the first prompt starts nothing: index 0");
}

#[test]
fn a_long_tool_loop_splits_before_a_model_message_never_inside_a_pair() {
    let mut history = vec![prompt("one long task")];
    for n in 0..6 {
        history.extend(call(&format!("c{n}"), 400));
    }
    let split = split_point(&history, 250).unwrap();
    assert_eq!(history[split].role, Role::Model);
    assert_eq!(split, 9, "the last two pairs fit in 250 tokens");
    assert!(tokens(&history[split..]) <= 250);
    assert_eq!(split_point(&history, 1), Some(11), "the last pair is the least that is kept");
}

#[test]
fn nothing_to_compress_in_a_lone_prompt_or_a_lone_summary() {
    assert_eq!(split_point(&[prompt("x".repeat(10_000).as_str())], 10), None);
    assert_eq!(split_point(&[], 10), None);
    let mut history = vec![prompt(&format!("{SUMMARY_PREFIX}\n\nearlier work"))];
    history.extend(call("big", 40_000));
    assert_eq!(split_point(&history, 10), None, "re-summarising the summary alone gains nothing");
    history.insert(1, prompt("a prompt after the summary"));
    assert_eq!(split_point(&history, 10), Some(2));
}

#[test]
fn splits_never_start_at_function_responses() {
    let history = two_prompts_and_a_third();
    for keep in [0, 5, 20, 50, 100, 500, 1_000, 2_000] {
        if let Some(split) = split_point(&history, keep) {
            assert!(split > 0);
            let first = &history[split];
            assert!(!first.parts.iter().any(|p| matches!(p, Part::FunctionResponse(_))), "keep {keep}");
        }
    }
}

#[test]
fn transcripts_cut_long_results_and_the_middle_of_long_histories() {
    let history = two_prompts_and_a_third();
    let text = transcript(&history, 100_000);
    assert!(text.starts_with("[user]\nfirst\n\n[agent calls read_file] {}\n\n[result of read_file]\nxxx"));
    assert!(text.contains("… [2000 more characters]"), "{text}");
    assert!(text.ends_with("[user]\nthird\n\n"));
    let short = transcript(&history, 600);
    assert!(short.len() < 700, "{}", short.len());
    assert!(short.starts_with("[user]\nfirst") && short.ends_with("[user]\nthird\n\n"));
    assert!(short.contains("characters left out"));
}

#[test]
fn estimates_count_four_characters_a_token() {
    assert_eq!(text_tokens("abcdefgh"), 2);
    assert_eq!(text_tokens("abcdefghi"), 3);
    assert_eq!(message_tokens(&prompt("abcdefgh")), MESSAGE_OVERHEAD + 2);
}
