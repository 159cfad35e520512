//! `airlock rewind`: a recorded session's prompts with what each changed, and rewinding it
//! offline — the files (from the workspace's checkpoints), the conversation (a `rewound`
//! record the next `--resume` continues from), or both; one call (`--call`); the last rewind
//! undone (`--undo`); and the store's retention (`--gc`).
//!
//! Invariants:
//! - A session a running airlock records to is refused (the session file's lock), never
//!   raced: rewind it there with `/rewind`.
//! - Without `--yes`, files changed outside airlock since its last checkpoint of them are
//!   listed and kept, and the exit code is 2; `--yes` overwrites them.
//! - Text output passes recorded text through the sanitiser (the engine built the values
//!   with it); `-o json` prints the protocol's values ([`airlock_protocol::RewindTurn`],
//!   [`airlock_protocol::Rewound`]).

use std::io::{self, Write};
use std::path::Path;

use super::CommandError;
use airlock_checkpoint::{Retention, Store};
use airlock_engine::audit::Trail;
use airlock_engine::rewind::{self, Applied, Context, RewindError};
use airlock_engine::session::{self, Recorder};
use airlock_protocol::{FileChangeKind, RestoreWhat, RewindFile, RewindTarget, RewindTurn};

/// `airlock rewind`'s flags.
#[derive(Debug, Clone, clap::Args)]
#[command(group(clap::ArgGroup::new("what").args(["code", "conversation", "both"])))]
pub struct RewindArgs {
    /// The session (an id or the start of one); default: the workspace's latest.
    #[arg(long, value_name = "ID")]
    pub session: Option<String>,
    /// List the session's prompts with what each changed (the default without --to,
    /// --call, --undo or --gc).
    #[arg(long, conflicts_with_all = ["to", "call", "undo", "gc"])]
    pub list: bool,
    /// Rewind to just before prompt N (as --list numbers them).
    #[arg(long, value_name = "N", conflicts_with_all = ["call", "undo", "gc"])]
    pub to: Option<u32>,
    /// Undo one call: the files it changed go back to what they held before it ran.
    #[arg(long, value_name = "ID", conflicts_with_all = ["undo", "gc", "what"])]
    pub call: Option<String>,
    /// Undo the session's last rewind (its files and its conversation).
    #[arg(long, conflicts_with_all = ["gc", "what"])]
    pub undo: bool,
    /// Restore the files only.
    #[arg(long)]
    pub code: bool,
    /// Rewind the conversation only (the next --resume continues from before prompt N).
    #[arg(long)]
    pub conversation: bool,
    /// Both (the default).
    #[arg(long)]
    pub both: bool,
    /// Also overwrite files changed outside airlock since its last checkpoint of them.
    #[arg(long)]
    pub yes: bool,
    /// Remove the checkpoints the retention settings let go (`[checkpoints] max_size_mib`,
    /// `max_age_days`), keeping the session's own, every running session's and those of
    /// the last hour.
    #[arg(long, conflicts_with = "what")]
    pub gc: bool,
    /// How results are printed.
    #[arg(short, long, value_enum, default_value_t = Format::Text)]
    pub output_format: Format,
}

/// `-o`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    Text,
    Json,
}

impl RewindArgs {
    fn what(&self) -> RestoreWhat {
        match (self.code, self.conversation) {
            (true, _) => RestoreWhat::Code,
            (_, true) => RestoreWhat::Conversation,
            _ => RestoreWhat::Both,
        }
    }

    fn target(&self) -> Option<RewindTarget> {
        match (&self.to, &self.call, self.undo) {
            (Some(prompt), _, _) => Some(RewindTarget::Prompt { prompt: *prompt }),
            (_, Some(call_id), _) => Some(RewindTarget::Call { call_id: call_id.clone() }),
            (_, _, true) => Some(RewindTarget::Undo),
            _ => None,
        }
    }
}

/// Where the command works: `$AIRLOCK_HOME`, the workspace, its store (`None`: checkpoints
/// are off) and the retention settings.
pub struct Checkpoints<'a> {
    pub home: &'a Path,
    pub workspace: &'a Path,
    pub store: Option<Store>,
    pub retention: Retention,
}

/// What came of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Done,
    /// Files changed outside airlock were kept (exit 2).
    Kept,
}

