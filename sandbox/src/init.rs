//! The init process of a view: PID 1 of the program's PID namespace.
//!
//! The helper, inside the view's namespaces, starts airlock again as
//! `airlock __sandbox-init <status-fd> <lifeline-fd>` ([`start`]): being the helper's first
//! child after `unshare(CLONE_NEWPID)`, it is PID 1 there. Init ([`run`]) dies with the
//! helper (`PR_SET_PDEATHSIG`, re-checked through the lifeline pipe, which reads as closed
//! once the helper is gone), mounts the namespace's own `/proc`, confines itself exactly as
//! the helper confines a program without a view, starts the program, reaps every process
//! the namespace orphans, and when the program exits reports how through the status pipe
//! and exits too. The kernel then kills whatever the program left in the namespace. The
//! helper ends the way the program ended: the same exit code, or the same signal.
//!
//! Invariants: the program inherits neither pipe (both are close-on-exec in init); what
//! the helper reports is what init read from `waitpid` for the program's pid, never what the
//! program wrote.

use std::ffi::OsString;
use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::AsRawFd;
use std::os::unix::process::ExitStatusExt;
use std::process::{Command, ExitCode, ExitStatus};

use rustix::event::{PollFd, PollFlags};
use rustix::io::FdFlags;
use rustix::mount::MountFlags;
use rustix::pipe::PipeFlags;
use rustix::process::{Pid, Resource, Rlimit, Signal, WaitOptions, WaitStatus};

use super::helper::{self, Failure};
use super::{INIT_ARG, SPEC_VAR, Spec};

/// Where the helper runs init from: this very executable.
const SELF_EXE: &str = "/proc/self/exe";
/// Status-pipe records: the program exited with a code, or was killed by a signal.
const EXITED: u8 = 0;
const SIGNALED: u8 = 1;

/// Starts init (in the helper, inside the view) and ends as the program ended.
pub(super) fn start(json: &str) -> ExitCode {
    match start_and_wait(json) {
        Ok(ending) => end_like(ending),
        Err(failure) => helper::report(&failure),
    }
}

/// How the program (or, when it never ran, init) ended.
enum Ending {
    Code(u8),
    Signal(i32),
}

fn start_and_wait(json: &str) -> Result<Ending, Failure> {
    let failure = |e: rustix::io::Errno| Failure::Init(e.to_string());
    let (status_read, status_write) = rustix::pipe::pipe_with(PipeFlags::CLOEXEC).map_err(failure)?;
    let (lifeline_read, _lifeline_write) = rustix::pipe::pipe_with(PipeFlags::CLOEXEC).map_err(failure)?;
    // Only init's ends are inherited: the helper keeps the lifeline's write end open until it exits.
    rustix::io::fcntl_setfd(&status_write, FdFlags::empty()).map_err(failure)?;
    rustix::io::fcntl_setfd(&lifeline_read, FdFlags::empty()).map_err(failure)?;
    let mut init = Command::new(SELF_EXE)
        .arg(INIT_ARG)
        .arg(status_write.as_raw_fd().to_string())
        .arg(lifeline_read.as_raw_fd().to_string())
        .env_clear()
        .env(SPEC_VAR, json)
        .spawn()
        .map_err(|e| Failure::Init(e.to_string()))?;
    drop((status_write, lifeline_read));
    let status = init.wait().map_err(|e| Failure::Init(e.to_string()))?;
    let mut record = Vec::new();
    let _ = std::fs::File::from(status_read).read_to_end(&mut record);
    Ok(match record.as_slice() {
        [EXITED, code] => Ending::Code(*code),
        [SIGNALED, signal] => Ending::Signal(i32::from(*signal)),
        _ => ending_of(status),
    })
}

/// How init itself ended, when it reported nothing (it failed before the program ran, or it
/// was killed).
fn ending_of(status: ExitStatus) -> Ending {
    match (status.code(), status.signal()) {
        (Some(code), _) => Ending::Code(u8::try_from(code).unwrap_or(1)),
        (None, Some(signal)) => Ending::Signal(signal),
        (None, None) => Ending::Code(1),
    }
}

/// Exits with `ending`'s code, or dies of its signal (its default action restored, no core
/// file). A signal whose default action is to be ignored becomes the shell's `128 + signal`.
fn end_like(ending: Ending) -> ExitCode {
    match ending {
        Ending::Code(code) => ExitCode::from(code),
        Ending::Signal(number) => {
            let _ = rustix::process::setrlimit(Resource::Core, Rlimit { current: Some(0), maximum: Some(0) });
            let _ = signal_hook::low_level::emulate_default_handler(number);
            ExitCode::from(128u8.wrapping_add(u8::try_from(number).unwrap_or(0)))
        }
    }
}

