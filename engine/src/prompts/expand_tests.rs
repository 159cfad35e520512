use super::*;
use crate::prompts::Origin;

fn command(template: &str, syntax: Syntax) -> Command {
    Command {
        name: "c".into(),
        description: String::new(),
        argument_hint: None,
        origin: Origin::Workspace,
        path: PathBuf::from("/c.md"),
        template: template.into(),
        syntax,
    }
}

fn workspace() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(root.join("work/src")).unwrap();
    std::fs::write(root.join("work/src/a.rs"), "fn a() {}\n").unwrap();
    std::fs::write(root.join("outside.txt"), "SECRET").unwrap();
    std::os::unix::fs::symlink(root.join("outside.txt"), root.join("work/link.txt")).unwrap();
    (dir, root)
}

#[test]
fn arguments_fill_their_placeholders() {
    let (_dir, root) = workspace();
    let roots = Roots { workspace: &root.join("work"), added: &[] };
    let done = expand(&command("Fix $1 by $2 ($3): $ARGUMENTS, cost $5", Syntax::Markdown), "42  high", roots);
    assert_eq!(done.prompt, "Fix 42 by high (): 42  high, cost ");
    let done = expand(&command("No placeholder", Syntax::Markdown), "a b", roots);
    assert_eq!(done.prompt, "No placeholder\n\nARGUMENTS: a b");
    let done = expand(&command("Do {{args}} now $1", Syntax::Toml), "it", roots);
    assert_eq!(done.prompt, "Do it now $1");
    let done = expand(&command("Plain", Syntax::Toml), "x", roots);
    assert_eq!(done.prompt, "Plain\n\nx");
    assert!(done.notices.is_empty());
}

#[test]
fn includes_read_the_workspace_and_leave_out_what_lies_outside_or_links_out() {
    let (_dir, root) = workspace();
    let ws = root.join("work");
    let roots = Roots { workspace: &ws, added: &[] };
    let done = expand(&command("See @src/a.rs, @{src/a.rs} and a@b.c", Syntax::Markdown), "", roots);
    assert_eq!(done.prompt.matches("fn a() {}").count(), 2, "{}", done.prompt);
    assert!(done.prompt.contains("a@b.c"));
    assert!(done.notices.is_empty(), "{:?}", done.notices);
    let outside = root.join("outside.txt");
    let template = format!("@../outside.txt @link.txt @{} @missing.md", outside.display());
    let done = expand(&command(&template, Syntax::Markdown), "", roots);
    assert!(!done.prompt.contains("SECRET"), "{}", done.prompt);
    assert_eq!(done.notices.len(), 4, "{:?}", done.notices);
    assert!(done.notices[0].contains("outside the workspace"), "{:?}", done.notices);
    assert!(done.notices[1].contains("link"), "{:?}", done.notices);
    // A folder added to the session is a root too.
    let added = [root.clone()];
    let done = expand(&command("@../outside.txt", Syntax::Markdown), "", Roots { workspace: &ws, added: &added });
    assert!(done.prompt.contains("SECRET"), "{:?}", done);
}

#[test]
fn arguments_never_add_includes_and_shell_interpolation_is_not_run() {
    let (_dir, root) = workspace();
    let roots = Roots { workspace: &root.join("work"), added: &[] };
    let done = expand(&command("Status: !`touch pwned` then $ARGUMENTS", Syntax::Markdown), "@src/a.rs", roots);
    assert_eq!(done.prompt, "Status: !`touch pwned` then @src/a.rs");
    assert_eq!(done.notices.len(), 1);
    assert!(done.notices[0].contains("not run"), "{:?}", done.notices);
    assert!(!root.join("work/pwned").exists());
    let done = expand(&command("!{ls}", Syntax::Toml), "", roots);
    assert_eq!((done.prompt.as_str(), done.notices.len()), ("!{ls}", 1));
}

#[test]
fn an_argument_right_after_an_at_names_an_include_read_by_the_same_rules() {
    let (_dir, root) = workspace();
    let roots = Roots { workspace: &root.join("work"), added: &[] };
    let review = command("Review @$1 focusing on $2.", Syntax::Markdown);
    let done = expand(&review, "src/a.rs security", roots);
    assert!(done.prompt.starts_with("Review \n--- src/a.rs ---\nfn a() {}\n--- end of src/a.rs ---\n"), "{done:?}");
    assert!(done.prompt.ends_with(" focusing on security."), "{done:?}");
    assert!(done.notices.is_empty(), "{done:?}");
    // The first word of `$ARGUMENTS` is the file; the rest stays text.
    let done = expand(&command("Explain @$ARGUMENTS", Syntax::Markdown), "src/a.rs briefly", roots);
    assert!(done.prompt.contains("fn a() {}") && done.prompt.ends_with(" briefly"), "{done:?}");
    // The same rules as any include: outside the workspace, or missing, is left out.
    let done = expand(&review, "../outside.txt x", roots);
    assert!(!done.prompt.contains("SECRET"), "{done:?}");
    assert!(done.notices[0].contains("outside the workspace"), "{done:?}");
    let done = expand(&review, "missing.rs x", roots);
    assert_eq!(done.notices, ["@missing.rs is left out: there is no such file"]);
    // No argument: the `@` stays, nothing is read.
    let done = expand(&review, "", roots);
    assert_eq!(done.prompt, "Review @ focusing on .");
}
