//! `run_shell_command`: runs one bash command line in a folder of the workspace, through the
//! host's gated process interface (contract 0.2.0), with Gemini CLI's parameters. The host
//! asks the user about the line (each command of it judged on its own), starts exactly the
//! approved line, and runs it in the operating system's sandbox of the tool's grant: it
//! writes only in the workspace and a private temporary folder and has no network unless
//! the user granted this tool every host.
//!
//! Output streams live while the command runs; the result holds the output (stdout and
//! stderr as they came), the exit code or signal, and whether the host killed it at its
//! timeout. Binary output is detected and not dumped. A background command is started and
//! left running, its output going to a log file, and stopped when airlock exits.

use std::path::{Path, PathBuf};

use airlock_plugin_sdk::display_path;
use airlock_plugin_sdk::prelude::*;
use airlock_plugin_sdk::process::{Event, ExitStatus, Spawn};

#[derive(Deserialize, JsonSchema)]
struct Args {
    /// The exact bash command line to run (`cargo test`, `git status && git diff`).
    command: String,
    /// A short description of what the command does and why, shown to the user.
    #[serde(default)]
    description: Option<String>,
    /// The folder to run it in: a path relative to the workspace root, or an absolute path
    /// inside the workspace. The workspace root when left out.
    #[serde(default)]
    dir_path: Option<String>,
    /// Start the command and return at once, leaving it running in the background (for
    /// servers and watchers); its output goes to a log file whose path is returned.
    #[serde(default)]
    is_background: bool,
}

/// Most output bytes kept for the result; past it the rest is counted, not kept (the host
/// cuts what the model sees much shorter and saves the whole result in the session folder).
const MAX_KEPT: usize = 16 << 20;
/// How much of the start of the output decides whether it is binary.
const SNIFF: usize = 8 << 10;
/// How long one wait for output lasts.
const WAIT_MS: u32 = 200;

struct RunShellCommand;

impl Tool for RunShellCommand {
    type Args = Args;
    const NAME: &'static str = "run_shell_command";
    const DISPLAY_NAME: &'static str = "Shell";
    const DESCRIPTION: &'static str = "Runs a bash command line (`bash -c <command>`) in a \
        folder of the workspace and returns its output, exit code and signal. Use it to build, \
        test, run git, search with tools the system has, or start a server in the background \
        (is_background). The user approves each command first; every command of a line \
        (pipelines, `&&`, `;`, `$(…)`) is judged on its own. Commands run sandboxed with the \
        user's PATH, HOME and toolchains (cargo, python, node, …): they may write only inside \
        the workspace, a private $TMPDIR and the package caches, read the toolchains and the \
        system, never the user's secrets, and usually have no network (local servers a command \
        starts itself work). When the sandbox blocks something the result says so in a line \
        starting `blocked by the sandbox:`; do not retry the same command then. Interactive \
        programs do not work: stdin is empty. Prefer the file tools for reading and editing files.";
    const KIND: Kind = Kind::Execute;
    const PARALLEL_SAFE: bool = false;
    const STREAMS_OUTPUT: bool = true;

    fn capabilities() -> Capabilities {
        // `*`: exactly the line approved for the call. The home folder (read) and every host:
        // what a user may grant commands (`~/data`, the network) — the default grant leaves
        // both out; the user's toolchains and package caches come with every command anyway,
        // and folders elsewhere with `--add-dir`.
        Capabilities::none().read_write(".").read("~").process("*").network("https://*:*")
    }

    fn validate(args: &Args) -> Result<(), ToolError> {
        if args.command.trim().is_empty() {
            return Err(ToolError::InvalidParams("the command is empty; give a command line to run".into()));
        }
        if args.command.contains('\0') {
            return Err(ToolError::InvalidParams("the command holds a NUL character".into()));
        }
        let dir = directory(args)?;
        if !dir.is_dir() {
            return Err(ToolError::InvalidParams(format!(
                "'{}' is not a folder of the workspace; give dir_path as a folder that exists",
                display_path(&dir)
            )));
        }
        Ok(())
    }

    fn describe_call(args: &Args) -> String {
        let line = args.command.lines().next().unwrap_or_default();
        match &args.description {
            Some(description) if !description.trim().is_empty() => format!("{line} ({})", description.trim()),
            _ => line.to_string(),
        }
    }

    fn confirm(args: &Args) -> Result<Option<Confirmation>, ToolError> {
        let dir = directory(args)?;
        Ok(Some(Confirmation::Exec(airlock_plugin_sdk::ExecConfirmation {
            command: args.command.clone(),
            root_command: root_command(&args.command),
            directory: dir.to_string_lossy().into_owned(),
            risk: risk(&args.command),
        })))
    }

    fn execute(args: Args) -> Result<ToolOutput, ToolError> {
        let dir = directory(&args)?;
        let mut spawn = Spawn::shell(args.command.clone()).directory(dir.to_string_lossy());
        if args.is_background {
            spawn = spawn.background();
        }
        let child = spawn.start()?;
        if args.is_background {
            let log = child.log_path().unwrap_or_default();
            let text = format!(
                "Command: {}\nDirectory: {}\nStarted in the background (PID {}). Its output goes to {log}; \
                 airlock stops it when it exits.",
                args.command,
                display_path(&dir),
                child.pid()
            );
            return Ok(ToolOutput::text(text));
        }
        let mut output = Output::default();
        let status = loop {
            match child.next(WAIT_MS) {
                Event::Stdout(bytes) | Event::Stderr(bytes) => output.add(&bytes),
                Event::Exited(status) => break status,
                Event::Idle => {}
            }
        };
        Ok(ToolOutput::text(report(&args, &dir, &output, &status)))
    }
}

