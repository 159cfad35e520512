//! The environment of a child: built from scratch, never inherited, so the host's own
//! variables (API keys) cannot reach it.
//!
//! A child gets the user's `PATH`, `HOME` and toolchain variables ([`Base`], from
//! [`airlock_sandbox::folders`]), a private `TMPDIR`, the locale, `TERM=dumb`, then the
//! variables its plugin passes, then the host's own. A plugin may pass only names that are
//! not [reserved](is_reserved): the ones that choose which program, library or code runs.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use super::SpawnFailure;

pub use airlock_sandbox::SYSTEM_PATH;

/// The locale when the host's `LANG` is unset or not a plain locale name.
const DEFAULT_LANG: &str = "C.UTF-8";

/// What every child of a session starts from: the user's own `PATH`, `HOME` and toolchain
/// variables.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Base {
    pub path: String,
    /// The user's home folder; `None`: a private one.
    pub home: Option<PathBuf>,
    /// Variables the host passes on (toolchains, locale, the user's name).
    pub vars: Vec<(String, String)>,
}

/// Names a plugin may not set, exactly or as a prefix (`*`), compared without case (npm
/// reads `npm_config_*`), with the reason.
const RESERVED: &[(&str, &str)] = &[
    ("PATH", AIRLOCK),
    ("HOME", AIRLOCK),
    ("TMPDIR", AIRLOCK),
    ("LD_*", LOADER),
    ("GLIBC_*", LOADER),
    ("GCONV_PATH", LOADER),
    ("LOCPATH", LOADER),
    ("NLSPATH", LOADER),
    ("HOSTALIASES", LOADER),
    ("MALLOC_*", LOADER),
    ("BASH_ENV", SHELL),
    ("ENV", SHELL),
    ("BASH_FUNC_*", SHELL),
    ("BASH_XTRACEFD", SHELL),
    ("BASH_LOADABLES_PATH", SHELL),
    ("PS0", SHELL),
    ("PS1", SHELL),
    ("PS2", SHELL),
    ("PS3", SHELL),
    ("PS4", SHELL),
    ("PROMPT_COMMAND", SHELL),
    ("SHELLOPTS", SHELL),
    ("BASHOPTS", SHELL),
    ("IFS", SHELL),
    ("CDPATH", SHELL),
    ("GLOBIGNORE", SHELL),
    ("EXECIGNORE", SHELL),
    ("INPUTRC", SHELL),
    ("ZDOTDIR", SHELL),
    ("FPATH", SHELL),
    ("SHELL", SHELL),
    ("HISTFILE", SHELL),
    ("GIT_*", GIT),
    ("PYTHON*", RUNTIME),
    ("NODE_*", RUNTIME),
    ("NPM_CONFIG_*", RUNTIME),
    ("YARN_*", RUNTIME),
    ("COREPACK_*", RUNTIME),
    ("PERL5*", RUNTIME),
    ("PERLLIB", RUNTIME),
    ("PERL_*", RUNTIME),
    ("RUBYOPT", RUNTIME),
    ("RUBYLIB", RUNTIME),
    ("JAVA_TOOL_OPTIONS", RUNTIME),
    ("_JAVA_OPTIONS", RUNTIME),
    ("JDK_JAVA_OPTIONS", RUNTIME),
    ("CLASSPATH", RUNTIME),
    ("MAVEN_OPTS", RUNTIME),
    ("GRADLE_OPTS", RUNTIME),
    ("DOTNET_*", RUNTIME),
    ("COMPLUS_*", RUNTIME),
    ("CORECLR_*", RUNTIME),
    ("LUA_*", RUNTIME),
    ("TCLLIBPATH", RUNTIME),
    ("PHPRC", RUNTIME),
    ("PHP_INI_SCAN_DIR", RUNTIME),
    ("R_PROFILE*", RUNTIME),
    ("R_ENVIRON*", RUNTIME),
    ("EMACSLOADPATH", RUNTIME),
    ("VIMINIT", RUNTIME),
    ("EXINIT", RUNTIME),
    ("MYVIMRC", RUNTIME),
    ("CARGO_*", BUILD),
    ("RUSTC*", BUILD),
    ("RUSTDOC*", BUILD),
    ("RUSTFLAGS", BUILD),
    ("RUSTUP_*", TOOLCHAIN),
    ("MAKEFLAGS", BUILD),
    ("MFLAGS", BUILD),
    ("GNUMAKEFLAGS", BUILD),
    ("MAKEFILES", BUILD),
    ("CC", BUILD),
    ("CXX", BUILD),
    ("CPP", BUILD),
    ("LD", BUILD),
    ("AR", BUILD),
    ("AS", BUILD),
    ("CFLAGS", BUILD),
    ("CXXFLAGS", BUILD),
    ("CPPFLAGS", BUILD),
    ("LDFLAGS", BUILD),
    ("PKG_CONFIG*", BUILD),
    ("CMAKE_*", BUILD),
    ("TAR_OPTIONS", PROGRAM),
    ("LESSOPEN", PROGRAM),
    ("LESSCLOSE", PROGRAM),
    ("LESSKEY*", PROGRAM),
    ("PAGER", PROGRAM),
    ("MANPAGER", PROGRAM),
    ("EDITOR", PROGRAM),
    ("VISUAL", PROGRAM),
    ("BROWSER", PROGRAM),
    ("SSH_ASKPASS*", PROGRAM),
    ("SUDO_ASKPASS", PROGRAM),
    ("OPENSSL_CONF", PROGRAM),
    ("OPENSSL_ENGINES", PROGRAM),
    ("OPENSSL_MODULES", PROGRAM),
    ("XDG_CONFIG_*", PROGRAM),
    ("XDG_DATA_*", PROGRAM),
    ("PYENV_*", TOOLCHAIN),
    ("NVM_*", TOOLCHAIN),
    ("VOLTA_*", TOOLCHAIN),
    ("PNPM_HOME", TOOLCHAIN),
    ("BUN_INSTALL", TOOLCHAIN),
    ("DENO_*", TOOLCHAIN),
    ("GO*", TOOLCHAIN),
    ("JAVA_HOME", TOOLCHAIN),
    ("JDK_HOME", TOOLCHAIN),
    ("GRADLE_USER_HOME", TOOLCHAIN),
    ("MAVEN_HOME", TOOLCHAIN),
    ("M2_HOME", TOOLCHAIN),
    ("SDKMAN_*", TOOLCHAIN),
    ("RBENV_*", TOOLCHAIN),
    ("GEM_*", TOOLCHAIN),
    ("VIRTUAL_ENV", TOOLCHAIN),
    ("CONDA_*", TOOLCHAIN),
    ("POETRY_*", TOOLCHAIN),
    ("PIPX_*", TOOLCHAIN),
    ("PIP_*", TOOLCHAIN),
    ("UV_*", TOOLCHAIN),
    ("ANDROID_*", TOOLCHAIN),
];

