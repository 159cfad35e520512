//! The plan of a rewind: what it restores and what it keeps, computed against the files as
//! they are now (the rewind's own checkpoint of its roots, taken first).
//!
//! - **To before prompt k**: the writes after prompt k's record; each path one of them
//!   changed goes back to what the earliest `before` that covers it held.
//! - **One call**: the paths it changed, back to its `before`.
//! - **Undo**: the paths the last rewind not undone changed, back to its own checkpoint; the
//!   conversation it dropped comes back.
//!
//! In each, a path was changed outside airlock (listed in `changed_outside`) when, walking
//! the writes that cover it in order, one's `before` differs from the previous one's
//! `after` (someone changed it between two calls), or the last `after` differs from now. A
//! path the earliest checkpoint that holds it under its roots left out is listed in
//! `left_out` and never written, even when a later checkpoint holds it.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use super::timeline::{self, Timeline, Write};
use super::turns::file_row;
use super::{Context, RewindError, union};
use airlock_checkpoint::{Change, Checkpoint, CheckpointId, Entry, Label, Restore, Store};
use airlock_model::{Message, Part};
use airlock_protocol::{LeftOut, RestoreWhat, RewindPlan, RewindTarget};

/// A plan, with what carrying it out needs.
#[derive(Debug, Clone)]
pub struct Planned {
    /// What a person is shown.
    pub plan: RewindPlan,
    /// Each file to write or delete, and whether it was changed outside airlock.
    pub(super) restores: Vec<PlannedFile>,
    /// The roots of the rewind's own checkpoints.
    pub(super) roots: Vec<PathBuf>,
    /// Folders under a folder root that hold only files this rewind deletes and none it
    /// writes: the target did not hold them, so the restore removes each when it is empty.
    pub(super) folders: Vec<PathBuf>,
    /// The checkpoint of the files as they were when planned (code rewinds).
    pub(super) safety: Option<CheckpointId>,
    /// The conversation after the rewind, when it rewinds the conversation.
    pub history: Option<Vec<Message>>,
    /// The prompts the conversation holds after it.
    pub prompts: u32,
    /// The prompts it holds now (what stays when the restore stops partway).
    pub(super) count: u32,
}

/// One file of a plan.
#[derive(Debug, Clone)]
pub(super) struct PlannedFile {
    pub restore: Restore,
    pub shown: String,
    pub outside: bool,
}

/// Plans a rewind to `target` of `what`, for a preview. It takes a checkpoint of the files
/// as they are now (labelled `preview`), which nothing names afterwards.
pub fn plan(context: &Context<'_>, target: &RewindTarget, what: RestoreWhat) -> Result<Planned, RewindError> {
    plan_as(context, target, what, "preview")
}

/// Plans with the rewind's own checkpoint labelled `why`.
pub(super) fn plan_as(
    context: &Context<'_>,
    target: &RewindTarget,
    what: RestoreWhat,
    why: &str,
) -> Result<Planned, RewindError> {
    let timeline = Timeline::of(context)?;
    // One call has no conversation of its own to rewind; an undo restores what the rewind
    // it undoes restored.
    let what = match target {
        RewindTarget::Call { .. } => RestoreWhat::Code,
        RewindTarget::Undo => timeline.rewinds.last().map_or(what, |last| last.record.what),
        RewindTarget::Prompt { .. } => what,
    };
    let mut planned = Planned {
        plan: RewindPlan {
            target: target.clone(),
            what,
            files: Vec::new(),
            changed_outside: Vec::new(),
            left_out: Vec::new(),
            messages_dropped: 0,
            prompt: None,
        },
        restores: Vec::new(),
        roots: Vec::new(),
        folders: Vec::new(),
        safety: None,
        history: None,
        prompts: timeline.count,
        count: timeline.count,
    };
    let (writes, line): (Vec<Write>, usize) = match target {
        RewindTarget::Prompt { prompt } => {
            let mark =
                timeline.prompt(*prompt).ok_or(RewindError::NoPrompt { prompt: *prompt, count: timeline.count })?;
            (timeline.writes_after(mark.line).cloned().collect(), mark.line)
        }
        RewindTarget::Call { call_id } => {
            let write = timeline.call(call_id).ok_or_else(|| RewindError::NoCall(call_id.clone()))?;
            (vec![write.clone()], write.line)
        }
        RewindTarget::Undo => {
            let last = timeline.rewinds.last().ok_or(RewindError::NothingToUndo)?;
            let write = last.record.undo.as_ref().map(|undo| Write {
                line: last.line,
                call: None,
                prompt: last.prompts_before,
                before: vec![CheckpointId(undo.clone())],
                after: last.record.after.clone().map(CheckpointId),
            });
            (write.into_iter().collect(), last.line)
        }
    };
    if what.code() {
        code(context, context.store()?, &timeline, &writes, why, &mut planned)?;
    }
    if what.conversation() {
        conversation(context, &timeline, target, line, &mut planned)?;
    }
    Ok(planned)
}

