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
