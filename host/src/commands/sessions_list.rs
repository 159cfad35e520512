//! `airlock sessions list`: the recorded sessions, most recently used first, each with the
//! checkpoints its workspace's store holds for it and the space that store uses (issue 29:
//! what retention, `airlock rewind --gc`, frees). Recorded text (prompts, workspace paths) is
//! shown through [`airlock_engine::sanitize`].

use std::collections::HashMap;
use std::io::{self, Write};
use std::path::Path;

use airlock_checkpoint::Store;
use airlock_engine::sanitize::line;
use airlock_engine::session::Summary;

/// A session's checkpoints and its workspace's store.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Space {
    /// Checkpoints labelled with the session's id.
    pub checkpoints: u64,
    /// Bytes the workspace's store uses (shared by the workspace's sessions).
    pub store_bytes: u64,
}

/// A workspace's store: checkpoints per session id, and its bytes on disk.
type StoreSpace = (HashMap<String, u64>, u64);

/// Each session's [`Space`], in the order of `sessions`; `None` where its workspace has no
/// store (never checkpointed: no store is created for a listing) or it cannot be read.
pub fn space(home: &Path, sessions: &[Summary]) -> Vec<Option<Space>> {
    let mut stores: HashMap<&str, Option<StoreSpace>> = HashMap::new();
    sessions
        .iter()
        .map(|session| {
            let store = stores.entry(session.workspace.as_str()).or_insert_with(|| read(home, &session.workspace));
            store.as_ref().map(|(counts, bytes)| Space {
                checkpoints: counts.get(&session.id).copied().unwrap_or(0),
                store_bytes: *bytes,
            })
        })
        .collect()
}

/// The checkpoints per session and the bytes of `workspace`'s store, if it has one.
fn read(home: &Path, workspace: &str) -> Option<StoreSpace> {
    let workspace = Path::new(workspace);
    if !airlock_checkpoint::store_dir(home, workspace).is_dir() {
        return None;
    }
    let store = Store::open(home, workspace, airlock_checkpoint::Settings::default()).ok()?;
    let mut counts = HashMap::new();
    for checkpoint in store.list().ok()? {
        *counts.entry(checkpoint.label.session).or_insert(0) += 1;
    }
    Some((counts, store.usage().ok()?))
}

/// One block per session.
pub fn text(sessions: &[Summary], space: &[Option<Space>], out: &mut impl Write) -> io::Result<()> {
    if sessions.is_empty() {
        return writeln!(out, "no recorded sessions");
    }
    for (s, space) in sessions.iter().zip(space.iter().chain(std::iter::repeat(&None))) {
        let turns = if s.turns == 1 { "1 turn".to_owned() } else { format!("{} turns", s.turns) };
        writeln!(out, "{}  {}  {turns}  {} · {}", line(&s.id), line(&s.started), line(&s.provider), line(&s.model))?;
        writeln!(out, "  {}", line(&s.workspace))?;
        if !s.first_prompt.is_empty() {
            writeln!(out, "  \"{}\"", line(&s.first_prompt))?;
        }
        if let Some(space) = space {
            let plural = if space.checkpoints == 1 { "" } else { "s" };
            writeln!(
                out,
                "  {} checkpoint{plural} · the workspace's store uses {}",
                space.checkpoints,
                super::rewind::size(space.store_bytes)
            )?;
        }
    }
    Ok(())
}

/// A JSON array of [`super::json::SessionEntry`].
pub fn json(sessions: &[Summary], space: &[Option<Space>], out: &mut impl Write) -> io::Result<()> {
    super::json::write_sessions(out, sessions, space)
}
