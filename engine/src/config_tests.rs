//! Unit tests of `config.rs`.

use super::*;

/// A deadline of `u64::MAX` seconds overflowed the host's clock arithmetic inside a call.
#[test]
fn tool_limits_past_what_can_be_meant_are_refused() {
    for (text, needle) in [
        ("[tools]\ntimeout_secs = 9223372036854775807\n", "timeout_secs must be between 1 and 86400"),
        ("[tools]\nmemory_mb = 0\n", "memory_mb must be between 1 and 4096"),
        ("[tools]\nmax_output_bytes = 99999999999\n", "max_output_bytes must be between 1 and 16777216"),
    ] {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.toml");
        std::fs::write(&path, text).unwrap();
        let error = load(&path).err().map(|e| e.to_string()).unwrap_or_default();
        assert!(error.contains(needle) && error.contains("config.toml"), "{text:?}: {error}");
    }
}

#[test]
fn reads_a_full_file() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    std::fs::write(
        &path,
        "provider = \"openai\"\nmodel = \"m\"\nbase_url = \"http://127.0.0.1:1/v1\"\napproval_mode = \"auto-edit\"\n\
             max_turns = 7\ncontext_window_tokens = 32000\nloop_detection = false\n\
             [tools]\ntimeout_secs = 5\nmemory_mb = 64\n",
    )
    .unwrap();
    let config = load(&path).unwrap();
    assert_eq!(config.provider.as_ref().map(|p| p.get_ref().as_str()), Some("openai"));
    assert_eq!(config.approval_mode, Some(ApprovalMode::AutoEdit));
    assert_eq!(config.max_turns, Some(7));
    assert_eq!(config.context_window_tokens, Some(32000));
    assert_eq!(config.loop_detection, Some(false));
    let limits = config.tools.limits();
    assert_eq!(limits.deadline, Duration::from_secs(5));
    assert_eq!(limits.memory, 64 << 20);
}

#[test]
fn a_missing_file_means_defaults() {
    let dir = tempfile::tempdir().unwrap();
    assert!(load(&dir.path().join("none.toml")).unwrap().provider.is_none());
}

#[test]
fn names_the_line_of_a_bad_key() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    std::fs::write(&path, "model = \"m\"\n\nprovder = \"openai\"\n").unwrap();
    let message = load(&path).unwrap_err().to_string();
    assert!(message.contains("line 3"), "{message}");
    assert!(message.contains("provder"), "{message}");
}

#[test]
fn context_file_names_are_plain_names_and_default_to_airlock_and_agents() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    std::fs::write(&path, "").unwrap();
    assert_eq!(load(&path).unwrap().context.file_names(), ["AIRLOCK.md", "AGENTS.md"]);
    std::fs::write(&path, "[context]\nfile_names = [\"GEMINI.md\"]\n[skills]\nenabled = false\n").unwrap();
    let config = load(&path).unwrap();
    assert_eq!((config.context.file_names(), config.skills.enabled()), (vec!["GEMINI.md".to_owned()], false));
    for bad in ["../AGENTS.md", "docs/AGENTS.md", "..", ""] {
        std::fs::write(&path, format!("[context]\nfile_names = [{bad:?}]\n")).unwrap();
        let error = load(&path).unwrap_err().to_string();
        assert!(error.contains("not a plain file name"), "{bad}: {error}");
    }
    // The names are looked for in `$AIRLOCK_HOME` too: its own files are not context.
    for bad in ["config.toml", "policy.toml", "trust.toml", "plugins.lock", ".md"] {
        std::fs::write(&path, format!("[context]\nfile_names = [{bad:?}]\n")).unwrap();
        let error = load(&path).unwrap_err().to_string();
        assert!(error.contains("not a Markdown file name"), "{bad}: {error}");
    }
    std::fs::write(&path, "[context]\nfile_names = [\"CLAUDE.MD\"]\n").unwrap();
    assert_eq!(load(&path).unwrap().context.file_names(), ["CLAUDE.MD"]);
}
