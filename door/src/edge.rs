//! The door's edge: the engine's values converted to the protocol's
//! (`airlock_protocol`), and the protocol's orders to the engine's ([`order`], which
//! [`crate::Session::submit`] puts to use). The headless JSON
//! outputs print what comes out of here; the TUI draws the questions built here; the MCP and
//! ACP front ends will speak both directions.
//!
//! Invariant: every text a question shows is built by the one sanitiser (it is a
//! [`Shown`]), with the bounds the dialogs have always used; a command line is never cut
//! (its rows and commands are shown whole, wrapped by the widget).

use airlock_protocol as wire;
use airlock_protocol::Shown;

use airlock_engine::agent::Report;
use airlock_engine::contract;
use airlock_engine::engine::{self, GrantQuestion, Op};
use airlock_engine::events::{self, CallUpdate, Event};
use airlock_engine::policy::ApprovalMode;
use airlock_model::{Media, Usage, UsageKind, stand_in};
use base64::Engine as _;

/// Most lines of a summary kept on a card.
const SUMMARY_LINES: usize = 20;

/// `event` in the protocol's terms, with what a person reads of a finished call
/// ([`wire::ToolCall::shown`]).
pub fn event(event: &Event) -> wire::Event {
    match event {
        Event::Init { session_id, provider, model, workspace, tools } => wire::Event::Init {
            session_id: session_id.clone(),
            provider: provider.clone(),
            model: model.clone(),
            workspace: workspace.clone(),
            tools: tools.clone(),
        },
        Event::PluginProblem(problem) => wire::Event::PluginProblem(wire::PluginProblem {
            path: problem.path.clone(),
            reason: problem.reason.clone(),
        }),
        Event::TurnStarted { turn } => wire::Event::TurnStarted { turn: *turn },
        Event::Text { delta } => wire::Event::Text { delta: delta.clone() },
        Event::Thought { delta } => wire::Event::Thought { delta: delta.clone() },
        Event::ToolCall(update) => wire::Event::ToolCall(Box::new(tool_call(update))),
        Event::ToolOutput { call_id, chunk } => {
            wire::Event::ToolOutput { call_id: call_id.clone(), chunk: chunk.clone() }
        }
        Event::Usage { turn, kind, usage } => {
            wire::Event::Usage { turn: *turn, kind: usage_kind(*kind), usage: self::usage(usage) }
        }
        Event::Warning { message } => wire::Event::Warning { message: message.clone() },
        Event::Notice { message } => wire::Event::Notice { message: message.clone() },
        Event::Todos { todos } => wire::Event::Todos { todos: todos.iter().map(todo).collect() },
        Event::Hook(note) => wire::Event::Hook(note.clone()),
        Event::RewindTurns(turns) => wire::Event::RewindTurns { turns: turns.clone() },
        Event::RewindPlan(plan) => wire::Event::RewindPlan((**plan).clone()),
        Event::Rewound(done) => wire::Event::Rewound((**done).clone()),
    }
}

/// A call's change as its card.
pub fn tool_call(update: &CallUpdate) -> wire::ToolCall {
    wire::ToolCall {
        call_id: update.call_id.clone(),
        name: update.name.clone(),
        status: status(update.status),
        args: update.args.clone(),
        description: update.description.clone(),
        confirmation: update.confirmation.as_ref().map(confirmation),
        output: update.output.clone(),
        display: update.display.as_ref().map(display),
        error: update.error.as_ref().map(tool_error),
        duration_ms: update.duration.map(millis),
        cost: update.cost.as_ref().map(cost),
        run_ms: update.run.map(millis),
        command: update.command.as_ref().map(command),
        shown: update.shown.as_ref().map(card_text),
    }
}

/// What a person reads of an ended call, made safe: the summary as at most
/// [`SUMMARY_LINES`] lines, each tail line as one line.
pub fn card_text(shown: &events::Shown) -> wire::CardText {
    wire::CardText {
        summary: shown.summary.as_deref().map(|text| Shown::block_bounded(text.trim(), SUMMARY_LINES)),
        tail: shown.tail.iter().map(|line| Shown::line(line)).collect(),
        earlier_lines: shown.earlier_lines,
    }
}

