//! Unit tests of `file.rs`.

use super::*;

fn write(text: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("policy.toml");
    std::fs::write(&path, text).unwrap();
    (dir, path)
}

#[test]
fn reads_grants_and_rules() {
    let (_dir, path) = write(
        "[grants.weather]\nfiles = [\"~/data\", \"src:read-write\"]\nnetwork = [\"https://api.example.com\"]\n\
             env = [\"TOKEN\"]\nmemory_mb = 64\n\n[[rule]]\ntool = \"write_file\"\npath = \"docs/**\"\ndecision = \"allow\"\npriority = 3\n",
    );
    let policy = load(&path, RuleSource::User).unwrap();
    let grant = &policy.grants["weather"].grant;
    assert_eq!(grant.files.len(), 2);
    assert_eq!(grant.network.len(), 1);
    assert_eq!(grant.env, ["TOKEN"]);
    assert_eq!(grant.memory_mb, Some(64));
    assert_eq!(policy.rules[0].tool.as_deref(), Some("write_file"));
    assert_eq!(policy.rules[0].priority, 3);
    assert!(policy.rules[0].origin.ends_with(":7"), "{}", policy.rules[0].origin);
}

#[test]
fn names_file_line_and_problem() {
    for (text, line, needle) in [
        ("[grants.x]\nfiles = [\"a\"]\nnetwork = [\"ftp://x\"]\n", 3, "ftp"),
        ("[grants.x]\n\nenv = [\"NOT-A-NAME\"]\n", 3, "environment variable"),
        ("[grants.x]\nfilez = []\n", 2, "filez"),
        ("[[rule]]\ntool = \"x\"\ndecision = \"maybe\"\n", 3, "maybe"),
        ("[[rule]]\ntool = \"x\"\npath = \"[\"\ndecision = \"allow\"\n", 1, "glob"),
        ("[grants.x]\nmemory_mb = 0\n", 2, "at least 1"),
        ("[grants.x]\nmemory_mb = 4097\n", 2, "at most 4096"),
        ("[grants.x]\ntimeout_secs = 9223372036854775807\n", 2, "at most 86400"),
        ("[grants.x]\nmax_output_bytes = 16777217\n", 2, "at most 16777216"),
        ("[grants.x]\nfiles = [\".:rw\"]\n", 2, "`.:read-write`"),
        ("[grants.x]\nfiles = \".\"\n", 2, "invalid type"),
        ("[grants.x]\nnetwork = [\"api.example.com\"]\n", 2, "https://api.example.com"),
        ("[grant.x]\n", 1, "grant"),
        ("[[rule]]\ntool = \"Write File\"\ndecision = \"deny\"\n", 2, "can name no tool"),
        ("[[rule]]\ntool = \"x\"\npath = \" \"\ndecision = \"deny\"\n", 1, "`path` is empty"),
    ] {
        let (_dir, path) = write(text);
        let error = load(&path, RuleSource::User).unwrap_err().to_string();
        assert!(error.contains(&format!("policy.toml:{line}:")), "{text:?}: {error}");
        assert!(error.contains(needle), "{text:?}: {error}");
    }
}

/// A cloned repository's policy is parsed on every start, trusted or not: no glob may
/// take airlock down (globset panics on a pattern whose regex is too big) or slow it.
#[test]
fn hostile_rule_globs_and_rule_floods_are_errors_not_crashes() {
    let long = format!("[[rule]]\ntool = \"x\"\npath = \"{}\"\ndecision = \"allow\"\n", "a".repeat(500_000));
    let many_classes =
        format!("[[rule]]\ntool = \"x\"\npath = \"{}\"\ndecision = \"allow\"\n", "?".repeat(PathGlob::MAX_LEN));
    let flood = "[[rule]]\ntool = \"x\"\npath = \"a/**\"\ndecision = \"allow\"\n".repeat(MAX_RULES + 1);
    for (text, needle) in [(long, "at most 1024"), (flood, "more than 1000 rules")] {
        let (_dir, path) = write(&text);
        let error = load(&path, RuleSource::User).unwrap_err().to_string();
        assert!(error.contains(needle), "{error}");
    }
    // At the cap, a glob of a thousand one-character classes loads (or is refused) without a panic.
    let (_dir, path) = write(&many_classes);
    let _ = load(&path, RuleSource::User);
}

#[test]
fn a_table_records_its_line_and_the_lists_it_sets() {
    let (_dir, path) = write("# x\n[grants.read-file]\nmemory_mb = 64\nenv = []\n");
    let table = &load(&path, RuleSource::User).unwrap().grants["read-file"];
    assert_eq!((table.line, table.key.as_str()), (2, "read-file"));
    assert_eq!(table.sets, Parts { env: true, ..Parts::default() });
}

