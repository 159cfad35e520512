//! The records of an audit trail. Every line is one JSON object whose keys come in a fixed
//! order — `type`, `seq`, `prev`, `at`, then the kind's own fields in the order declared
//! here — so the same record is always the same bytes:
//!
//! ```json
//! {"type":"start","seq":0,"prev":"<sha-256 of the session header line>","at":1764320000000,"workspace":"/p","trust":"trusted","resumed":false,"files":[…],"plugins":[…],"hooks":[]}
//! {"type":"call","seq":1,"prev":"<sha-256 of line seq 0>","at":1764320000000,"id":"c1","tool":"read_file","plugin":"read-file","digest":"…","grant":{…},"args_sha256":"…","approval":{"by":"default","kind":"read"},"hooks":[],"status":"success","cost":{…}}
//! {"type":"grant","seq":2,…,"what":"rule","tool":"run_shell_command","detail":"allowed without asking: …"}
//! {"type":"mode","seq":3,…,"mode":"yolo"}
//! {"type":"rewind","seq":4,…,"target":{"kind":"prompt","prompt":2},"what":"both","restored":["src/a.rs"],"kept":[],"undo":"<checkpoint id>","by":"user"}
//! {"type":"end","seq":5,…}
//! ```
//!
//! A `rewind` record ([`Rewind`]) says what a rewind undid: its target (a prompt, one call,
//! or `undo` of the last rewind), what it restored (`code`, `conversation`, `both`), the
//! files it wrote or deleted, those changed outside airlock it kept, the checkpoint that
//! undoes it, and who asked (`user`: only a person's order rewinds). Readers take unknown
//! kinds as opaque records whose bytes are chained like any other.

use serde::{Deserialize, Serialize};

use crate::capability::{CallLimits, Effective, Grant};
use crate::events::{CallCost, CallStatus};
use airlock_protocol::hook::HookNote;

/// Who let a call run, or refused it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "by", rename_all = "snake_case")]
pub enum Approval {
    /// The call ended before anyone decided (unknown tool, bad arguments, cancelled).
    #[default]
    None,
    /// A policy rule decided: `source` is `system`, `session`, `user` or `workspace`; `file`
    /// and `line` where it was written (`this session` and no line for an "always" answer
    /// not saved).
    Rule {
        source: String,
        file: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        line: Option<u64>,
        scope: String,
        decision: String,
    },
    /// The approval mode decided (`yolo`, `auto-edit`, `plan`, `default`).
    Mode { mode: String },
    /// A person answered the question: `once`, `always`, `edited`, `refused` or `cancelled`.
    User { answer: String },
    /// A hook decided (`action`: what it did).
    Hook { name: String, action: String },
    /// A read-only kind that needs no approval in any mode.
    Default { kind: String },
    /// airlock's own check of the call refused it or made it ask (a line it cannot read, a
    /// write outside the call's folders).
    Host { reason: String },
}

impl Approval {
    /// One short phrase for a person: who decided.
    pub fn describe(&self) -> String {
        match self {
            Self::None => "nobody (ended before approval)".into(),
            Self::Rule { source, file, line: Some(line), decision, .. } => {
                format!("{source} rule {file}:{line} ({decision})")
            }
            Self::Rule { source, file, line: None, decision, .. } => format!("{source} rule {file} ({decision})"),
            Self::Mode { mode } => format!("mode {mode}"),
            Self::User { answer } => format!("user ({answer})"),
            Self::Hook { name, action } => format!("hook {name} ({action})"),
            Self::Default { kind } => format!("default ({kind} needs no approval)"),
            Self::Host { reason } => format!("airlock ({reason})"),
        }
    }
}

/// What a call held: the effective grant, as text a person and a diff can read.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct GrantRecord {
    /// `rw /path` or `ro /path`.
    pub files: Vec<String>,
    pub network: Vec<String>,
    pub env: Vec<String>,
    pub processes: Vec<String>,
    /// The instance's memory cap, in bytes (0: not a component's call).
    pub memory_bytes: u64,
}

impl GrantRecord {
    /// What a call under `effective` and `limits` held.
    pub fn of(effective: &Effective, limits: &CallLimits) -> Self {
        Self {
            files: effective
                .files
                .iter()
                .map(|(path, access)| {
                    let mode = if *access == crate::contract::Access::ReadWrite { "rw" } else { "ro" };
                    format!("{mode} {}", path.display())
                })
                .collect(),
            network: effective.network.iter().map(ToString::to_string).collect(),
            env: effective.env.clone(),
            processes: effective.processes.clone(),
            memory_bytes: limits.memory.try_into().unwrap_or(u64::MAX),
        }
    }

    /// What a sandbox shown to a person holds (an MCP server's).
    pub fn of_held(held: &crate::capability::Held) -> Self {
        Self {
            files: held
                .folders
                .iter()
                .map(|folder| format!("{} {}", if folder.writable { "rw" } else { "ro" }, folder.path.display()))
                .collect(),
            network: held.network.clone(),
            env: held.env.clone(),
            processes: held.commands.iter().cloned().collect(),
            memory_bytes: held.memory_bytes,
        }
    }

