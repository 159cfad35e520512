use std::fs;
use std::os::unix::fs::symlink;

use super::*;

/// The files `walk` visits below a new tree of `files` (path, content), relative to its root;
/// they must be the ones `WalkBuilder` finds, in its order.
fn all(files: &[(&str, &str)]) -> Vec<String> {
    let tree = tempfile_dir();
    for (path, content) in files {
        let path = tree.join(path);
        if let Some(parent) = path.parent() {
            fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{e}"));
        }
        fs::write(&path, content).unwrap_or_else(|e| panic!("{e}"));
    }
    let relative = |path: &Path| path.strip_prefix(&tree).map(|p| p.display().to_string()).unwrap_or_default();
    let mut seen = Vec::new();
    walk(&tree, &mut |_| true, &mut |found| seen.push(relative(&found.path)));
    assert_eq!(seen, reference(&tree).iter().map(|p| relative(p)).collect::<Vec<_>>(), "as WalkBuilder walks");
    let _ = fs::remove_dir_all(&tree);
    seen
}

/// The files `ignore::WalkBuilder` finds set up as the tools set it up before this walk, and
/// as it behaves on wasm32-wasip2 (no ignore files above the root): every test's tree is
/// walked by both, and the two must agree.
fn reference(root: &Path) -> Vec<PathBuf> {
    ignore::WalkBuilder::new(root)
        .hidden(false)
        .require_git(false)
        .git_global(false)
        .parents(false)
        .sort_by_file_name(|a, b| a.cmp(b))
        .filter_entry(|entry| entry.file_name() != ".git")
        .build()
        .flatten()
        .filter(|e| e.file_type().is_some_and(|t| t.is_file() || (t.is_symlink() && e.path().is_file())))
        .map(ignore::DirEntry::into_path)
        .collect()
}

fn tempfile_dir() -> PathBuf {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("search-walk-{}-{n}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    dir
}

#[test]
fn files_come_in_name_order_with_a_folders_files_where_the_folder_sorts() {
    let seen = all(&[("b.rs", ""), ("a/z.rs", ""), ("a/b/c.rs", ""), ("a.rs", ""), (".hidden/x", "")]);
    assert_eq!(seen, [".hidden/x", "a/b/c.rs", "a/z.rs", "a.rs", "b.rs"]);
}

#[test]
fn ignore_files_apply_at_every_level_and_the_git_folder_is_never_entered() {
    let seen = all(&[
        (".gitignore", "*.log\ntarget/\n"),
        ("keep.rs", ""),
        ("run.log", ""),
        ("target/out.rs", ""),
        ("sub/.gitignore", "!important.log\ngen/\n"),
        ("sub/important.log", ""),
        ("sub/other.log", ""),
        ("sub/gen/made.rs", ""),
        ("sub/deeper/x.rs", ""),
        (".git/config", ""),
        (".git/info/exclude", "excluded.rs\n"),
        ("excluded.rs", ""),
    ]);
    assert_eq!(seen, [".gitignore", "keep.rs", "sub/.gitignore", "sub/deeper/x.rs", "sub/important.log"]);
}

#[test]
fn an_ignore_file_has_the_say_over_a_gitignore_whatever_their_depth() {
    let seen = all(&[
        (".ignore", "!*.gen\n"),
        ("sub/.gitignore", "*.gen\n"),
        ("sub/a.gen", ""),
        ("b.tmp", ""),
        (".gitignore", "*.tmp\n"),
    ]);
    assert_eq!(seen, [".gitignore", ".ignore", "sub/.gitignore", "sub/a.gen"]);
}

#[test]
fn links_to_files_are_visited_and_links_to_folders_never_entered() {
    let outside = tempfile_dir();
    fs::write(outside.join("secret.rs"), "").unwrap_or_else(|e| panic!("{e}"));
    let tree = tempfile_dir();
    fs::write(tree.join("real.rs"), "").unwrap_or_else(|e| panic!("{e}"));
    symlink(tree.join("real.rs"), tree.join("link.rs")).unwrap_or_else(|e| panic!("{e}"));
    symlink(&outside, tree.join("out")).unwrap_or_else(|e| panic!("{e}"));
    symlink("missing", tree.join("dangling.rs")).unwrap_or_else(|e| panic!("{e}"));
    let mut seen = Vec::new();
    walk(&tree, &mut |_| true, &mut |found| seen.push(found.path.clone()));
    assert_eq!(seen, [tree.join("link.rs"), tree.join("real.rs")]);
    let _ = (fs::remove_dir_all(&tree), fs::remove_dir_all(&outside));
}

#[test]
fn enter_prunes_folders_and_a_root_that_is_a_file_is_visited_alone() {
    let tree = tempfile_dir();
    for path in ["a/x.rs", "b/y.rs", "c.rs"] {
        let path = tree.join(path);
        fs::create_dir_all(path.parent().unwrap_or(&tree)).unwrap_or_else(|e| panic!("{e}"));
        fs::write(path, "").unwrap_or_else(|e| panic!("{e}"));
    }
    let mut seen = Vec::new();
    walk(&tree, &mut |p| !p.ends_with("b"), &mut |found| seen.push(found.path.clone()));
    assert_eq!(seen, [tree.join("a/x.rs"), tree.join("c.rs")]);
    let _ = fs::remove_dir_all(&tree);
    let tree = tempfile_dir();
    let file = tree.join("only.rs");
    fs::write(&file, "x").unwrap_or_else(|e| panic!("{e}"));
    let mut seen = Vec::new();
    walk(&file, &mut |_| true, &mut |found| seen.push(found.path.clone()));
    assert_eq!(seen, [file]);
    let _ = fs::remove_dir_all(&tree);
}

#[test]
fn a_file_over_the_limit_is_refused_when_opened() {
    let tree = tempfile_dir();
    fs::write(tree.join("big"), vec![b'x'; 100]).unwrap_or_else(|e| panic!("{e}"));
    let mut opened = Vec::new();
    walk(&tree, &mut |_| true, &mut |found| opened.push((found.open(99).is_err(), found.open(100).is_ok())));
    assert_eq!(opened, [(true, true)]);
    let _ = fs::remove_dir_all(&tree);
}
