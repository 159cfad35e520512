//! `AGENTS.md` and `[context] file_names`.

use airlock_tests::{MockModel, Session, Turn, Wire};

use super::system_of;
use crate::session;

#[test]
fn a_repository_with_only_an_agents_md_gets_it_in_the_prompt_and_in_show_context() {
    let s = session();
    s.write("AGENTS.md", "CODEX-RULES: run cargo fmt\n");
    let shown = Session::run({
        let mut c = s.bare_command();
        c.arg("--workspace").arg(&s.workspace).arg("--show-context");
        c
    });
    assert_eq!(shown.code, Some(0), "{}", shown.stderr);
    let agents = s.workspace.join("AGENTS.md").display().to_string();
    assert!(shown.stdout.contains(&format!("{agents}  27 bytes")), "{}", shown.stdout);
    let airlock_md = s.workspace.join("AIRLOCK.md").display().to_string();
    assert!(shown.stdout.contains(&format!("{airlock_md}  (none)")), "{}", shown.stdout);
    assert!(shown.stdout.contains("CODEX-RULES"), "{}", shown.stdout);

    let mock = MockModel::start(Wire::Anthropic);
    mock.push_turn(Turn::text("ok"));
    let done = s.airlock(&mock, &["-p", "hello"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let system = system_of(&mock.requests()[0]);
    assert!(system.contains("CODEX-RULES: run cargo fmt"), "{system}");
    assert!(system.contains(&format!("--- Context from: {agents}")), "{system}");
}

#[test]
fn file_names_pick_the_context_files_and_both_names_come_in_the_listed_order() {
    let s = session();
    s.write("AIRLOCK.md", "AIRLOCK-RULES\n");
    s.write("AGENTS.md", "AGENTS-RULES\n");
    s.write("GEMINI.md", "GEMINI-RULES\n");
    let mock = MockModel::start(Wire::Gemini);
    mock.push_turn(Turn::text("ok"));
    assert_eq!(s.airlock(&mock, &["-p", "hi"]).code, Some(0));
    let system = system_of(&mock.requests()[0]);
    let at = |needle: &str| system.find(needle);
    assert!(at("AIRLOCK-RULES").unwrap() < at("AGENTS-RULES").unwrap(), "{system}");
    assert!(at("GEMINI-RULES").is_none(), "{system}");

    s.write_config("[context]\nfile_names = [\"GEMINI.md\"]\n");
    let mock = MockModel::start(Wire::Gemini);
    mock.push_turn(Turn::text("ok"));
    let done = s.airlock(&mock, &["-p", "hi"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let system = system_of(&mock.requests()[0]);
    assert!(system.contains("GEMINI-RULES"), "{system}");
    assert!(!system.contains("AIRLOCK-RULES") && !system.contains("AGENTS-RULES"), "{system}");

    s.write_config("[context]\nfile_names = [\"../AGENTS.md\"]\n");
    let mock = MockModel::start(Wire::Gemini);
    let done = s.airlock(&mock, &["-p", "hi"]);
    assert_eq!(done.code, Some(52), "{}", done.stderr);
    assert!(done.stderr.contains("not a plain file name"), "{}", done.stderr);
    assert!(mock.requests().is_empty());
}
