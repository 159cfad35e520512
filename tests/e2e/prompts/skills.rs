//! Skills in the Agent Skills format (as anthropics/skills writes them): only names and
//! descriptions in the system prompt, the body once the model activates the skill.

use airlock_tests::{MockModel, Session, Turn, Wire, call, function_responses};
use serde_json::json;

use super::{body_text, system_of};
use crate::session;

/// A `SKILL.md` laid out as anthropics/skills' `pdf` skill is: name, description, license,
/// then the instructions, which point at files beside it.
const PDF_SKILL: &str = "---\n\
name: pdf\n\
description: Use this skill whenever the user wants to do anything with PDF files, such as filling forms.\n\
license: Proprietary. LICENSE.txt has complete terms\n\
---\n\
\n\
# PDF Processing Guide\n\
\n\
PDF-BODY-MARKER: to fill a form, read FORMS.md and follow its instructions.\n";

#[test]
fn a_claude_code_skill_reaches_the_model_only_after_activation_and_its_files_become_readable() {
    let s = session();
    let dir = s.airlock_home().join("skills/pdf");
    std::fs::create_dir_all(dir.join("scripts")).unwrap();
    std::fs::write(dir.join("SKILL.md"), PDF_SKILL).unwrap();
    std::fs::write(dir.join("FORMS.md"), "FORMS-MARKER: fields first\n").unwrap();
    std::fs::write(dir.join("scripts/fill.py"), "print('x')\n").unwrap();
    let forms = dir.canonicalize().unwrap().join("FORMS.md");
    let mock = MockModel::start(Wire::Anthropic);
    mock.push_turn(Turn::calls(vec![call("activate_skill", json!({"name": "pdf"}))]));
    mock.push_turn(Turn::calls(vec![call("read_file", json!({"file_path": forms.display().to_string()}))]));
    mock.push_turn(Turn::text("done"));
    let done = s.airlock(&mock, &["-p", "fill the form in a.pdf"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let requests = mock.requests();
    assert_eq!(requests.len(), 3);
    let system = system_of(&requests[0]);
    assert!(system.contains("- pdf: Use this skill whenever the user wants to do anything with PDF files"), "{system}");
    assert!(system.contains("activate_skill"), "{system}");
    // Before activation the body is nowhere in the request.
    assert!(!body_text(&requests[0]).contains("PDF-BODY-MARKER"));
    assert!(body_text(&requests[0]).contains("\"activate_skill\""), "the tool is declared");
    let activated = function_responses(&requests[1]);
    assert_eq!(activated[0].0, "activate_skill");
    assert!(activated[0].1.contains("PDF-BODY-MARKER"), "{activated:?}");
    assert!(activated[0].1.contains("- FORMS.md") && activated[0].1.contains("- scripts/fill.py"), "{activated:?}");
    assert!(!system_of(&requests[1]).contains("PDF-BODY-MARKER"));
    // The skill's extra file, outside the workspace, is readable once it is active.
    let read = function_responses(&requests[2]);
    assert!(read[0].1.contains("FORMS-MARKER"), "{read:?}\n{}", done.stderr);
}

#[test]
fn a_workspace_skill_in_an_untrusted_workspace_loads_as_a_marked_prompt_and_grants_nothing() {
    let s = session();
    s.write(
        ".airlock/skills/review/SKILL.md",
        "---\nname: review\ndescription: Review a change\nallowed-tools: Bash(rm:*) Write\n---\nREVIEW-BODY\n",
    );
    s.write(".airlock/skills/broken/SKILL.md", "no front matter\n");
    let mock = MockModel::start(Wire::Gemini);
    mock.push_turn(Turn::calls(vec![call("activate_skill", json!({"name": "review"}))]));
    mock.push_turn(Turn::calls(vec![call("run_shell_command", json!({"command": "rm -rf src"}))]));
    mock.push_turn(Turn::text("done"));
    s.write("src/keep.txt", "kept");
    let done = s.airlock(&mock, &["-p", "review"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let requests = mock.requests();
    let system = system_of(&requests[0]);
    assert!(system.contains("- review: Review a change (from this workspace)"), "{system}");
    assert!(!system.contains("broken"), "{system}");
    assert!(done.stderr.contains("1 skill(s) left out"), "{}", done.stderr);
    assert!(function_responses(&requests[1])[0].1.contains("REVIEW-BODY"));
    // Its allowed-tools granted nothing: the command was refused headless, the file stays.
    assert!(s.workspace.join("src/keep.txt").exists());

    let listed = Session::run({
        let mut c = s.bare_command();
        c.arg("--workspace").arg(&s.workspace).args(["skills", "list"]);
        c
    });
    assert_eq!(listed.code, Some(0), "{}", listed.stderr);
    assert!(listed.stdout.contains("review  Review a change  (workspace)"), "{}", listed.stdout);
    assert!(listed.stdout.contains("broken: left out: its SKILL.md has no front matter"), "{}", listed.stdout);
}

#[test]
fn skills_off_offers_no_skill_and_no_tool() {
    let s = session();
    s.write(".airlock/skills/review/SKILL.md", "---\nname: review\ndescription: Review a change\n---\nBODY\n");
    s.write_config("[skills]\nenabled = false\n");
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::text("ok"));
    let done = s.airlock(&mock, &["-p", "hi"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    let request = body_text(&mock.requests()[0]);
    assert!(!request.contains("Review a change") && !request.contains("activate_skill"), "{request}");
}
