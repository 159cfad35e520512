//! Hook components (`airlock:hook@0.3.0`) in the runtime: telling one from a tool by what it
//! exports, its `describe` and `handle` calls, and the conversions between the generated
//! types and the host's ([`HookInfo`], [`HookEvent`], [`HookReply`]).
//!
//! Invariants: a hook instance is made like a tool's ([`super::Runtime::instantiate`]: a
//! fresh store, the limiter, the deadline set before instantiating) and answers only these
//! two calls; a reply's text fields hold at most [`MAX_REPLY_TEXT`] bytes and its arguments
//! at most [`MAX_REPLY_ARGUMENTS`], and a larger one is [`HookFailure::Flooded`], never cut
//! (a cut reason or rewrite would be another answer than the hook's).

use wasmtime::Engine;
use wasmtime::component::Component;

use super::bindings::hook::airlock::hook::types as wit;
use super::convert::cut;
use super::{CallFault, Instance, Plugin};
use crate::contract::HookFailure;
use crate::contract::{Access, Capabilities, FileRequest, HookInfo};
use airlock_protocol::event::CallStatus;
use airlock_protocol::hook::{HookEvent, HookEventName, HookReply, HookVerdict};

/// Most bytes of each text field of a reply (`reason`, `context`).
pub const MAX_REPLY_TEXT: usize = 64 << 10;
/// Most bytes of a reply's rewritten arguments.
pub const MAX_REPLY_ARGUMENTS: usize = 256 << 10;
/// Most bytes of an error a hook returns, kept for the report.
const MAX_HOOK_ERROR: usize = 1 << 10;
/// Bounds on a self-description's strings before the registry checks them: enough for any
/// valid one, so an oversized one is still refused by the checks, not accepted cut.
const MAX_INFO_TEXT: usize = 8 << 10;

/// The export that makes a component a hook (any 0.3.x version).
const HOOK_EXPORT: &str = "airlock:hook/handler@0.3.";
/// The export that makes a component a tool (every contract version).
const TOOL_EXPORT: &str = "airlock:tool/tool@";

/// What a component is, by the interfaces it exports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Exports {
    Tool,
    Hook,
    Neither,
}

/// Which contract `component` implements, from its type's exports (not by trying to link
/// each, so a hook is never mistaken for a tool of a wrong version or the other way round).
pub(super) fn exports_of(engine: &Engine, component: &Component) -> (Exports, Vec<String>) {
    let names: Vec<String> = component.component_type().exports(engine).map(|(name, _)| name.to_string()).collect();
    let kind = if names.iter().any(|name| name.starts_with(HOOK_EXPORT)) {
        Exports::Hook
    } else if names.iter().any(|name| name.starts_with(TOOL_EXPORT)) {
        Exports::Tool
    } else {
        Exports::Neither
    };
    (kind, names)
}

/// The guest's answer to `handle`: its reply, or why it is not one (its own error, a field
/// over its bound, arguments that are not JSON).
pub type HookAnswer = Result<HookReply, HookFailure>;

impl Instance {
    /// `describe()` of a hook: the raw self-description (validated by the registry).
    pub async fn describe_hook(&mut self) -> Result<HookInfo, CallFault> {
        let watch = self.watch();
        let result = match &self.plugin {
            Plugin::Hook(hook) => watch.guard(hook.airlock_hook_handler().call_describe(&mut self.store)).await,
            Plugin::V1(_) | Plugin::V2(_) => return Err(not_a_hook()),
        };
        Ok(hook_info(self.finish(result)?))
    }

    /// `handle(event)` of a hook.
    pub async fn handle(&mut self, event: &HookEvent) -> Result<HookAnswer, CallFault> {
        let event = to_wit_event(event).map_err(|e| CallFault::Instantiate(format!("cannot pass the event: {e}")))?;
        let watch = self.watch();
        let result = match &self.plugin {
            Plugin::Hook(hook) => watch.guard(hook.airlock_hook_handler().call_handle(&mut self.store, &event)).await,
            Plugin::V1(_) | Plugin::V2(_) => return Err(not_a_hook()),
        };
        Ok(match self.finish(result)? {
            Ok(reply) => from_wit_reply(reply),
            Err(error) => Err(HookFailure::Invalid(format!(
                "it answered an error: {}",
                crate::sanitize::line(&cut(error, MAX_HOOK_ERROR))
            ))),
        })
    }
}

fn not_a_hook() -> CallFault {
    CallFault::Instantiate("the component is a tool, not a hook".into())
}

