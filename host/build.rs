//! Embeds what `airlock plugins new` writes: each language kit's template and the kit files
//! a new project needs (`$OUT_DIR/templates.rs`). The built-in tools are the engine's
//! (`engine/build.rs`).
//!
//! A checkout reads them from `../plugin-sdk`. A packaged crate (`cargo package`) has no
//! `..`: `dist/package.sh` copies the folder's tracked files into `plugin-sdk/` beside this
//! script first, each `Cargo.toml` renamed `Cargo.toml.packaged` (cargo leaves any folder
//! holding a `Cargo.toml` out of a package, as another package); the names are put back here.

use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

fn main() {
    let manifest_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap_or_default());
    let root = manifest_dir.parent().map(Path::to_path_buf).unwrap_or_default();
    let checkout = root.join("plugin-sdk");
    let sdk = if checkout.is_dir() { checkout } else { manifest_dir.join("plugin-sdk") };
    if !sdk.join("wit").is_dir() {
        fail(&format!(
            "{} is missing: a packaged airlock carries the kits `airlock plugins new` writes; package it with \
             dist/package.sh",
            sdk.display()
        ));
    }
    write_templates(&sdk);
}

/// The languages `airlock plugins new` knows, by kit folder.
const KITS: &[&str] = &["rust", "python", "js", "c"];

/// Writes `$OUT_DIR/templates.rs`: `TEMPLATE_FILES`, every file a new project of each
/// language gets — (language, path in the project, executable, is a template, bytes). The
/// contract (`plugin-sdk/wit`) goes to `wit/` for every language; each kit's `template/` to
/// the project's root (placeholders filled); the kit files its `new-project-files` lists
/// (`kit path -> project path`, one per line) as they are.
fn write_templates(sdk: &Path) {
    let mut generated = String::from(
        "/// (language, path in the project, executable, is a template, bytes).\n\
         pub static TEMPLATE_FILES: &[(&str, &str, bool, bool, &[u8])] = &[\n",
    );
    let mut add = |lang: &str, source: &Path, to: &str, template: bool| {
        println!("cargo:rerun-if-changed={}", source.display());
        let executable = {
            use std::os::unix::fs::PermissionsExt;
            fs::metadata(source).map(|m| m.permissions().mode() & 0o111 != 0).unwrap_or(false)
        };
        let _ = writeln!(
            generated,
            "    ({lang:?}, {to:?}, {executable}, {template}, include_bytes!({:?})),",
            source.display().to_string()
        );
    };
    for lang in KITS {
        for (path, relative) in files_below(&sdk.join("wit")) {
            add(lang, &path, &format!("wit/{relative}"), false);
        }
        let kit = sdk.join(lang);
        // A file added to a folder changes the folder.
        for folder in [kit.join("template"), kit.join("new-project-files")] {
            println!("cargo:rerun-if-changed={}", folder.display());
        }
        for (path, relative) in files_below(&kit.join("template")) {
            add(lang, &path, &relative, true);
        }
        let list = kit.join("new-project-files");
        let Ok(text) = fs::read_to_string(&list) else { continue };
        for entry in text.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with('#')) {
            let (from, to) = entry.split_once("->").map_or((entry, entry), |(f, t)| (f.trim(), t.trim()));
            let source = packaged_as(&kit.join(from));
            if source.is_dir() {
                for (path, relative) in files_below(&source) {
                    add(lang, &path, &format!("{to}/{relative}"), false);
                }
            } else if source.is_file() {
                add(lang, &source, to, false);
            } else {
                fail(&format!("{} names {from}, which does not exist", list.display()));
            }
        }
    }
    generated.push_str("];\n");
    let out = PathBuf::from(env::var("OUT_DIR").unwrap_or_default()).join("templates.rs");
    fs::write(&out, generated).unwrap_or_else(|e| fail(&format!("cannot write {}: {e}", out.display())));
}

/// The files below `dir` (no build output, nothing hidden but `.gitignore`), with their
/// paths relative to it, sorted.
fn files_below(dir: &Path) -> Vec<(PathBuf, String)> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(folder) = pending.pop() {
        let Ok(entries) = fs::read_dir(&folder) else { continue };
        for entry in entries.flatten() {
            let path = entry.path();
            let name = entry.file_name().to_string_lossy().into_owned();
            let skipped = ["target", "node_modules", "__pycache__"].contains(&name.as_str())
                || (name.starts_with('.') && name != ".gitignore")
                || name.ends_with(".wasm");
            if skipped {
                continue;
            }
            if path.is_dir() {
                pending.push(path);
            } else if let Ok(relative) = path.strip_prefix(dir) {
                let relative = relative.display().to_string();
                let relative = relative.strip_suffix(PACKAGED).unwrap_or(&relative).to_owned();
                found.push((path.clone(), relative));
            }
        }
    }
    found.sort();
    found
}

/// The suffix a packaged copy of `plugin-sdk` gives each `Cargo.toml`.
const PACKAGED: &str = ".packaged";

/// `path`, or its packaged name when only that exists.
fn packaged_as(path: &Path) -> PathBuf {
    let mut packaged = path.as_os_str().to_owned();
    packaged.push(PACKAGED);
    let packaged = PathBuf::from(packaged);
    if !path.exists() && packaged.exists() { packaged } else { path.to_path_buf() }
}

/// Stops the build with one clear line.
fn fail(message: &str) -> ! {
    #[allow(clippy::print_stderr)]
    {
        eprintln!("error: {message}");
    }
    std::process::exit(1)
}
