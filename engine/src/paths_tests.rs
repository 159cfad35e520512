//! Unit tests of `paths.rs`.

use super::*;

#[test]
fn every_spelling_of_the_home_and_cache_becomes_one_canonical_path() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(real.join("user/x")).unwrap();
    std::os::unix::fs::symlink(real.join("user"), real.join("link")).unwrap();
    let expected = real.join("user/.airlock");
    for spelling in [real.join("link/.airlock"), real.join("user/x/../.airlock"), real.join("link/x/../.airlock")] {
        let paths = Paths::new(&spelling, None).unwrap();
        assert_eq!(paths.home, expected, "{}", spelling.display());
        assert_eq!(paths.cache, expected.join("cache"));
        assert_eq!(paths.protected(), std::slice::from_ref(&expected), "the cache lies inside the home");
    }
    // A cache given through a link is canonical too, and protected on its own.
    let paths = Paths::new(&real.join("link/.airlock"), Some(&real.join("link/x/../cache"))).unwrap();
    assert_eq!(paths.cache, real.join("user/cache"));
    assert_eq!(paths.protected(), [expected, real.join("user/cache")]);
}

#[test]
fn a_relative_home_is_taken_from_the_current_folder() {
    let cwd = std::env::current_dir().unwrap().canonicalize().unwrap();
    let name = format!("../target/relative-home-{}", std::process::id());
    let paths = Paths::new(Path::new(&name), None).unwrap();
    assert!(paths.home.is_absolute());
    assert_eq!(paths.home, cwd.parent().unwrap().join(format!("target/relative-home-{}", std::process::id())));
    std::fs::remove_dir_all(&paths.home).unwrap();
}

#[test]
fn an_alias_is_a_spelling_through_a_link_above_the_workspace_never_one_inside_it() {
    let dir = tempfile::tempdir().unwrap();
    let real = dir.path().canonicalize().unwrap();
    let workspace = real.join("projects/proj");
    std::fs::create_dir_all(workspace.join("src")).unwrap();
    std::os::unix::fs::symlink(real.join("projects"), real.join("link")).unwrap();
    std::os::unix::fs::symlink(&workspace, workspace.join("self")).unwrap();
    std::os::unix::fs::symlink(real.join("projects"), real.join("projects/up")).unwrap();
    let alias = real.join("link/proj");
    let found = WorkspaceAliases::of(&workspace, Some(&alias));
    assert_eq!(found.aliases, std::slice::from_ref(&alias));
    assert_eq!(found.spellings(&workspace.join("src")), [alias.join("src")]);
    assert_eq!(found.spellings(&real.join("elsewhere")), Vec::<PathBuf>::new());
    // A trailing slash or `.` is the same spelling.
    assert_eq!(WorkspaceAliases::of(&workspace, Some(&real.join("link/./proj/"))).aliases, [alias]);
    // `projects/up` is a link above the workspace (beside it), so its spelling is an alias.
    let beside = real.join("projects/up/proj");
    assert_eq!(WorkspaceAliases::of(&workspace, Some(&beside)).aliases, [beside]);
    // Not aliases: the canonical path itself, a link inside the workspace, a spelling with
    // `..`, a spelling of another folder, one that does not exist.
    for spelling in [
        workspace.clone(),
        workspace.join("self"),
        real.join("link/proj/src/.."),
        real.join("link"),
        real.join("nowhere/proj"),
    ] {
        let found = WorkspaceAliases::of(&workspace, Some(&spelling));
        assert_eq!(found.aliases, Vec::<PathBuf>::new(), "{}", spelling.display());
    }
}