/// What a command wrote, as it came.
#[derive(Default)]
struct Output {
    kept: Vec<u8>,
    total: usize,
    binary: Option<bool>,
}

impl Output {
    fn add(&mut self, bytes: &[u8]) {
        self.total += bytes.len();
        let room = MAX_KEPT.saturating_sub(self.kept.len());
        self.kept.extend_from_slice(&bytes[..bytes.len().min(room)]);
        if self.binary.is_none() && self.kept.len() >= SNIFF {
            self.binary = Some(looks_binary(&self.kept[..SNIFF]));
        }
        if self.binary != Some(true) {
            output::emit(&String::from_utf8_lossy(bytes));
        }
    }

    fn is_binary(&self) -> bool {
        self.binary.unwrap_or_else(|| looks_binary(&self.kept))
    }
}

/// A NUL byte, or mostly bytes that are neither text nor UTF-8.
fn looks_binary(sample: &[u8]) -> bool {
    if sample.contains(&0) {
        return true;
    }
    let text = String::from_utf8_lossy(sample);
    let odd = text.chars().filter(|c| *c == '\u{FFFD}' || (c.is_control() && !c.is_whitespace() && *c != '\x1b')).count();
    odd * 10 > text.chars().count().max(1)
}

/// The result the model reads, in Gemini CLI's layout.
fn report(args: &Args, dir: &Path, output: &Output, status: &ExitStatus) -> String {
    let shown = if output.total == 0 {
        "(empty)".to_string()
    } else if output.is_binary() {
        format!("[binary output: {} bytes, not shown]", output.total)
    } else {
        let mut text = String::from_utf8_lossy(&output.kept).into_owned();
        if output.total > output.kept.len() {
            text.push_str(&format!("\n[{} more bytes of output were not kept]", output.total - output.kept.len()));
        }
        text
    };
    let mut report = format!("Command: {}\nDirectory: {}\nOutput: {shown}\n", args.command, display_path(dir));
    if status.timed_out {
        report.push_str("Error: the command ran past its time limit and was killed with its whole process group\n");
    }
    match status.code {
        Some(code) => report.push_str(&format!("Exit Code: {code}\n")),
        None => report.push_str("Exit Code: (none)\n"),
    }
    match status.signal {
        Some(signal) => report.push_str(&format!("Signal: {signal} ({})\n", signal_name(signal))),
        None => report.push_str("Signal: (none)\n"),
    }
    report
}

fn signal_name(signal: i32) -> &'static str {
    match signal {
        1 => "SIGHUP",
        2 => "SIGINT",
        3 => "SIGQUIT",
        4 => "SIGILL",
        6 => "SIGABRT",
        7 => "SIGBUS",
        8 => "SIGFPE",
        9 => "SIGKILL",
        11 => "SIGSEGV",
        13 => "SIGPIPE",
        14 => "SIGALRM",
        15 => "SIGTERM",
        31 => "SIGSYS",
        _ => "signal",
    }
}

/// The folder the command runs in, inside the workspace.
fn directory(args: &Args) -> Result<PathBuf, ToolError> {
    match args.dir_path.as_deref() {
        None | Some("") => Ok(workspace_root()),
        Some(path) => resolve_in_workspace(path),
    }
}

/// Programs that delete, overwrite, change permissions, stop processes or run as another user.
const HIGH: &[&str] = &["rm", "sudo", "dd", "mkfs", "shred", "chmod", "chown", "kill", "pkill", "reboot", "shutdown"];
/// Programs that write, reach the network or run a project's code.
const MEDIUM: &[&str] = &["mv", "cp", "git", "curl", "wget", "npm", "pip", "cargo", "make", "docker"];

/// The words of a line, split roughly at blanks and shell operators, each by its file name.
fn words(line: &str) -> Vec<&str> {
    line.split(|c: char| c.is_whitespace() || matches!(c, ';' | '&' | '|' | '(' | ')' | '`' | '$' | '{' | '}'))
        .filter(|w| !w.is_empty())
        .map(|w| w.trim_matches(|c| c == '\'' || c == '"'))
        .map(|w| w.rsplit('/').next().unwrap_or(w))
        .collect()
}

/// A rough guess at the line's riskiest program: the host reads the line properly, names its
/// riskiest command in the question and replaces this guess; it matters only where it does not.
fn root_command(line: &str) -> String {
    let words = words(line);
    let riskiest = words.iter().find(|w| HIGH.contains(w)).or_else(|| words.iter().find(|w| MEDIUM.contains(w)));
    riskiest.or_else(|| words.iter().find(|w| !w.contains('='))).map(|w| w.to_string()).unwrap_or_default()
}

/// The tool's guess at how risky a line is (the host's own reading replaces it in the question).
fn risk(line: &str) -> Risk {
    let words = words(line);
    let has = |list: &[&str]| words.iter().any(|w| list.contains(w));
    if has(HIGH) || line.contains("| sh") || line.contains("| bash") {
        Risk::High
    } else if has(MEDIUM) || line.contains('>') {
        Risk::Medium
    } else {
        Risk::Low
    }
}

export_tools!(RunShellCommand);
