//! Where airlock keeps its files: `$AIRLOCK_HOME` (default `~/.airlock`), its cache, plugin
//! and log folders, and the files in it. Every path is absolute and canonical, made so once
//! when the paths are built, so every other module can compare them with `starts_with`.
//!
//! Also a workspace's own folder (`<workspace>/.airlock`, [`open_workspace_dir`]), which a
//! repository and its commands can change at any moment: it is only ever reached through
//! handles opened without following a link; and the other names the user gave the
//! workspace ([`WorkspaceAliases`]).

use std::path::{Component, Path, PathBuf};

use airlock_files::{self as files, DirHandle, FileError};

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
    /// The system layer's folder (`config.toml`, `policy.toml`): `/etc/airlock`, or
    /// `$AIRLOCK_SYSTEM_DIR` (tests and packagers set it).
    pub system: PathBuf,
    /// The profile `--profile` chose: every reader of the settings applies it.
    pub profile: Option<String>,
}

/// The system layer's folder when `AIRLOCK_SYSTEM_DIR` is not set.
pub const SYSTEM_DIR: &str = "/etc/airlock";

impl Paths {
    /// Reads `AIRLOCK_HOME`, `AIRLOCK_CACHE_DIR`, `AIRLOCK_SYSTEM_DIR` and `HOME`; creates the home and cache
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
        let mut paths = Self::new(&home, cache.as_deref())?;
        if let Some(system) = std::env::var_os("AIRLOCK_SYSTEM_DIR").filter(|dir| !dir.is_empty()) {
            paths.system = PathBuf::from(system);
        }
        Ok(paths)
    }

    /// The paths for a home folder and an optional separate cache folder, both made
    /// canonical (relative paths are taken from the current folder).
    pub fn new(home: &Path, cache: Option<&Path>) -> Result<Self, PathsError> {
        let home = canonical_folder(home)?;
        let cache = canonical_folder(&cache.map_or_else(|| home.join("cache"), Path::to_path_buf))?;
        Ok(Self {
            plugins: home.join("plugins"),
            logs: home.join("logs"),
            cache,
            home,
            system: PathBuf::from(SYSTEM_DIR),
            profile: None,
        })
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

/// A workspace's folder of airlock files (policy, plugins).
pub const WORKSPACE_DIR: &str = ".airlock";

/// `<workspace>/.airlock/<relative>` of the canonical `workspace`, opened one folder at a
/// time from `/` without following any link; with `create`, each missing folder is made
/// (mode 0755, less the umask). A link anywhere on the way is [`FileError::Link`]: nothing is
/// read or written through one, whatever it points to.
pub fn open_workspace_dir(workspace: &Path, relative: &str, create: bool) -> Result<DirHandle, FileError> {
    let root = files::open_dir(workspace)?;
    let path = Path::new(WORKSPACE_DIR).join(relative);
    if create { files::create_dir_in(&root, &path, 0o755) } else { files::open_dir_in(&root, &path) }
}

/// The workspace by the names the user gave it. The canonical path is its identity (grants,
/// rules, trust, what tools are told); a spelling the user typed that leads to it through a
/// link above it — `--workspace ~/link/proj`, or `$PWD` in a shell that keeps the logical
/// path (macOS's `/tmp` is itself a link) — is an alias: guests see the workspace's folders
/// at those paths too, so a path in the user's spelling reaches the same folder.
///
/// Invariant: an alias is absolute, holds no `.` or `..`, leads to exactly the canonical
/// workspace now, and lies neither inside it nor above it; a link *inside* the workspace is
/// never an alias.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WorkspaceAliases {
    /// The canonical workspace.
    pub root: PathBuf,
    pub aliases: Vec<PathBuf>,
}

impl WorkspaceAliases {
    /// The aliases of the canonical workspace `root` among the spellings the user gave it:
    /// the `--workspace` argument (relative ones taken from `$PWD` as well as from the
    /// physical current folder) and `$PWD` when no argument was given.
    pub fn of(root: &Path, flag: Option<&Path>) -> Self {
        let pwd = std::env::var_os("PWD").map(PathBuf::from).filter(|p| p.is_absolute());
        let mut spellings = Vec::new();
        match flag {
            Some(flag) if flag.is_absolute() => spellings.push(flag.to_path_buf()),
            Some(flag) => {
                spellings.extend(pwd.map(|pwd| pwd.join(flag)));
                spellings.extend(std::env::current_dir().ok().map(|cwd| cwd.join(flag)));
            }
            None => spellings.extend(pwd),
        }
        let mut aliases: Vec<PathBuf> = Vec::new();
        for spelling in spellings {
            let spelling = without_trailing_dot(&spelling);
            if Self::is_alias(root, &spelling) && !aliases.contains(&spelling) {
                aliases.push(spelling);
            }
        }
        Self { root: root.to_path_buf(), aliases }
    }

    /// Whether `spelling` may stand for the canonical workspace `root`.
    fn is_alias(root: &Path, spelling: &Path) -> bool {
        let plain = spelling.is_absolute()
            && spelling.components().all(|c| matches!(c, Component::RootDir | Component::Normal(_)));
        plain
            && spelling != root
            && !spelling.starts_with(root)
            && !root.starts_with(spelling)
            && spelling.canonicalize().is_ok_and(|canonical| canonical == root)
    }

    /// The other paths under which a guest sees the folder `host` (canonical): one per alias
    /// when `host` lies in the workspace, none otherwise.
    pub fn spellings(&self, host: &Path) -> Vec<PathBuf> {
        match host.strip_prefix(&self.root) {
            Ok(rest) => self.aliases.iter().map(|alias| alias.join(rest)).collect(),
            Err(_) => Vec::new(),
        }
    }
}

/// `path` without `.` components and trailing slashes (what a shell's `$PWD` never has, but
/// an argument may: `--workspace ./proj/`).
fn without_trailing_dot(path: &Path) -> PathBuf {
    path.components().filter(|c| *c != Component::CurDir).collect()
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