/// Init's whole life: `airlock __sandbox-init <status-fd> <lifeline-fd>`.
pub(super) fn run(args: Vec<OsString>) -> ExitCode {
    let (status, lifeline) = match descriptors(&args) {
        Ok(pair) => pair,
        Err(failure) => return helper::report(&failure),
    };
    let ending = match start_program(&lifeline) {
        Ok(pid) => reap_until(pid),
        Err(failure) => return helper::report(&failure),
    };
    let record = match ending {
        Ending::Code(code) => [EXITED, code],
        Ending::Signal(signal) => [SIGNALED, u8::try_from(signal).unwrap_or(0)],
    };
    let mut status = status;
    let _ = status.write_all(&record);
    match ending {
        Ending::Code(code) => ExitCode::from(code),
        Ending::Signal(signal) => ExitCode::from(128u8.wrapping_add(u8::try_from(signal).unwrap_or(0))),
    }
}

/// The two inherited pipe ends named by init's arguments, opened again through
/// `/proc/self/fd` (the numbers stay open too, close-on-exec like everything init holds).
fn descriptors(args: &[OsString]) -> Result<(File, File), Failure> {
    let number = |arg: &OsString| arg.to_str().and_then(|text| text.parse::<u32>().ok()).filter(|fd| *fd > 2);
    let [status, lifeline] = args else { return Err(Failure::Usage) };
    let (Some(status), Some(lifeline)) = (number(status), number(lifeline)) else { return Err(Failure::Usage) };
    let reopen = |fd: u32, write: bool| {
        std::fs::OpenOptions::new()
            .read(!write)
            .write(write)
            .open(format!("/proc/self/fd/{fd}"))
            .map_err(|e| Failure::Init(format!("cannot open descriptor {fd}: {e}")))
    };
    Ok((reopen(status, true)?, reopen(lifeline, false)?))
}

/// Everything before the program runs: death with the helper, `/proc`, the confinement, and
/// the program's start; returns its pid.
fn start_program(lifeline: &File) -> Result<Pid, Failure> {
    rustix::process::set_parent_process_death_signal(Some(Signal::KILL)).map_err(|e| Failure::DeathSignal(e.into()))?;
    // Init holds the spec (the values of the variables passed on) and capabilities until it
    // confines itself: the program may not read its memory or environment.
    rustix::process::set_dumpable_behavior(rustix::process::DumpableBehavior::NotDumpable)
        .map_err(|e| Failure::Init(format!("cannot make init undumpable: {e}")))?;
    // The helper is outside this PID namespace (getppid() is 0 here): its end of the
    // lifeline reads as closed once it is gone.
    let mut poll = [PollFd::new(lifeline, PollFlags::IN)];
    if rustix::event::poll(&mut poll, Some(&rustix::time::Timespec { tv_sec: 0, tv_nsec: 0 })).unwrap_or(1) > 0 {
        return Err(Failure::Orphaned);
    }
    let json = std::env::var(SPEC_VAR).map_err(|_| Failure::Usage)?;
    let spec: Spec = serde_json::from_str(&json)?;
    mount_proc();
    let program = helper::confine(&spec)?;
    // The pipes (and anything else inherited) stay with init.
    close_fds::set_fds_cloexec(3, &[]);
    let child = helper::command(&spec, &program)?
        .spawn()
        .map_err(|error| Failure::Exec(spec.argv.first().cloned().unwrap_or_default(), error))?;
    Pid::from_raw(i32::try_from(child.id()).unwrap_or(0)).ok_or(Failure::NoProgram)
}

/// The PID namespace's own `/proc`, so the program sees its own processes only. Where the
/// kernel refuses (a container that hides parts of the machine's `/proc`), the machine's
/// read-only `/proc` stays: Landlock's ptrace rule still keeps other processes' secrets out.
fn mount_proc() {
    let flags = MountFlags::NOSUID | MountFlags::NODEV | MountFlags::NOEXEC;
    let _ = rustix::mount::mount("proc", "/proc", "proc", flags, None);
}

/// Reaps every child until `program` exits; how it ended.
fn reap_until(program: Pid) -> Ending {
    loop {
        match rustix::process::wait(WaitOptions::empty()) {
            Ok(Some((pid, status))) if pid == program => return ending_from(status),
            Ok(_) | Err(rustix::io::Errno::INTR) => {}
            Err(_) => return Ending::Code(1),
        }
    }
}

fn ending_from(status: WaitStatus) -> Ending {
    if let Some(code) = status.exit_status() {
        Ending::Code(u8::try_from(code & 0xff).unwrap_or(1))
    } else if let Some(signal) = status.terminating_signal() {
        Ending::Signal(signal)
    } else {
        Ending::Code(1)
    }
}
