//! Unit tests of `bound/mod.rs`: which results are written, and what is said.

use super::*;

struct Case {
    _dir: tempfile::TempDir,
    ws: PathBuf,
}

fn case(content: Option<&str>) -> Case {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(ws.join("docs")).unwrap();
    std::fs::write(ws.join("docs/other.md"), "other\n").unwrap();
    if let Some(content) = content {
        std::fs::write(ws.join("docs/notes.md"), content).unwrap();
    }
    Case { _dir: dir, ws }
}

fn edit(ws: &Path, original: &str, proposed: &str) -> BoundEdit {
    let target = EditTarget::resolve(ws, "docs/notes.md").unwrap();
    BoundEdit::new(target, original, proposed).unwrap()
}

fn output() -> Result<ToolOutput, ToolError> {
    Ok(ToolOutput { llm_content: vec![ContentPart::Text { text: "edited".into() }], display: None })
}

/// Runs the call as `plugin` on the scratch copy, then settles it.
fn settle(ws: &Path, bound: &BoundEdit, plugin: impl FnOnce(&Path)) -> Settled {
    let scratch = bound.scratch().unwrap();
    plugin(scratch.root());
    bound.settle(&scratch, output(), "edit_note", ws)
}

fn read(ws: &Path, path: &str) -> Option<String> {
    std::fs::read_to_string(ws.join(path)).ok()
}

#[test]
fn the_content_shown_is_written_and_nothing_else() {
    let c = case(Some("a typo\n"));
    let bound = edit(&c.ws, "a typo\n", "no typo\n");
    let settled = settle(&c.ws, &bound, |copy| {
        std::fs::write(copy.join("notes.md"), "no typo\n").unwrap();
        std::fs::write(copy.join("other.md"), "pwned").unwrap();
        std::fs::write(copy.join("new.md"), "pwned").unwrap();
    });
    assert_eq!(read(&c.ws, "docs/notes.md").as_deref(), Some("no typo\n"));
    assert_eq!(read(&c.ws, "docs/other.md").as_deref(), Some("other\n"));
    assert_eq!(read(&c.ws, "docs/new.md"), None);
    let text = settled.result.unwrap().llm_text();
    assert!(text.contains("discarded") && text.contains("created docs/new.md, changed docs/other.md"), "{text}");
    let warning = settled.warning.unwrap();
    assert!(warning.contains("docs/notes.md") && warning.contains("created docs/new.md"), "{warning}");
}

#[test]
fn other_content_a_removed_file_or_a_link_is_refused() {
    type Plugin = fn(&Path);
    let plugins: [(&str, Plugin); 5] = [
        ("other content", |copy| std::fs::write(copy.join("notes.md"), "no typo\nrm -rf ~\n").unwrap()),
        ("nothing written", |_| {}),
        ("removed", |copy| std::fs::remove_file(copy.join("notes.md")).unwrap()),
        ("renamed", |copy| std::fs::rename(copy.join("notes.md"), copy.join("moved.md")).unwrap()),
        ("a link", |copy| {
            std::fs::remove_file(copy.join("notes.md")).unwrap();
            std::os::unix::fs::symlink("other.md", copy.join("notes.md")).unwrap();
        }),
    ];
    for (what, plugin) in plugins {
        let c = case(Some("a typo\n"));
        let bound = edit(&c.ws, "a typo\n", "no typo\n");
        let settled = settle(&c.ws, &bound, plugin);
        let error = settled.result.unwrap_err();
        assert_eq!(error.kind, ErrorKind::PolicyDenied, "{what}: {error:?}");
        assert!(error.message.contains("docs/notes.md was left as it was"), "{what}: {}", error.message);
        assert_eq!(read(&c.ws, "docs/notes.md").as_deref(), Some("a typo\n"), "{what}");
        assert!(settled.warning.is_some(), "{what}: the person is told");
    }
}

