//! `write_todos`: the model's plan for the task, as a list of items with a status. The
//! component holds nothing and touches nothing: it checks the list and says it back. The
//! host keeps the latest list of the session (instances are fresh per call), records it in
//! the session file and shows it to the user.

use airlock_plugin_sdk::prelude::*;

/// Most items in one plan.
const MAX_ITEMS: usize = 50;
/// Longest description of one item, in characters.
const MAX_DESCRIPTION: usize = 500;

#[derive(Deserialize, JsonSchema, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
enum Status {
    Pending,
    InProgress,
    Completed,
    Cancelled,
}

#[derive(Deserialize, JsonSchema)]
struct Todo {
    /// What this step is, in one line.
    description: String,
    /// `pending`, `in_progress` (at most one item), `completed` or `cancelled`.
    status: Status,
}

#[derive(Deserialize, JsonSchema)]
struct Args {
    /// The whole plan, in order: it replaces the previous one.
    todos: Vec<Todo>,
}

struct WriteTodos;

impl Tool for WriteTodos {
    type Args = Args;
    const NAME: &'static str = "write_todos";
    const DISPLAY_NAME: &'static str = "WriteTodos";
    const DESCRIPTION: &'static str = "Keeps your plan for the current task as a list of steps \
        the user can see. Send the whole list each time (it replaces the previous one), each \
        step with a status: pending, in_progress, completed or cancelled. Keep at most one step \
        in_progress; mark a step completed as soon as it is done and start the next. Use it \
        for tasks of three or more steps; skip it for simple questions. At most 50 steps.";
    const KIND: Kind = Kind::Think;

    fn validate(args: &Args) -> Result<(), ToolError> {
        if args.todos.len() > MAX_ITEMS {
            return Err(ToolError::InvalidParams(format!(
                "the plan has {} steps; keep it to {MAX_ITEMS} or fewer",
                args.todos.len()
            )));
        }
        for (i, todo) in args.todos.iter().enumerate() {
            let description = todo.description.trim();
            if description.is_empty() {
                return Err(ToolError::InvalidParams(format!("step {} has no description", i + 1)));
            }
            if description.chars().count() > MAX_DESCRIPTION {
                return Err(ToolError::InvalidParams(format!(
                    "step {} is longer than {MAX_DESCRIPTION} characters; say it in one line",
                    i + 1
                )));
            }
        }
        let running = args.todos.iter().filter(|t| t.status == Status::InProgress).count();
        if running > 1 {
            return Err(ToolError::InvalidParams(format!(
                "{running} steps are in_progress; keep exactly one in progress at a time"
            )));
        }
        Ok(())
    }

    fn describe_call(args: &Args) -> String {
        let done = args.todos.iter().filter(|t| t.status == Status::Completed).count();
        format!("Update the plan ({done}/{} done)", args.todos.len())
    }

    fn execute(args: Args) -> Result<ToolOutput, ToolError> {
        if args.todos.is_empty() {
            return Ok(ToolOutput::text("The plan is now empty."));
        }
        let mut text = String::from("The plan is now:\n");
        for (i, todo) in args.todos.iter().enumerate() {
            let status = match todo.status {
                Status::Pending => "pending",
                Status::InProgress => "in_progress",
                Status::Completed => "completed",
                Status::Cancelled => "cancelled",
            };
            text.push_str(&format!("{}. [{status}] {}\n", i + 1, todo.description.trim()));
        }
        let done = args.todos.iter().filter(|t| t.status == Status::Completed).count();
        let summary = format!("Plan: {done} of {} steps done", args.todos.len());
        Ok(ToolOutput::text(text.trim_end()).with_markdown(summary))
    }
}

export_tools!(WriteTodos);