/// Runs `airlock rewind`.
pub fn run(context: &Checkpoints<'_>, args: &RewindArgs, out: &mut impl Write) -> Result<Outcome, CommandError> {
    let dir = session::dir(context.home);
    let workspace = context.workspace.to_string_lossy();
    let path = session::find(&dir, args.session.as_deref().unwrap_or("latest"), &workspace).map_err(usage)?;
    let id = session::replay(&path).map_err(failed)?.header.id;
    let rewind =
        Context { store: context.store.as_ref(), session: &path, session_id: &id, workspace: context.workspace };
    if args.gc {
        return gc(context, &rewind, args.output_format, out).map(|()| Outcome::Done);
    }
    let Some(target) = args.target() else {
        let turns = rewind::turns(&rewind).map_err(rewind_failed)?;
        match args.output_format {
            Format::Json => writeln!(out, "{}", to_json(&turns)?)?,
            Format::Text => list(&turns, out)?,
        }
        return Ok(Outcome::Done);
    };
    // Held until the record is written: a running session of this file is refused.
    let _lock = session::exclusive(&path, &id).map_err(failed)?;
    let applied = match rewind::apply(&rewind, &target, args.what(), args.yes) {
        Ok(applied) => applied,
        Err(error) => {
            // A restore that stopped partway is recorded too, so `--undo` puts back what it wrote.
            if let Some(applied) = error.applied() {
                record(&path, &id, applied)?;
            }
            return Err(rewind_failed(error));
        }
    };
    record(&path, &id, &applied)?;
    match args.output_format {
        Format::Json => writeln!(out, "{}", to_json(&applied.rewound)?)?,
        Format::Text => done(&applied, &id, out)?,
    }
    Ok(if applied.rewound.kept.is_empty() { Outcome::Done } else { Outcome::Kept })
}

/// Appends the `rewound` record to the session file, and the `rewind` record to its audit
/// trail when it keeps one (with the trail's new head in the session file).
fn record(path: &Path, id: &str, applied: &Applied) -> Result<(), CommandError> {
    let replayed = session::replay(path).map_err(failed)?;
    let mut recorder = Recorder::append(path, id, replayed.turn, replayed.tokens).map_err(failed)?;
    recorder.rewound(&applied.record).map_err(failed)?;
    if airlock_engine::audit::trail_path(path).exists() {
        let trail = Trail::open(path).map_err(failed)?;
        let head = trail.append(&rewind::audit_body(applied)).map_err(failed)?;
        recorder.audit_head(head.seq, &head.hash).map_err(failed)?;
    }
    Ok(())
}

/// `--gc`: what retention removed and what the store keeps; the session's own checkpoints,
/// those of every running session and those younger than an hour stay.
fn gc(
    context: &Checkpoints<'_>,
    rewind: &Context<'_>,
    format: Format,
    out: &mut impl Write,
) -> Result<(), CommandError> {
    let store = context.store.as_ref().ok_or_else(|| failed(RewindError::Off))?;
    let keep = rewind::retention::protected(context.home, store, Some(rewind.session), rewind::retention::GRACE)
        .map_err(failed)?;
    let report = store.gc(&context.retention, &keep).map_err(failed)?;
    let left = store.list().map_err(failed)?.len();
    match format {
        Format::Json => {
            let value = serde_json::json!({
                "checkpoints_removed": report.checkpoints_removed,
                "bytes_freed": report.bytes_freed,
                "bytes_kept": report.bytes_kept,
                "checkpoints_kept": left,
                "max_bytes": context.retention.max_bytes,
                "max_age_days": context.retention.max_age.as_secs() / 86_400,
            });
            writeln!(out, "{value}")?;
        }
        Format::Text => {
            writeln!(
                out,
                "removed {} checkpoint{} ({}); kept {left} checkpoint{} ({}) within {} and {} days",
                report.checkpoints_removed,
                plural(report.checkpoints_removed),
                size(report.bytes_freed),
                plural(left as u64),
                size(report.bytes_kept),
                size(context.retention.max_bytes),
                context.retention.max_age.as_secs() / 86_400,
            )?;
            writeln!(
                out,
                "the checkpoints of session {}, of running sessions and of the last hour were kept",
                airlock_engine::sanitize::line(rewind.session_id)
            )?;
        }
    }
    Ok(())
}

/// One line per prompt, then its files.
fn list(turns: &[RewindTurn], out: &mut impl Write) -> io::Result<()> {
    if turns.is_empty() {
        return writeln!(out, "this session has no prompts to rewind to");
    }
    for turn in turns {
        let (added, removed) = turn.files.iter().fold((0, 0), |(a, r), f| (a + f.added, r + f.removed));
        let files = match turn.files.len() {
            0 => "no file changed".to_owned(),
            n => format!("{n} file{} +{added} −{removed}", plural(n as u64)),
        };
        writeln!(out, "{:>3}  {}  {}  · {files}", turn.prompt, minute(&turn.at), turn.text)?;
        for file in &turn.files {
            writeln!(out, "       {}", file_line(file))?;
        }
    }
    Ok(())
}

