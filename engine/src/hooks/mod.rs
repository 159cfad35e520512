//! Hooks: programs the user (or a trusted workspace) sets to run at moments of a session
//! ([`HookEventName`]) — component hooks (`airlock:hook` components in the plugin folders,
//! run in wasmtime with their own grants) and command hooks (programs run under the same OS
//! sandbox as `run_shell_command`, speaking Claude Code's hook protocol). Every kind is a
//! [`Hook`]: the dispatcher only sees this trait.
//!
//! Invariants:
//! - a hook is shown a [`HookEvent`] (data), never the host's environment;
//! - a [`HookReply`] can only narrow: the policy's verdict is applied after the hooks', so no
//!   hook makes a denied call run, skips a required approval or widens a grant; rewritten
//!   arguments are validated again like the model's;
//! - a hook that fails ([`HookFailure`]) is reported and treated as its [`OnError`] says;
//! - dropping the future of [`Hook::run`] stops the hook (its instance or its process group).

pub mod command;
pub mod component;
pub mod dispatch;
pub mod load;

use std::sync::Arc;
use std::time::Duration;

use futures_util::future::BoxFuture;

pub use dispatch::{Hooks, Outcome};

pub use crate::config::hooks::{HookScope, OnError};
pub use crate::contract::HookFailure;
pub use airlock_protocol::hook::{HookAction, HookEvent, HookEventName, HookNote, HookReply, HookTool, HookVerdict};

/// How a hook is run.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookKind {
    /// An `airlock:hook` component.
    Component,
    /// A program under the command sandbox.
    Command,
}

impl HookKind {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Component => "component",
            Self::Command => "command",
        }
    }
}

/// What a hook is and when it runs: what `airlock hooks list` shows.
#[derive(Debug, Clone)]
pub struct HookSpec {
    /// Unique among the loaded hooks (a component's plugin name, a command hook's `name`).
    pub name: String,
    pub kind: HookKind,
    pub scope: HookScope,
    /// Where it came from: the component's file, or the settings file that set the command.
    pub origin: String,
    /// The events it runs at.
    pub events: Vec<HookEventName>,
    /// For tool events: a regular expression a tool's name must match whole; `None` matches
    /// every tool.
    pub tools: Option<regex::Regex>,
    /// How long it may run.
    pub timeout: Duration,
    /// Its memory cap (a component's linear memory; a command's address space).
    pub memory: u64,
    /// What a failure leads to, for `before_tool` (every other event goes on regardless).
    pub on_error: OnError,
    /// What it holds, for a person (`read ./docs`, `https://example.com`, `nothing`).
    pub grants: Vec<String>,
    /// The component's sha-256, or the command line's.
    pub digest: String,
}

impl HookSpec {
    /// Whether the hook runs for `event` (and, for a tool event, the tool `tool`).
    pub fn runs_for(&self, event: HookEventName, tool: Option<&str>) -> bool {
        if !self.events.contains(&event) {
            return false;
        }
        match (&self.tools, tool) {
            (Some(pattern), Some(tool)) => pattern.is_match(tool),
            _ => true,
        }
    }
}

/// A hook of any kind.
pub trait Hook: Send + Sync + std::fmt::Debug {
    fn spec(&self) -> &HookSpec;

    /// Runs the hook on `event`. Its deadline and memory cap are the hook's own to enforce;
    /// dropping the future stops it.
    fn run(&self, event: Arc<HookEvent>) -> BoxFuture<'static, Result<HookReply, HookFailure>>;
}
