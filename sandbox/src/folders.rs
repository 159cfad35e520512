//! What every command sees besides its call's own folders: the user's toolchains (read),
//! the package caches a build writes (read and write), the secrets no command may read, and
//! the `PATH`, `HOME` and toolchain variables that find them — the user's own, so
//! `cargo test`, `npm test` and `pytest` run in the sandbox as they run in the user's shell.
//!
//! Invariants: every path here is canonical and exists when [`CommandView::detect`] runs;
//! a hidden path wins over every other list (a folder granted for reading that holds a
//! secret is granted around it, see `filesystem.rs`); airlock's own folders are always
//! hidden; no variable whose name looks like a credential is passed on, whatever the
//! settings say; a `PATH` folder inside the workspace is left out (a repository would fill
//! it with programs named like the ones rules allow).

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde::Deserialize;

/// `[commands]` of `config.toml`: the user's changes to what commands see.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// More folders (or files) commands may read.
    #[serde(default)]
    pub read: Vec<String>,
    /// The package caches commands may write; when set, replaces [`DEFAULT_CACHES`].
    pub caches: Option<Vec<String>>,
    /// More paths no command may read, added to [`DEFAULT_SECRETS`].
    #[serde(default)]
    pub hide: Vec<String>,
    /// Paths of [`DEFAULT_SECRETS`] commands may read after all (airlock's own folders stay hidden).
    #[serde(default)]
    pub unhide: Vec<String>,
    /// More variables passed on to commands (never one that looks like a credential).
    #[serde(default)]
    pub env: Vec<String>,
    /// Whether commands run in the namespace view when the machine allows it (default yes).
    pub view: Option<bool>,
}

impl Settings {
    /// Refuses what cannot be right: a credential-like variable name, a path that is neither
    /// absolute nor `~/…`.
    pub fn check(&self) -> Result<(), String> {
        if let Some(name) = self.env.iter().find(|name| looks_like_credential(name)) {
            return Err(format!(
                "[commands] env: {name} looks like a credential; commands never get credentials (run the \
                 command yourself, or give it to the tool that needs it through a plugin grant)"
            ));
        }
        if let Some(name) = self.env.iter().find(|name| !is_variable_name(name)) {
            return Err(format!("[commands] env: {name:?} is not a variable name"));
        }
        let paths = self.read.iter().chain(self.caches.iter().flatten()).chain(&self.hide).chain(&self.unhide);
        if let Some(path) = paths.into_iter().find(|p| !(p.starts_with('/') || p.starts_with("~/") || *p == "~")) {
            return Err(format!("[commands]: {path:?} must be an absolute path or start with ~/"));
        }
        Ok(())
    }
}

/// Where secrets live, relative to the home folder: never readable by a command unless the
/// user unhides one.
pub const DEFAULT_SECRETS: &[&str] = &[
    // Keys and cloud credentials.
    ".ssh",
    ".gnupg",
    ".aws",
    ".azure",
    ".config/gcloud",
    ".kube",
    ".docker/config.json",
    ".oci",
    ".terraform.d",
    ".vault-token",
    ".password-store",
    ".config/op",
    ".config/rclone",
    ".s3cfg",
    ".boto",
    ".pki",
    // Tokens of package registries and forges.
    ".netrc",
    ".git-credentials",
    ".config/git/credentials",
    ".config/gh",
    ".config/hub",
    ".npmrc",
    ".yarnrc",
    ".yarnrc.yml",
    ".pypirc",
    ".gem/credentials",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".m2/settings.xml",
    ".m2/settings-security.xml",
    ".gradle/gradle.properties",
    ".pgpass",
    ".my.cnf",
    // Other agents' logins.
    ".codex",
    ".claude",
    ".claude.json",
    ".gemini",
    // Keyrings, desktop sessions and browser profiles.
    ".local/share/keyrings",
    ".gnome2/keyrings",
    ".Xauthority",
    ".ICEauthority",
    ".mozilla",
    ".thunderbird",
    ".config/google-chrome",
    ".config/chromium",
    ".config/BraveSoftware",
    ".config/microsoft-edge",
    ".config/vivaldi",
    ".config/opera",
    // Shell and tool histories.
    ".bash_history",
    ".zsh_history",
    ".zhistory",
    ".history",
    ".sh_history",
    ".local/share/fish/fish_history",
    ".python_history",
    ".node_repl_history",
    ".psql_history",
    ".mysql_history",
    ".sqlite_history",
    ".rediscli_history",
    ".lesshst",
];

