//! The handle a front end holds: a running session that takes the protocol's orders
//! ([`airlock_protocol::Order`], turned into the engine's own by [`crate::edge::order`]) and
//! answers the few queries a front end asks (its tools, plugins and added folders, as the
//! protocol's listings). The output stream stays the engine's receiver, read with the
//! values this crate re-exports.
//!
//! Invariant: nothing here gives a front end the engine's registry, policy or runtime; a
//! query answers with copies in the protocol's terms, every plugin-written text sanitised.

use airlock_engine::capability::Grant;
use airlock_engine::contract::Access;
use airlock_engine::engine::{self, CurrentTools, Info};
use airlock_engine::prompts::Origin as PromptOrigin;
use airlock_engine::registry::Origin;
use airlock_protocol::listing::CommandRow;
use airlock_protocol::{
    CallResult, CommandSource, ExpandedCommand, FolderRow, Order, PluginOrigin, PluginRow, ServedTool, Shown, ToolRow,
};

/// A running session. Dropping it ends the session, as [`Session::shutdown`] does without
/// waiting.
#[derive(Debug)]
pub struct Session(engine::Session, Option<OrderTap>);

impl From<engine::Session> for Session {
    /// The door of a session the binary started.
    fn from(session: engine::Session) -> Self {
        Self(session, None)
    }
}

/// Where the orders a front end sends are also told, when the session is observed
/// ([`crate::observe`]).
pub(crate) type OrderTap = tokio::sync::mpsc::UnboundedSender<(std::time::SystemTime, Order)>;

impl Session {
    /// What identified the session when it started (a resume names its session in a new
    /// `init` event).
    pub fn info(&self) -> &Info {
        self.0.info()
    }

    /// Sends an order.
    pub fn submit(&self, order: Order) {
        tap(&self.1, &order);
        self.0.submit(crate::edge::order(order));
    }

    /// A handle that sends orders to this session.
    pub fn orders(&self) -> Orders {
        Orders(self.0.orders(), self.1.clone())
    }

    /// The session, its orders also told to `tap`.
    pub(crate) fn tapped(self, tap: OrderTap) -> Self {
        Self(self.0, Some(tap))
    }

    /// What the session can tell about its tools now (they change when the plugin folders do).
    pub fn tools(&self) -> Tools {
        Tools(self.0.tools())
    }

    /// Ends the session: cancels what runs and waits until the engine has stopped (every
    /// output it sent is then in the stream).
    pub async fn shutdown(self) {
        self.0.shutdown().await;
    }

    /// The custom commands (`$AIRLOCK_HOME/commands/`, `<workspace>/.airlock/commands/`)
    /// found when the session started: the user's first, each sorted by name. A workspace's
    /// command whose name a user's command has is listed as `workspace:NAME`. Descriptions
    /// and hints come from files: sanitised to one line.
    pub fn commands(&self) -> Vec<CommandRow> {
        self.custom_commands().rows()
    }

    /// The custom command `name` (as [`Session::commands`] lists it) expanded with `args`
    /// (the text after the name): the prompt to send as a user turn, and one notice for each
    /// include left out or shell interpolation not run. `Err` when there is no such command,
    /// naming those there are (sanitised).
    pub fn expand_command(&self, name: &str, args: &str) -> Result<ExpandedCommand, String> {
        self.custom_commands().expand(name, args)
    }

    /// The custom commands as a handle a front end can keep beside the session (cheap to
    /// clone): [`CustomCommands::rows`] and [`CustomCommands::expand`] answer as
    /// [`Session::commands`] and [`Session::expand_command`] do.
    pub fn custom_commands(&self) -> CustomCommands {
        CustomCommands(self.0.custom_commands())
    }

    /// Starts one call of `tool` with `arguments` outside a model turn (a tool server's
    /// call), through the scheduler exactly as a model's call runs. Its events, approval
    /// and grant questions come on the output stream tagged with [`Call::id`]; answer them
    /// with orders as for a turn's call. `cancel` stops it. Nothing runs until
    /// [`Call::finish`] is awaited, so the id is known before any output of the call.
    pub fn call(&self, tool: &str, arguments: &serde_json::Value, cancel: Cancellation) -> Call {
        Call(self.0.call(tool, arguments.to_string(), cancel))
    }
}

/// A session's custom commands, kept beside it by a front end.
#[derive(Debug, Clone)]
pub struct CustomCommands(engine::CustomCommands);

impl CustomCommands {
    /// As [`Session::commands`].
    pub fn rows(&self) -> Vec<CommandRow> {
        self.0.list().list.iter().map(command_row).collect()
    }

    /// As [`Session::expand_command`].
    pub fn expand(&self, name: &str, args: &str) -> Result<ExpandedCommand, String> {
        let expanded = self.0.expand(name, args).map_err(|e| airlock_protocol::shown::line(&e))?;
        Ok(ExpandedCommand {
            prompt: expanded.prompt,
            notices: expanded.notices.iter().map(|n| airlock_protocol::shown::line(n)).collect(),
        })
    }
}

/// Cancels a call run outside a turn ([`Session::call`]); clones cancel together.
pub use airlock_engine::engine::Cancellation;

/// A call started outside a model turn.
#[derive(Debug)]
pub struct Call(engine::Call);

impl Call {
    /// The id the call's events and questions carry.
    pub fn id(&self) -> &str {
        self.0.id()
    }

    /// Runs the call to its end and answers what the model would have been told.
    pub async fn finish(self) -> CallResult {
        let call_id = self.0.id().to_owned();
        match self.0.finish().await {
            Some(done) => {
                let response = done.response();
                CallResult { call_id, text: response.content, is_error: response.is_error }
            }
            None => CallResult {
                call_id,
                text: "execution: the call failed inside airlock; see the log".into(),
                is_error: true,
            },
        }
    }
}

