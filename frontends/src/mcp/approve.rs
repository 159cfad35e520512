//! Approvals for an MCP client: a call that needs a person's approval is put to the
//! client's user as a form elicitation showing what airlock's own confirmation shows (the
//! diff, the command, the sandbox the call gets), with a choice of once, always for this
//! session, or no. Where the client cannot ask (it declared no elicitation), the call is
//! refused with a message naming the approval mode or the `[[rule]]` that would allow it.
//!
//! Invariants: only the client's user's explicit "once" or "session" runs a call; a
//! declined, cancelled, malformed or missing answer is a refusal; "session" is offered only
//! where the question offers "always", and its scope is the question's own, decided by
//! the engine, never by the client.

use std::collections::BTreeMap;

use airlock_door::Question;
use airlock_protocol::{ApprovalMode, Confirm, Shown};
use rmcp::model::{ElicitRequestParams, ElicitationAction, ElicitationSchema, EnumSchema, PrimitiveSchemaDefinition};

/// The one field of the approval form.
pub(super) const FIELD: &str = "decision";
const ONCE: &str = "once";
const SESSION: &str = "session";
const NO: &str = "no";

/// Most characters of a diff or command shown in the form (a client shows it as text).
const MAX_SHOWN: usize = 16_000;

/// The form put to the client's user for `question`.
pub(super) fn form(question: &Question) -> ElicitRequestParams {
    let wire = airlock_door::edge::question(question);
    let mut choices = vec![ONCE.to_owned()];
    if wire.always {
        choices.push(SESSION.to_owned());
    }
    choices.push(NO.to_owned());
    let mut titles = vec!["Allow once".to_owned()];
    if wire.always {
        titles.push(format!("Allow {} for this session", wire.scope));
    }
    titles.push("No".to_owned());
    let choice = EnumSchema::builder(choices).description("Allow this call?");
    let choice = match choice.enum_titles(titles) {
        Ok(titled) => titled.build(),
        Err(_) => EnumSchema::builder(vec![ONCE.into(), NO.into()]).build(),
    };
    let mut requested_schema =
        ElicitationSchema::new(BTreeMap::from([(FIELD.to_owned(), PrimitiveSchemaDefinition::Enum(choice))]));
    requested_schema.required = Some(vec![FIELD.to_owned()]);
    requested_schema.title = Some("airlock: approve a tool call".into());
    ElicitRequestParams::FormElicitationParams { meta: None, message: message(&wire), requested_schema }
}

/// What the confirmation shows, as text (the ACP front end's permission requests show it too).
pub(crate) fn message(question: &airlock_protocol::Question) -> String {
    let mut text = format!("airlock asks before `{}` runs: {}\n", question.tool, question.description);
    match &question.confirm {
        Confirm::Edit(change) => {
            let verb = if change.is_new_file { "create" } else { "change" };
            text.push_str(&format!("\nIt would {verb} {}:\n", change.path));
            text.push_str(&cut(&crate::diff::unified(&change.path, &change.original, &change.proposed)));
        }
        Confirm::Exec { command, directory, commands, warnings, .. } => {
            text.push_str(&format!("\nIt would run, in {directory}:\n{}\n", cut(command)));
            for row in commands {
                text.push_str(&format!("- {} ({:?}: {})\n", row.text, row.risk, row.why));
            }
            for warning in warnings {
                text.push_str(&format!("Note: {warning}\n"));
            }
        }
        Confirm::Info { prompt, urls } => {
            text.push_str(&format!("\n{prompt}\n"));
            for url in urls {
                text.push_str(&format!("- {url}\n"));
            }
        }
    }
    text.push_str("\nIts sandbox if allowed:\n");
    let sandbox = &question.sandbox;
    for folder in &sandbox.folders {
        let access = if folder.writable { "read-write" } else { "read" };
        text.push_str(&format!("- {access} {}\n", folder.path));
    }
    for rule in &sandbox.network {
        text.push_str(&format!("- network {rule}\n"));
    }
    for var in &sandbox.env {
        text.push_str(&format!("- env {var}\n"));
    }
    if let Some(commands) = &sandbox.commands {
        text.push_str(&format!("- {commands}\n"));
    }
    text.push_str(&format!(
        "- at most {} MiB of memory, {} s, {} bytes of output\n",
        sandbox.memory_mb, sandbox.timeout_secs, sandbox.output_bytes
    ));
    Shown::block(&text).into_string()
}

fn cut(text: &str) -> String {
    match text.char_indices().nth(MAX_SHOWN) {
        Some((at, _)) => format!("{}\n… (cut at {MAX_SHOWN} characters)\n", &text[..at]),
        None => text.to_owned(),
    }
}

/// The answer an elicitation's result gives: accept with `once` or `session` runs the call,
/// anything else refuses it.
pub(super) fn answer(action: &ElicitationAction, content: Option<&serde_json::Value>) -> airlock_protocol::Answer {
    use airlock_protocol::Answer;
    let choice = content.and_then(|c| c.get(FIELD)).and_then(serde_json::Value::as_str);
    match (action, choice) {
        (ElicitationAction::Accept, Some(ONCE)) => Answer::Once,
        (ElicitationAction::Accept, Some(SESSION)) => Answer::AlwaysForSession,
        (ElicitationAction::Accept, _) => refused("the user did not allow it"),
        (ElicitationAction::Decline, _) => refused("the user declined it"),
        (ElicitationAction::Cancel, _) => refused("the user cancelled the question"),
        _ => refused("the client answered the question with nothing airlock knows"),
    }
}

fn refused(why: &str) -> airlock_protocol::Answer {
    airlock_protocol::Answer::Refuse {
        message: format!("{why}, so airlock did not run the call and nothing was changed. Do not retry it unasked."),
    }
}

/// The refusal when the client cannot ask its user: what would allow the call.
pub(super) fn no_one_to_ask(question: &Question, mode: ApprovalMode) -> String {
    let wire = airlock_door::edge::question(question);
    let tool = wire.tool.as_str();
    let flag = match &wire.confirm {
        Confirm::Edit(_) => "`--approval-mode auto-edit` (or `yolo`)",
        _ => "`--approval-mode yolo`",
    };
    let rule = match &wire.confirm {
        Confirm::Exec { root_command, .. } if !root_command.is_empty() => {
            format!("[[rule]] tool = \"{tool}\" command = \"{root_command}\" decision = \"allow\"")
        }
        _ => format!("[[rule]] tool = \"{tool}\" decision = \"allow\""),
    };
    format!(
        "`{tool}` needs a person's approval (approval mode {}), and this MCP client cannot ask its user \
         (it declared no elicitation), so airlock refused the call and nothing was changed. To allow it, \
         start `airlock mcp serve` with {flag}, or add `{rule}` to your policy.toml ($AIRLOCK_HOME/policy.toml, ~/.airlock by default), or use a client \
         that supports elicitation.",
        mode.as_str(),
    )
}
