//! Slash commands: what `/name args` typed in the composer does. Each either sends the
//! engine an order or writes lines to the transcript; none changes a grant or a rule —
//! but `/add-dir`, the person's order to let the built-in tools reach a folder outside the
//! workspace for the session, which the engine checks and answers with a notice.
//!
//! Past the built-ins come the custom commands (`$AIRLOCK_HOME/commands/`,
//! `<workspace>/.airlock/commands/`): `/NAME ARGS` sends the command's expansion as a
//! prompt. A custom command never shadows a built-in: one with a built-in's name is left out
//! of the menu and `/NAME` runs the built-in (`airlock -p "/NAME"` still reaches it).

use airlock_ui::picker::{Picker, PickerItem};
use airlock_ui::transcript::NoticeKind;
use ratatui::text::Line;

use super::app::{App, Dialog, Effect, Pick};
use airlock_protocol::{ApprovalMode, Order};

/// Every command, with what it does (the completion popup and `/help` show these).
pub const COMMANDS: &[(&str, &str)] = &[
    ("help", "keys and commands"),
    ("tools", "the tools the model can call"),
    ("plugins", "the loaded plugins and what each is granted"),
    ("mode", "the approval mode: default, auto-edit, yolo, plan"),
    ("model", "switch the model: /model NAME"),
    ("resume", "continue a recorded session of this workspace"),
    ("compress", "summarise older history now to free context"),
    ("clear", "start a new session"),
    ("stats", "tokens, calls, time and cost per tool"),
    ("processes", "commands running in the background; /processes stop ends them"),
    ("add-dir", "let the tools read a folder outside the workspace: /add-dir DIR[:read-write]"),
    ("rewind", "go back to before a prompt: its files, the conversation or both; /rewind undo"),
    ("undo", "undo the last call that changed files, or call #N: /undo N"),
    ("quit", "leave airlock"),
];

/// The `/` menu: the built-ins first, then each custom command no built-in's name hides,
/// with its argument hint and description, marked `(workspace)` when it came with the
/// repository (names and texts arrive sanitised).
pub fn menu(custom: &[airlock_protocol::listing::CommandRow]) -> Vec<(String, String)> {
    let mut menu: Vec<(String, String)> = COMMANDS.iter().map(|(n, d)| (n.to_string(), d.to_string())).collect();
    for row in custom {
        if COMMANDS.iter().any(|(n, _)| *n == row.name) || row.name == "exit" {
            continue;
        }
        let hint = row.argument_hint.as_deref().map(|h| format!("{h} ")).unwrap_or_default();
        let mark = match row.source {
            airlock_protocol::CommandSource::User => "",
            airlock_protocol::CommandSource::Workspace => " (workspace)",
        };
        menu.push((row.name.clone(), format!("{hint}{}{mark}", row.description)));
    }
    menu
}

/// Sends the custom command `name` expanded with `args`, or says there is none.
fn custom(app: &mut App, name: &str, args: &str) {
    let expanded = match &app.custom {
        Some(custom) => custom.expand(name, args),
        None => Err(format!("unknown command /{name}")),
    };
    match expanded {
        Ok(expanded) => {
            for notice in &expanded.notices {
                app.notice(notice, NoticeKind::Warning);
            }
            let typed = if args.is_empty() { format!("/{name}") } else { format!("/{name} {args}") };
            app.send_prompt(&typed, expanded.prompt, Vec::new());
        }
        Err(_) => app.notice(&format!("unknown command /{name}: /help lists them"), NoticeKind::Warning),
    }
}

