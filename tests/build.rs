//! Builds the fixture components (`tests/fixtures/`) for `wasm32-wasip2`, like Spin's
//! `tests/test-components/build.rs`, and writes `$OUT_DIR/fixtures.rs` with one path
//! constant per component. The fixture workspace is built by a nested `cargo` into
//! `target/wasm`, the target directory the host's build script uses for the built-in tools
//! (the outer build holds the lock on `target`).

use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

/// The fixture crates; each builds `<name with underscores>.wasm`.
const FIXTURES: &[&str] = &[
    "echo-tools",
    "trap",
    "spin-forever",
    "memory-bomb",
    "bad-name",
    "bad-schema",
    "trap-in-describe",
    "huge-description",
    "writer-claims-read",
    "dup-read-file",
    "env-peek",
    "fs-probe",
    "stack-bomb",
    "flood",
    "net-probe",
    "socket-probe",
    "escape-probe",
    "trust-probe",
    "hostile-text",
    "schema-bomb",
    "runtime-hostile",
    "sched-probe",
];

fn main() {
    let manifest_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap_or_default());
    let root = manifest_dir.parent().map(Path::to_path_buf).unwrap_or_default();
    let fixtures = manifest_dir.join("fixtures");
    // Watch the sources, not the folder: a stray `tests/fixtures/target` would rerun us forever.
    let mut watched = vec![fixtures.join("Cargo.toml"), fixtures.join("Cargo.lock"), root.join("wit")];
    watched.extend(FIXTURES.iter().map(|crate_name| fixtures.join(crate_name)));
    for path in &watched {
        println!("cargo:rerun-if-changed={}", path.display());
    }

    let wasm_dir = build_guest_workspace(&fixtures.join("Cargo.toml"), &root.join("target").join("wasm"));

    let mut generated = String::new();
    for crate_name in FIXTURES {
        let file = crate_name.replace('-', "_");
        let path = wasm_dir.join(format!("{file}.wasm"));
        if !path.is_file() {
            fail(&format!("the fixture build did not produce {}", path.display()));
        }
        let _ = writeln!(generated, "/// The `{file}` fixture component.");
        let _ = writeln!(generated, "pub const {}: &str = {:?};", file.to_uppercase(), path.display().to_string());
    }
    let out = PathBuf::from(env::var("OUT_DIR").unwrap_or_default()).join("fixtures.rs");
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
            "building the fixture components in {} failed; is the target installed? \
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