/// Package caches a build writes, relative to the home folder (variables that move them are
/// followed, see [`caches`]).
pub const DEFAULT_CACHES: &[&str] = &[
    ".cargo/registry",
    ".cargo/git",
    ".npm",
    ".cache/pip",
    ".cache/pypoetry",
    ".cache/uv",
    ".cache/go-build",
    "go/pkg/mod",
    ".cache/yarn",
    ".yarn/berry/cache",
    ".local/share/pnpm/store",
    ".cache/node-gyp",
    ".gradle/caches",
    ".gradle/wrapper",
    ".m2/repository",
    ".cache/ccache",
    ".ccache",
    ".cache/sccache",
    ".cache/deno",
    ".bun/install/cache",
    ".cache/pre-commit",
];

/// Toolchain homes under the home folder, read when they exist (their variables move them).
const TOOLCHAIN_HOMES: &[(&str, &str)] = &[
    ("CARGO_HOME", ".cargo"),
    ("RUSTUP_HOME", ".rustup"),
    ("PYENV_ROOT", ".pyenv"),
    ("NVM_DIR", ".nvm"),
    ("VOLTA_HOME", ".volta"),
    ("BUN_INSTALL", ".bun"),
    ("DENO_INSTALL", ".deno"),
    ("GOPATH", "go"),
    ("SDKMAN_DIR", ".sdkman"),
    ("GRADLE_USER_HOME", ".gradle"),
    ("RBENV_ROOT", ".rbenv"),
    ("GEM_HOME", ".gem"),
    ("PNPM_HOME", ".local/share/pnpm"),
    ("POETRY_HOME", ".local/share/pypoetry"),
    ("PIPX_HOME", ".local/share/pipx"),
    ("", ".local/bin"),
    ("", ".local/lib"),
    ("", ".m2"),
    ("", ".yarn"),
    ("", "miniconda3"),
    ("", "miniforge3"),
    ("", "anaconda3"),
    ("", ".gitconfig"),
    ("", ".gitignore"),
    ("", ".gitignore_global"),
    ("", ".config/git"),
    ("", ".config/pip"),
    ("", ".pip"),
];

/// Toolchain folders named by a variable alone (no default under the home folder).
const TOOLCHAIN_VARIABLES: &[&str] = &[
    "GOROOT",
    "JAVA_HOME",
    "JDK_HOME",
    "MAVEN_HOME",
    "M2_HOME",
    "CONDA_PREFIX",
    "DOTNET_ROOT",
    "ANDROID_HOME",
    "ANDROID_SDK_ROOT",
    "VIRTUAL_ENV",
];