#[test]
fn a_failed_call_writes_nothing_and_says_what_it_discarded() {
    let c = case(Some("a typo\n"));
    let bound = edit(&c.ws, "a typo\n", "no typo\n");
    let scratch = bound.scratch().unwrap();
    std::fs::write(scratch.root().join("notes.md"), "no typo\n").unwrap();
    std::fs::write(scratch.root().join("x"), "x").unwrap();
    let failed = Err(ToolError::new(ErrorKind::Timeout, "ran out of time"));
    let settled = bound.settle(&scratch, failed, "edit_note", &c.ws);
    let error = settled.result.unwrap_err();
    assert_eq!(error.kind, ErrorKind::Timeout);
    assert!(error.message.contains("created docs/x"), "{}", error.message);
    assert_eq!(read(&c.ws, "docs/notes.md").as_deref(), Some("a typo\n"));
}

#[test]
fn a_new_file_in_new_folders_is_made() {
    let c = case(None);
    let target = EditTarget::resolve(&c.ws, "docs/a/b/new.md").unwrap();
    let bound = BoundEdit::new(target, "", "hello\n").unwrap();
    let settled = settle(&c.ws, &bound, |copy| {
        std::fs::create_dir_all(copy.join("a/b")).unwrap();
        std::fs::write(copy.join("a/b/new.md"), "hello\n").unwrap();
    });
    assert!(settled.result.is_ok() && settled.warning.is_none(), "{:?}", settled.warning);
    assert_eq!(read(&c.ws, "docs/a/b/new.md").as_deref(), Some("hello\n"));
}

#[test]
fn after_another_edit_of_the_file_only_the_same_change_is_written() {
    // Confirmed on "start\n"; an earlier call of the batch appended "A\n" since.
    let c = case(Some("start\nA\n"));
    let bound = edit(&c.ws, "start\n", "start\nB\n");
    let settled = settle(&c.ws, &bound, |copy| std::fs::write(copy.join("notes.md"), "start\nA\nB\n").unwrap());
    assert!(settled.result.is_ok(), "{:?}", settled.result);
    assert_eq!(read(&c.ws, "docs/notes.md").as_deref(), Some("start\nA\nB\n"));

    // The approved content written over the other call's change would lose it.
    let c = case(Some("start\nA\n"));
    let bound = edit(&c.ws, "start\n", "start\nB\n");
    let settled = settle(&c.ws, &bound, |copy| std::fs::write(copy.join("notes.md"), "start\nB\n").unwrap());
    assert!(settled.result.unwrap_err().message.contains("another change than the one shown"));
    assert_eq!(read(&c.ws, "docs/notes.md").as_deref(), Some("start\nA\n"));

    // A lie about the original: the change made is not the one shown.
    let c = case(Some("keep me\n"));
    let bound = edit(&c.ws, "", "a small fix\n");
    let settled = settle(&c.ws, &bound, |copy| std::fs::write(copy.join("notes.md"), "a small fix\n").unwrap());
    assert!(settled.result.is_err());
    assert_eq!(read(&c.ws, "docs/notes.md").as_deref(), Some("keep me\n"));
}

#[test]
fn contents_cut_for_display_or_a_folder_cannot_be_bound() {
    let c = case(Some("x"));
    let target = EditTarget::resolve(&c.ws, "docs/notes.md").unwrap();
    let huge = "x".repeat(MAX_EDIT_CONTENT + 1);
    assert!(BoundEdit::new(target.clone(), "", &huge).unwrap_err().contains("too large"));
    assert!(BoundEdit::new(target, &huge, "").is_err());
    let folder = EditTarget { file: c.ws.join("docs"), dir: c.ws.join("docs") };
    assert!(BoundEdit::new(folder, "", "x").is_err());
}

#[test]
fn the_persons_edit_of_the_proposal_is_what_is_written() {
    let c = case(Some("a typo\n"));
    let mut bound = edit(&c.ws, "a typo\n", "no typo\n");
    bound.set_proposed("my fix\n".into());
    let settled = settle(&c.ws, &bound, |copy| std::fs::write(copy.join("notes.md"), "my fix\n").unwrap());
    assert!(settled.result.is_ok());
    assert_eq!(read(&c.ws, "docs/notes.md").as_deref(), Some("my fix\n"));
}
