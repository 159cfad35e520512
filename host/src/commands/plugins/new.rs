//! `airlock plugins new NAME --lang rust|python|js|c`: a plugin project that builds as
//! written. It holds the language kit's template (one real tool with its own test, a README
//! and a `build.sh` that writes `NAME.wasm`), the kit files the template builds on (the Rust
//! SDK, the Python, JavaScript or C helper layer and bindings), and the contract it is built
//! against (`wit/`, airlock:tool@0.2.0), so the project pins its contract version and needs
//! nothing from an airlock checkout. The folder is written under a temporary name and moved
//! into place whole: an interrupted run leaves no half project.

use std::ffi::OsString;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::commands::CommandError;
use airlock_files::FileError;

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/templates.rs"));
}

/// A language with a kit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Lang {
    Rust,
    Python,
    Js,
    C,
}

impl Lang {
    /// The kit's folder in `plugin-sdk/`.
    fn kit(self) -> &'static str {
        match self {
            Self::Rust => "rust",
            Self::Python => "python",
            Self::Js => "js",
            Self::C => "c",
        }
    }

    /// What to install before the first build.
    fn toolchain(self) -> &'static str {
        match self {
            Self::Rust => "rustup target add wasm32-wasip2",
            Self::Python => "python3 -m pip install -r requirements.txt   (componentize-py)",
            Self::Js => "npm install   (componentize-js, pinned in package.json)",
            Self::C => "python3 -m pip install -r requirements.txt   (zig cc and wasm-tools; the WASI adapter is here)",
        }
    }
}

#[derive(Debug, clap::Args)]
pub struct NewArgs {
    /// The plugin's name: a lowercase letter, then lowercase letters, digits, `-` or `_`
    /// (`weather`, `csv-query`). Its tool is called the same, with `_` for `-`.
    name: String,
    /// The language: rust, python, js or c.
    #[arg(long, value_enum)]
    lang: Lang,
    /// The folder to create (default: ./NAME); it must not exist, or be empty.
    #[arg(long, value_name = "DIR")]
    dir: Option<PathBuf>,
}

/// Why `name` cannot name a new plugin.
fn check_name(name: &str) -> Result<(), CommandError> {
    let mut chars = name.chars();
    let valid = chars.next().is_some_and(|c| c.is_ascii_lowercase())
        && chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-' || c == '_')
        && name.len() <= 63;
    if !valid {
        return Err(CommandError::Usage(format!(
            "{name:?} cannot name a plugin: use a lowercase letter, then lowercase letters, digits, `-` or `_` \
             (at most 63), e.g. `weather` or `csv-query`"
        )));
    }
    if airlock_engine::registry::is_reserved(name) {
        return Err(CommandError::Usage(format!("`{name}` is a built-in plugin's name; choose another")));
    }
    Ok(())
}

/// The files of a new `lang` project named `name`: (path, executable, bytes).
pub fn project_files(lang: Lang, name: &str) -> Vec<(String, bool, Vec<u8>)> {
    let tool = name.replace('-', "_");
    let mut files: Vec<(String, bool, Vec<u8>)> = embedded::TEMPLATE_FILES
        .iter()
        .filter(|(kit, ..)| *kit == lang.kit())
        .map(|(_, path, executable, template, bytes)| {
            let bytes = if *template {
                String::from_utf8_lossy(bytes).replace("{{name}}", name).replace("{{tool}}", &tool).into_bytes()
            } else {
                bytes.to_vec()
            };
            ((*path).to_string(), *executable, bytes)
        })
        .collect();
    if lang == Lang::C {
        files.push((
            "wasi_snapshot_preview1.reactor.wasm".into(),
            false,
            wasi_preview1_component_adapter_provider::WASI_SNAPSHOT_PREVIEW1_REACTOR_ADAPTER.to_vec(),
        ));
    }
    files
}

/// The folder `parent` (created when missing) that a new project goes in, opened. A folder
/// of the workspace — named by any spelling that reaches the workspace itself, then by the
/// path below it — is opened, and its missing folders made, from the workspace down
/// without following any link, so a folder of the workspace that is (or is swapped for) a
/// link never takes the project out of it. Any other folder is the user's path, links
/// followed.
fn open_parent(parent: &Path, workspace: &Path) -> Result<airlock_files::DirHandle, FileError> {
    let spelled = lexical(parent);
    let inside = spelled.ancestors().find(|a| a.canonicalize().is_ok_and(|c| c == workspace));
    match inside.and_then(|root| spelled.strip_prefix(root).ok()) {
        Some(rest) => airlock_files::create_dir_in(&airlock_files::open_dir(workspace)?, rest, 0o755),
        None => {
            std::fs::create_dir_all(parent).map_err(FileError::Io)?;
            airlock_files::open_user_dir(parent)
        }
    }
}

