//! Unit tests of `groups.rs`.

use super::*;

fn trees(paths: &[&str]) -> Reach {
    Reach::Trees(paths.iter().map(PathBuf::from).collect())
}

#[test]
fn mutating_calls_that_may_touch_one_file_never_share_a_group() {
    let calls = vec![
        ("read a", true, Reach::ReadOnly),
        ("edit /w", true, trees(&["/w"])),
        ("read b", true, Reach::ReadOnly),
        // Same folder, or one inside the other: the trees overlap.
        ("edit /w again", true, trees(&["/w"])),
        ("edit /w/sub", true, trees(&["/w/sub"])),
        // Disjoint trees run together.
        ("edit /v", true, trees(&["/v"])),
        ("edit /w/subway", true, trees(&["/w/subway"])),
        // A write through a grant is alone among writes, not among reads.
        ("grant write", true, Reach::Unknown),
        ("read c", true, Reach::ReadOnly),
        ("edit /u", true, trees(&["/u"])),
        // Nothing writable at all is disjoint from everything but unknown reaches.
        ("edit nothing", true, trees(&[])),
        ("not parallel-safe", false, Reach::ReadOnly),
        ("read d", true, Reach::ReadOnly),
    ];
    assert_eq!(
        groups(calls),
        vec![
            vec!["read a", "edit /w", "read b"],
            vec!["edit /w again"],
            vec!["edit /w/sub", "edit /v", "edit /w/subway"],
            vec!["grant write", "read c"],
            vec!["edit /u", "edit nothing"],
            vec!["not parallel-safe"],
            vec!["read d"],
        ]
    );
}