pub fn status(status: events::CallStatus) -> wire::CallStatus {
    use events::CallStatus as S;
    match status {
        S::Validating => wire::CallStatus::Validating,
        S::AwaitingApproval => wire::CallStatus::AwaitingApproval,
        S::Scheduled => wire::CallStatus::Scheduled,
        S::Executing => wire::CallStatus::Executing,
        S::Success => wire::CallStatus::Success,
        S::Error => wire::CallStatus::Error,
        S::Cancelled => wire::CallStatus::Cancelled,
    }
}

pub fn cost(cost: &events::CallCost) -> wire::CallCost {
    wire::CallCost {
        wall_ms: cost.wall_ms,
        peak_memory_bytes: cost.peak_memory_bytes,
        bytes_read: cost.bytes_read,
        bytes_written: cost.bytes_written,
        network_requests: cost.network_requests,
    }
}

pub fn command(run: &events::CommandRun) -> wire::CommandRun {
    wire::CommandRun {
        count: run.count,
        exit_code: run.exit_code,
        signal: run.signal,
        timed_out: run.timed_out,
        cpu_ms: run.cpu_ms,
        peak_memory_bytes: run.peak_memory_bytes,
    }
}

pub fn risk(risk: contract::Risk) -> wire::Risk {
    match risk {
        contract::Risk::Low => wire::Risk::Low,
        contract::Risk::Medium => wire::Risk::Medium,
        contract::Risk::High => wire::Risk::High,
    }
}

fn command_risk(risk: airlock_engine::policy::line_view::Risk) -> wire::Risk {
    use airlock_engine::policy::line_view::Risk as R;
    match risk {
        R::Low => wire::Risk::Low,
        R::Medium => wire::Risk::Medium,
        R::High => wire::Risk::High,
    }
}

fn confirmation(confirmation: &contract::Confirmation) -> wire::Confirmation {
    match confirmation {
        contract::Confirmation::Edit { path, original, proposed, is_new_file } => wire::Confirmation::Edit {
            path: path.clone(),
            original: original.clone(),
            proposed: proposed.clone(),
            is_new_file: *is_new_file,
        },
        contract::Confirmation::Exec { command, root_command, directory, risk } => wire::Confirmation::Exec {
            command: command.clone(),
            root_command: root_command.clone(),
            directory: directory.clone(),
            risk: self::risk(*risk),
        },
        contract::Confirmation::Info { prompt, urls } => {
            wire::Confirmation::Info { prompt: prompt.clone(), urls: urls.clone() }
        }
    }
}

fn display(display: &contract::Display) -> wire::Display {
    match display {
        contract::Display::Markdown { text } => wire::Display::Markdown { text: text.clone() },
        contract::Display::Diff { path, original, proposed } => {
            wire::Display::Diff { path: path.clone(), original: original.clone(), proposed: proposed.clone() }
        }
    }
}

fn tool_error(error: &contract::ToolError) -> wire::ToolError {
    wire::ToolError { kind: error_kind(error.kind), message: error.message.clone() }
}

fn error_kind(kind: contract::ErrorKind) -> wire::ErrorKind {
    use contract::ErrorKind as K;
    match kind {
        K::InvalidParams => wire::ErrorKind::InvalidParams,
        K::NotFound => wire::ErrorKind::NotFound,
        K::PermissionDenied => wire::ErrorKind::PermissionDenied,
        K::Timeout => wire::ErrorKind::Timeout,
        K::Execution => wire::ErrorKind::Execution,
        K::Cancelled => wire::ErrorKind::Cancelled,
        K::ToolNotFound => wire::ErrorKind::ToolNotFound,
        K::PolicyDenied => wire::ErrorKind::PolicyDenied,
        K::PluginFault => wire::ErrorKind::PluginFault,
    }
}

