//! Replays every file of the checked-in corpora (`fuzz/corpus/<target>/`) through its
//! target's function, as the fuzzer ran it, on a stable toolchain: a finding, once fixed
//! and kept in its corpus, stays fixed.
//!
//! Each input must return without a panic (a crash or a broken property), within
//! [`TIME_LIMIT`], and without the process holding more than [`MEMORY_LIMIT`] more than it
//! held before the replay began. The inputs run one after another on one thread, so the
//! allocator's high-water mark belongs to the input that raised it. The bounds are a
//! hang and blow-up detector, far above what any input takes (milliseconds, kilobytes).

use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

/// The most one input may take, in an unoptimised test build on a loaded machine.
const TIME_LIMIT: Duration = Duration::from_secs(10);
/// The most memory one input may make the process hold, above what it held before.
const MEMORY_LIMIT: usize = 256 << 20;

#[global_allocator]
static ALLOCATOR: cap::Cap<std::alloc::System> = cap::Cap::new(std::alloc::System, usize::MAX);

use airlock_fuzz::{TARGETS, Target};

fn corpus_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("corpus")
}

/// The files of one target's corpus, sorted.
fn corpus(name: &str) -> Vec<PathBuf> {
    let dir = corpus_root().join(name);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|entry| entry.unwrap_or_else(|e| panic!("{}: {e}", dir.display())).path())
        .filter(|path| path.is_file())
        .collect();
    files.sort();
    files
}

#[test]
fn every_corpus_file_runs_through_its_target_without_a_crash_a_hang_or_a_blow_up() {
    let baseline = ALLOCATOR.allocated();
    let (work, inputs) = mpsc::channel::<(Target, Vec<u8>)>();
    let (done, finished) = mpsc::channel::<()>();
    // One worker runs the inputs in turn; a panic ends it, and the next receive says so.
    std::thread::spawn(move || {
        for (target, input) in inputs {
            target(&input);
            if done.send(()).is_err() {
                return;
            }
        }
    });
    let mut count = 0;
    for (name, target) in TARGETS {
        let files = corpus(name);
        assert!(!files.is_empty(), "the corpus of {name} is empty");
        for file in files {
            let input = std::fs::read(&file).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            work.send((*target, input)).unwrap_or_else(|_| panic!("the worker ended before {}", file.display()));
            match finished.recv_timeout(TIME_LIMIT) {
                Ok(()) => {}
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    panic!("{} ran longer than {TIME_LIMIT:?} through {name}", file.display())
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    panic!("{} made {name} panic (see above)", file.display())
                }
            }
            let peak = ALLOCATOR.max_allocated().saturating_sub(baseline);
            assert!(
                peak <= MEMORY_LIMIT,
                "{} made the process hold {peak} bytes more through {name}; at most {MEMORY_LIMIT} are allowed",
                file.display()
            );
            count += 1;
        }
    }
    assert!(count >= TARGETS.len());
}

#[test]
fn every_target_has_a_corpus_and_every_corpus_a_target() {
    let mut folders: Vec<String> = std::fs::read_dir(corpus_root())
        .unwrap_or_else(|e| panic!("{e}"))
        .map(|entry| entry.unwrap_or_else(|e| panic!("{e}")).file_name().to_string_lossy().into_owned())
        .collect();
    folders.sort();
    let mut names: Vec<String> = TARGETS.iter().map(|(name, _)| name.to_string()).collect();
    names.sort();
    assert_eq!(folders, names);
}
