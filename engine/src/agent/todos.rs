//! The model's plan: the list a successful call of the built-in `write_todos` set. The
//! component holds nothing between calls (instances are fresh per call), so the agent keeps
//! the latest list for the session, records it in the session file and reports it as an
//! event; a resumed session gets its latest recorded list back.
//!
//! Only the built-in's calls count (a plugin cannot take the name: built-in names are
//! reserved), and only after it accepted the arguments; the list is read again here from
//! the same arguments, bounded, so what the user is shown is what the tool checked.

use serde::Deserialize;

use crate::events::Todo;
use crate::scheduler::CompletedCall;

/// The built-in tool whose calls set the plan.
pub const TOOL: &str = "write_todos";
/// Most steps kept (the tool refuses more).
const MAX_ITEMS: usize = 50;
/// Longest description kept, in characters.
const MAX_DESCRIPTION: usize = 500;

#[derive(Deserialize)]
struct Args {
    todos: Vec<Todo>,
}

/// The plan `call` set, when it is a successful call of the built-in `write_todos`.
pub(super) fn from_call(call: &CompletedCall, builtin: bool) -> Option<Vec<Todo>> {
    if !builtin || call.call.name != TOOL || call.result.is_err() {
        return None;
    }
    let args: Args = serde_json::from_str(&call.call.arguments).ok()?;
    bounded(args.todos)
}

/// A plan read back from a session file.
pub(super) fn from_record(value: serde_json::Value) -> Option<Vec<Todo>> {
    serde_json::from_value(value).ok().and_then(bounded)
}

fn bounded(todos: Vec<Todo>) -> Option<Vec<Todo>> {
    if todos.len() > MAX_ITEMS {
        return None;
    }
    Some(
        todos
            .into_iter()
            .map(|todo| {
                let description = todo.description.trim();
                let description = match description.char_indices().nth(MAX_DESCRIPTION) {
                    Some((at, _)) => format!("{}…", &description[..at]),
                    None => description.to_string(),
                };
                Todo { description, status: todo.status }
            })
            .collect(),
    )
}
