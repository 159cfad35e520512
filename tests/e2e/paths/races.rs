//! Issue 23 item 1: a command of the workspace's session swaps a folder airlock is about to
//! write in for a link to `$AIRLOCK_HOME` — an atomic rename-exchange, in a loop, inside
//! the workspace only — while the user runs `airlock plugins grant`, `install`, `remove` or
//! `new`. Nothing may land outside the workspace: the user's own files stay byte for byte,
//! and no temporary file appears in the home.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use airlock_tests::{Session, fixtures};

use super::{airlock, session, temporary_files};

/// A thread that exchanges two entries (`renameat2(RENAME_EXCHANGE)`) as fast as it can
/// until dropped, the way a command of the session could.
struct Exchanger {
    stop: Arc<AtomicBool>,
    swaps: Arc<AtomicU64>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Exchanger {
    fn start(a: PathBuf, b: PathBuf) -> Self {
        let stop = Arc::new(AtomicBool::new(false));
        let swaps = Arc::new(AtomicU64::new(0));
        let thread = {
            let (stop, swaps) = (stop.clone(), swaps.clone());
            std::thread::spawn(move || {
                let flags = rustix::fs::RenameFlags::EXCHANGE;
                while !stop.load(Ordering::Relaxed) {
                    if rustix::fs::renameat_with(rustix::fs::CWD, &a, rustix::fs::CWD, &b, flags).is_ok() {
                        swaps.fetch_add(1, Ordering::Relaxed);
                    }
                    // A short breath: both names must be seen by airlock's path walks.
                    std::thread::yield_now();
                }
            })
        };
        Self { stop, swaps, thread: Some(thread) }
    }

    /// How many swaps the racer has made so far.
    fn swaps(&self) -> u64 {
        self.swaps.load(Ordering::Relaxed)
    }

    /// Stops the racer; how many swaps it made.
    fn stop(mut self) -> u64 {
        self.halt();
        self.swaps.load(Ordering::Relaxed)
    }

    fn halt(&mut self) {
        self.stop.store(true, Ordering::Relaxed);
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

impl Drop for Exchanger {
    fn drop(&mut self) {
        self.halt();
    }
}

/// Puts the real folder back under `real` when the racer left the link there.
fn settle(real: &Path, decoy: &Path) {
    if real.is_symlink() {
        rustix::fs::renameat_with(rustix::fs::CWD, real, rustix::fs::CWD, decoy, rustix::fs::RenameFlags::EXCHANGE)
            .unwrap_or_else(|e| panic!("exchange back: {e}"));
    }
    assert!(real.is_dir() && !real.is_symlink() && decoy.is_symlink());
}

/// What the home holds that a write of the workspace's could have put there: every file of
/// `dir` (recursively) with the sha-256 of its content.
fn snapshot(dir: &Path) -> Vec<(String, String)> {
    use sha2::Digest;
    super::names_below(dir)
        .into_iter()
        .filter(|name| !name.starts_with("logs") && !name.starts_with("journal"))
        .filter_map(|name| {
            let path = dir.join(&name);
            let digest = |bytes: Vec<u8>| hex::encode(sha2::Sha256::digest(bytes));
            path.is_file().then(|| (name, digest(std::fs::read(&path).unwrap_or_default())))
        })
        .collect()
}

/// A workspace with its own plugin and the repository's allow-all policy; the user's own
/// policy in the home.
fn hostile_workspace(s: &Session) {
    std::fs::create_dir_all(s.workspace.join(".airlock/plugins")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::copy(fixtures::FS_PROBE, s.workspace.join(".airlock/plugins/probe.wasm"))
        .unwrap_or_else(|e| panic!("{e}"));
    s.write(".airlock/policy.toml", "[[rule]]\ntool = \"*\"\ndecision = \"allow\"\npriority = 1000\n");
    std::fs::write(s.airlock_home().join("policy.toml"), "# mine: nothing is allowed here\n")
        .unwrap_or_else(|e| panic!("{e}"));
}

#[test]
fn a_grant_never_writes_through_an_airlock_folder_exchanged_with_a_link_to_the_home() {
    let s = session();
    hostile_workspace(&s);
    let (real, decoy) = (s.workspace.join(".airlock"), s.workspace.join("decoy"));
    std::os::unix::fs::symlink(s.airlock_home(), &decoy).unwrap_or_else(|e| panic!("{e}"));
    let before = snapshot(&s.airlock_home());
    let racer = Exchanger::start(real.clone(), decoy.clone());
    let mut granted = 0;
    for run in 0..200 {
        let done = airlock(&s, &["plugins", "grant", "fs_probe", "--read", "."]);
        granted += usize::from(done.code == Some(0));
        if run >= 15 && racer.swaps() > 100 {
            break;
        }
    }
    let swaps = racer.stop();
    settle(&real, &decoy);
    assert!(swaps > 100, "the racer barely ran ({swaps} swaps)");
    assert_eq!(snapshot(&s.airlock_home()), before, "a write reached the home");
    assert_eq!(temporary_files(&s.airlock_home()), Vec::<String>::new());
    // The grants that went through are in the workspace's own policy, whole.
    let policy = std::fs::read_to_string(real.join("policy.toml")).unwrap_or_default();
    assert!(policy.contains("decision = \"allow\""), "{policy}");
    if granted > 0 {
        assert!(policy.contains("[grants.fs_probe]"), "{granted} grants, none written: {policy}");
    }
    assert_eq!(temporary_files(&real), Vec::<String>::new());
}

#[test]
fn the_policy_file_or_the_lock_exchanged_with_a_link_is_never_written_through() {
    let s = session();
    hostile_workspace(&s);
    let plugins = s.airlock_home().join("plugins");
    std::fs::create_dir_all(&plugins).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(plugins.join("plugins.lock"), "# the user's lock\n").unwrap_or_else(|e| panic!("{e}"));
    let before = snapshot(&s.airlock_home());
    // The policy file itself, then the lock, swapped with links to the user's own.
    let airlock_dir = s.workspace.join(".airlock");
    for (real, target, args) in [
        (
            airlock_dir.join("policy.toml"),
            s.airlock_home().join("policy.toml"),
            vec!["plugins", "grant", "fs_probe", "--env", "X"],
        ),
        (
            airlock_dir.join("plugins/plugins.lock"),
            plugins.join("plugins.lock"),
            vec!["plugins", "install", fixtures::ECHO_TOOLS, "--in-workspace"],
        ),
    ] {
        if !real.exists() {
            std::fs::write(&real, "").unwrap_or_else(|e| panic!("{e}"));
        }
        let decoy = real.with_extension("decoy");
        std::os::unix::fs::symlink(&target, &decoy).unwrap_or_else(|e| panic!("{e}"));
        let racer = Exchanger::start(real.clone(), decoy.clone());
        for _ in 0..8 {
            airlock(&s, &args);
        }
        racer.stop();
        assert_eq!(snapshot(&s.airlock_home()), before, "{}: a write went through the link", real.display());
    }
    assert_eq!(temporary_files(&s.airlock_home()), Vec::<String>::new());
    assert_eq!(temporary_files(&airlock_dir), Vec::<String>::new());
}

#[test]
fn install_and_remove_never_act_through_a_plugin_folder_exchanged_with_a_link() {
    let s = session();
    hostile_workspace(&s);
    // The user's own plugin, in a file named like the workspace's.
    let user_plugins = s.airlock_home().join("plugins");
    std::fs::create_dir_all(&user_plugins).unwrap_or_else(|e| panic!("{e}"));
    std::fs::copy(fixtures::ECHO_TOOLS, user_plugins.join("probe.wasm")).unwrap_or_else(|e| panic!("{e}"));
    let before = snapshot(&s.airlock_home());
    let (real, decoy) = (s.workspace.join(".airlock/plugins"), s.workspace.join(".airlock/decoy"));
    std::os::unix::fs::symlink(&user_plugins, &decoy).unwrap_or_else(|e| panic!("{e}"));
    for round in 0..8 {
        // Each round starts with the workspace's plugin in place.
        if !real.join("probe.wasm").exists() {
            std::fs::copy(fixtures::FS_PROBE, real.join("probe.wasm")).unwrap_or_else(|e| panic!("{e}"));
        }
        let racer = Exchanger::start(real.clone(), decoy.clone());
        airlock(&s, &["plugins", "remove", "fs_probe", "--keep-grant"]);
        airlock(&s, &["plugins", "install", fixtures::WRITER_CLAIMS_READ, "--in-workspace"]);
        racer.stop();
        settle(&real, &decoy);
        assert_eq!(snapshot(&s.airlock_home()), before, "round {round}: the user's plugin folder changed");
    }
    assert_eq!(temporary_files(&s.airlock_home()), Vec::<String>::new());
    assert_eq!(temporary_files(&real), Vec::<String>::new());
}

#[test]
fn a_new_project_never_lands_where_a_folder_swapped_for_a_link_leads() {
    let s = session();
    let user_plugins = s.airlock_home().join("plugins");
    std::fs::create_dir_all(&user_plugins).unwrap_or_else(|e| panic!("{e}"));
    std::fs::create_dir_all(s.workspace.join("tools")).unwrap_or_else(|e| panic!("{e}"));
    let (real, decoy) = (s.workspace.join("tools"), s.workspace.join("decoy"));
    std::os::unix::fs::symlink(&user_plugins, &decoy).unwrap_or_else(|e| panic!("{e}"));
    let racer = Exchanger::start(real.clone(), decoy.clone());
    for round in 0..12 {
        let dir = s.workspace.join(format!("tools/demo{round}"));
        airlock(&s, &["plugins", "new", "demo", "--lang", "c", "--dir", &dir.display().to_string()]);
    }
    racer.stop();
    settle(&real, &decoy);
    assert_eq!(super::names_below(&user_plugins), Vec::<String>::new(), "a project landed in the home");
    // What was made is whole, in the workspace.
    for entry in std::fs::read_dir(&real).into_iter().flatten().flatten() {
        assert!(entry.path().join("build.sh").is_file(), "{} is not a whole project", entry.path().display());
    }
    assert_eq!(temporary_files(&s.workspace), Vec::<String>::new());
}

/// The sha-256 `trust.toml` pins for the workspace's policy file.
fn pinned_policy(s: &Session) -> String {
    let trust = std::fs::read_to_string(s.airlock_home().join("trust.toml")).unwrap_or_default();
    let line = trust.lines().find(|l| l.starts_with("policy_sha256")).unwrap_or_default();
    line.split('"').nth(1).unwrap_or_default().to_string()
}

fn sha256_of(path: &Path) -> String {
    use sha2::Digest;
    hex::encode(sha2::Sha256::digest(std::fs::read(path).unwrap_or_default()))
}

/// A trusted workspace keeps a second `.airlock` beside the first, with the repository's
/// allow-all policy, and a command exchanges the two folders while the user grants: a
/// re-pin after the grant must never trust the file that was swapped in.
#[test]
fn a_grant_never_moves_the_trust_pin_to_a_policy_swapped_in_while_it_ran() {
    let s = session();
    std::fs::create_dir_all(s.workspace.join(".airlock/plugins")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::copy(fixtures::FS_PROBE, s.workspace.join(".airlock/plugins/probe.wasm"))
        .unwrap_or_else(|e| panic!("{e}"));
    s.write(".airlock/policy.toml", "# reviewed: grants nothing\n");
    let trusted = airlock(&s, &["trust"]);
    assert_eq!(trusted.code, Some(0), "{}", trusted.stderr);
    let evil = s.workspace.join("evil");
    std::fs::create_dir_all(evil.join("plugins")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::copy(fixtures::FS_PROBE, evil.join("plugins/probe.wasm")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(evil.join("policy.toml"), "[[rule]]\ntool = \"*\"\ndecision = \"allow\"\npriority = 1000\n")
        .unwrap_or_else(|e| panic!("{e}"));
    let real = s.workspace.join(".airlock");
    let racer = Exchanger::start(real.clone(), evil.clone());
    // At least 16 grants, and on until the racer has swapped often (a loaded machine gives it
    // little time between them).
    for run in 0..200 {
        airlock(&s, &["plugins", "grant", "fs_probe", "--env", "X"]);
        if run >= 15 && racer.swaps() > 100 {
            break;
        }
    }
    let swaps = racer.stop();
    assert!(swaps > 100, "the racer barely ran ({swaps} swaps)");
    // Whichever folder holds what now, the pin names a file without the allow-all rule.
    let pin = pinned_policy(&s);
    for dir in [&real, &evil] {
        let policy = dir.join("policy.toml");
        let text = std::fs::read_to_string(&policy).unwrap_or_default();
        if text.contains("decision = \"allow\"") {
            assert_ne!(sha256_of(&policy), pin, "the repository's allow-all policy became trusted:\n{text}");
        }
    }
    assert_eq!(temporary_files(&s.workspace), Vec::<String>::new());
}
