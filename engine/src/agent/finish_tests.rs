//! Unit tests of `finish.rs`.

use super::*;

const NOTHING: Brought = Brought { text: false, calls: false, earlier: false };
const TEXT: Brought = Brought { text: true, calls: false, earlier: false };
const CALLS: Brought = Brought { text: false, calls: true, earlier: false };
const AFTER_TOOLS: Brought = Brought { text: false, calls: false, earlier: true };

fn warned(verdict: &Verdict, word: &str) -> bool {
    matches!(verdict, Verdict::Accept { warning: Some(w) } if w.contains(word))
}

#[test]
fn a_normal_end_is_accepted_unless_the_whole_run_brought_nothing() {
    assert_eq!(judge(Stop::Normal, "STOP", TEXT), Verdict::Accept { warning: None });
    assert_eq!(judge(Stop::Normal, "tool_calls", CALLS), Verdict::Accept { warning: None });
    assert!(warned(&judge(Stop::Normal, "end_turn", AFTER_TOOLS), "no final answer"));
    assert_eq!(judge(Stop::Normal, "STOP", NOTHING), Verdict::Fail(Unusable::Empty { reason: "STOP".into() }));
}

#[test]
fn the_token_limit_keeps_text_with_a_warning_and_fails_without_or_with_a_cut_call() {
    assert!(warned(&judge(Stop::MaxTokens, "MAX_TOKENS", TEXT), "MAX_TOKENS"));
    let cut = judge(Stop::MaxTokens, "max_tokens", Brought { text: true, calls: true, earlier: true });
    assert_eq!(cut, Verdict::Fail(Unusable::Cut { reason: "max_tokens".into(), with_calls: true }));
    let empty = judge(Stop::MaxTokens, "length", AFTER_TOOLS);
    assert_eq!(empty, Verdict::Fail(Unusable::Cut { reason: "length".into(), with_calls: false }));
}

#[test]
fn blocked_answers_always_fail_and_name_the_reason() {
    for brought in [NOTHING, TEXT, CALLS, AFTER_TOOLS] {
        let verdict = judge(Stop::Blocked, "SAFETY", brought);
        assert_eq!(verdict, Verdict::Fail(Unusable::Blocked { reason: "SAFETY".into() }));
    }
    let message = Unusable::Blocked { reason: "refusal".into() }.to_string();
    assert!(message.contains("(refusal)") && message.contains("rephrase"), "{message}");
}

#[test]
fn a_paused_turn_continues_and_an_unknown_end_warns_or_fails() {
    assert_eq!(judge(Stop::Paused, "pause_turn", TEXT), Verdict::Continue);
    assert_eq!(judge(Stop::Paused, "pause_turn", CALLS), Verdict::Accept { warning: None });
    assert!(warned(&judge(Stop::Unknown, "OTHER", TEXT), "(OTHER)"));
    let verdict = judge(Stop::Unknown, "FINISH_REASON_UNSPECIFIED", AFTER_TOOLS);
    assert_eq!(verdict, Verdict::Fail(Unusable::Empty { reason: "FINISH_REASON_UNSPECIFIED".into() }));
}