#[test]
fn edits_keep_comments_and_round_trip() {
    let (_dir, path) = write("# my settings\n[grants.weather]\nenv = [\"A\"] # keep me\n");
    let mut editor = Editor::open(&path).unwrap();
    editor.add_to_list("weather", "env", &["B".into(), "A".into()]);
    editor.add_to_list("other", "files", &["src:read".into()]);
    editor.set_number("other", "memory_mb", Some(32));
    editor.add_rule("replace", None, Some("src/a.rs"), RuleDecision::Allow, 100);
    let policy = editor.save(RuleSource::User).unwrap();
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.contains("# my settings") && text.contains("# keep me"), "{text}");
    assert_eq!(policy.grants["weather"].grant.env, ["A", "B"]);
    assert_eq!(policy.grants["other"].grant.memory_mb, Some(32));
    assert_eq!(policy.rules.len(), 1);
    let mut editor = Editor::open(&path).unwrap();
    editor.remove_from_list("weather", "env", &["A".into()]);
    editor.remove_grant("other").unwrap();
    let policy = editor.save(RuleSource::User).unwrap();
    assert_eq!(policy.grants["weather"].grant.env, ["B"]);
    assert!(!policy.grants.contains_key("other"));
}

#[test]
fn the_system_file_holds_rules_only() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("policy.toml");
    assert!(load_system(&path).unwrap().is_empty());
    std::fs::write(&path, "[[rule]]\ntool = \"run_shell_command\"\ncommand = \"curl\"\ndecision = \"deny\"\n").unwrap();
    let rules = load_system(&path).unwrap();
    assert_eq!(rules.len(), 1);
    assert_eq!(rules[0].source, RuleSource::System);
    std::fs::write(&path, "\n[grants.weather]\nenv = [\"TOKEN\"]\n").unwrap();
    let message = load_system(&path).unwrap_err().to_string();
    assert!(message.contains("policy.toml:2") && message.contains("[[rule]]s only"), "{message}");
}

#[test]
fn reads_the_record_of_approved_requests_and_refuses_a_bad_entry_at_its_line() {
    let (_dir, path) = write(
        "[grants.weather]\nnetwork = [\"https://*\"]\n\n[grants.weather.approved]\nnetwork = [\"https://a.com\"]\n\
         files = [\"src:read\"]\n",
    );
    let policy = load(&path, RuleSource::User).unwrap();
    let record = policy.grants["weather"].approved.as_ref().expect("a record");
    assert_eq!(record.network, [NetRule::parse("https://a.com").unwrap()]);
    assert_eq!(record.files, [FileGrant::parse("src:read").unwrap()]);
    assert!(record.env.is_empty());
    // A table without one approves what is requested: no record at all.
    let (_dir, path) = write("[grants.weather]\nnetwork = [\"https://*\"]\n");
    assert!(load(&path, RuleSource::User).unwrap().grants["weather"].approved.is_none());
    let (_dir, path) = write("[grants.weather]\n\n[grants.weather.approved]\nnetwork = [\"ftp://a.com\"]\n");
    let error = load(&path, RuleSource::User).unwrap_err().to_string();
    assert!(error.contains(":4:") && error.contains("ftp"), "{error}");
}

#[test]
fn an_inline_grant_gets_its_record_and_is_removed() {
    let record = crate::capability::diff::Requests {
        network: vec![NetRule::parse("https://a.com").unwrap()],
        ..Default::default()
    };
    for text in [
        "[grants]\nweather = { network = [\"https://*\"] }\n",
        "grants = { weather = { network = [\"https://*\"] } }\n",
    ] {
        let (_dir, path) = write(text);
        let mut editor = Editor::open(&path).unwrap();
        editor.set_approved("weather", &record).unwrap();
        let policy = editor.save(RuleSource::User).unwrap();
        let grant = &policy.grants["weather"];
        assert_eq!(grant.approved.as_ref(), Some(&record), "{text}");
        assert_eq!(grant.grant.network, [NetRule::parse("https://*").unwrap()], "{text}");
        let (_dir, path) = write(text);
        let mut editor = Editor::open(&path).unwrap();
        editor.remove_grant("weather").unwrap();
        assert!(!editor.save(RuleSource::User).unwrap().grants.contains_key("weather"), "{text}");
    }
}

#[test]
fn an_edit_that_cannot_reach_the_grant_is_an_error() {
    let (_dir, path) = write("grants = 3\n");
    let mut editor = Editor::open(&path).unwrap();
    assert!(editor.set_approved("weather", &Default::default()).is_err());
    assert!(editor.remove_grant("weather").is_err());
}
