//! How a front end words a [`HookNote`]: one line, `hook no-force-push denied: …`, sanitised
//! and bounded, the same on a TUI card, in an ACP call's content and as a notice.

use airlock_protocol::shown;
use airlock_protocol::{HookAction, HookNote};

/// The longest line a note becomes, in characters.
const MAX_CHARS: usize = 300;

/// The note as one line for a person.
pub fn line(note: &HookNote) -> String {
    let did = match note.action {
        HookAction::Denied => "denied",
        HookAction::Rewrote => "rewrote",
        HookAction::Asked => "asks",
        HookAction::AddedContext => "added context",
        HookAction::Continued => "kept the agent going",
        HookAction::Failed => "failed",
    };
    let text = format!("hook {} {did} ({}): {}", note.hook, note.event.as_str(), note.message);
    shown::line_bounded(&text, MAX_CHARS)
}

#[cfg(test)]
mod tests {
    use super::*;
    use airlock_protocol::HookEventName;

    #[test]
    fn a_note_is_one_clean_bounded_line() {
        let note = HookNote {
            hook: "no-force-push".into(),
            event: HookEventName::BeforeTool,
            call_id: Some("c1".into()),
            action: HookAction::Denied,
            message: format!("no\n\u{1b}[2Jforce {}", "x".repeat(1000)),
        };
        let line = line(&note);
        assert!(line.starts_with("hook no-force-push denied (before_tool): no"), "{line}");
        assert!(!line.contains('\n') && !line.contains('\u{1b}'), "{line}");
        assert!(line.chars().count() <= MAX_CHARS + 20, "{}", line.chars().count());
    }
}