/// Names of a reserved family that only change how a program reports or formats, not what
/// code it runs.
const HARMLESS: &[&str] = &[
    "GIT_AUTHOR_NAME",
    "GIT_AUTHOR_EMAIL",
    "GIT_AUTHOR_DATE",
    "GIT_COMMITTER_NAME",
    "GIT_COMMITTER_EMAIL",
    "GIT_COMMITTER_DATE",
    "GIT_TERMINAL_PROMPT",
    "PYTHONUNBUFFERED",
    "PYTHONDONTWRITEBYTECODE",
    "PYTHONIOENCODING",
    "PYTHONHASHSEED",
    "PYTHONUTF8",
    "PYTHONFAULTHANDLER",
    "NODE_ENV",
    "NODE_NO_WARNINGS",
    "CARGO_TERM_COLOR",
    "CARGO_TERM_VERBOSE",
    "CARGO_TERM_QUIET",
    "CARGO_TERM_PROGRESS_WHEN",
    "CARGO_INCREMENTAL",
];

const AIRLOCK: &str = "airlock sets it";
const LOADER: &str = "it makes the dynamic loader or the C library load code";
const SHELL: &str = "the shell reads or runs code from it";
const GIT: &str = "git reads configuration or runs programs from it";
const RUNTIME: &str = "the language runtime loads code from it";
const BUILD: &str = "the build tool runs programs or flags named by it";
const PROGRAM: &str = "programs run the program or read the configuration it names";
const TOOLCHAIN: &str = "it chooses which toolchain runs (airlock passes the user's own)";

