//! Builds the built-in tool components (`plugins/`) for `wasm32-wasip2` and embeds them in
//! the binary, so a user installs nothing beside `airlock`. The guest workspace is built by
//! a nested `cargo` with its own target directory (the outer build holds the lock on ours).
//! Each built-in is also precompiled to native code with the runtime's own engine settings
//! (`src/runtime/code_config.rs`), so a first run loads it in a millisecond instead of
//! compiling it (the runtime checks that the code fits its engine, and compiles otherwise).
//!
//! A packaged crate (`cargo package`, crates.io) has no `../plugins` to build: it carries
//! the exact bytes a checkout built, in `builtins/`, checked against `builtins/SHA256SUMS`
//! before they are embedded (`build/packaged.rs`, written by `dist/package.sh`).

#[path = "src/runtime/code_config.rs"]
mod code_config;
#[path = "build/guest.rs"]
mod guest;
#[path = "build/packaged.rs"]
mod packaged;

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
    "activate_skill",
];

fn main() {
    let manifest_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap_or_default());
    let root = manifest_dir.parent().map(Path::to_path_buf).unwrap_or_default();
    let out_dir = PathBuf::from(env::var("OUT_DIR").unwrap_or_default());
    let guests = root.join("plugins").join("Cargo.toml");
    let wasm_dir = if guests.is_file() {
        guest::watch_sources(&["plugins", "plugin-sdk", "wit", "rust-toolchain.toml"].map(|p| root.join(p)));
        guest::build_workspace(&guests, &root.join("target").join("wasm"))
    } else {
        let packaged = manifest_dir.join("builtins");
        println!("cargo:rerun-if-changed={}", packaged.display());
        packaged::checked_builtins(&packaged, BUILTINS, &out_dir.join("builtins")).unwrap_or_else(|e| guest::fail(&e))
    };

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
    /// `None` when the binary is built for another machine than the build's own: the code
    /// would be for the wrong one (the runtime then compiles on first use, as for any plugin).
    /// Another C library on the same machine (a musl build on a glibc host) is the same
    /// machine: the generated code calls no libc, and wasmtime checks only the architecture
    /// and the operating system of a triple when it loads the code.
    fn new() -> Option<Self> {
        println!("cargo:rerun-if-changed=src/runtime/code_config.rs");
        let (target, host) = (env::var("TARGET").unwrap_or_default(), env::var("HOST").unwrap_or_default());
        if !same_machine(&target, &host) {
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

/// Whether code generated for `host` runs on `target`: the same triple, or two Linux triples
/// that differ only in their C library (`x86_64-unknown-linux-gnu`, `…-musl`).
fn same_machine(target: &str, host: &str) -> bool {
    // Only the two C libraries: `gnux32`, `gnueabihf` and the like change pointers or floats.
    let without_libc = |triple: &str| {
        triple
            .rsplit_once("-linux-")
            .filter(|(_, libc)| matches!(*libc, "gnu" | "musl"))
            .map(|(machine, _)| machine.to_owned())
    };
    target == host || (without_libc(target).is_some() && without_libc(target) == without_libc(host))
}
