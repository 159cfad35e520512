//! `airlock sessions list`: the recorded sessions, most recently used first. Recorded text
//! (prompts, workspace paths) is shown through [`airlock_engine::sanitize`].

use std::io::{self, Write};

use airlock_engine::sanitize::line;
use airlock_engine::session::Summary;

/// One block per session.
pub fn text(sessions: &[Summary], out: &mut impl Write) -> io::Result<()> {
    if sessions.is_empty() {
        return writeln!(out, "no recorded sessions");
    }
    for s in sessions {
        let turns = if s.turns == 1 { "1 turn".to_owned() } else { format!("{} turns", s.turns) };
        writeln!(out, "{}  {}  {turns}  {} · {}", line(&s.id), line(&s.started), line(&s.provider), line(&s.model))?;
        writeln!(out, "  {}", line(&s.workspace))?;
        if !s.first_prompt.is_empty() {
            writeln!(out, "  \"{}\"", line(&s.first_prompt))?;
        }
    }
    Ok(())
}

/// A JSON array of [`super::json::SessionEntry`].
pub fn json(sessions: &[Summary], out: &mut impl Write) -> io::Result<()> {
    super::json::write_sessions(out, sessions)
}
