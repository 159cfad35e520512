//! Unit tests of `atomic.rs`.

use super::write_atomically;

/// A repository can plant links named like the temporary files of its own
/// `.airlock/policy.toml` (process ids are small in containers); `airlock plugins
/// grant` writing that policy must never write through them.
#[cfg(unix)]
#[test]
fn planted_links_named_like_temporary_files_are_never_written_through() {
    let dir = tempfile::tempdir().unwrap();
    let victim = dir.path().join("bashrc");
    std::fs::write(&victim, "original\n").unwrap();
    let airlock = dir.path().join("repo/.airlock");
    std::fs::create_dir_all(&airlock).unwrap();
    let pid = std::process::id();
    for guessed_pid in [pid, 1, 2, 7, 42] {
        for n in 0..16 {
            let name = airlock.join(format!(".policy.toml.{guessed_pid}.{n}.tmp"));
            std::os::unix::fs::symlink(&victim, name).unwrap();
        }
    }
    for round in 0..4 {
        write_atomically(&airlock.join("policy.toml"), format!("round = {round}\n").as_bytes()).unwrap();
    }
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "original\n");
    assert_eq!(std::fs::read_to_string(airlock.join("policy.toml")).unwrap(), "round = 3\n");
    assert!(std::fs::symlink_metadata(airlock.join("policy.toml")).unwrap().file_type().is_file());
}

#[test]
fn write_new_never_replaces_and_write_once_keeps_the_first_file() {
    let dir = tempfile::tempdir().unwrap();
    let name = |attempt: u32| if attempt == 0 { "out.txt".to_string() } else { format!("out-{attempt}.txt") };
    let first = super::write_new(dir.path(), b"one", name).unwrap();
    let second = super::write_new(dir.path(), b"two", name).unwrap();
    assert_eq!((first.file_name().unwrap(), second.file_name().unwrap()), ("out.txt".as_ref(), "out-1.txt".as_ref()));
    assert_eq!(std::fs::read(&first).unwrap(), b"one");
    let key = dir.path().join("key");
    super::write_once(&key, b"first", || false).unwrap();
    let kept = super::write_once(&key, b"second", || false).unwrap_err();
    assert_eq!(kept.kind(), std::io::ErrorKind::AlreadyExists);
    assert_eq!(std::fs::read(&key).unwrap(), b"first");
    super::write_once(&key, b"third", || true).unwrap();
    assert_eq!(std::fs::read(&key).unwrap(), b"third");
    let mode = std::os::unix::fs::PermissionsExt::mode(&std::fs::metadata(&key).unwrap().permissions());
    assert_eq!(mode & 0o777, 0o600);
    // No temporary file is left behind.
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names.len(), 3, "{names:?}");
}

/// A command of the workspace swaps the folder for a link to the user's home (a
/// rename-exchange in a loop) while airlock writes into it through its handle: no byte lands
/// in the home, and no temporary file anywhere.
#[cfg(target_os = "linux")]
#[test]
fn a_folder_exchanged_with_a_link_in_a_loop_never_carries_a_write_elsewhere() {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    std::fs::create_dir_all(root.join("ws/.airlock")).unwrap();
    std::fs::create_dir_all(root.join("home")).unwrap();
    std::fs::write(root.join("home/policy.toml"), "mine\n").unwrap();
    std::os::unix::fs::symlink(root.join("home"), root.join("ws/decoy")).unwrap();
    let stop = Arc::new(AtomicBool::new(false));
    let racer = {
        let (stop, ws) = (stop.clone(), root.join("ws"));
        std::thread::spawn(move || {
            let flags = rustix::fs::RenameFlags::EXCHANGE;
            while !stop.load(Ordering::Relaxed) {
                let _ = rustix::fs::renameat_with(
                    rustix::fs::CWD,
                    ws.join(".airlock"),
                    rustix::fs::CWD,
                    ws.join("decoy"),
                    flags,
                );
            }
        })
    };
    let mut written = 0;
    let started = std::time::Instant::now();
    for round in 0.. {
        if written == 100 || started.elapsed() > std::time::Duration::from_secs(10) {
            break;
        }
        // Opened the way the host opens a workspace's folder: no link followed.
        let Ok(handle) = super::super::open_dir(&root.join("ws/.airlock")) else { continue };
        super::write_in(
            &handle,
            "policy.toml".as_ref(),
            format!("round = {round}\n").as_bytes(),
            super::Replace::Always,
        )
        .unwrap();
        written += 1;
    }
    stop.store(true, Ordering::Relaxed);
    racer.join().unwrap();
    assert!(written >= 20, "the folder itself was opened {written} times in 10 s");
    assert_eq!(std::fs::read_to_string(root.join("home/policy.toml")).unwrap(), "mine\n");
    let home: Vec<_> = std::fs::read_dir(root.join("home")).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(home, ["policy.toml"], "temporary files reached the home");
    // The real folder holds the policy and nothing else, under whichever name it has now.
    let real = if root.join("ws/.airlock").is_symlink() { root.join("ws/decoy") } else { root.join("ws/.airlock") };
    let names: Vec<_> = std::fs::read_dir(&real).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names, ["policy.toml"]);
}

/// Where the file system has `O_TMPFILE`, staged content has no name at all until it is
/// whole; a staged file that is dropped leaves nothing.
#[cfg(target_os = "linux")]
#[test]
fn staged_content_has_no_name_until_it_is_committed() {
    let dir = tempfile::tempdir().unwrap();
    let handle = super::super::open_dir(&dir.path().canonicalize().unwrap()).unwrap();
    let staged = super::Staged::write(&handle, "f".as_ref(), b"whole").unwrap();
    assert_eq!(std::fs::read(staged.reading_path()).unwrap(), b"whole");
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0, "the file system has O_TMPFILE: nothing is visible");
    drop(staged);
    let mut staged = super::Staged::write(&handle, "f".as_ref(), b"whole").unwrap();
    staged.commit("f".as_ref(), super::Replace::Never).unwrap();
    assert!(staged.commit("g".as_ref(), super::Replace::Never).is_err(), "committed once");
    drop(staged);
    let names: Vec<_> = std::fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names, ["f"]);
}