/// `path` made absolute from the current folder, `.` and `..` taken lexically.
fn lexical(path: &Path) -> PathBuf {
    let absolute = std::env::current_dir().map(|cwd| cwd.join(path)).unwrap_or_else(|_| path.to_path_buf());
    let mut out = PathBuf::new();
    for component in absolute.components() {
        match component {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

/// Writes `files` into a new folder `target`, whole or not at all. The parent folder is
/// opened once ([`open_parent`]); everything below it is made through handles that follow
/// no link — the staged folder, its folders and files, the final rename — so a command that
/// swaps a folder of the project for a link meanwhile redirects nothing.
fn write_project(target: &Path, workspace: &Path, files: &[(String, bool, Vec<u8>)]) -> Result<(), CommandError> {
    let failed =
        |e: &dyn std::fmt::Display| CommandError::Unloadable(format!("cannot create {}: {e}", target.display()));
    let parent = target.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let Some(name) = target.file_name().filter(|_| !target.ends_with("..")) else {
        return Err(CommandError::Usage(format!("{} names no new folder; give another with --dir", target.display())));
    };
    let parent = open_parent(parent, workspace).map_err(|e| failed(&e))?;
    let mut attempt = 0;
    let (staged_name, staged) = loop {
        let staged_name = OsString::from(format!(".airlock-new-{:016x}", rand::random::<u64>()));
        match parent.create_new_dir(&staged_name, 0o700) {
            Ok(staged) => break (staged_name, staged),
            Err(e)
                if attempt < 16
                    && matches!(&e, FileError::Io(io) if io.kind() == std::io::ErrorKind::AlreadyExists) =>
            {
                attempt += 1;
            }
            Err(e) => return Err(failed(&e)),
        }
    };
    let written = (|| -> Result<(), FileError> {
        for (path, executable, bytes) in files {
            let path = Path::new(path);
            let (folder, file) = match (path.parent(), path.file_name()) {
                (Some(folder), Some(file)) => (folder, file),
                _ => return Err(FileError::BadPath),
            };
            let folder = airlock_files::create_dir_in(&staged, folder, 0o755)?;
            folder.write_new_file(file, bytes, if *executable { 0o755 } else { 0o644 })?;
        }
        parent.set_dir_mode(&staged_name, 0o755)?;
        // An empty folder of that name is replaced; anything else was refused before.
        match parent.remove_empty_dir(name) {
            Ok(()) | Err(FileError::NotFound) => {}
            Err(e) => return Err(e),
        }
        parent.rename(&staged_name, &parent, name, false)
    })();
    written.map_err(|e| {
        let _ = parent.remove_tree(&staged_name);
        failed(&e)
    })
}

/// Writes the project `args` asks for; `workspace` is the canonical workspace, whose folders
/// are never reached through a link.
pub fn run(args: &NewArgs, workspace: &Path, out: &mut impl Write) -> Result<(), CommandError> {
    check_name(&args.name)?;
    let target = args.dir.clone().unwrap_or_else(|| PathBuf::from(&args.name));
    match std::fs::read_dir(&target).map(|mut entries| entries.next().is_some()) {
        Ok(true) => {
            return Err(CommandError::Usage(format!(
                "{} already exists and is not empty; give another folder with --dir",
                target.display()
            )));
        }
        Ok(false) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => {
            return Err(CommandError::Usage(format!("{} is a file; give another folder with --dir", target.display())));
        }
        Err(e) => return Err(CommandError::Unloadable(format!("{}: {e}", target.display()))),
    }
    let files = project_files(args.lang, &args.name);
    write_project(&target, workspace, &files)?;
    let shown = target.display();
    let name = &args.name;
    writeln!(
        out,
        "created {shown}: plugin `{name}` in {}, against airlock:tool@0.2.0 ({} files)",
        args.lang.kit(),
        files.len()
    )?;
    writeln!(out, "next:")?;
    writeln!(out, "  cd {shown}")?;
    writeln!(out, "  {}", args.lang.toolchain())?;
    let steps = [
        ("./build.sh".to_string(), format!("writes {name}.wasm")),
        (format!("airlock plugins check {name}.wasm"), "what it is and what it requests".to_string()),
        (format!("airlock plugins install {name}.wasm"), "then grant what it requests".to_string()),
    ];
    let width = steps.iter().map(|(command, _)| command.len()).max().unwrap_or(0);
    for (command, what) in steps {
        writeln!(out, "  {command:<width$}   # {what}")?;
    }
    writeln!(out, "its README.md says how to run its own test")?;
    Ok(())
}

#[cfg(test)]
#[path = "new_tests.rs"]
mod tests;