/// The conversation part: the history before prompt k's record (or before the undone
/// rewind), the messages dropped, the prompt for a composer.
fn conversation(
    context: &Context<'_>,
    timeline: &Timeline,
    target: &RewindTarget,
    line: usize,
    planned: &mut Planned,
) -> Result<(), RewindError> {
    let at = timeline::history_before(context.session, line)?;
    // After a compression the history now is short: what the conversation loses is every
    // message it gained since the line, however it is held now.
    let dropped = at.now.saturating_sub(at.kept.len()).max(at.since);
    planned.plan.messages_dropped = u32::try_from(dropped).unwrap_or(u32::MAX);
    match target {
        RewindTarget::Prompt { prompt } => {
            planned.prompts = prompt.saturating_sub(1);
            planned.plan.prompt = at
                .next
                .as_ref()
                .and_then(text_of)
                .or_else(|| timeline.prompt(*prompt).map(|mark| airlock_protocol::shown::block(&mark.prompt.text)));
        }
        RewindTarget::Undo => {
            planned.prompts = timeline.rewinds.last().map_or(timeline.count, |last| last.prompts_before);
        }
        RewindTarget::Call { .. } => return Ok(()),
    }
    planned.history = Some(at.kept);
    Ok(())
}

/// The text a person typed in `message`, sanitised.
fn text_of(message: &Message) -> Option<String> {
    let text: Vec<&str> = message
        .parts
        .iter()
        .filter_map(|part| match part {
            Part::Text { text } => Some(text.as_str()),
            _ => None,
        })
        .collect();
    (!text.is_empty()).then(|| airlock_protocol::shown::block(&text.join("\n")))
}

/// The code part over `writes`.
fn code(
    context: &Context<'_>,
    store: &Store,
    timeline: &Timeline,
    writes: &[Write],
    why: &str,
    planned: &mut Planned,
) -> Result<(), RewindError> {
    if writes.is_empty() {
        return Ok(());
    }
    // Every `before` first: one removed by retention refuses the whole rewind.
    let mut befores: Vec<Vec<Checkpoint>> = Vec::new();
    for write in writes {
        befores.push(write.before.iter().map(|id| store.get(id)).collect::<Result<_, _>>()?);
    }
    let roots = union(befores.iter().flatten().flat_map(|checkpoint| checkpoint.roots.iter().cloned()));
    let label =
        Label { session: context.session_id.to_owned(), prompt: timeline.count, call: None, why: why.to_owned() };
    let now = store.checkpoint(&roots, label)?;
    let mut paths = BTreeSet::new();
    for (write, checkpoints) in writes.iter().zip(&befores) {
        let to = write.after.as_ref().unwrap_or(&now.id);
        for before in checkpoints {
            paths.extend(store.changes(&before.id, to)?.into_iter().map(|change| change.path));
        }
    }
    let mut left_out: Vec<LeftOut> = Vec::new();
    let mut note = |path: &Path, reason: &str| {
        let path = context.shown(path);
        if !left_out.iter().any(|known| known.path == path) {
            left_out.push(LeftOut { path, reason: airlock_protocol::shown::line(reason) });
        }
    };
    for checkpoint in befores.iter().flatten() {
        for out in &checkpoint.left_out {
            note(&out.path, &out.reason);
        }
    }
    for path in paths {
        let target = match target_of(store, &befores, &path)? {
            Target::None => continue,
            Target::Entry(target) => target,
            Target::LeftOut(reason) => {
                note(&path, &reason);
                continue;
            }
        };
        if !store.covers(&now.id, &path)? {
            let reason = now
                .left_out
                .iter()
                .find(|out| path.starts_with(&out.path))
                .map_or("not in the rewind's own checkpoint", |out| out.reason.as_str());
            note(&path, reason);
            continue;
        }
        let current = store.entry(&now.id, &path)?;
        if current == target {
            continue;
        }
        let outside = changed_outside(store, writes, &path, current.as_ref())?;
        let shown = context.shown(&path);
        let change = Change { path: path.clone(), before: current, after: target.clone() };
        planned.plan.files.push(file_row(context, store, change)?);
        if outside {
            planned.plan.changed_outside.push(shown.clone());
        }
        planned.restores.push(PlannedFile { restore: Restore { path, to: target }, shown, outside });
    }
    planned.plan.left_out = left_out;
    planned.folders = new_folders(&planned.restores, &roots);
    planned.roots = roots;
    planned.safety = Some(now.id);
    Ok(())
}