fn hook_info(info: wit::HookInfo) -> HookInfo {
    let capabilities = info.capabilities;
    let files = capabilities
        .files
        .into_iter()
        .map(|file| FileRequest {
            path: cut(file.path, MAX_INFO_TEXT),
            access: match file.access {
                wit::Access::Read => Access::Read,
                wit::Access::ReadWrite => Access::ReadWrite,
            },
        })
        .collect();
    let text = |items: Vec<String>| items.into_iter().map(|item| cut(item, MAX_INFO_TEXT)).collect();
    HookInfo {
        name: cut(info.name, MAX_INFO_TEXT),
        version: cut(info.version, MAX_INFO_TEXT),
        events: info.events.into_iter().map(event_name).collect(),
        tools: info.tools.map(|tools| cut(tools, MAX_INFO_TEXT)),
        capabilities: Capabilities {
            files,
            network: text(capabilities.network),
            env: text(capabilities.env),
            processes: Vec::new(),
        },
    }
}

fn event_name(name: wit::EventName) -> HookEventName {
    match name {
        wit::EventName::SessionStart => HookEventName::SessionStart,
        wit::EventName::SessionEnd => HookEventName::SessionEnd,
        wit::EventName::PromptSubmitted => HookEventName::PromptSubmitted,
        wit::EventName::BeforeTool => HookEventName::BeforeTool,
        wit::EventName::AfterTool => HookEventName::AfterTool,
        wit::EventName::BeforeCompress => HookEventName::BeforeCompress,
        wit::EventName::Stop => HookEventName::Stop,
        wit::EventName::Notification => HookEventName::Notification,
    }
}

fn wit_event_name(name: HookEventName) -> wit::EventName {
    match name {
        HookEventName::SessionStart => wit::EventName::SessionStart,
        HookEventName::SessionEnd => wit::EventName::SessionEnd,
        HookEventName::PromptSubmitted => wit::EventName::PromptSubmitted,
        HookEventName::BeforeTool => wit::EventName::BeforeTool,
        HookEventName::AfterTool => wit::EventName::AfterTool,
        HookEventName::BeforeCompress => wit::EventName::BeforeCompress,
        HookEventName::Stop => wit::EventName::Stop,
        HookEventName::Notification => wit::EventName::Notification,
    }
}

fn to_wit_event(event: &HookEvent) -> Result<wit::Event, serde_json::Error> {
    let tool = match &event.tool {
        Some(tool) => Some(wit::ToolCall {
            call_id: tool.call_id.clone(),
            name: tool.name.clone(),
            plugin: tool.plugin.clone(),
            kind: tool.kind.clone(),
            arguments: serde_json::to_string(&tool.arguments)?,
            // Only an ended call has a status a hook is shown.
            status: tool.status.and_then(|status| match status {
                CallStatus::Success => Some(wit::CallStatus::Success),
                CallStatus::Error => Some(wit::CallStatus::Error),
                CallStatus::Cancelled => Some(wit::CallStatus::Cancelled),
                _ => None,
            }),
            output: tool.output.clone(),
        }),
        None => None,
    };
    Ok(wit::Event {
        name: wit_event_name(event.event),
        session_id: event.session_id.clone(),
        workspace: event.workspace.clone(),
        approval_mode: event.approval_mode.clone(),
        tool,
        prompt: event.prompt.clone(),
        message: event.message.clone(),
        reason: event.reason.clone(),
    })
}

/// The host's reply for the guest's, each field within its bound.
fn from_wit_reply(reply: wit::Reply) -> HookAnswer {
    let text = |field: Option<String>| match field {
        Some(text) if text.len() > MAX_REPLY_TEXT => Err(HookFailure::Flooded(MAX_REPLY_TEXT)),
        other => Ok(other),
    };
    let arguments = match reply.arguments {
        Some(arguments) if arguments.len() > MAX_REPLY_ARGUMENTS => {
            return Err(HookFailure::Flooded(MAX_REPLY_ARGUMENTS));
        }
        Some(arguments) => Some(serde_json::from_str(&arguments).map_err(|e| {
            HookFailure::Invalid(format!("its arguments are not JSON: {}", crate::sanitize::line(&e.to_string())))
        })?),
        None => None,
    };
    Ok(HookReply {
        verdict: reply.verdict.map(|verdict| match verdict {
            wit::Verdict::Allow => HookVerdict::Allow,
            wit::Verdict::Deny => HookVerdict::Deny,
            wit::Verdict::Ask => HookVerdict::Ask,
        }),
        reason: text(reply.reason)?,
        context: text(reply.context)?,
        arguments,
    })
}

#[cfg(test)]
#[path = "hook_tests.rs"]
mod tests;