fn usage(usage: &Usage) -> wire::Usage {
    wire::Usage { input_tokens: usage.input_tokens, output_tokens: usage.output_tokens }
}

fn usage_kind(kind: UsageKind) -> wire::UsageKind {
    match kind {
        UsageKind::Answer => wire::UsageKind::Answer,
        UsageKind::Summary => wire::UsageKind::Summary,
    }
}

fn todo(todo: &events::Todo) -> wire::Todo {
    use events::TodoStatus as S;
    let status = match todo.status {
        S::Pending => wire::TodoStatus::Pending,
        S::InProgress => wire::TodoStatus::InProgress,
        S::Completed => wire::TodoStatus::Completed,
        S::Cancelled => wire::TodoStatus::Cancelled,
    };
    wire::Todo { description: todo.description.clone(), status }
}

fn millis(duration: std::time::Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}

/// The summary of `report` in session `session_id`, ended with `status` and `error`.
pub fn summary(
    session_id: &str,
    report: &Report,
    status: wire::RunStatus,
    error: Option<wire::ErrorBody>,
) -> wire::Summary {
    let tool_calls = report
        .calls
        .iter()
        .map(|c| wire::CallSummary {
            args: serde_json::from_str(&c.call.arguments)
                .unwrap_or_else(|_| serde_json::Value::from(c.call.arguments.as_str())),
            command: c.command.as_ref().map(command),
            cost: cost(&c.cost),
            duration_ms: millis(c.duration),
            error: c
                .result
                .as_ref()
                .err()
                .map(|e| wire::ErrorBody { message: e.message.clone(), kind: e.kind.as_str().to_string() }),
            id: c.call.id.clone(),
            name: c.call.name.clone(),
            run_ms: c.run.map(millis),
            status: self::status(c.status),
        })
        .collect();
    let count = |status: events::CallStatus| report.calls.iter().filter(|c| c.status == status).count();
    let turns_detail = report
        .turn_usage
        .iter()
        .map(|t| wire::TurnTokens {
            input: t.usage.input_tokens,
            kind: usage_kind(t.kind),
            output: t.usage.output_tokens,
            total: t.usage.input_tokens + t.usage.output_tokens,
            turn: t.turn,
        })
        .collect();
    let mut by_tool: std::collections::BTreeMap<String, wire::ToolCost> = std::collections::BTreeMap::new();
    for call in &report.calls {
        let entry = by_tool.entry(call.call.name.clone()).or_default();
        entry.calls += 1;
        entry.wall_ms += call.cost.wall_ms;
        entry.peak_memory_bytes = entry.peak_memory_bytes.max(call.cost.peak_memory_bytes);
        entry.bytes_read += call.cost.bytes_read;
        entry.bytes_written += call.cost.bytes_written;
        entry.network_requests += u64::from(call.cost.network_requests);
    }
    let usage = &report.usage;
    let stats = wire::Stats {
        by_tool,
        compressions: report.compressions,
        duration_ms: millis(report.duration),
        tokens: wire::Tokens {
            input: usage.input_tokens,
            output: usage.output_tokens,
            total: usage.input_tokens + usage.output_tokens,
        },
        tools: wire::CallCounts {
            cancelled: count(events::CallStatus::Cancelled),
            error: count(events::CallStatus::Error),
            success: count(events::CallStatus::Success),
            total: report.calls.len(),
        },
        turns: report.turns,
        turns_detail,
    };
    wire::Summary {
        error,
        session_id: session_id.to_string(),
        stats,
        status,
        structured_output: None,
        todos: report.todos.iter().map(todo).collect(),
        tool_calls,
    }
}