/// What a rewind did, and how to undo it.
fn done(applied: &Applied, id: &str, out: &mut impl Write) -> io::Result<()> {
    let rewound = &applied.rewound;
    let plan = &rewound.plan;
    let what = match plan.what {
        RestoreWhat::Code => "the files",
        RestoreWhat::Conversation => "the conversation",
        RestoreWhat::Both => "the files and the conversation",
    };
    let target = match &plan.target {
        RewindTarget::Prompt { prompt } => format!("to before prompt {prompt}"),
        RewindTarget::Call { call_id } => format!("call {}", airlock_engine::sanitize::line(call_id)),
        RewindTarget::Undo => "the last rewind undone".to_owned(),
    };
    writeln!(out, "rewound {what}: {target}")?;
    if plan.what.code() {
        let kept: Vec<&RewindFile> = plan.files.iter().filter(|f| rewound.kept.contains(&f.path)).collect();
        writeln!(out, "restored {} file{}", rewound.restored, plural(u64::from(rewound.restored)))?;
        for file in plan.files.iter().filter(|f| !rewound.kept.contains(&f.path)) {
            writeln!(out, "  {}", file_line(file))?;
        }
        if !kept.is_empty() {
            writeln!(
                out,
                "kept {} file{} changed outside airlock since its checkpoint (--yes overwrites):",
                kept.len(),
                plural(kept.len() as u64)
            )?;
            for file in kept {
                writeln!(out, "  {}", file.path)?;
            }
        }
        for left in &plan.left_out {
            writeln!(out, "left out (never snapshotted, left as it is): {} ({})", left.path, left.reason)?;
        }
    }
    if plan.what.conversation() && !matches!(plan.target, RewindTarget::Undo) {
        writeln!(
            out,
            "the conversation dropped {} message{}; `airlock --resume {}` continues from there",
            plan.messages_dropped,
            plural(u64::from(plan.messages_dropped)),
            airlock_engine::sanitize::line(id)
        )?;
    }
    if !matches!(plan.target, RewindTarget::Undo) {
        writeln!(out, "undo it: airlock rewind --undo --session {}", airlock_engine::sanitize::line(id))?;
    }
    Ok(())
}

/// `M path  +3 −1` (`A` created, `D` deleted; `binary` without counts).
fn file_line(file: &RewindFile) -> String {
    let mark = match file.change {
        FileChangeKind::Created => "A",
        FileChangeKind::Modified => "M",
        FileChangeKind::Deleted => "D",
    };
    let counts = if file.binary { "binary".to_owned() } else { format!("+{} −{}", file.added, file.removed) };
    format!("{mark} {}  {counts}", file.path)
}

/// `2026-11-28T12:01:07.042Z` → `2026-11-28 12:01`.
fn minute(at: &str) -> String {
    match (at.get(..10), at.get(11..16)) {
        (Some(day), Some(time)) => format!("{day} {time}"),
        _ => at.to_owned(),
    }
}

fn plural(n: u64) -> &'static str {
    if n == 1 { "" } else { "s" }
}

/// Bytes for a person: `512 B`, `3.1 MiB`.
pub fn size(bytes: u64) -> String {
    const MIB: f64 = 1024.0 * 1024.0;
    match bytes {
        0..1024 => format!("{bytes} B"),
        1024..1_048_576 => format!("{:.1} KiB", bytes as f64 / 1024.0),
        _ => format!("{:.1} MiB", bytes as f64 / MIB),
    }
}

fn to_json(value: &impl serde::Serialize) -> Result<String, CommandError> {
    serde_json::to_string(value).map_err(|e| CommandError::Output(io::Error::other(e)))
}

fn usage(error: session::SessionError) -> CommandError {
    CommandError::Usage(error.to_string())
}

fn failed(error: impl std::fmt::Display) -> CommandError {
    CommandError::Config(error.to_string())
}

/// A target that does not exist is the command line's fault (exit 2); anything else is not.
fn rewind_failed(error: RewindError) -> CommandError {
    match error {
        RewindError::NoPrompt { .. } | RewindError::NoCall(_) | RewindError::NothingToUndo => {
            CommandError::Usage(error.to_string())
        }
        other => failed(other),
    }
}
