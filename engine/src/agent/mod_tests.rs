//! Unit tests of `agent/mod.rs`.

use super::*;

fn call(id: &str) -> Part {
    Part::FunctionCall(FunctionCall { id: id.into(), name: "t".into(), arguments: "{}".into(), signature: None })
}

fn response(id: &str) -> Part {
    Part::FunctionResponse(FunctionResponse {
        id: id.into(),
        name: "t".into(),
        content: "ok".into(),
        is_error: false,
        media: Vec::new(),
    })
}

#[test]
fn calls_a_crash_left_unanswered_get_error_answers() {
    let prompt = Message { role: Role::User, parts: vec![Part::Text { text: "go".into() }] };
    let calls = Message { role: Role::Model, parts: vec![call("a"), call("b")] };
    assert_eq!(unanswered_calls(std::slice::from_ref(&prompt)), None);
    let answers = unanswered_calls(&[prompt.clone(), calls.clone()]).unwrap();
    assert_eq!(answers.role, Role::User);
    assert_eq!(answers.parts.len(), 2);
    let partly = Message { role: Role::User, parts: vec![response("a")] };
    let rest = unanswered_calls(&[prompt.clone(), calls.clone(), partly.clone()]).unwrap();
    assert!(matches!(&rest.parts[..], [Part::FunctionResponse(r)] if r.id == "b" && r.is_error));
    let whole = Message { role: Role::User, parts: vec![response("a"), response("b")] };
    assert_eq!(unanswered_calls(&[prompt, calls, whole]), None);
}
