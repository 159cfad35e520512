//! Builds the fixture components (`tests/fixtures/`) for `wasm32-wasip2`, like Spin's
//! `tests/test-components/build.rs`, and writes `$OUT_DIR/fixtures.rs` with one path
//! constant per component. The fixture workspace is built by a nested `cargo` into
//! `target/wasm`, the target directory the host's build script uses for the built-in tools
//! (the outer build holds the lock on `target`).

#[path = "../engine/build/guest.rs"]
mod guest;

use std::env;
use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

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
    "process-probe",
    "edit-hostile",
    "hook-deny",
    "hook-rewrite",
    "hook-read-ungranted",
    "hook-trap",
    "hook-hang",
];

fn main() {
    let manifest_dir = PathBuf::from(env::var("CARGO_MANIFEST_DIR").unwrap_or_default());
    let root = manifest_dir.parent().map(Path::to_path_buf).unwrap_or_default();
    let fixtures = manifest_dir.join("fixtures");
    // The fixture workspace (every member, its manifest and lock file), and the contract.
    guest::watch_sources(&[
        fixtures.clone(),
        root.join("plugin-sdk/rust"),
        root.join("plugin-sdk/wit"),
        root.join("wit"),
        root.join("rust-toolchain.toml"),
    ]);

    let wasm_dir = guest::build_workspace(&fixtures.join("Cargo.toml"), &root.join("target").join("wasm"));

    let mut generated = String::new();
    for crate_name in FIXTURES {
        let file = crate_name.replace('-', "_");
        let path = wasm_dir.join(format!("{file}.wasm"));
        if !path.is_file() {
            guest::fail(&format!("the fixture build did not produce {}", path.display()));
        }
        let _ = writeln!(generated, "/// The `{file}` fixture component.");
        let _ = writeln!(generated, "pub const {}: &str = {:?};", file.to_uppercase(), path.display().to_string());
    }
    let out = PathBuf::from(env::var("OUT_DIR").unwrap_or_default()).join("fixtures.rs");
    fs::write(&out, generated).unwrap_or_else(|e| guest::fail(&format!("cannot write {}: {e}", out.display())));
}
