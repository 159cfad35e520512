//! Unit tests of `file_grant.rs`.

use super::*;

#[test]
fn reads_the_three_forms_and_paths_with_colons_that_end_with_a_mode() {
    assert_eq!(FileGrant::parse("src").unwrap(), FileGrant { path: "src".into(), access: Access::Read });
    assert_eq!(FileGrant::parse("~/x:read-write").unwrap().access, Access::ReadWrite);
    assert_eq!(FileGrant::parse(".:read").unwrap().path, ".");
    assert_eq!(FileGrant::parse("a:b:read").unwrap().path, "a:b");
    assert_eq!(FileGrant::parse("/mnt/a:b/c").unwrap().path, "/mnt/a:b/c");
    assert_eq!(FileGrant::parse("~").unwrap().path, "~");
}

#[test]
fn refuses_what_cannot_be_a_folder_and_says_what_to_write() {
    for (text, needle) in [
        (".:rw", "write `.:read-write`"),
        (".:RW", "write `.:read-write`"),
        ("src:write", "write `src:read-write`"),
        (".:rwx", "write `.:read-write`"),
        (".:ro", "write `.:read`"),
        ("src:reed", "write `src:read` or `src:read-write`"),
        (".:", "is not an access mode"),
        ("read-write:.", "write `.:read-write`"),
        ("rw:src", "write `src:read-write`"),
        ("read:src:read", "write `src:read`"),
        ("", "has no path"),
        (":read", "has no path"),
        (" src:read", "spaces"),
        ("read-write", "only a mode"),
        ("src/**:read", "not a glob"),
        ("~root/x", "`~/…`"),
        ("a/../b", "`..`"),
        ("sr\u{202e}c", "bidi"),
        ("src\n", "control"),
    ] {
        let error = FileGrant::parse(text).expect_err(text);
        assert!(error.contains(needle), "{text:?}: {error}");
    }
}