/// Variables passed on to every command when airlock has them: where toolchains are, which
/// version they run, how they build, the locale and the user's name.
pub const PASSED_VARIABLES: &[&str] = &[
    "CARGO_HOME",
    "RUSTUP_HOME",
    "RUSTUP_TOOLCHAIN",
    "CARGO_TARGET_DIR",
    "RUSTFLAGS",
    "PYENV_ROOT",
    "PYENV_VERSION",
    "VIRTUAL_ENV",
    "CONDA_PREFIX",
    "CONDA_DEFAULT_ENV",
    "PIP_CACHE_DIR",
    "UV_CACHE_DIR",
    "POETRY_HOME",
    "PIPX_HOME",
    "NVM_DIR",
    "NVM_BIN",
    "NVM_INC",
    "VOLTA_HOME",
    "PNPM_HOME",
    "BUN_INSTALL",
    "DENO_DIR",
    "DENO_INSTALL",
    "GOROOT",
    "GOPATH",
    "GOCACHE",
    "GOMODCACHE",
    "GOBIN",
    "GOFLAGS",
    "GOTOOLCHAIN",
    "JAVA_HOME",
    "JDK_HOME",
    "GRADLE_USER_HOME",
    "MAVEN_HOME",
    "M2_HOME",
    "SDKMAN_DIR",
    "RBENV_ROOT",
    "GEM_HOME",
    "GEM_PATH",
    "DOTNET_ROOT",
    "ANDROID_HOME",
    "ANDROID_SDK_ROOT",
    "PKG_CONFIG_PATH",
    "CC",
    "CXX",
    "CFLAGS",
    "CXXFLAGS",
    "CPPFLAGS",
    "LDFLAGS",
    "XDG_CONFIG_HOME",
    "XDG_CACHE_HOME",
    "XDG_DATA_HOME",
    "XDG_STATE_HOME",
    "USER",
    "LOGNAME",
    "TZ",
    "LC_ALL",
    "LC_CTYPE",
    "LC_MESSAGES",
    "LC_NUMERIC",
    "LC_TIME",
    "LC_COLLATE",
    "NO_COLOR",
];

/// Parts of a variable name that mark a credential: such a variable never reaches a command.
const CREDENTIAL_MARKS: &[&str] = &[
    "KEY",
    "TOKEN",
    "SECRET",
    "PASSWORD",
    "PASSWD",
    "PASSPHRASE",
    "CREDENTIAL",
    "CREDS",
    "AUTH",
    "PRIVATE",
    "COOKIE",
    "SESSION",
    "SIGNING",
];

/// Whether `name` looks like it holds a credential (`GITHUB_TOKEN`, `AWS_SECRET_ACCESS_KEY`,
/// `SSH_AUTH_SOCK`, `NPM_CONFIG__AUTH`).
pub fn looks_like_credential(name: &str) -> bool {
    let upper = name.to_ascii_uppercase();
    CREDENTIAL_MARKS.iter().any(|mark| upper.contains(mark))
}

fn is_variable_name(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The environment airlock was started with (a test passes its own).
#[derive(Debug, Clone, Default)]
pub struct HostEnv {
    vars: Vec<(String, String)>,
}

impl HostEnv {
    /// This process's environment (variables that are not UTF-8 are left out).
    pub fn current() -> Self {
        Self {
            vars: std::env::vars_os()
                .filter_map(|(k, v)| Some((k.into_string().ok()?, v.into_string().ok()?)))
                .collect(),
        }
    }

    pub fn from_pairs(vars: &[(&str, &str)]) -> Self {
        Self { vars: vars.iter().map(|(k, v)| ((*k).to_owned(), (*v).to_owned())).collect() }
    }

    pub fn get(&self, name: &str) -> Option<&str> {
        self.vars.iter().rev().find(|(key, _)| key == name).map(|(_, value)| value.as_str()).filter(|v| !v.is_empty())
    }
}

/// What every command of a session sees besides its call's folders.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CommandView {
    /// The user's home folder, as `HOME`; `None` when airlock has none (commands then get a
    /// private one).
    pub home: Option<PathBuf>,
    /// The `PATH` commands get.
    pub path: String,
    /// Variables passed on: toolchains, locale, the user's name.
    pub env: Vec<(String, String)>,
    /// Folders and files commands may read: toolchains, `PATH` folders, the user's additions.
    pub read: Vec<PathBuf>,
    /// Package caches (and cargo's lock files) commands may write.
    pub write: Vec<PathBuf>,
    /// Secrets and airlock's own folders, hidden from every command.
    pub hidden: Vec<PathBuf>,
    /// Whether commands run in the namespace view (when the machine allows it).
    pub view: bool,
}