/// The approval question as a person is shown it: every text made safe.
pub fn question(question: &engine::Question) -> wire::Question {
    let request = &question.request;
    let confirm = match &request.confirmation {
        contract::Confirmation::Edit { path, original, proposed, is_new_file } => {
            wire::Confirm::Edit(wire::FileChange {
                path: Shown::line(path),
                original: Shown::block_bounded(original, 5_000),
                proposed: Shown::block_bounded(proposed, 5_000),
                is_new_file: *is_new_file,
            })
        }
        contract::Confirmation::Exec { command, root_command, directory, risk: level } => {
            let line = request.line.as_ref();
            // The line's rows and commands are already made safe by the policy's reading;
            // passed through the sanitiser again, unbounded, so that nothing of them is cut.
            let whole = |text: &str| Shown::line_bounded(text, usize::MAX);
            wire::Confirm::Exec {
                command: Shown::block_bounded(command, 50),
                root_command: Shown::line(root_command),
                directory: Shown::line(directory),
                risk: risk(*level),
                commands: line.map_or_else(Vec::new, |view| {
                    view.commands
                        .iter()
                        .map(|c| wire::CommandRow {
                            text: whole(&c.text),
                            risk: command_risk(c.risk),
                            why: Shown::line(&c.why),
                            allowed: c.allowed,
                        })
                        .collect()
                }),
                rows: line.map_or_else(Vec::new, |view| view.rows.iter().map(|row| whole(row)).collect()),
                warnings: line.map_or_else(Vec::new, exec_warnings),
            }
        }
        contract::Confirmation::Info { prompt, urls } => wire::Confirm::Info {
            prompt: Shown::block_bounded(prompt, 30),
            urls: urls.iter().take(20).map(|u| Shown::line(u)).collect(),
        },
    };
    let held = &request.sandbox;
    let sandbox = wire::Sandbox {
        folders: held
            .folders
            .iter()
            .map(|f| wire::Folder { path: Shown::line(&f.path.display().to_string()), writable: f.writable })
            .collect(),
        network: held.network.iter().map(|n| Shown::line(n)).collect(),
        env: held.env.iter().map(|n| Shown::line(n)).collect(),
        memory_mb: held.memory_bytes >> 20,
        timeout_secs: held.timeout_secs,
        output_bytes: held.output_bytes,
        commands: held.commands.as_deref().map(Shown::line),
    };
    wire::Question {
        id: question.id,
        call_id: request.call_id.clone(),
        tool: Shown::line(&request.tool),
        // Blank runs collapsed, so a description cannot push what follows off the first screen.
        description: Shown::line(&airlock_engine::policy::line_view::shown(&request.description)),
        confirm,
        sandbox,
        scope: Shown::line_bounded(&question.scope.describe(&request.tool), usize::MAX),
        always: question.scope.offered(),
        editable: question.editable,
    }
}

/// What to know before allowing a command line (the `--ask` text says the same).
fn exec_warnings(view: &airlock_engine::policy::LineView) -> Vec<Shown> {
    let mut warnings = Vec::new();
    if let Some(why) = &view.uncertain {
        warnings.push(Shown::line_bounded(
            &format!("airlock cannot tell which commands this line runs: {}", airlock_engine::sanitize::line(why)),
            usize::MAX,
        ));
    }
    if !view.repo_programs.is_empty() {
        warnings.push(Shown::line_bounded(
            &format!(
                "git here runs programs this repository names (they run if you allow the line): {}",
                view.repo_programs.join("; ")
            ),
            usize::MAX,
        ));
    }
    warnings
}

/// The grant question as a person is shown it.
pub fn grant_question(question: &GrantQuestion) -> wire::GrantQuestion {
    let request = &question.request;
    wire::GrantQuestion {
        id: question.id,
        call_id: request.call_id.clone(),
        plugin: Shown::line(&request.plugin),
        tool: Shown::line(&request.tool),
        missing: request.missing.iter().map(|m| Shown::line(m)).collect(),
        policy_file: Shown::line(&request.policy_file.display().to_string()),
        reason: request.reason.as_deref().map(Shown::line),
    }
}