/// Runs `/name args`.
pub fn run(app: &mut App, name: &str, args: &str) -> Effect {
    let args = args.trim();
    match name {
        "help" => {
            let lines = airlock_ui::help::lines(COMMANDS, &app.theme);
            app.history.extend(lines);
        }
        "tools" => tools(app),
        "plugins" => plugins(app),
        "mode" => match args {
            "" => {
                let modes = ApprovalMode::ALL;
                let items = modes
                    .iter()
                    .map(|m| PickerItem { label: m.as_str().into(), detail: mode_detail(*m).into() })
                    .collect();
                let values = modes.iter().map(|m| m.as_str().to_string()).collect();
                app.dialogs.push_back(Dialog::Picker {
                    purpose: Pick::Mode,
                    picker: Picker::new("Approval mode", items),
                    values,
                });
            }
            name => picked(app, Pick::Mode, name),
        },
        "model" => match args {
            "" => app.notice(&format!("model: {} (switch with /model NAME)", app.status.model), NoticeKind::Info),
            model => app.orders.submit(Order::SetModel { model: model.to_string() }),
        },
        "resume" => resume(app, args),
        "compress" => app.orders.submit(Order::Compress),
        "clear" => {
            app.flush_stream();
            app.history.push(Line::default());
            app.orders.submit(Order::NewSession);
            app.stats.clear();
            app.tokens_in = 0;
            app.tokens_out = 0;
            app.status.tokens_used = 0;
            app.status.context_left = None;
        }
        "stats" => stats(app),
        "processes" => processes(app, args),
        "add-dir" => add_dir(app, args),
        "rewind" => super::rewind::command(app, args),
        "undo" => super::rewind::undo(app, args),
        "quit" | "exit" => return Effect::Quit,
        other => custom(app, other, args),
    }
    Effect::None
}

/// `/processes`: the commands tools left running in the background (each with its log);
/// `/processes stop` ends them all (off the UI's thread: reaping may take a moment).
fn processes(app: &mut App, args: &str) {
    let running = airlock_door::queries::background();
    if running.is_empty() {
        app.notice("no command runs in the background", NoticeKind::Info);
        return;
    }
    match args {
        "stop" => {
            std::thread::spawn(airlock_door::queries::stop_background);
            app.notice(&format!("stopping {} background command(s)", running.len()), NoticeKind::Info);
        }
        "" => {
            for run in running {
                let line = format!("pid {}: {} (output: {})", run.pid, run.command, run.log.display());
                app.notice(&airlock_protocol::shown::line(&line), NoticeKind::Info);
            }
        }
        other => {
            app.notice(&format!("unknown /processes {other}: use /processes or /processes stop"), NoticeKind::Warning)
        }
    }
}

/// `/add-dir DIR[:read-write]`: asks the engine to add the folder (it answers with a notice
/// or a warning); without a folder, lists the folders added so far.
fn add_dir(app: &mut App, args: &str) {
    if !args.is_empty() {
        app.orders.submit(Order::AddDir { folder: args.to_string() });
        return;
    }
    let added = app.tools.as_ref().map(airlock_door::Tools::added_folders).unwrap_or_default();
    if added.is_empty() {
        let usage = "no folder is added: /add-dir DIR lets the tools read one, /add-dir DIR:read-write write it too";
        app.notice(usage, NoticeKind::Info);
        return;
    }
    let mut text = String::from("Folders added to this session:\n");
    for folder in added {
        let access = if folder.writable { "read-write" } else { "read" };
        text.push_str(&format!("  {} ({access})\n", folder.path));
    }
    app.notice(text.trim_end(), NoticeKind::Info);
}

/// A picker's choice.
pub fn picked(app: &mut App, purpose: Pick, value: &str) {
    match purpose {
        Pick::Mode => match ApprovalMode::named(value) {
            Some(mode) => app.set_mode(mode),
            None => app
                .notice(&format!("no approval mode {value:?}: default, auto-edit, yolo or plan"), NoticeKind::Warning),
        },
        Pick::Session => app.orders.submit(Order::Resume { session: value.to_string() }),
    }
}