impl CommandView {
    /// Reads what `host` and the user's `settings` say; `protected` are airlock's own
    /// folders (its home and compile cache), `workspace` the canonical workspace.
    pub fn detect(host: &HostEnv, settings: &Settings, protected: &[PathBuf], workspace: &Path) -> Self {
        let home = host.get("HOME").map(PathBuf::from).filter(|home| home.is_absolute() && home.is_dir());
        let in_home = |relative: &str| home.as_ref().map(|home| home.join(relative));
        let spelled = |path: &str| -> Option<PathBuf> {
            match path.strip_prefix("~/") {
                Some(rest) => in_home(rest),
                None if path == "~" => home.clone(),
                None => Some(PathBuf::from(path)),
            }
        };
        let hidden = secrets(host, settings, protected, workspace, &spelled);
        let visible = |path: &Path| !hidden.iter().any(|h| path.starts_with(h));

        let mut read = BTreeSet::new();
        for (variable, default) in TOOLCHAIN_HOMES {
            let place = host.get(variable).map(PathBuf::from).or_else(|| in_home(default));
            read.extend(place.and_then(canonical));
        }
        read.extend(TOOLCHAIN_VARIABLES.iter().filter_map(|v| host.get(v)).filter_map(|p| canonical(PathBuf::from(p))));
        let path_folders = path_folders(host, workspace, home.as_deref(), &hidden);
        for (_, folder) in &path_folders {
            read.insert(folder.clone());
            // `~/.nvm/versions/node/v20/bin` runs `npm`, whose code is in `…/v20/lib`.
            if let Some(parent) = folder.parent().filter(|_| folder.ends_with("bin")) {
                let too_wide = parent == Path::new("/") || home.as_deref().is_some_and(|home| home.starts_with(parent));
                if !too_wide {
                    read.insert(parent.to_path_buf());
                }
            }
        }
        read.extend(settings.read.iter().filter_map(|p| spelled(p)).filter_map(canonical));

        let write: BTreeSet<PathBuf> = caches(host, settings, &in_home, &spelled)
            .into_iter()
            .filter_map(canonical)
            .filter(|p| visible(p))
            .collect();
        let read: Vec<PathBuf> = read.into_iter().filter(|p| visible(p) && !p.starts_with(workspace)).collect();

        let mut path: Vec<String> = path_folders.into_iter().map(|(spelling, _)| spelling).collect();
        for system in super::SYSTEM_PATH.split(':') {
            if !path.iter().any(|p| p == system) {
                path.push(system.to_owned());
            }
        }
        let env = PASSED_VARIABLES
            .iter()
            .map(|name| (*name).to_owned())
            .chain(settings.env.iter().cloned())
            .filter(|name| !looks_like_credential(name))
            .filter_map(|name| Some((name.clone(), host.get(&name)?.to_owned())))
            .filter(|(_, value)| !value.contains('\0'))
            .collect();
        Self {
            home: home.and_then(canonical).filter(|h| visible(h)),
            path: path.join(":"),
            env,
            read,
            write: write.into_iter().collect(),
            hidden,
            view: settings.view.unwrap_or(true),
        }
    }

    /// Whether `path` (canonical) lies in a hidden place.
    pub fn is_hidden(&self, path: &Path) -> bool {
        self.hidden.iter().any(|h| path.starts_with(h))
    }
}

