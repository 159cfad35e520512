//! Builds the built-in tool components (`plugins/`) for `wasm32-wasip2` and embeds them in
//! the binary, so a user installs nothing beside `airlock`. The guest workspace is built by
//! a nested `cargo` with its own target directory (the outer build holds the lock on ours).

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
    let target_dir = root.join("target").join("wasm");
    let wasm_dir = guest::build_workspace(&root.join("plugins").join("Cargo.toml"), &target_dir);

    let mut generated = String::from("/// The built-in tool components: (file name, sha-256 of the bytes, bytes).\n");
    generated.push_str("pub static BUILTIN_COMPONENTS: &[(&str, &str, &[u8])] = &[\n");
    for name in BUILTINS {
        let path = wasm_dir.join(format!("{name}.wasm"));
        let bytes = fs::read(&path).unwrap_or_else(|e| guest::fail(&format!("cannot read {}: {e}", path.display())));
        let hash = hex::encode(Sha256::digest(&bytes));
        let _ =
            writeln!(generated, "    (\"{name}.wasm\", \"{hash}\", include_bytes!({:?})),", path.display().to_string());
    }
    generated.push_str("];\n");
    let out = PathBuf::from(env::var("OUT_DIR").unwrap_or_default()).join("builtins.rs");
    fs::write(&out, generated).unwrap_or_else(|e| guest::fail(&format!("cannot write {}: {e}", out.display())));
}
