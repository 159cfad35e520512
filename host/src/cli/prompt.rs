//! Where a run's prompt comes from — the `-p` flag, standard input, or none, which opens the
//! interactive UI when both ends are a terminal — and how much of standard input a prompt
//! may take.

use std::io::{IsTerminal, Read, Write};

use airlock_frontends::ExitCode;
use airlock_frontends::headless::OutputFormat;

use super::{Cli, Fatal};

/// Whether this run opens the interactive UI: `-i`, or no prompt, no `--ask`/`--stdin`,
/// text output, and a terminal on both standard input and output. `-i` without a terminal
/// is a bad command line.
pub(super) fn wants_ui(cli: &Cli) -> Result<bool, Fatal> {
    let terminal = std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
    if cli.interactive.is_some() {
        if !terminal {
            return Err(Fatal::new(
                ExitCode::Usage,
                "-i opens the interactive UI, which needs a terminal; use -p for a headless run",
            ));
        }
        return Ok(true);
    }
    Ok(terminal && cli.prompt.is_none() && !cli.ask && !cli.stdin && cli.output_format == OutputFormat::Text)
}

/// Most bytes of a prompt read from standard input (`yes | airlock` must end, not fill memory).
const MAX_STDIN_PROMPT: u64 = 16 << 20;

/// The prompt, by the convention of `codex exec`: `-p TEXT` is the prompt and standard input
/// is left alone (a pipe that never closes, as in CI jobs and ssh sessions, must not hold
/// the run); `-p -` reads the prompt from standard input; no `-p` reads it from standard
/// input when that is not a terminal; `--stdin` appends standard input to `-p TEXT`. Under
/// `--ask` standard input carries the answers, so it never carries the prompt.
pub(super) fn read_prompt(flag: Option<String>, append_stdin: bool, ask: bool) -> Result<String, Fatal> {
    let stdin = std::io::stdin();
    let from_stdin = flag.as_deref() == Some("-");
    if ask && from_stdin {
        return Err(Fatal::new(
            ExitCode::Usage,
            "-p - reads the prompt from standard input, but with --ask standard input carries the answers: \
             give the prompt as -p \"...\"",
        ));
    }
    let read_stdin = from_stdin || append_stdin || (flag.is_none() && !ask && !stdin.is_terminal());
    let mut prompt = if from_stdin { String::new() } else { flag.unwrap_or_default() };
    if read_stdin {
        if stdin.is_terminal() {
            let _ = writeln!(std::io::stderr(), "airlock: reading the prompt from the terminal; end it with Ctrl-D");
        }
        let mut piped = String::new();
        stdin
            .lock()
            .take(MAX_STDIN_PROMPT + 1)
            .read_to_string(&mut piped)
            .map_err(|e| Fatal::new(ExitCode::Input, format!("cannot read the prompt from standard input: {e}")))?;
        if piped.len() as u64 > MAX_STDIN_PROMPT {
            return Err(Fatal::new(
                ExitCode::Input,
                format!("standard input is over {} MiB: too much for a prompt", MAX_STDIN_PROMPT >> 20),
            ));
        }
        if !piped.trim().is_empty() {
            if !prompt.is_empty() {
                prompt.push_str("\n\n");
            }
            prompt.push_str(piped.trim_end());
        }
    }
    if prompt.trim().is_empty() {
        let message = if ask {
            "no prompt: give it with -p \"...\" (with --ask, standard input carries the answers)"
        } else if read_stdin {
            "no prompt: standard input was empty; pass -p \"...\" or pipe the prompt in"
        } else {
            "no prompt: pass -p \"...\" or pipe the prompt on standard input"
        };
        return Err(Fatal::new(ExitCode::Input, message));
    }
    Ok(prompt)
}
