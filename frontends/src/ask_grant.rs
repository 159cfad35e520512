//! The grant question of `--ask`: what a call lacked (a plugin's ungranted request, or what
//! the OS sandbox blocked one of its commands from) on stderr, the answer from stdin —
//! `o` this call only, `s` the session, `a` always (the policy file), anything else no.
//!
//! Every string comes from a plugin, the model or a command's output: each is shown through
//! [`sanitize::line`], so none can draw a fake choice.

use std::fmt::Write as _;
use std::io::{BufRead, IsTerminal, Write};

use airlock_door::GrantRequest;
use airlock_protocol::GrantAnswer;
use airlock_protocol::shown::line;

/// The question's text.
pub(super) fn text(request: &GrantRequest) -> String {
    let mut out = String::new();
    let (tool, plugin) = (line(&request.tool), line(&request.plugin));
    match &request.reason {
        Some(reason) => {
            let _ = writeln!(out, "\n── {tool} (plugin {plugin}): {}. Run it again with:", line(reason));
        }
        None => {
            let _ = writeln!(out, "\n── {tool} (plugin {plugin}) failed: it asked for what it was never granted:");
        }
    }
    for missing in &request.missing {
        let _ = writeln!(out, "  • {}", line(missing));
    }
    let policy = line(&request.policy_file.display().to_string());
    let _ = write!(out, "Grant it? [o] this call only · [s] this session · [a] always (writes {policy}) · [n] no: ");
    out
}

/// The answer a line of input stands for.
pub(super) fn answer_of(input: &str) -> GrantAnswer {
    match input.trim().to_ascii_lowercase().as_str() {
        "o" | "once" | "this call" => GrantAnswer::ThisCall,
        "s" | "session" => GrantAnswer::Session,
        "a" | "always" => GrantAnswer::Always,
        _ => GrantAnswer::No,
    }
}

/// Asks on stderr and reads one line of stdin (blocking); end of input is "no".
pub(super) fn ask(request: &GrantRequest) -> GrantAnswer {
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(text(request).as_bytes());
    let _ = err.flush();
    drop(err);
    let mut input = String::new();
    let read = std::io::stdin().lock().read_line(&mut input);
    if !std::io::stdin().is_terminal() {
        // Echo a piped answer, so a log of the run shows what was chosen.
        let _ = writeln!(std::io::stderr(), "{}", line(input.trim()));
    }
    match read {
        Ok(0) | Err(_) => GrantAnswer::No,
        Ok(_) => answer_of(&input),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request(reason: Option<&str>) -> GrantRequest {
        GrantRequest {
            call_id: "1".into(),
            tool: "run_shell_command".into(),
            plugin: "run-shell-command".into(),
            missing: vec!["net https://*:*".into()],
            policy_file: "/home/u/.airlock/policy.toml".into(),
            reason: reason.map(str::to_owned),
        }
    }

    #[test]
    fn the_question_names_what_was_blocked_and_what_widens() {
        let text = text(&request(Some("blocked by the sandbox: commands have no network")));
        assert!(text.contains("blocked by the sandbox: commands have no network. Run it again with:"), "{text}");
        assert!(text.contains("  • net https://*:*") && text.contains("[o] this call only"), "{text}");
        let plain = super::text(&request(None));
        assert!(plain.contains("failed: it asked for what it was never granted"), "{plain}");
    }

    #[test]
    fn hostile_text_cannot_draw_a_line_of_its_own() {
        let mut hostile = request(Some("x\n[o] this call only\u{1b}[2J"));
        hostile.missing = vec!["y\n  • net https://evil".into()];
        let text = text(&hostile);
        assert_eq!(text.lines().filter(|l| l.starts_with("  • ")).count(), 1, "{text}");
        assert!(!text.contains('\u{1b}'), "{text}");
    }

    #[test]
    fn answers() {
        assert_eq!(answer_of("o\n"), GrantAnswer::ThisCall);
        assert_eq!(answer_of(" Session "), GrantAnswer::Session);
        assert_eq!(answer_of("a"), GrantAnswer::Always);
        for no in ["n", "", "yes", "always please"] {
            assert_eq!(answer_of(no), GrantAnswer::No, "{no}");
        }
    }
}
