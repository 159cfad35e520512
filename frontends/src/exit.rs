//! The process's exit codes (documented in the README too): how a front end tells the shell
//! how a command or run ended.

/// Process exit codes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[repr(u8)]
pub enum ExitCode {
    /// The model finished its answer.
    Success = 0,
    /// The model API failed (unreachable, HTTP error, malformed stream) or another error.
    Failure = 1,
    /// The command line is wrong (clap's own parse errors exit with 2 as well).
    Usage = 2,
    /// The model API refused the credentials.
    Auth = 41,
    /// No prompt was given, or the input was unusable.
    Input = 42,
    /// The settings are invalid (config file, flags, workspace).
    Config = 52,
    /// The model was still calling tools after `--max-turns` turns.
    TurnLimit = 53,
    /// The model kept repeating itself (the same call, or the same text) after it was told
    /// to change course.
    LoopDetected = 54,
    /// The final answer was not JSON valid against the `--output-schema` schema.
    OutputSchema = 55,
    /// The run was cancelled (Ctrl-C, SIGTERM).
    Cancelled = 130,
}
