//! `airlock plugins new NAME --lang rust|python|js|c`: a plugin project that builds as
//! written. It holds the language kit's template (one real tool with its own test, a README
//! and a `build.sh` that writes `NAME.wasm`), the kit files the template builds on (the Rust
//! SDK, the Python, JavaScript or C helper layer and bindings), and the contract it is built
//! against (`wit/`, airlock:tool@0.2.0), so the project pins its contract version and needs
//! nothing from an airlock checkout. The folder is written under a temporary name and moved
//! into place whole: an interrupted run leaves no half project.

use std::io::Write;
use std::path::{Path, PathBuf};

use crate::commands::CommandError;

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
    if crate::registry::is_reserved(name) {
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

/// Writes `files` into a new folder `target`, whole or not at all.
fn write_project(target: &Path, files: &[(String, bool, Vec<u8>)]) -> Result<(), CommandError> {
    use std::os::unix::fs::PermissionsExt;
    let failed = |e: std::io::Error| CommandError::Unloadable(format!("cannot create {}: {e}", target.display()));
    let parent = target.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    std::fs::create_dir_all(parent).map_err(failed)?;
    let staged = tempfile::Builder::new().prefix(".airlock-new-").tempdir_in(parent).map_err(failed)?;
    for (path, executable, bytes) in files {
        let file = staged.path().join(path);
        if let Some(folder) = file.parent() {
            std::fs::create_dir_all(folder).map_err(failed)?;
        }
        std::fs::write(&file, bytes).map_err(failed)?;
        let mode = if *executable { 0o755 } else { 0o644 };
        std::fs::set_permissions(&file, std::fs::Permissions::from_mode(mode)).map_err(failed)?;
    }
    std::fs::set_permissions(staged.path(), std::fs::Permissions::from_mode(0o755)).map_err(failed)?;
    // An empty folder of that name is replaced; anything else was refused before.
    if target.is_dir() {
        std::fs::remove_dir(target).map_err(failed)?;
    }
    let staged = staged.keep();
    std::fs::rename(&staged, target).map_err(|e| {
        let _ = std::fs::remove_dir_all(&staged);
        failed(e)
    })
}

pub fn run(args: &NewArgs, out: &mut impl Write) -> Result<(), CommandError> {
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
    write_project(&target, &files)?;
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
