//! The helper process: from `airlock __sandbox <spec-json | -> [parent-pid]` to the program.
//!
//! Without the view the helper confines itself ([`confine`]) and `exec`s the program. With
//! it the helper builds the view ([`super::view`]) and starts the view's init process
//! ([`super::init`]), which confines itself the same way and starts the program.
//!
//! The order of the confinement matters: capabilities first (dropping the bounding set needs
//! `CAP_SETPCAP`, which goes last), `no_new_privs`, Landlock, and seccomp last, because the
//! filter also denies calls the earlier steps make. Nothing here returns into airlock: the
//! helper either becomes the program or exits 126/127 after one line on stderr.

use std::ffi::OsString;
use std::io::{self, Write};
use std::os::unix::fs::PermissionsExt;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use rustix::io::Errno;
use rustix::process::{Pid, Signal};
use rustix::thread::{CapabilitiesSecureBits, CapabilitySet, CapabilitySets};

use super::{Spec, filesystem, syscalls};

/// Exit status when the sandbox could not be set up or the program could not be run.
const CANNOT_RUN: u8 = 126;
/// Exit status when the program does not exist (the shell's convention).
const NOT_FOUND: u8 = 127;

/// Why the helper stopped before `exec`: one line for the person reading stderr.
#[derive(Debug, thiserror::Error)]
pub(super) enum Failure {
    #[error("usage: airlock {} <spec-json | -> [parent-pid]", super::HELPER_ARG)]
    Usage,
    #[error("invalid spec: {0}")]
    Spec(#[from] serde_json::Error),
    #[error("the parent process is gone")]
    Orphaned,
    #[error("cannot set the parent-death signal: {0}")]
    DeathSignal(io::Error),
    #[error("cannot build the read-only view of the system: {0}")]
    View(String),
    #[error("cannot start the view's init process: {0}")]
    Init(String),
    #[error("cannot drop capabilities: {0}")]
    Capabilities(io::Error),
    #[error("cannot set no_new_privs: {0}")]
    NoNewPrivs(io::Error),
    #[error("cannot apply the Landlock rules: {0}")]
    Landlock(String),
    #[error("cannot install the seccomp filter: {0}")]
    Seccomp(String),
    #[error("no program to run (argv is empty)")]
    NoProgram,
    #[error("cannot enter the working folder {}: {error}", folder.display())]
    Cwd { folder: PathBuf, error: io::Error },
    #[error("{0}: command not found")]
    NotFound(String),
    #[error("cannot run {0}: {1}")]
    Exec(String, io::Error),
}

/// 127 when the program does not exist, 126 for everything else.
pub(super) fn exit_code_of(failure: &Failure) -> u8 {
    match failure {
        Failure::NotFound(_) => NOT_FOUND,
        Failure::Exec(_, error) if error.kind() == io::ErrorKind::NotFound => NOT_FOUND,
        _ => CANNOT_RUN,
    }
}

/// Prints `failure` as the helper's one line and gives its exit status.
pub(super) fn report(failure: &Failure) -> ExitCode {
    let _ = writeln!(io::stderr(), "airlock sandbox: {failure}");
    ExitCode::from(exit_code_of(failure))
}

/// Sandboxes the program `args` describe and runs it; returns only its exit status (the
/// view's init reports the program's) or the reason it could not run.
pub(super) fn run(args: Vec<OsString>) -> ExitCode {
    let (spec, json) = match read_args(&args) {
        Ok(read) => read,
        Err(failure) => return report(&failure),
    };
    if spec.view {
        if let Err(error) = super::view::enter(&spec) {
            return report(&Failure::View(error));
        }
        return super::init::start(&json);
    }
    match confine(&spec) {
        Ok(program) => report(&exec(&spec, &program)),
        Err(failure) => report(&failure),
    }
}

/// The spec (from the argument or from [`super::SPEC_VAR`]) and its JSON, after the
/// parent-death signal is armed.
fn read_args(args: &[OsString]) -> Result<(Spec, String), Failure> {
    let (json, parent) = match args {
        [json] => (json, None),
        [json, parent] => (json, Some(parent.to_str().and_then(|p| p.parse::<i32>().ok()).ok_or(Failure::Usage)?)),
        _ => return Err(Failure::Usage),
    };
    // `-`: the spec is in the environment, out of sight of `/proc/<pid>/cmdline`.
    let from_env = (json == super::SPEC_FROM_ENV).then(|| std::env::var_os(super::SPEC_VAR)).flatten();
    let json = from_env.as_ref().unwrap_or(json).to_str().ok_or(Failure::Usage)?.to_owned();
    let spec: Spec = serde_json::from_str(&json)?;
    die_with_parent(parent)?;
    Ok((spec, json))
}

/// Confines this process as the module says, up to (not including) running the program;
/// returns the program's resolved path.
pub(super) fn confine(spec: &Spec) -> Result<PathBuf, Failure> {
    drop_capabilities().map_err(|e| Failure::Capabilities(e.into()))?;
    rustix::thread::set_no_new_privs(true).map_err(|e| Failure::NoNewPrivs(e.into()))?;
    // Found with the full view so "not found" (127) is told apart from "not allowed" (126,
    // from `exec` under Landlock).
    let program = resolve(spec)?;
    filesystem::restrict(spec).map_err(Failure::Landlock)?;
    syscalls::install(spec.network_mode(), spec.view).map_err(Failure::Seccomp)?;
    Ok(program)
}

/// `PR_SET_PDEATHSIG` is cleared on nothing we do later (`exec` of a non-setuid program keeps
/// it), so the program dies with airlock; the re-check closes the race where airlock died
/// before the signal was armed.
fn die_with_parent(expected: Option<i32>) -> Result<(), Failure> {
    let before = Pid::as_raw(rustix::process::getppid());
    rustix::process::set_parent_process_death_signal(Some(Signal::KILL)).map_err(|e| Failure::DeathSignal(e.into()))?;
    let now = Pid::as_raw(rustix::process::getppid());
    if now != expected.unwrap_or(before) || now <= 1 {
        return Err(Failure::Orphaned);
    }
    Ok(())
}

/// Empties every capability set. As root, `exec` would hand the program the full bounding set
/// again, so that goes too, and the `NO_ROOT` secure bits lock uid 0's implicit capabilities off.
fn drop_capabilities() -> Result<(), Errno> {
    let current = rustix::thread::capabilities(None)?;
    if current.effective.contains(CapabilitySet::SETPCAP) {
        for bit in 0..64 {
            match rustix::thread::remove_capability_from_bounding_set(CapabilitySet::from_bits_retain(1 << bit)) {
                // EINVAL: a capability this kernel does not know.
                Ok(()) | Err(Errno::INVAL) => {}
                Err(error) => return Err(error),
            }
        }
        rustix::thread::set_capabilities_secure_bits(
            CapabilitiesSecureBits::NO_ROOT
                | CapabilitiesSecureBits::NO_ROOT_LOCKED
                | CapabilitiesSecureBits::NO_SETUID_FIXUP
                | CapabilitiesSecureBits::NO_SETUID_FIXUP_LOCKED
                | CapabilitiesSecureBits::KEEP_CAPS_LOCKED,
        )?;
    }
    match rustix::thread::clear_ambient_capability_set() {
        Ok(()) | Err(Errno::INVAL) => {}
        Err(error) => return Err(error),
    }
    let none = CapabilitySet::empty();
    rustix::thread::set_capabilities(None, CapabilitySets { effective: none, permitted: none, inheritable: none })
}

/// The program's path: as given when it has a slash, else the first executable file of that
/// name in the spec's `PATH`.
pub(super) fn resolve(spec: &Spec) -> Result<PathBuf, Failure> {
    let name = spec.argv.first().ok_or(Failure::NoProgram)?;
    if !spec.cwd.is_dir() {
        return Err(Failure::Cwd { folder: spec.cwd.clone(), error: io::Error::from(io::ErrorKind::NotFound) });
    }
    if name.contains('/') {
        return if spec.cwd.join(name).exists() {
            Ok(PathBuf::from(name))
        } else {
            Err(Failure::NotFound(name.clone()))
        };
    }
    if name.is_empty() {
        return Err(Failure::NotFound(name.clone()));
    }
    let path = spec.env.iter().rev().find(|(key, _)| key == "PATH").map_or(super::SYSTEM_PATH, |(_, value)| value);
    path.split(':')
        .map(|folder| if folder.is_empty() { Path::new(".") } else { Path::new(folder) })
        .map(|folder| spec.cwd.join(folder).join(name))
        .find(|candidate| is_executable(candidate))
        .ok_or_else(|| Failure::NotFound(name.clone()))
}

fn is_executable(path: &Path) -> bool {
    std::fs::metadata(path).is_ok_and(|meta| meta.is_file() && meta.permissions().mode() & 0o111 != 0)
}

/// The program as a command: its name as `argv[0]`, exactly the spec's environment, in its
/// folder.
pub(super) fn command(spec: &Spec, program: &Path) -> Result<Command, Failure> {
    let (name, args) = spec.argv.split_first().ok_or(Failure::NoProgram)?;
    let mut command = Command::new(program);
    command
        .arg0(name)
        .args(args)
        .env_clear()
        .envs(spec.env.iter().map(|(key, value)| (key, value)))
        .current_dir(&spec.cwd);
    Ok(command)
}

/// Replaces this process with the program; returns only the reason it could not.
fn exec(spec: &Spec, program: &Path) -> Failure {
    // Descriptors airlock inherited from whatever started it (a terminal, an editor, a
    // wrapper) without close-on-exec would reach the program past Landlock: only the three
    // standard streams go through.
    close_fds::set_fds_cloexec(3, &[]);
    match command(spec, program) {
        Ok(mut command) => Failure::Exec(spec.argv.first().cloned().unwrap_or_default(), command.exec()),
        Err(failure) => failure,
    }
}
