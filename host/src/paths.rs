//! Where airlock keeps its files: `$AIRLOCK_HOME` (default `~/.airlock`), its cache, plugin
//! and log folders, and the files in it. Every path is absolute and canonical, made so once
//! when the paths are built, so every other module can compare them with `starts_with`.

use std::path::{Path, PathBuf};

/// The folder of `$AIRLOCK_HOME` that holds the memory file (`save_memory`).
pub const MEMORY_DIR: &str = "memory";

/// Why the home or cache folder cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum PathsError {
    #[error("cannot find a home folder: set AIRLOCK_HOME or HOME")]
    NoHome,
    #[error("cannot read {path}: {reason}")]
    Read { path: PathBuf, reason: String },
}

/// Where airlock keeps its files. Every path is absolute and canonical (no symlink, no
/// `..`), whatever spelling the environment used, so "does the workspace contain airlock's
/// own folders" has one answer: a grant can never reach them by another name.
#[derive(Debug, Clone)]
pub struct Paths {
    /// `$AIRLOCK_HOME`.
    pub home: PathBuf,
    /// Compiled components and cached descriptions (`$AIRLOCK_CACHE_DIR`, or `home/cache`).
    pub cache: PathBuf,
    /// The user's plugin folder.
    pub plugins: PathBuf,
    pub logs: PathBuf,
}

impl Paths {
    /// Reads `AIRLOCK_HOME`, `AIRLOCK_CACHE_DIR` and `HOME`; creates the home and cache
    /// folders when missing (a folder must exist to have a canonical path).
    pub fn from_env() -> Result<Self, PathsError> {
        let home = match std::env::var_os("AIRLOCK_HOME") {
            Some(home) if !home.is_empty() => PathBuf::from(home),
            _ => match std::env::var_os("HOME") {
                Some(user_home) if !user_home.is_empty() => PathBuf::from(user_home).join(".airlock"),
                _ => return Err(PathsError::NoHome),
            },
        };
        let cache = std::env::var_os("AIRLOCK_CACHE_DIR").filter(|dir| !dir.is_empty()).map(PathBuf::from);
        Self::new(&home, cache.as_deref())
    }

    /// The paths for a home folder and an optional separate cache folder, both made
    /// canonical (relative paths are taken from the current folder).
    pub fn new(home: &Path, cache: Option<&Path>) -> Result<Self, PathsError> {
        let home = canonical_folder(home)?;
        let cache = canonical_folder(&cache.map_or_else(|| home.join("cache"), Path::to_path_buf))?;
        Ok(Self { plugins: home.join("plugins"), logs: home.join("logs"), cache, home })
    }

    /// The folders no tool may write to: the home (policy, trust, plugins, sessions) and
    /// the compile cache (trusted as code). Canonical; the cache is listed on its own only
    /// when it lies outside the home.
    /// Folders inside the protected ones that a grant may still write: the memory folder.
    pub fn writable_inside_protected(&self) -> Vec<PathBuf> {
        vec![self.memory_dir()]
    }

    pub fn protected(&self) -> Vec<PathBuf> {
        let mut folders = vec![self.home.clone()];
        if !self.cache.starts_with(&self.home) {
            folders.push(self.cache.clone());
        }
        folders
    }

    /// Where `save_memory` keeps the user's remembered facts (`AIRLOCK.md`, read as context
    /// after `$AIRLOCK_HOME/AIRLOCK.md`): the one folder of the home a grant may write.
    pub fn memory_dir(&self) -> PathBuf {
        self.home.join(MEMORY_DIR)
    }

    /// The key that tags the compile cache's entries: in the home, never in the cache
    /// folder (which may lie where a repository put files).
    pub fn cache_key(&self) -> PathBuf {
        self.home.join("cache.key")
    }

    pub fn config_file(&self) -> PathBuf {
        self.home.join("config.toml")
    }

    /// The user's policy file.
    pub fn policy_file(&self) -> PathBuf {
        self.home.join("policy.toml")
    }

    /// The trusted folders.
    pub fn trust_file(&self) -> PathBuf {
        self.home.join("trust.toml")
    }
}

/// Creates `path` when missing and returns its canonical form.
fn canonical_folder(path: &Path) -> Result<PathBuf, PathsError> {
    let absolute = if path.is_absolute() {
        path.to_path_buf()
    } else {
        let cwd = std::env::current_dir()
            .map_err(|e| PathsError::Read { path: path.to_path_buf(), reason: format!("no current folder: {e}") })?;
        cwd.join(path)
    };
    let failed = |e: std::io::Error| PathsError::Read { path: absolute.clone(), reason: e.to_string() };
    std::fs::create_dir_all(&absolute).map_err(failed)?;
    let canonical = absolute.canonicalize().map_err(failed)?;
    if !canonical.is_dir() {
        return Err(PathsError::Read { path: absolute, reason: "not a folder".into() });
    }
    Ok(canonical)
}

#[cfg(test)]
#[path = "paths_tests.rs"]
mod tests;
