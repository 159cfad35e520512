use super::*;

fn write(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

fn dirs() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let (home, workspace) = (root.join("home"), root.join("work"));
    std::fs::create_dir_all(&home).unwrap();
    std::fs::create_dir_all(&workspace).unwrap();
    (dir, home, workspace)
}

#[test]
fn commands_of_both_folders_load_with_namespaces_and_a_clash_renamed() {
    let (_dir, home, ws) = dirs();
    write(
        &home.join("commands/review.md"),
        "---\ndescription: Review it\nargument-hint: [pr]\nmodel: x\n---\nReview $1\n",
    );
    write(&home.join("commands/frontend/component.md"), "# Make a component\nbody\n");
    write(&ws.join(".airlock/commands/review.md"), "---\ndescription: The repo's review\n---\nR\n");
    write(&ws.join(".airlock/commands/deploy.toml"), "description = \"Deploy\"\nprompt = \"Deploy {{args}}\"\n");
    write(&ws.join(".airlock/commands/notes.txt"), "not a command");
    let commands = load(&home, &ws);
    let names: Vec<_> = commands.list.iter().map(|c| (c.name.as_str(), c.origin)).collect();
    assert_eq!(
        names,
        [
            ("frontend:component", Origin::User),
            ("review", Origin::User),
            ("deploy", Origin::Workspace),
            ("workspace:review", Origin::Workspace)
        ]
    );
    let review = commands.get("review").unwrap();
    assert_eq!((review.description.as_str(), review.argument_hint.as_deref()), ("Review it", Some("[pr]")));
    assert_eq!(review.template, "Review $1\n");
    assert_eq!(commands.get("frontend:component").unwrap().description, "Make a component");
    assert_eq!(commands.get("deploy").unwrap().syntax, Syntax::Toml);
    assert!(commands.problems.is_empty(), "{:?}", commands.problems);
}

#[test]
fn bad_names_large_files_and_links_in_the_workspace_are_left_out_and_said() {
    let (_dir, home, ws) = dirs();
    write(&ws.join(".airlock/commands/bad name.md"), "x");
    write(&ws.join(".airlock/commands/big.md"), &"x".repeat(MAX_FILE_BYTES as usize + 1));
    write(&ws.join("secret.txt"), "secret");
    std::os::unix::fs::symlink(ws.join("secret.txt"), ws.join(".airlock/commands/linked.md")).unwrap();
    write(&ws.join(".airlock/commands/bad.toml"), "no = prompt");
    let commands = load(&home, &ws);
    assert!(commands.list.is_empty(), "{:?}", commands.list);
    let problems = commands.problems.join("\n");
    for expected in ["bad name.md: left out", "big.md: left out", "linked.md: left out", "bad.toml: left out"] {
        assert!(problems.contains(expected), "{expected} not in {problems}");
    }
}

#[test]
fn a_workspace_commands_folder_that_is_a_link_is_not_read() {
    let (_dir, home, ws) = dirs();
    write(&home.join("elsewhere/x.md"), "x");
    std::fs::create_dir_all(ws.join(".airlock")).unwrap();
    std::os::unix::fs::symlink(home.join("elsewhere"), ws.join(".airlock/commands")).unwrap();
    let commands = load(&home, &ws);
    assert!(commands.list.is_empty());
    assert_eq!(commands.problems.len(), 1, "{:?}", commands.problems);
}
