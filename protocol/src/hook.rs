//! Hooks: what a hook is shown of a moment of the session ([`HookEvent`]), what it may answer
//! ([`HookReply`]), and what a front end is told when a hook changed or stopped something
//! ([`HookNote`]). Both kinds of hook see the same data: a component hook receives
//! [`HookEvent`] as JSON and answers a [`HookReply`] as JSON; a command hook gets it on stdin
//! in Claude Code's field names where the meaning is the same (the engine maps them).
//!
//! Invariants: a hook is shown data, never the host's environment; a reply can only narrow
//! what happens (deny, ask, rewrite arguments that are validated again, add context): the
//! policy's verdict is applied after the hooks', so no reply can make a denied call run or
//! skip an approval the policy requires.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::event::CallStatus;

/// The moments a hook can run at.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum HookEventName {
    /// A session starts (a new one, or a resumed one).
    SessionStart,
    /// A session ends.
    SessionEnd,
    /// The user sent a prompt, before the model sees it.
    PromptSubmitted,
    /// A tool call passed validation, before its approval.
    BeforeTool,
    /// A tool call ended (success, error or cancelled).
    AfterTool,
    /// The history is about to be compressed.
    BeforeCompress,
    /// The agent finished its answer and waits for the user.
    Stop,
    /// airlock wants the user's attention (a question waits, a run ended).
    Notification,
}

impl HookEventName {
    /// Every event, in the order of a session.
    pub const ALL: [Self; 8] = [
        Self::SessionStart,
        Self::PromptSubmitted,
        Self::BeforeTool,
        Self::AfterTool,
        Self::BeforeCompress,
        Self::Notification,
        Self::Stop,
        Self::SessionEnd,
    ];

    /// airlock's name (`before_tool`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::SessionStart => "session_start",
            Self::SessionEnd => "session_end",
            Self::PromptSubmitted => "prompt_submitted",
            Self::BeforeTool => "before_tool",
            Self::AfterTool => "after_tool",
            Self::BeforeCompress => "before_compress",
            Self::Stop => "stop",
            Self::Notification => "notification",
        }
    }

    /// Claude Code's name of the same event (`PreToolUse`).
    pub fn claude_name(self) -> &'static str {
        match self {
            Self::SessionStart => "SessionStart",
            Self::SessionEnd => "SessionEnd",
            Self::PromptSubmitted => "UserPromptSubmit",
            Self::BeforeTool => "PreToolUse",
            Self::AfterTool => "PostToolUse",
            Self::BeforeCompress => "PreCompact",
            Self::Stop => "Stop",
            Self::Notification => "Notification",
        }
    }

    /// The event named `name`, in either spelling.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|event| event.as_str() == name || event.claude_name() == name)
    }
}

/// One moment of the session, as a hook sees it. Fields that do not belong to the event are
/// absent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HookEvent {
    pub event: HookEventName,
    /// The recorded session.
    pub session_id: String,
    /// The recorded session's file, when there is one (Claude Code's `transcript_path`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub transcript_path: Option<String>,
    /// The workspace folder.
    pub workspace: String,
    /// The approval mode (`default`, `auto-edit`, `yolo`, `plan`).
    pub approval_mode: String,
    /// `before_tool`, `after_tool`: the call.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool: Option<HookTool>,
    /// `prompt_submitted`: the prompt's text.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// `notification`: what airlock tells the user.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
    /// `session_end`, `stop`, `before_compress`: why (`exit`, `end_turn`, `auto`, `manual`, …).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
}

/// The tool call a `before_tool` or `after_tool` event is about.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HookTool {
    pub call_id: String,
    /// The tool's name (`run_shell_command`).
    pub name: String,
    /// The plugin that offers it (`built-in` tools have their plugin's name too).
    pub plugin: String,
    /// The tool's kind (`read`, `edit`, `execute`, …).
    pub kind: String,
    /// The arguments, as validated.
    pub arguments: serde_json::Value,
    /// `after_tool`: how it ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<CallStatus>,
    /// `after_tool`: what the model is told (cut to a bound).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub output: Option<String>,
}

/// A hook's decision on a `before_tool` call.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum HookVerdict {
    /// No objection: the policy decides, as without the hook.
    Allow,
    /// The call does not run; the reason is the model's answer.
    Deny,
    /// The person is asked, even where the policy would allow.
    Ask,
}

/// What a hook answers. Every field is optional: an empty reply changes nothing.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct HookReply {
    /// `before_tool`: the decision; `stop`: `deny` keeps the agent going with `reason` as
    /// its next instruction; `prompt_submitted`: `deny` drops the prompt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<HookVerdict>,
    /// Why: the model reads it on a denied call, the person on a question.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Text added to the model's context (`session_start`, `prompt_submitted`,
    /// `before_tool`, `after_tool`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub context: Option<String>,
    /// `before_tool`: the call's new arguments, validated again as the model's would be.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arguments: Option<serde_json::Value>,
}

/// What a hook did that a person should see: sent as an event when a hook stopped, changed,
/// questioned or failed on something.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct HookNote {
    /// The hook's name.
    pub hook: String,
    pub event: HookEventName,
    /// The call it acted on, for `before_tool` and `after_tool`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub call_id: Option<String>,
    pub action: HookAction,
    /// The hook's reason, or what went wrong with it.
    pub message: String,
}

/// What a hook did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum HookAction {
    /// It refused the call (or the prompt).
    Denied,
    /// It rewrote the call's arguments.
    Rewrote,
    /// It asked for the person's approval.
    Asked,
    /// It added text to the model's context.
    AddedContext,
    /// It kept the agent going after it stopped.
    Continued,
    /// It trapped, ran out of time or memory, or answered nonsense; `on_error` decided.
    Failed,
}
