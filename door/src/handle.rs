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
use airlock_engine::registry::Origin;
use airlock_protocol::{FolderRow, Order, PluginOrigin, PluginRow, Shown, ToolRow};

/// A running session. Dropping it ends the session, as [`Session::shutdown`] does without
/// waiting.
#[derive(Debug)]
pub struct Session(engine::Session);

impl From<engine::Session> for Session {
    /// The door of a session the binary started.
    fn from(session: engine::Session) -> Self {
        Self(session)
    }
}

impl Session {
    /// What identified the session when it started (a resume names its session in a new
    /// `init` event).
    pub fn info(&self) -> &Info {
        self.0.info()
    }

    /// Sends an order.
    pub fn submit(&self, order: Order) {
        self.0.submit(crate::edge::order(order));
    }

    /// A handle that sends orders to this session.
    pub fn orders(&self) -> Orders {
        Orders(self.0.orders())
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
}

/// Sends orders to a session; cheap to clone (a signal handler, an approval dialog).
#[derive(Debug, Clone)]
pub struct Orders(engine::Orders);

impl Orders {
    /// Sends `order`; after the session ended it is dropped.
    pub fn submit(&self, order: Order) {
        self.0.submit(crate::edge::order(order));
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

    /// Every loaded plugin with what the policy grants it now.
    pub fn plugins(&self) -> Vec<PluginRow> {
        let tools = self.0.get();
        tools
            .registry
            .plugins()
            .iter()
            .map(|plugin| {
                let origin = match plugin.source.origin {
                    Origin::Builtin => PluginOrigin::Builtin,
                    Origin::User => PluginOrigin::User,
                    Origin::Workspace => PluginOrigin::Workspace,
                };
                plugin_row(&plugin.info.name, origin, &tools.policy.grant(plugin).grant)
            })
            .collect()
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
