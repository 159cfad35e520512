//! Builds the built-in tool components (`plugins/`) for `wasm32-wasip2` and embeds them in
//! the binary, so a user installs nothing beside `airlock`. The guest workspace is built by
//! a nested `cargo` with its own target directory (the outer build holds the lock on ours).
//! Each built-in is also precompiled to native code with the runtime's own engine settings
//! (`src/runtime/code_config.rs`), so a first run loads it in a millisecond instead of
//! compiling it (the runtime checks that the code fits its engine, and compiles otherwise).
//! Also embeds what `airlock plugins new` writes: each language kit's template and the kit
//! files a new project needs (`$OUT_DIR/templates.rs`).

#[path = "src/runtime/code_config.rs"]
mod code_config;
#[path = "build/guest.rs"]
mod guest;

use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// The built-in tools, in the order the registry lists them: (crate, component file).
const BUILTINS: &[&str] = &[
    "list_directory",
    "read_file",
    "write_file",
    "replace",
    "glob",
    "grep_search",
    "web_fetch",
    "read_many_files",
    "write_todos",
    "save_memory",
    "web_search",
    "run_shell_command",
];

fn main() {
    let manifest_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap_or_default());
    let root = manifest_dir.parent().map(Path::to_path_buf).unwrap_or_default();
    guest::watch_sources(&["plugins", "plugin-sdk", "wit", "rust-toolchain.toml"].map(|p| root.join(p)));
    write_templates(&root.join("plugin-sdk"));
    let target_dir = root.join("target").join("wasm");
    let wasm_dir = guest::build_workspace(&root.join("plugins").join("Cargo.toml"), &target_dir);

    let out_dir = PathBuf::from(env::var("OUT_DIR").unwrap_or_default());
    let precompiler = Precompiler::new();
    let mut generated = String::from(
        "/// A built-in tool component.\n\
         pub struct Builtin {\n\
         \x20   /// Its file name.\n\
         \x20   pub file: &'static str,\n\
         \x20   /// The sha-256 of its bytes.\n\
         \x20   pub hash: &'static str,\n\
         \x20   pub bytes: &'static [u8],\n\
         \x20   /// Its native code, precompiled for the runtime's engine settings when it could be.\n\
         \x20   pub native: Option<&'static [u8]>,\n\
         }\n\n\
         /// The built-in tool components.\n",
    );
    generated.push_str("pub static BUILTIN_COMPONENTS: &[Builtin] = &[\n");
    for name in BUILTINS {
        let path = wasm_dir.join(format!("{name}.wasm"));
        let bytes = fs::read(&path).unwrap_or_else(|e| guest::fail(&format!("cannot read {}: {e}", path.display())));
        let hash = hex::encode(Sha256::digest(&bytes));
        let native = precompiler.as_ref().map(|p| p.precompile(name, &bytes, &out_dir));
        let native =
            native.map_or("None".to_string(), |path| format!("Some(include_bytes!({:?}))", path.display().to_string()));
        let _ = writeln!(
            generated,
            "    Builtin {{ file: \"{name}.wasm\", hash: \"{hash}\", bytes: include_bytes!({:?}), native: {native} }},",
            path.display().to_string()
        );
    }
    generated.push_str("];\n");
    let out = out_dir.join("builtins.rs");
    fs::write(&out, generated).unwrap_or_else(|e| guest::fail(&format!("cannot write {}: {e}", out.display())));
}

/// Compiles the built-ins to native code as the runtime would (`code_config`), for the
/// machine the build runs on.
struct Precompiler {
    engine: wasmtime::Engine,
}

impl Precompiler {
    /// `None` when the binary is built for another target than the build's own: the code
    /// would be for the wrong machine (the runtime then compiles on first use, as for any
    /// plugin).
    fn new() -> Option<Self> {
        println!("cargo:rerun-if-changed=src/runtime/code_config.rs");
        if env::var("TARGET").ok() != env::var("HOST").ok() {
            println!("cargo:warning=cross build: the built-in tools are compiled on first use, not at build time");
            return None;
        }
        let engine = wasmtime::Engine::new(&code_config::code_config())
            .unwrap_or_else(|e| guest::fail(&format!("cannot make the precompiling engine: {e:#}")));
        Some(Self { engine })
    }

    /// Writes `<name>.cwasm` in `out_dir` and returns its path.
    fn precompile(&self, name: &str, wasm: &[u8], out_dir: &Path) -> PathBuf {
        let native = self
            .engine
            .precompile_component(wasm)
            .unwrap_or_else(|e| guest::fail(&format!("cannot precompile the built-in {name}: {e:#}")));
        let path = out_dir.join(format!("{name}.cwasm"));
        fs::write(&path, native).unwrap_or_else(|e| guest::fail(&format!("cannot write {}: {e}", path.display())));
        path
    }
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
            let source = kit.join(from);
            if source.is_dir() {
                for (path, relative) in files_below(&source) {
                    add(lang, &path, &format!("{to}/{relative}"), false);
                }
            } else if source.is_file() {
                add(lang, &source, to, false);
            } else {
                guest::fail(&format!("{} names {from}, which does not exist", list.display()));
            }
        }
    }
    generated.push_str("];\n");
    let out = PathBuf::from(env::var("OUT_DIR").unwrap_or_default()).join("templates.rs");
    fs::write(&out, generated).unwrap_or_else(|e| guest::fail(&format!("cannot write {}: {e}", out.display())));
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
                found.push((path.clone(), relative.display().to_string()));
            }
        }
    }
    found.sort();
    found
}
