//! A child's process group: killing it, and the thread that waits for its leader.
//!
//! Invariant: the group is signalled only while its leader is unreaped. A zombie leader still
//! holds its pid, so the number cannot be recycled under us; the waiter thread learns of the
//! exit without reaping (`waitid(WNOWAIT)`), kills the group (grandchildren that kept the
//! pipes open included), and only then reaps, all under the lock every kill takes.
//!
//! The leader is reaped with `wait4`, whose figures cover the leader and every descendant
//! that was waited for below it, so a command's CPU time and peak memory reach [`ExitInfo`]
//! whatever it started. One figure needs care: a process started by `posix_spawn` or `fork`
//! keeps its parent's peak resident set through `exec` (the kernel's `exec_mmap` saves the
//! old memory's high-water mark), so the leader's `ru_maxrss` is at least airlock's own peak
//! at the start. A peak that does not pass airlock's is therefore not the command's, and is
//! reported as unknown (zero) rather than as airlock's.

use std::io;
use std::os::unix::process::ExitStatusExt;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use rustix::io::Errno;
use rustix::process::{Pid, Signal, WaitId, WaitIdOptions};
use tokio::sync::oneshot;

use super::{ExitInfo, SpawnFailure};

/// At most this many children alive at once in this process.
pub(super) const MAX_LIVE: usize = 64;
/// Of which at most this many in the background.
pub(super) const MAX_BACKGROUND: usize = 16;

static LIVE: AtomicUsize = AtomicUsize::new(0);
static BACKGROUND: AtomicUsize = AtomicUsize::new(0);

/// A reserved place under the caps; given back when dropped (after the child is reaped).
#[derive(Debug)]
pub(super) struct Slot {
    background: bool,
}

impl Slot {
    pub(super) fn reserve(background: bool) -> Result<Self, SpawnFailure> {
        take(&LIVE, MAX_LIVE).map_err(|()| {
            SpawnFailure(format!("too many commands running (at most {MAX_LIVE}): wait for some to end"))
        })?;
        if background && take(&BACKGROUND, MAX_BACKGROUND).is_err() {
            LIVE.fetch_sub(1, Ordering::AcqRel);
            return Err(SpawnFailure(format!(
                "too many background commands running (at most {MAX_BACKGROUND}): stop one first"
            )));
        }
        Ok(Self { background })
    }
}

fn take(counter: &AtomicUsize, cap: usize) -> Result<(), ()> {
    counter.fetch_update(Ordering::AcqRel, Ordering::Acquire, |n| (n < cap).then_some(n + 1)).map(drop).map_err(drop)
}

impl Drop for Slot {
    fn drop(&mut self) {
        LIVE.fetch_sub(1, Ordering::AcqRel);
        if self.background {
            BACKGROUND.fetch_sub(1, Ordering::AcqRel);
        }
    }
}

#[derive(Debug, Default)]
struct State {
    reaped: bool,
    timed_out: bool,
    /// The waiter thread is done: reaped, reported, private folders removed.
    finished: bool,
}

/// The process group a child leads.
#[derive(Debug)]
pub(super) struct Group {
    pid: Pid,
    state: Mutex<State>,
    finished: Condvar,
}

impl Group {
    pub(super) fn new(pid: Pid) -> Arc<Self> {
        Arc::new(Self { pid, state: Mutex::default(), finished: Condvar::new() })
    }

    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// SIGKILL to the whole group; `false` when the leader was already reaped (nothing sent).
    pub(super) fn kill(&self) -> bool {
        let state = self.state();
        if state.reaped {
            return false;
        }
        self.signal();
        true
    }

    /// Like [`Group::kill`], and the exit is reported as a timeout.
    pub(super) fn time_out(&self) {
        let mut state = self.state();
        if !state.reaped {
            state.timed_out = true;
            self.signal();
        }
    }

    pub(super) fn is_running(&self) -> bool {
        !self.state().reaped
    }

    /// Waits until the waiter thread finished or `deadline` passed; whether it finished.
    pub(super) fn wait_finished(&self, deadline: Instant) -> bool {
        let mut state = self.state();
        while !state.finished {
            let left = deadline.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            state = self.finished.wait_timeout(state, left).unwrap_or_else(PoisonError::into_inner).0;
        }
        true
    }

    /// Callers hold the state lock and have checked the leader is unreaped.
    fn signal(&self) {
        // ESRCH: the group is already empty; nothing else can go wrong for our own child.
        let _ = rustix::process::kill_process_group(self.pid, Signal::KILL);
    }
}

/// Starts the thread that waits for `child`, kills its group once the leader exited, reaps
/// it, sends how it ended, and then drops `keep` (the private folders, the slot).
pub(super) fn watch<K: Send + 'static>(
    child: std::process::Child,
    group: Arc<Group>,
    exit: oneshot::Sender<ExitInfo>,
    keep: K,
) -> io::Result<()> {
    let pid = group.pid;
    // The floor the kernel put under the leader's peak: read after the spawn, so at least
    // what the leader inherited.
    let floor = own_peak_memory();
    let thread = std::thread::Builder::new().name(format!("airlock-child-{}", pid.as_raw_nonzero()));
    let spawned = thread.spawn(move || {
        // Learns of the exit without reaping, so the pid stays ours until the group is killed.
        while let Err(Errno::INTR) =
            rustix::process::waitid(WaitId::Pid(pid), WaitIdOptions::EXITED | WaitIdOptions::NOWAIT)
        {}
        let info = {
            let mut state = group.state();
            group.signal();
            let reaped = wait4::Wait4::wait4(child);
            state.reaped = true;
            let (status, usage) = match &reaped {
                Ok(reaped) => (Some(reaped.status), Some(reaped.rusage)),
                Err(error) => {
                    tracing::warn!("cannot reap the command {pid:?}: {error}");
                    (None, None)
                }
            };
            ExitInfo {
                code: status.and_then(|status| status.code()),
                signal: status.and_then(|status| status.signal()),
                timed_out: state.timed_out,
                cpu: usage.map_or(Duration::ZERO, |usage| usage.utime + usage.stime),
                peak_memory: usage.map(|usage| usage.maxrss).filter(|peak| *peak > floor).unwrap_or(0),
            }
        };
        let _ = exit.send(info);
        drop(keep);
        group.state().finished = true;
        group.finished.notify_all();
    });
    spawned.map(drop)
}

/// airlock's own peak resident set so far, in bytes (`VmHWM`); zero when it cannot be read.
fn own_peak_memory() -> u64 {
    let Ok(status) = std::fs::read_to_string("/proc/self/status") else { return 0 };
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmHWM:"))
        .and_then(|value| value.trim().strip_suffix("kB"))
        .and_then(|kib| kib.trim().parse::<u64>().ok())
        .map_or(0, |kib| kib * 1024)
}