fn mode_detail(mode: ApprovalMode) -> &'static str {
    match mode {
        ApprovalMode::Default => "read-only tools run; everything else asks",
        ApprovalMode::AutoEdit => "file edits run too; other changes ask",
        ApprovalMode::Yolo => "everything runs without asking",
        ApprovalMode::Plan => "read-only tools only",
    }
}

fn tools(app: &mut App) {
    let mut text = String::from("Tools the model can call:\n");
    for tool in app.tools.as_ref().map(airlock_door::Tools::tools).unwrap_or_default() {
        text.push_str(&format!("  {} ({}, plugin {}): {}\n", tool.name, tool.kind, tool.plugin, tool.description));
    }
    app.notice(text.trim_end(), NoticeKind::Info);
}

fn plugins(app: &mut App) {
    let mut text = String::from("Plugins and their grants:\n");
    for plugin in app.tools.as_ref().map(airlock_door::Tools::plugins).unwrap_or_default() {
        let files: Vec<String> =
            plugin.files.iter().map(|f| format!("{} {}", f.path, if f.writable { "rw" } else { "r" })).collect();
        let network: Vec<String> = plugin.network.iter().map(ToString::to_string).collect();
        let env: Vec<String> = plugin.env.iter().map(ToString::to_string).collect();
        let list = |items: &[String]| if items.is_empty() { "none".to_string() } else { items.join(", ") };
        text.push_str(&format!(
            "  {} ({}) files: {} · network: {} · env: {}\n",
            plugin.name,
            plugin.origin.as_str(),
            list(&files),
            list(&network),
            list(&env)
        ));
    }
    app.notice(text.trim_end(), NoticeKind::Info);
}

fn resume(app: &mut App, args: &str) {
    if !args.is_empty() {
        app.orders.submit(Order::Resume { session: args.to_string() });
        return;
    }
    let sessions = match airlock_door::queries::sessions(&app.home) {
        Ok(sessions) => sessions,
        Err(error) => {
            app.notice(&format!("cannot list sessions: {error}"), NoticeKind::Error);
            return;
        }
    };
    let workspace = app.workspace.display().to_string();
    let mine: Vec<_> =
        sessions.into_iter().filter(|s| s.workspace == workspace && s.id != app.status.session_id).collect();
    let items = mine
        .iter()
        .map(|s| PickerItem {
            label: format!("{}  {}", &s.id[..s.id.len().min(8)], s.updated),
            detail: airlock_protocol::shown::line_bounded(s.first_prompt.as_str(), 60),
        })
        .collect();
    let values = mine.iter().map(|s| s.id.clone()).collect();
    app.dialogs.push_back(Dialog::Picker {
        purpose: Pick::Session,
        picker: Picker::new("Resume a session", items),
        values,
    });
}

fn stats(app: &mut App) {
    let mut text = format!(
        "Session {}: {} turns · {} input + {} output tokens\n",
        app.status.session_id, app.turns_done, app.tokens_in, app.tokens_out
    );
    if app.stats.is_empty() {
        text.push_str("  no tool calls yet\n");
    }
    for (tool, s) in &app.stats {
        text.push_str(&format!(
            "  {tool}: {} calls ({} failed) · {} ms · peak {} · read {} · wrote {} · {} net\n",
            s.calls,
            s.errors,
            s.wall.as_millis(),
            bytes(s.peak_memory),
            bytes(s.bytes_read),
            bytes(s.bytes_written),
            s.net_requests
        ));
    }
    app.notice(text.trim_end(), NoticeKind::Info);
}

/// `n` bytes in the largest unit that keeps a whole number in front.
pub fn bytes(n: u64) -> String {
    match n {
        n if n >= 1 << 30 => format!("{:.1} GiB", n as f64 / (1u64 << 30) as f64),
        n if n >= 1 << 20 => format!("{:.1} MiB", n as f64 / (1u64 << 20) as f64),
        n if n >= 1 << 10 => format!("{:.1} KiB", n as f64 / 1024.0),
        n => format!("{n} B"),
    }
}
