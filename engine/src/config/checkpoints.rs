//! `[checkpoints]`: whether the host takes a checkpoint before each call that holds write
//! access ([`crate::checkpoints`]), what a checkpoint may hold, and how much the workspace's
//! store keeps.
//!
//! Invariant: a workspace's settings file may not set any of these keys
//! ([`super::merge::workspace_refusal`]): a hostile repository must not be able to switch
//! off the undo of what it makes the agent do, nor shrink the caps until nothing is kept.

use std::path::Path;
use std::time::Duration;

use serde::Deserialize;

/// `[checkpoints]` as written; what is missing takes its default.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CheckpointSettings {
    /// Take checkpoints before calls that hold write access (default on).
    pub enabled: Option<bool>,
    /// Files larger than this many MiB are left out of a checkpoint (default 16).
    pub max_file_mib: Option<u64>,
    /// Most files one checkpoint holds; the rest is left out (default 100,000).
    pub max_files: Option<usize>,
    /// Most MiB the workspace's store keeps; the oldest checkpoints go first (default 2048).
    pub max_size_mib: Option<u64>,
    /// Checkpoints older than this many days go (default 30).
    pub max_age_days: Option<u64>,
}

/// The defaults, as `airlock config show` prints them when no file sets a key.
pub const DEFAULTS: [(&str, &str); 5] = [
    ("checkpoints.enabled", "true"),
    ("checkpoints.max_age_days", "30"),
    ("checkpoints.max_file_mib", "16"),
    ("checkpoints.max_files", "100000"),
    ("checkpoints.max_size_mib", "2048"),
];

const DEFAULT_MAX_FILE_MIB: u64 = 16;
const DEFAULT_MAX_FILES: usize = 100_000;
const DEFAULT_MAX_SIZE_MIB: u64 = 2048;
const DEFAULT_MAX_AGE_DAYS: u64 = 30;
/// The largest value any of the MiB keys may take (1 TiB): past it a shift would overflow.
const MAX_MIB: u64 = 1 << 20;

impl CheckpointSettings {
    pub fn enabled(&self) -> bool {
        self.enabled.unwrap_or(true)
    }

    /// Each cap lies between 1 and its largest sensible value.
    pub(super) fn check(&self) -> Result<(), String> {
        let caps = [
            ("max_file_mib", self.max_file_mib, MAX_MIB),
            ("max_files", self.max_files.map(|v| v as u64), u64::from(u32::MAX)),
            ("max_size_mib", self.max_size_mib, MAX_MIB),
            ("max_age_days", self.max_age_days, 36_500),
        ];
        for (name, value, max) in caps {
            if value.is_some_and(|v| v == 0 || v > max) {
                return Err(format!("[checkpoints] {name} must be between 1 and {max}"));
            }
        }
        Ok(())
    }

    /// What a checkpoint may hold, for the store of a session whose `$AIRLOCK_HOME` is
    /// `home` (never snapshotted nor restored: it holds the store itself, the sessions and
    /// the user's grants).
    pub fn store_settings(&self, home: &Path) -> airlock_checkpoint::Settings {
        let defaults = airlock_checkpoint::Settings::default();
        let home = home.canonicalize().unwrap_or_else(|_| home.to_path_buf());
        airlock_checkpoint::Settings {
            max_file_bytes: self.max_file_mib.unwrap_or(DEFAULT_MAX_FILE_MIB) << 20,
            max_files: self.max_files.unwrap_or(DEFAULT_MAX_FILES),
            max_new_bytes: defaults.max_new_bytes,
            never: vec![home],
        }
    }

    /// How much the store keeps.
    pub fn retention(&self) -> airlock_checkpoint::Retention {
        airlock_checkpoint::Retention {
            max_bytes: self.max_size_mib.unwrap_or(DEFAULT_MAX_SIZE_MIB) << 20,
            max_age: Duration::from_secs(self.max_age_days.unwrap_or(DEFAULT_MAX_AGE_DAYS) * 86_400),
        }
    }
}

#[cfg(test)]
#[path = "checkpoints_tests.rs"]
mod tests;
