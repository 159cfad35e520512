//! The search tools, `grep_search` and `glob`, driven by the real binary against the
//! scripted mock model: which files they search (ignore files at every level, binary files),
//! how they cap and order what they return, and how they show a line. Each test asserts on
//! the tool results the model was sent.

use std::path::Path;
use std::time::{Duration, SystemTime};

use airlock_tests::{MockModel, Session, Turn, Wire, call, function_responses};
use serde_json::{Value, json};

use crate::session;

/// Runs one turn of `calls` and returns what each call sent back to the model.
fn results(s: &Session, calls: Vec<(&str, Value)>) -> Vec<String> {
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::calls(calls.into_iter().map(|(name, args)| call(name, args)).collect()));
    mock.push_turn(Turn::text("ok"));
    let done = s.airlock(&mock, &["-p", "search"]);
    assert_eq!(done.code, Some(0), "{}", done.stderr);
    function_responses(&mock.requests()[1]).into_iter().map(|(_, content)| content).collect()
}

/// The `L<n>: ` lines of a `grep_search` result.
fn shown_lines(result: &str) -> Vec<&str> {
    result.lines().filter(|l| l.starts_with('L') && l.contains(": ")).collect()
}

#[test]
fn grep_search_honours_ignore_files_at_every_level_and_skips_binary_files() {
    let s = session();
    s.write(".gitignore", "*.log\n");
    s.write("sub/.gitignore", "gen/\n");
    s.write("top.rs", "needle at the top\n");
    s.write("run.log", "needle in a log\n");
    s.write("sub/keep.rs", "needle kept\n");
    s.write("sub/gen/made.rs", "needle generated\n");
    s.write("sub/deeper/.gitignore", "*.tmp\n");
    s.write("sub/deeper/scratch.tmp", "needle scratch\n");
    s.write("blob.bin", "\0needle in binary\n");
    // A NUL byte past the first block read still marks the whole file as binary.
    s.write("late.dat", &format!("needle before\n{}\0\n", "x".repeat(200_000)));
    let sent = results(&s, vec![("grep_search", json!({"pattern": "needle"}))]);
    let result = &sent[0];
    assert!(result.starts_with("Found 2 matches"), "{result}");
    assert!(result.contains("File: top.rs\nL1: needle at the top"), "{result}");
    assert!(result.contains("File: sub/keep.rs\nL1: needle kept"), "{result}");
    for skipped in ["run.log", "made.rs", "scratch.tmp", "blob.bin", "late.dat"] {
        assert!(!result.contains(skipped), "{skipped} must be skipped: {result}");
    }
}

#[test]
fn grep_search_counts_every_match_and_returns_the_first_100_in_path_order() {
    let s = session();
    for name in ["b.txt", "a.txt", "c/d.txt"] {
        let body: String = (1..=90).map(|n| format!("hit {n}\nmiss\n")).collect();
        s.write(name, &body);
    }
    let sent = results(&s, vec![("grep_search", json!({"pattern": "^hit \\d+$"}))]);
    let result = &sent[0];
    assert!(result.starts_with("Found 270 matches"), "{result}");
    assert!(result.contains("showing first 100"), "{result}");
    let shown = shown_lines(result);
    assert_eq!(shown.len(), 100, "{result}");
    assert_eq!(shown[0], "L1: hit 1");
    assert_eq!(shown[89], "L179: hit 90");
    let files: Vec<&str> = result.lines().filter_map(|l| l.strip_prefix("File: ")).collect();
    assert_eq!(files, ["a.txt", "b.txt"], "{result}");
}

#[test]
fn grep_search_cuts_long_lines_and_matches_line_ends_of_crlf_files() {
    let s = session();
    s.write("long.txt", &format!("short\nshort\n{} needle\n", "y".repeat(100_000)));
    s.write("dos.txt", "first end\r\nsecond\r\n");
    let sent =
        results(&s, vec![("grep_search", json!({"pattern": "needle"})), ("grep_search", json!({"pattern": "end$"}))]);
    let long = shown_lines(&sent[0]);
    assert_eq!(long.len(), 1, "{}", sent[0]);
    assert!(long[0].starts_with("L3: yyy") && long[0].ends_with("... [truncated]"), "{}", long[0]);
    assert!(long[0].len() < 600, "{}", long[0].len());
    assert_eq!(shown_lines(&sent[1]), ["L1: first end"], "{}", sent[1]);
}