/// Why a plugin may not set the variable `name` for a program it starts, or `None` when it
/// may: the names that decide which programs, libraries, configuration or code a program
/// loads (so a granted `ls` cannot be made to run something else), and the ones airlock sets.
pub fn is_reserved(name: &str) -> Option<&'static str> {
    let upper = name.to_ascii_uppercase();
    if HARMLESS.contains(&upper.as_str()) {
        return None;
    }
    RESERVED
        .iter()
        .find(|(pattern, _)| match pattern.strip_suffix('*') {
            Some(prefix) => upper.starts_with(prefix),
            None => upper == *pattern,
        })
        .map(|(_, reason)| *reason)
}

/// The folders of a child's private home and temp folder.
#[derive(Debug, Clone, Copy)]
pub(super) struct Private<'a> {
    pub home: &'a Path,
    pub tmp: &'a Path,
}

/// The complete environment: `PATH` and `HOME` (the `base`'s, or the system's folders and
/// the private home without one), `TMPDIR`, `LANG`, `TERM=dumb` (the output goes to a pipe,
/// not a terminal), the `base`'s variables, then the caller's `extra` variables (never a
/// reserved name, but they may replace `LANG` and `TERM`), then the host's own `host`
/// variables, which may use reserved names but `PATH`, `HOME` and `TMPDIR`.
pub(super) fn build(
    extra: &[(String, String)],
    host: &[(String, String)],
    base: Option<&Base>,
    private: Private<'_>,
    host_lang: Option<&OsStr>,
) -> Result<Vec<(String, String)>, SpawnFailure> {
    let (path, home) = match base {
        Some(base) => (base.path.clone(), base.home.clone().unwrap_or_else(|| private.home.to_path_buf())),
        None => (SYSTEM_PATH.to_owned(), private.home.to_path_buf()),
    };
    if path.contains('\0') {
        return Err(SpawnFailure("the PATH for commands holds a NUL character".into()));
    }
    let mut env = vec![
        ("PATH".to_owned(), path),
        ("HOME".to_owned(), utf8(&home)?),
        ("TMPDIR".to_owned(), utf8(private.tmp)?),
        (
            "LANG".to_owned(),
            host_lang.and_then(OsStr::to_str).filter(|lang| is_plain_locale(lang)).unwrap_or(DEFAULT_LANG).to_owned(),
        ),
        ("TERM".to_owned(), "dumb".to_owned()),
    ];
    let checked = |name: &str, value: &str| {
        if matches!(name, "PATH" | "HOME" | "TMPDIR") || !is_valid(name, value) {
            return Err(SpawnFailure(format!("the host may not set {name:?} for a command")));
        }
        Ok(())
    };
    for (name, value) in base.iter().flat_map(|base| &base.vars) {
        checked(name, value)?;
        set(&mut env, name, value);
    }
    for (name, value) in extra {
        if !is_valid(name, value) {
            return Err(SpawnFailure(format!("invalid environment variable {name:?}")));
        }
        if let Some(reason) = is_reserved(name) {
            return Err(SpawnFailure(format!("a command may not be given {name}: {reason}")));
        }
        set(&mut env, name, value);
    }
    for (name, value) in host {
        checked(name, value)?;
        set(&mut env, name, value);
    }
    Ok(env)
}

fn is_valid(name: &str, value: &str) -> bool {
    !name.is_empty() && !name.contains(['=', '\0']) && !value.contains('\0')
}

fn set(env: &mut Vec<(String, String)>, name: &str, value: &str) {
    match env.iter_mut().find(|(ours, _)| ours == name) {
        Some((_, ours)) => value.clone_into(ours),
        None => env.push((name.to_owned(), value.to_owned())),
    }
}

fn utf8(path: &Path) -> Result<String, SpawnFailure> {
    path.to_str()
        .map(str::to_owned)
        .ok_or_else(|| SpawnFailure(format!("the folder {} is not valid UTF-8", path.display())))
}

/// `en_US.UTF-8`, `C`, `de_DE@euro`: letters, digits and `_.-@` only, so nothing odd (a
/// path, a control character) travels in through it.
fn is_plain_locale(lang: &str) -> bool {
    !lang.is_empty() && lang.len() <= 64 && lang.chars().all(|c| c.is_ascii_alphanumeric() || "_.-@".contains(c))
}