/// The hidden paths: the default secrets (minus what the user unhid) and the user's own,
/// spelled under the home folder and under the variables that move them, plus airlock's own
/// folders; canonical, existing, and never the workspace or a folder holding it (the user
/// chose to work there).
fn secrets(
    host: &HostEnv,
    settings: &Settings,
    protected: &[PathBuf],
    workspace: &Path,
    spelled: &dyn Fn(&str) -> Option<PathBuf>,
) -> Vec<PathBuf> {
    let unhidden: Vec<PathBuf> = settings.unhide.iter().filter_map(|p| spelled(p)).collect();
    let mut candidates: Vec<PathBuf> = DEFAULT_SECRETS
        .iter()
        .filter_map(|relative| spelled(&format!("~/{relative}")))
        .filter(|path| !unhidden.contains(path))
        .collect();
    let moved = [
        ("CARGO_HOME", "credentials"),
        ("CARGO_HOME", "credentials.toml"),
        ("GRADLE_USER_HOME", "gradle.properties"),
        ("DOCKER_CONFIG", "config.json"),
        ("GNUPGHOME", ""),
        ("PASSWORD_STORE_DIR", ""),
        ("AWS_SHARED_CREDENTIALS_FILE", ""),
        ("AWS_CONFIG_FILE", ""),
        ("KUBECONFIG", ""),
        ("HISTFILE", ""),
        ("XDG_CONFIG_HOME", "gcloud"),
        ("XDG_CONFIG_HOME", "gh"),
        ("XDG_CONFIG_HOME", "git/credentials"),
    ];
    for (variable, below) in moved {
        // KUBECONFIG may list several files.
        for value in host.get(variable).into_iter().flat_map(|v| v.split(':')).filter(|v| v.starts_with('/')) {
            let path = if below.is_empty() { PathBuf::from(value) } else { Path::new(value).join(below) };
            candidates.push(path);
        }
    }
    candidates.extend(settings.hide.iter().filter_map(|p| spelled(p)));
    let mut hidden: BTreeSet<PathBuf> =
        candidates.into_iter().filter_map(canonical).filter(|p| !workspace.starts_with(p)).collect();
    hidden.extend(protected.iter().filter(|p| !workspace.starts_with(p)).cloned());
    hidden.into_iter().collect()
}

/// The package caches: the user's list, or the default one with its variables followed.
fn caches(
    host: &HostEnv,
    settings: &Settings,
    in_home: &dyn Fn(&str) -> Option<PathBuf>,
    spelled: &dyn Fn(&str) -> Option<PathBuf>,
) -> Vec<PathBuf> {
    if let Some(list) = &settings.caches {
        return list.iter().filter_map(|p| spelled(p)).collect();
    }
    let cargo = host.get("CARGO_HOME").map(PathBuf::from).or_else(|| in_home(".cargo"));
    let mut out: Vec<PathBuf> = DEFAULT_CACHES.iter().filter_map(|relative| in_home(relative)).collect();
    if let Some(cargo) = &cargo {
        // Cargo's registry and git checkouts, and the lock files beside them.
        for name in ["registry", "git", ".package-cache", ".package-cache-mutate", ".global-cache"] {
            out.push(cargo.join(name));
        }
    }
    let gopath = host.get("GOPATH").map(PathBuf::from).or_else(|| in_home("go"));
    let moved = [
        host.get("PIP_CACHE_DIR").map(PathBuf::from),
        host.get("UV_CACHE_DIR").map(PathBuf::from),
        host.get("GOCACHE").map(PathBuf::from),
        host.get("GOMODCACHE").map(PathBuf::from).or_else(|| gopath.map(|g| g.join("pkg/mod"))),
        host.get("GRADLE_USER_HOME").map(|g| Path::new(g).join("caches")),
        host.get("DENO_DIR").map(PathBuf::from),
        host.get("XDG_CACHE_HOME").map(|c| Path::new(c).join("pip")),
    ];
    out.extend(moved.into_iter().flatten());
    out
}

/// The user's `PATH` folders commands keep: absolute, existing, outside the workspace and
/// not hidden, each once; with the spelling the user wrote and the canonical folder.
fn path_folders(host: &HostEnv, workspace: &Path, home: Option<&Path>, hidden: &[PathBuf]) -> Vec<(String, PathBuf)> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for spelling in host.get("PATH").unwrap_or_default().split(':') {
        if !spelling.starts_with('/') || spelling.contains('\0') {
            continue;
        }
        let Some(folder) = canonical(PathBuf::from(spelling)).filter(|f| f.is_dir()) else { continue };
        let unsafe_place = folder.starts_with(workspace) || hidden.iter().any(|h| folder.starts_with(h));
        // The home folder itself is too wide to read as a program folder.
        if unsafe_place || home.is_some_and(|home| folder == home) || !seen.insert(spelling.to_owned()) {
            continue;
        }
        out.push((spelling.to_owned(), folder));
    }
    out
}

fn canonical(path: PathBuf) -> Option<PathBuf> {
    path.canonicalize().ok()
}

#[cfg(test)]
#[path = "folders_tests.rs"]
mod tests;
