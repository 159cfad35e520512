//! How the commands of one call ended, as cards and session records show it.

/// How the commands a call started ended, and what they used: the last one's exit, and the
/// CPU time and peak memory of them all and of every process they waited for (the kernel's
/// figures, from `wait4`; not the plugin's own memory, which the call's cost holds).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct CommandRun {
    /// Commands the call ran to their end.
    pub count: u32,
    /// The last command's exit code; absent when a signal ended it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i32>,
    /// The signal that ended the last command.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub signal: Option<i32>,
    /// The last command was killed at its time limit.
    #[serde(default)]
    pub timed_out: bool,
    /// CPU time, user and system, in milliseconds.
    #[serde(default)]
    pub cpu_ms: u64,
    /// The largest resident set one of the processes reached, in bytes; zero when it is not
    /// known (it stayed below airlock's own, which the kernel counts for its children too).
    #[serde(default)]
    pub peak_memory_bytes: u64,
}

impl CommandRun {
    /// Adds one command's end: it becomes the last.
    pub fn add(&mut self, exit: &super::ExitInfo) {
        self.count += 1;
        self.exit_code = exit.code;
        self.signal = exit.signal;
        self.timed_out = exit.timed_out;
        self.cpu_ms = self.cpu_ms.saturating_add(exit.cpu.as_millis().try_into().unwrap_or(u64::MAX));
        self.peak_memory_bytes = self.peak_memory_bytes.max(exit.peak_memory);
    }

    /// Whether the last command failed: a non-zero exit, a signal or its time limit.
    pub fn failed(&self) -> bool {
        self.timed_out || self.signal.is_some() || self.exit_code.is_some_and(|code| code != 0)
    }

    /// `exit 3`, `signal 9`, `timed out`: how the last command ended, in a few words.
    pub fn ending(&self) -> String {
        match (self.timed_out, self.signal, self.exit_code) {
            (true, _, _) => "timed out".into(),
            (false, Some(signal), _) => format!("signal {signal}"),
            (false, None, Some(code)) => format!("exit {code}"),
            (false, None, None) => "no exit code".into(),
        }
    }
}
