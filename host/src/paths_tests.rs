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