/// The folders the target did not hold that the rewind's deletions may leave empty: each
/// folder above a deleted path, strictly inside a folder root (a root itself stays), that
/// no planned write lies under. Deepest first.
fn new_folders(restores: &[PlannedFile], roots: &[PathBuf]) -> Vec<PathBuf> {
    let inside = |folder: &Path| roots.iter().any(|root| folder.starts_with(root) && folder != root.as_path());
    let written =
        |folder: &Path| restores.iter().any(|file| file.restore.to.is_some() && file.restore.path.starts_with(folder));
    let mut folders = BTreeSet::new();
    for file in restores.iter().filter(|file| file.restore.to.is_none()) {
        for folder in file.restore.path.ancestors().skip(1).take_while(|folder| inside(folder)) {
            if !written(folder) {
                folders.insert(folder.to_path_buf());
            }
        }
    }
    let mut folders: Vec<PathBuf> = folders.into_iter().collect();
    folders.sort_by_key(|folder| std::cmp::Reverse(folder.components().count()));
    folders
}

/// What the earliest `before` whose roots hold `path` says of it.
enum Target {
    /// None of them has `path` under its roots.
    None,
    /// It held this (`None`: no file there).
    Entry(Option<Entry>),
    /// It left `path` out, for this reason: the path is listed, never restored from a later
    /// checkpoint (that would be a state in between).
    LeftOut(String),
}

/// What the earliest `before` whose roots hold `path` held there.
fn target_of(store: &Store, befores: &[Vec<Checkpoint>], path: &Path) -> Result<Target, RewindError> {
    for checkpoint in befores.iter().flatten() {
        if store.covers(&checkpoint.id, path)? {
            return Ok(Target::Entry(store.entry(&checkpoint.id, path)?));
        }
        if checkpoint.roots.iter().any(|root| path.starts_with(root)) {
            let reason = checkpoint
                .left_out
                .iter()
                .find(|out| path.starts_with(&out.path))
                .map_or("left out of its checkpoint", |out| out.reason.as_str());
            return Ok(Target::LeftOut(reason.to_owned()));
        }
    }
    Ok(Target::None)
}

/// Whether `path`, holding `current` now, was changed by someone other than airlock since
/// the first of `writes` that covers it: walking the writes in order, a `before` that
/// differs from the previous covering write's `after` (changed between two of airlock's
/// calls), or a last `after` that differs from now. When the last covering write has no
/// `after` (it failed), airlock cannot tell, and says so by counting it changed.
fn changed_outside(store: &Store, writes: &[Write], path: &Path, current: Option<&Entry>) -> Result<bool, RewindError> {
    // What airlock left at `path` after the previous covering write; the outer `None`: no
    // covering write yet, or the last one has no `after`.
    let mut left: Option<Option<Entry>> = None;
    let mut any = false;
    for write in writes {
        let mut covered = false;
        for before in &write.before {
            if store.covers(before, path)? {
                let held = store.entry(before, path)?;
                if left.as_ref().is_some_and(|left| *left != held) {
                    return Ok(true);
                }
                covered = true;
                break;
            }
        }
        match &write.after {
            Some(after) if store.covers(after, path)? => {
                left = Some(store.entry(after, path)?);
                any = true;
            }
            _ if covered => {
                left = None;
                any = true;
            }
            _ => {}
        }
    }
    Ok(!any || left.is_none_or(|left| left.as_ref() != current))
}

#[cfg(test)]
#[path = "plan_tests.rs"]
mod tests;