/// A user turn with its attachments decoded. An attachment whose data is not base64 is
/// not sent: a line at the end of the prompt tells the model it was left out, so the turn
/// still runs and the model can say so.
fn user_turn(mut text: String, attachments: Vec<wire::Attachment>) -> Op {
    let mut decoded = Vec::with_capacity(attachments.len());
    for attachment in attachments {
        match base64::engine::general_purpose::STANDARD.decode(attachment.data.as_bytes()) {
            Ok(data) => decoded.push(Media::new(attachment.mime_type, attachment.name, data)),
            Err(_) => {
                let why = "its data was not valid base64";
                text.push_str(&format!("\n{}", stand_in(&attachment.mime_type, attachment.name.as_deref(), 0, why)));
            }
        }
    }
    Op::UserTurn { text, attachments: decoded }
}

/// An order of the protocol as the engine takes it.
pub fn order(order: wire::Order) -> Op {
    match order {
        wire::Order::UserTurn { text, attachments } => user_turn(text, attachments),
        wire::Order::Interrupt => Op::Interrupt,
        wire::Order::Approve { id, answer } => Op::Approve { id, answer: self::answer(answer) },
        wire::Order::SetMode { mode } => Op::SetMode(approval_mode(mode)),
        wire::Order::Compress => Op::Compress,
        wire::Order::Resume { session } => Op::Resume { session },
        wire::Order::Grant { id, answer } => Op::Grant { id, answer: grant_answer(answer) },
        wire::Order::SetModel { model } => Op::SetModel { model },
        wire::Order::NewSession => Op::NewSession,
        wire::Order::ReloadPlugins => Op::ReloadPlugins,
        wire::Order::AddDir { folder } => Op::AddDir { folder },
        wire::Order::RewindTurns => Op::RewindTurns,
        wire::Order::Rewind { target, what, apply, overwrite_changed } => {
            Op::Rewind { target, what, apply, overwrite_changed }
        }
        wire::Order::Shutdown => Op::Shutdown,
    }
}

/// An approval answer of the protocol as the engine takes it.
pub fn answer(answer: wire::Answer) -> engine::Answer {
    match answer {
        wire::Answer::Once => engine::Answer::Once,
        wire::Answer::AlwaysForSession => engine::Answer::AlwaysForSession,
        wire::Answer::AlwaysSaved => engine::Answer::AlwaysSaved,
        wire::Answer::ToolForSession => engine::Answer::ToolForSession,
        wire::Answer::Modify { proposed } => engine::Answer::Modify { proposed },
        wire::Answer::Refuse { message } => engine::Answer::Refuse(message),
        wire::Answer::Cancel => engine::Answer::Cancel,
    }
}

/// A grant answer of the protocol as the engine takes it.
pub fn grant_answer(answer: wire::GrantAnswer) -> engine::GrantAnswer {
    match answer {
        wire::GrantAnswer::ThisCall => engine::GrantAnswer::ThisCall,
        wire::GrantAnswer::Session => engine::GrantAnswer::Session,
        wire::GrantAnswer::Always => engine::GrantAnswer::Always,
        wire::GrantAnswer::No => engine::GrantAnswer::No,
    }
}

/// An approval mode of the protocol as the engine takes it.
pub fn approval_mode(mode: wire::ApprovalMode) -> ApprovalMode {
    match mode {
        wire::ApprovalMode::Plan => ApprovalMode::Plan,
        wire::ApprovalMode::Default => ApprovalMode::Default,
        wire::ApprovalMode::AutoEdit => ApprovalMode::AutoEdit,
        wire::ApprovalMode::Yolo => ApprovalMode::Yolo,
    }
}

#[cfg(test)]
#[path = "edge_tests.rs"]
mod tests;

/// The engine's approval mode in the protocol's terms.
pub fn wire_mode(mode: ApprovalMode) -> wire::ApprovalMode {
    match mode {
        ApprovalMode::Plan => wire::ApprovalMode::Plan,
        ApprovalMode::Default => wire::ApprovalMode::Default,
        ApprovalMode::AutoEdit => wire::ApprovalMode::AutoEdit,
        ApprovalMode::Yolo => wire::ApprovalMode::Yolo,
    }
}
