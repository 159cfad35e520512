//! Approvals as `session/request_permission`: a call that needs a person's approval is put
//! to the client's user with the options allow once, allow always (for this session, in
//! the scope the engine decided and airlock's own dialog names) and reject. The tool call
//! in the request carries what airlock's dialog shows: the diff of an edit (as ACP `diff`
//! content and as text), the command line and each command it runs, the sandbox the call
//! gets if allowed (folders, network, environment, limits: its effective grant, with any
//! folder opened for this call only).
//!
//! Invariants: only the user's choice of an allow option runs the call; a reject, a
//! cancelled request, an unknown option or a client that cannot answer (gone, or erring)
//! refuses it, and the model is told so; "always" is offered only where the question
//! offers it.

use agent_client_protocol::Client;
use agent_client_protocol::v1::ConnectionTo;
use agent_client_protocol::v1::schema::{
    Content, PermissionOption, PermissionOptionKind, RequestPermissionOutcome, RequestPermissionRequest,
    ToolCallContent, ToolCallStatus, ToolCallUpdate, ToolCallUpdateFields,
};

use super::update;
use airlock_door::Question;
use airlock_protocol::{Answer, Confirm};

const ONCE: &str = "allow_once";
const ALWAYS: &str = "allow_always";
const REJECT: &str = "reject";

/// Asks the client's user about `question` in session `session_id`; the answer to give
/// the engine.
pub(super) async fn ask(cx: ConnectionTo<Client>, session_id: String, question: Question) -> Answer {
    let request = request(&session_id, &question);
    match cx.send_request(request).block_task().await {
        Ok(response) => answer(&response.outcome, question_always(&question)),
        Err(error) => {
            tracing::info!("a permission request got no answer: {error}");
            refused("the client could not ask its user")
        }
    }
}

/// The permission request for `question`.
pub(super) fn request(session_id: &str, question: &Question) -> RequestPermissionRequest {
    let wire = airlock_door::edge::question(question);
    let mut content = Vec::new();
    if let Confirm::Edit(change) = &wire.confirm {
        let original = (!change.is_new_file).then_some(change.original.as_str());
        content.push(update::diff(change.path.as_str(), original, change.proposed.as_str()));
    }
    let shown = crate::mcp::approval_text(&wire);
    content.push(ToolCallContent::Content(Content::new(update::text(shown))));
    let title = format!("{}: {}", wire.tool, wire.description);
    let fields = ToolCallUpdateFields::new().status(ToolCallStatus::Pending).title(title).content(content);
    let tool_call = ToolCallUpdate::new(wire.call_id.clone(), fields);
    let mut options = vec![PermissionOption::new(ONCE, "Allow once", PermissionOptionKind::AllowOnce)];
    if wire.always {
        let name = format!("Allow {} for this session", wire.scope);
        options.push(PermissionOption::new(ALWAYS, name, PermissionOptionKind::AllowAlways));
    }
    options.push(PermissionOption::new(REJECT, "Reject", PermissionOptionKind::RejectOnce));
    RequestPermissionRequest::new(session_id.to_owned(), tool_call, options)
}

fn question_always(question: &Question) -> bool {
    question.scope.offered()
}

/// The engine's answer for the client's outcome; "always" only when it was offered.
pub(super) fn answer(outcome: &RequestPermissionOutcome, always: bool) -> Answer {
    match outcome {
        RequestPermissionOutcome::Selected(selected) => match &*selected.option_id.0 {
            ONCE => Answer::Once,
            ALWAYS if always => Answer::AlwaysForSession,
            REJECT => refused("the user rejected it"),
            _ => refused("the client answered with an option airlock did not offer"),
        },
        RequestPermissionOutcome::Cancelled => refused("the user cancelled the question"),
        _ => refused("the client answered the question with nothing airlock knows"),
    }
}

fn refused(why: &str) -> Answer {
    Answer::Refuse {
        message: format!("{why}, so airlock did not run the call and nothing was changed. Do not retry it unasked."),
    }
}

#[cfg(test)]
#[path = "permission_tests.rs"]
mod tests;