/// Sends orders to a session; cheap to clone (a signal handler, an approval dialog).
#[derive(Debug, Clone)]
pub struct Orders(engine::Orders, Option<OrderTap>);

impl Orders {
    /// Sends `order`; after the session ended it is dropped.
    pub fn submit(&self, order: Order) {
        tap(&self.1, &order);
        self.0.submit(crate::edge::order(order));
    }
}

/// Tells an observer of `order`, before the engine has it (so a prompt is seen before the
/// outputs of its turn).
fn tap(tap: &Option<OrderTap>, order: &Order) {
    if let Some(tap) = tap {
        let _ = tap.send((std::time::SystemTime::now(), order.clone()));
    }
}

/// The session's tools as a front end lists them (`/tools`, `/plugins`, `/add-dir`).
#[derive(Debug, Clone)]
pub struct Tools(CurrentTools);

impl Tools {
    /// Every tool the model may call, in the registry's order.
    pub fn tools(&self) -> Vec<ToolRow> {
        let registry = self.0.get().registry;
        registry
            .tools()
            .iter()
            .map(|tool| ToolRow {
                name: Shown::line(&tool.info.name),
                kind: tool.info.kind.as_str().to_string(),
                plugin: Shown::line(&tool.plugin.info.name),
                description: Shown::line_bounded(tool.info.description.lines().next().unwrap_or_default(), 100),
            })
            .collect()
    }

    /// The tools a tool server offers now: those the policy offers (a tool the approval mode
    /// or a rule hides is not listed), in the registry's order, with their whole
    /// description and schema.
    pub fn served(&self) -> Vec<ServedTool> {
        let tools = self.0.get();
        tools
            .registry
            .tools()
            .iter()
            .filter(|tool| tools.policy.offers(&tool.info))
            .map(|tool| ServedTool {
                name: tool.info.name.clone(),
                description: Shown::block(&tool.info.description),
                input_schema: tool.info.parameters.clone(),
                kind: tool.info.kind.as_str().to_string(),
                title: Shown::line_bounded(&tool.info.display_name, 100),
                network: !tool.info.capabilities.network.is_empty(),
                plugin: Shown::line(&tool.plugin.info.name),
                origin: origin(tool.plugin.source.origin),
            })
            .collect()
    }

    /// Wakes with each change of the session's tools from now on (the plugin folders
    /// changed and were loaded anew).
    pub fn changes(&self) -> tokio::sync::watch::Receiver<u64> {
        self.0.changes()
    }

    /// Every loaded plugin with what the policy grants it now.
    pub fn plugins(&self) -> Vec<PluginRow> {
        let tools = self.0.get();
        tools
            .registry
            .plugins()
            .iter()
            .map(|plugin| {
                plugin_row(&plugin.info.name, origin(plugin.source.origin), &tools.policy.grant(plugin).grant)
            })
            .collect()
    }

    /// The plugin that offers `tool` now: its name, origin and sha-256 (for telemetry and
    /// logs); `None` for a tool the session does not have.
    pub fn plugin_of(&self, tool: &str) -> Option<ToolPlugin> {
        let registry = self.0.get().registry;
        let tool = registry.tools().iter().find(|t| t.info.name == tool)?;
        Some(ToolPlugin {
            name: tool.plugin.info.name.clone(),
            origin: origin(tool.plugin.source.origin),
            digest: tool.plugin.source.content_hash.clone(),
        })
    }

    /// The folders a person added to this session (`--add-dir`, `/add-dir`).
    pub fn added_folders(&self) -> Vec<FolderRow> {
        let policy = self.0.get().policy;
        policy
            .added_folders()
            .iter()
            .map(|folder| FolderRow {
                path: Shown::line(&folder.path.display().to_string()),
                writable: folder.access == Access::ReadWrite,
            })
            .collect()
    }
}

/// The plugin behind a tool ([`Tools::plugin_of`]). The name is the plugin's own, as it
/// describes itself: data, not yet sanitised for a terminal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolPlugin {
    /// The plugin's name.
    pub name: String,
    /// Where it was loaded from.
    pub origin: PluginOrigin,
    /// The sha-256 of its component, in hex.
    pub digest: String,
}

/// A custom command as front ends list it.
pub(crate) fn command_row(command: &airlock_engine::prompts::commands::Command) -> CommandRow {
    CommandRow {
        name: command.name.clone(),
        description: airlock_protocol::shown::line_bounded(&command.description, 200),
        argument_hint: command.argument_hint.as_deref().map(|h| airlock_protocol::shown::line_bounded(h, 80)),
        source: match command.origin {
            PromptOrigin::User => CommandSource::User,
            PromptOrigin::Workspace => CommandSource::Workspace,
        },
    }
}

fn plugin_row(name: &str, origin: PluginOrigin, grant: &Grant) -> PluginRow {
    PluginRow {
        name: Shown::line(name),
        origin,
        files: grant
            .files
            .iter()
            .map(|f| FolderRow { path: Shown::line(&f.path), writable: f.access == Access::ReadWrite })
            .collect(),
        network: grant.network.iter().map(|rule| Shown::line(&rule.to_string())).collect(),
        env: grant.env.iter().map(|var| Shown::line(var)).collect(),
    }
}

fn origin(origin: Origin) -> PluginOrigin {
    match origin {
        Origin::Builtin => PluginOrigin::Builtin,
        Origin::User => PluginOrigin::User,
        Origin::Workspace => PluginOrigin::Workspace,
    }
}