    /// A plugin's grant in force, as its files say it (paths as written).
    pub fn of_grant(grant: &Grant) -> Self {
        Self {
            files: grant
                .files
                .iter()
                .map(|file| {
                    let mode = if file.access == crate::contract::Access::ReadWrite { "rw" } else { "ro" };
                    format!("{mode} {}", file.path)
                })
                .collect(),
            network: grant.network.iter().map(ToString::to_string).collect(),
            env: grant.env.clone(),
            processes: grant.processes.clone(),
            memory_bytes: grant.memory_mb.map_or(0, |mb| (mb as u64) << 20),
        }
    }
}

/// A file whose content decided what the session may do, and its sha-256 (`none`: absent).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileDigest {
    pub role: String,
    pub path: String,
    pub sha256: String,
}

/// A loaded plugin (or hook) at the session's start.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LoadedRecord {
    pub name: String,
    /// `builtin`, `user`, `workspace` (a plugin); a hook's kind and scope.
    pub origin: String,
    pub digest: String,
    pub grant: GrantRecord,
}

/// `start`: what was in force when the session (or a resumed run of it) started.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Start {
    pub workspace: String,
    /// `trusted` (its own policy is in force) or `untrusted` (never trusted, or changed
    /// since: its policy grants nothing).
    pub trust: String,
    pub resumed: bool,
    pub files: Vec<FileDigest>,
    pub plugins: Vec<LoadedRecord>,
    pub hooks: Vec<LoadedRecord>,
}

/// `call`: one call, written before its end is reported.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Call {
    pub id: String,
    pub tool: String,
    /// The plugin's name, or `mcp:SERVER` for an MCP server's tool; empty when the tool
    /// was unknown.
    pub plugin: String,
    /// The plugin's sha-256 (empty for an MCP server's tool or an unknown one).
    pub digest: String,
    pub grant: GrantRecord,
    /// The sha-256 of the arguments as validated (the person's edit included).
    pub args_sha256: String,
    pub approval: Approval,
    pub hooks: Vec<HookNote>,
    pub status: CallStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub cost: CallCost,
}

/// `grant`: a grant or rule changed during the session.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GrantChange {
    /// `rule` (an "always" answer) or `grant` (a grant question answered).
    pub what: String,
    /// The tool or plugin it is for.
    pub subject: String,
    /// What is now allowed, and where it was saved.
    pub detail: String,
}

/// `mode`: the approval mode changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ModeChange {
    pub mode: String,
}

/// `rewind`: a rewind was carried out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Rewind {
    pub target: airlock_protocol::RewindTarget,
    pub what: airlock_protocol::RestoreWhat,
    /// The files written or deleted, as shown (relative to the workspace).
    pub restored: Vec<String>,
    /// The files changed outside airlock that were kept as they are.
    pub kept: Vec<String>,
    /// The checkpoint of what it overwrote (a code rewind).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub undo: Option<String>,
    /// Who asked: `user`.
    pub by: String,
}

/// `end`: the run stopped recording (the program ended, or another session was opened).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct End {}

/// A record's kind and its fields.
#[derive(Debug, Clone, PartialEq)]
pub enum Body {
    Start(Box<Start>),
    Call(Box<Call>),
    Grant(GrantChange),
    Mode(ModeChange),
    Rewind(Box<Rewind>),
    End(End),
}

impl Body {
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Start(_) => "start",
            Self::Call(_) => "call",
            Self::Grant(_) => "grant",
            Self::Mode(_) => "mode",
            Self::Rewind(_) => "rewind",
            Self::End(_) => "end",
        }
    }
}

/// The fields every record starts with, in their order.
#[derive(Serialize)]
struct Line<'a, T: Serialize> {
    #[serde(rename = "type")]
    kind: &'a str,
    seq: u64,
    prev: &'a str,
    /// When it was written, in milliseconds since the Unix epoch.
    at: u64,
    #[serde(flatten)]
    body: &'a T,
}

/// One record's line, without its `\n`.
pub fn encode(body: &Body, seq: u64, prev: &str, at: u64) -> serde_json::Result<Vec<u8>> {
    fn line<T: Serialize>(kind: &str, seq: u64, prev: &str, at: u64, body: &T) -> serde_json::Result<Vec<u8>> {
        serde_json::to_vec(&Line { kind, seq, prev, at, body })
    }
    let kind = body.kind();
    match body {
        Body::Start(start) => line(kind, seq, prev, at, start.as_ref()),
        Body::Call(call) => line(kind, seq, prev, at, call.as_ref()),
        Body::Grant(grant) => line(kind, seq, prev, at, grant),
        Body::Mode(mode) => line(kind, seq, prev, at, mode),
        Body::Rewind(rewind) => line(kind, seq, prev, at, rewind.as_ref()),
        Body::End(end) => line(kind, seq, prev, at, end),
    }
}

/// The fields every record has, read back.
#[derive(Debug, Clone, Deserialize)]
pub struct Chained {
    #[serde(rename = "type")]
    pub kind: String,
    pub seq: u64,
    pub prev: String,
    #[serde(default)]
    pub at: u64,
}

/// The sha-256 of `bytes`, in hex: what a record's `prev` holds.
pub fn digest(bytes: &[u8]) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(bytes))
}
