//! `airlock sessions list`: the recorded sessions, most recently used first.

use std::io::{self, Write};

use crate::session::Summary;

/// One block per session.
pub fn text(sessions: &[Summary], out: &mut impl Write) -> io::Result<()> {
    if sessions.is_empty() {
        return writeln!(out, "no recorded sessions");
    }
    for s in sessions {
        let turns = if s.turns == 1 { "1 turn".to_owned() } else { format!("{} turns", s.turns) };
        writeln!(out, "{}  {}  {turns}  {} · {}", s.id, s.started, s.provider, s.model)?;
        writeln!(out, "  {}", s.workspace)?;
        if !s.first_prompt.is_empty() {
            writeln!(out, "  \"{}\"", s.first_prompt)?;
        }
    }
    Ok(())
}

/// A JSON array.
pub fn json(sessions: &[Summary], out: &mut impl Write) -> io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, sessions)?;
    writeln!(out)
}