#[test]
fn grep_search_include_matches_names_at_any_depth_or_paths_below_dir_path() {
    let s = session();
    s.write("README.md", "needle\n");
    s.write("docs/guide/intro.md", "needle\n");
    s.write("docs/guide/intro.txt", "needle\n");
    s.write("src/lib.rs", "needle\n");
    let sent = results(
        &s,
        vec![
            ("grep_search", json!({"pattern": "needle", "include": "*.md"})),
            ("grep_search", json!({"pattern": "needle", "include": "guide/*.md", "dir_path": "docs"})),
        ],
    );
    assert!(sent[0].starts_with("Found 2 matches"), "{}", sent[0]);
    assert!(sent[0].contains("File: README.md") && sent[0].contains("File: docs/guide/intro.md"), "{}", sent[0]);
    assert!(sent[1].starts_with("Found 1 match "), "{}", sent[1]);
    assert!(sent[1].contains("File: docs/guide/intro.md"), "{}", sent[1]);
}

#[test]
fn glob_lists_recent_files_newest_first_then_the_rest_alphabetically() {
    let s = session();
    s.write(".gitignore", "target/\n");
    s.write("pkg/.gitignore", "gen/\n");
    let now = SystemTime::now();
    let files = [
        ("b_old.rs", now - Duration::from_secs(3 * 24 * 3600)),
        ("a_old.rs", now - Duration::from_secs(9 * 24 * 3600)),
        ("pkg/two_hours.rs", now - Duration::from_secs(2 * 3600)),
        ("one_hour.rs", now - Duration::from_secs(3600)),
        ("target/out.rs", now),
        ("pkg/gen/made.rs", now),
    ];
    for (name, modified) in files {
        s.write(name, "fn main() {}\n");
        let file = std::fs::File::options().write(true).open(s.workspace.join(name)).unwrap();
        file.set_modified(modified).unwrap();
    }
    let sent = results(&s, vec![("glob", json!({"pattern": "**/*.RS"}))]);
    let listed: Vec<String> = sent[0]
        .lines()
        .filter_map(|l| Path::new(l).strip_prefix(&s.workspace).ok())
        .map(|p| p.display().to_string())
        .collect();
    assert_eq!(listed, ["one_hour.rs", "pkg/two_hours.rs", "a_old.rs", "b_old.rs"], "{}", sent[0]);
}

#[test]
fn glob_returns_at_most_1000_paths_and_says_how_many_matched() {
    let s = session();
    for n in 0..1_005 {
        s.write(&format!("many/f{n:04}.txt"), "");
    }
    let sent = results(&s, vec![("glob", json!({"pattern": "many/*.txt"}))]);
    let result = &sent[0];
    assert!(result.starts_with("Found 1005 file(s)"), "{}", result.lines().next().unwrap_or_default());
    assert_eq!(result.lines().filter(|l| l.starts_with('/')).count(), 1_000);
    assert!(result.contains("showing the first 1000 of 1005"), "{}", result.lines().last().unwrap_or_default());
}

/// The walk reads folders through the host's own listing, which takes each entry's type from
/// the kernel (`runtime/readdir.rs`): a link stays a link there. A link to a folder or a file
/// outside the workspace is neither entered nor read by either tool, and a link to a file
/// inside is searched and listed like the file.
#[test]
fn links_out_of_the_workspace_are_neither_followed_nor_read_by_either_tool() {
    let s = session();
    let outside = tempfile::tempdir().unwrap();
    let outside = outside.path().canonicalize().unwrap();
    std::fs::create_dir_all(outside.join("deep")).unwrap();
    std::fs::write(outside.join("deep/secret.rs"), "needle outside\n").unwrap();
    std::fs::write(outside.join("loose.rs"), "needle loose\n").unwrap();
    std::os::unix::fs::symlink(&outside, s.workspace.join("out")).unwrap();
    std::os::unix::fs::symlink(outside.join("loose.rs"), s.workspace.join("loose.rs")).unwrap();
    s.write("src/inside.rs", "needle inside\n");
    std::os::unix::fs::symlink("src/inside.rs", s.workspace.join("again.rs")).unwrap();
    let sent =
        results(&s, vec![("grep_search", json!({"pattern": "needle"})), ("glob", json!({"pattern": "**/*.rs"}))]);
    assert!(sent[0].starts_with("Found 2 matches"), "{}", sent[0]);
    assert!(sent[0].contains("File: again.rs\nL1: needle inside"), "{}", sent[0]);
    assert!(sent[0].contains("File: src/inside.rs\nL1: needle inside"), "{}", sent[0]);
    assert!(!sent[0].contains("outside") && !sent[0].contains("loose"), "{}", sent[0]);
    let listed: Vec<&str> = sent[1].lines().filter(|l| l.starts_with('/')).collect();
    let workspace = s.workspace.display();
    assert_eq!(listed, [format!("{workspace}/again.rs"), format!("{workspace}/src/inside.rs")], "{}", sent[1]);
}
