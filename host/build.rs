//! Builds the built-in tool components (`plugins/`) for `wasm32-wasip2` and embeds them in
//! the binary, so a user installs nothing beside `airlock`. The guest workspace is built by
//! a nested `cargo` with its own target directory (the outer build holds the lock on ours).

use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use sha2::{Digest, Sha256};

/// The built-in tools, in the order the registry lists them: (crate, component file).
const BUILTINS: &[&str] = &["list_directory", "read_file", "write_file", "replace", "glob", "grep_search"];

fn main() {
    let manifest_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap_or_default());
    let root = manifest_dir.parent().map(Path::to_path_buf).unwrap_or_default();
    for watched in ["plugins", "plugin-sdk", "wit"] {
        println!("cargo:rerun-if-changed={}", root.join(watched).display());
    }
    let target_dir = root.join("target").join("wasm");
    let wasm_dir = build_guest_workspace(&root.join("plugins").join("Cargo.toml"), &target_dir);

    let mut generated = String::from("/// The built-in tool components: (file name, sha-256 of the bytes, bytes).\n");
    generated.push_str("pub static BUILTIN_COMPONENTS: &[(&str, &str, &[u8])] = &[\n");
    for name in BUILTINS {
        let path = wasm_dir.join(format!("{name}.wasm"));
        let bytes = fs::read(&path).unwrap_or_else(|e| fail(&format!("cannot read {}: {e}", path.display())));
        let hash = hex::encode(Sha256::digest(&bytes));
        let _ =
            writeln!(generated, "    (\"{name}.wasm\", \"{hash}\", include_bytes!({:?})),", path.display().to_string());
    }
    generated.push_str("];\n");
    let out = PathBuf::from(env::var("OUT_DIR").unwrap_or_default()).join("builtins.rs");
    fs::write(&out, generated).unwrap_or_else(|e| fail(&format!("cannot write {}: {e}", out.display())));
}

/// Runs `cargo build --release --target wasm32-wasip2` on a guest workspace and returns
/// the folder that holds the `.wasm` files.
fn build_guest_workspace(manifest: &Path, target_dir: &Path) -> PathBuf {
    let cargo = env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.args(["build", "--release", "--locked", "--target", "wasm32-wasip2", "--manifest-path"])
        .arg(manifest)
        .arg("--target-dir")
        .arg(target_dir);
    // Settings meant for the host build must not leak into the guest build.
    for var in [
        "CARGO_ENCODED_RUSTFLAGS",
        "RUSTFLAGS",
        "CARGO_BUILD_RUSTFLAGS",
        "CARGO_TARGET_DIR",
        "CARGO_BUILD_TARGET",
        "RUSTC_WORKSPACE_WRAPPER",
        "CARGO_PRIMARY_PACKAGE",
        "CARGO_LLVM_COV",
        "CARGO_PROFILE_RELEASE_LTO",
    ] {
        cmd.env_remove(var);
    }
    let status = cmd.status().unwrap_or_else(|e| fail(&format!("cannot run cargo: {e}")));
    if !status.success() {
        fail(&format!(
            "building the guest components in {} failed; is the target installed? \
             run `rustup target add wasm32-wasip2`",
            manifest.display()
        ));
    }
    target_dir.join("wasm32-wasip2").join("release")
}

fn fail(message: &str) -> ! {
    #[allow(clippy::print_stderr)]
    {
        eprintln!("error: {message}");
    }
    std::process::exit(1)
}
