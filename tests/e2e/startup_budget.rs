//! Start-up is bounded (issue 23, item 9): plugins whose `describe` spins for ever — 20 and
//! 40 of them, in a workspace (trusted or not) and in the user's folder — hold the first
//! model request for one start-up budget at most, are named on the terminal, and are
//! remembered by digest: a later start does not wait on them again; a fixed plugin (a new
//! digest) is described again and loads.
// Set-up helpers unwrap: a failed set-up step should fail the test loudly.
#![allow(clippy::unwrap_used)]

use std::time::{Duration, Instant};

use airlock_tests::{Finished, MockModel, Session, Turn, Wire, declared_tools, run_bounded, variants};

use crate::{alone, session_with_cache};

/// How many plugin files a workspace may bring.
const WORKSPACE_PLUGINS: usize = 16;
/// How many instances the process runs at once, so how many describes at a time.
const LIVE_INSTANCES: usize = 16;

/// Writes `count` plugins whose `describe` spins, the first 16 into the workspace, the rest
/// into the user's folder; returns their file names. Each run of the test makes new ones.
fn spinning(s: &Session, count: usize, run: &str) -> Vec<String> {
    let workspace = s.workspace.join(".airlock/plugins");
    let user = s.airlock_home().join("plugins");
    for dir in [&workspace, &user] {
        std::fs::create_dir_all(dir).unwrap();
    }
    (0..count)
        .map(|index| {
            let name = format!("spin_{index:02}");
            let bytes = variants::trust_probe(&format!("name={name};describe=spin;run={run}"));
            let dir = if index < WORKSPACE_PLUGINS { &workspace } else { &user };
            let file = format!("{name}.wasm");
            std::fs::write(dir.join(&file), bytes).unwrap();
            file
        })
        .collect()
}

/// One headless start answering `hello`; what it printed, how long it took, and the tools
/// the model was offered (`None` when no request reached the model).
fn start(s: &Session) -> (Finished, Duration, Option<Vec<String>>) {
    let mock = MockModel::start(Wire::OpenAi);
    mock.push_turn(Turn::text("hello"));
    let mut command = s.command(&mock);
    command.args(["-p", "hi"]);
    let started = Instant::now();
    let done = run_bounded(command, None, Duration::from_secs(300));
    let elapsed = started.elapsed();
    let tools = mock.requests().first().map(declared_tools);
    (done, elapsed, tools)
}

/// The warning line naming `file`.
fn warning<'a>(done: &'a Finished, file: &str) -> &'a str {
    done.stderr.lines().find(|line| line.contains(file)).unwrap_or_else(|| panic!("{file} not named:\n{}", done.stderr))
}

#[test]
fn spinning_describes_delay_the_first_request_by_one_budget_once() {
    // Each start is measured against the start-up budget: no other test may compete for the
    // cores meanwhile (one did, and starved the describes before they could run).
    let _alone = alone();
    // New digests every run: a fault remembered by an earlier run must not skip the wait.
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap();
    let run = format!("{:x}", now.as_nanos() % (1 << 40));
    for (count, trusted) in [(20, false), (40, true)] {
        let cache = tempfile::tempdir().unwrap();
        // A compile cache of its own: descriptions (and remembered faults) are cached with
        // the code, and this test must start with none.
        let s = session_with_cache(cache.path());
        let files = spinning(&s, count, &run);
        if trusted {
            let mut command = s.bare_command();
            command.args(["trust", "--workspace"]).arg(&s.workspace);
            let done = run_bounded(command, None, Duration::from_secs(120));
            assert_eq!(done.code, Some(0), "{}", done.stderr);
        }
        // Each start answers, names every spinning plugin, and describes what it has not
        // remembered, at most as many at once as the process runs instances; the next start
        // skips what faulted without waiting on it.
        let mut remembered = 0;
        let mut starts = 0;
        while remembered < count {
            starts += 1;
            assert!(starts <= count.div_ceil(LIVE_INSTANCES) + 1, "{count}: still describing after {starts} starts");
            let (done, elapsed, tools) = start(&s);
            eprintln!(
                "{count} spinning describes (trusted: {trusted}), start {starts}: first request after {elapsed:?}"
            );
            assert_eq!(done.code, Some(0), "{}", done.stderr);
            let tools = tools.unwrap_or_else(|| panic!("{count}: no request reached the model:\n{}", done.stderr));
            assert!(tools.iter().any(|t| t == "read_file"), "{count}: the built-ins are offered: {tools:?}");
            let lines: Vec<&str> = files.iter().map(|file| warning(&done, file)).collect();
            let earlier = lines.iter().filter(|l| l.contains("at an earlier start")).count();
            let faulted =
                lines.iter().filter(|l| l.contains("ran past its deadline") && !l.contains("earlier")).count();
            let waiting = lines.iter().filter(|l| l.contains("not described")).count();
            if trusted && starts == 1 {
                // `airlock trust` describes the workspace's plugins to record what each requests
                // (capability diffs, issue 30): the ones it saw spin are remembered already.
                assert!(earlier < count, "{count}: trust remembered every plugin:\n{}", done.stderr);
                remembered = earlier;
            }
            assert_eq!(earlier, remembered, "{count}, start {starts}:\n{}", done.stderr);
            assert_eq!(earlier + faulted + waiting, count, "{count}, start {starts}:\n{}", done.stderr);
            assert!(faulted > 0 && faulted <= LIVE_INSTANCES, "{count}, start {starts}: {faulted} at once");
            remembered += faulted;
        }
        let (done, elapsed, _) = start(&s);
        eprintln!("{count} spinning describes, all remembered: first request after {elapsed:?}");
        assert!(files.iter().all(|file| warning(&done, file).contains("at an earlier start")), "{}", done.stderr);

        // The workspace's first plugin fixed: a new digest, described again, and offered.
        let fixed = variants::trust_probe(&format!("name=spin_00;describe=ok;run={run}"));
        std::fs::write(s.workspace.join(".airlock/plugins/spin_00.wasm"), fixed).unwrap();
        let (done, _, tools) = start(&s);
        assert_eq!(done.code, Some(0), "{}", done.stderr);
        assert!(tools.unwrap_or_default().iter().any(|t| t == "probe_read"), "{}", done.stderr);
    }
}
