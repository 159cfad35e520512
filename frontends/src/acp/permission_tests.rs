use agent_client_protocol::v1::schema::{RequestPermissionOutcome, SelectedPermissionOutcome};

use super::*;

fn selected(id: &str) -> RequestPermissionOutcome {
    RequestPermissionOutcome::Selected(SelectedPermissionOutcome::new(id.to_owned()))
}

fn is_refusal(answer: &Answer, why: &str) -> bool {
    matches!(answer, Answer::Refuse { message } if message.contains(why) && message.contains("nothing was changed"))
}

#[test]
fn only_an_offered_allow_option_runs_the_call() {
    assert_eq!(answer(&selected(ONCE), false), Answer::Once);
    assert_eq!(answer(&selected(ALWAYS), true), Answer::AlwaysForSession);
    // "always" where the question offered none is not taken as a wider yes.
    assert!(is_refusal(&answer(&selected(ALWAYS), false), "did not offer"));
    assert!(is_refusal(&answer(&selected(REJECT), true), "rejected"));
    assert!(is_refusal(&answer(&selected("allow_everything"), true), "did not offer"));
    assert!(is_refusal(&answer(&RequestPermissionOutcome::Cancelled, true), "cancelled"));
}
