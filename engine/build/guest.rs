//! Building a guest workspace for `wasm32-wasip2`, shared by the build scripts of `host`
//! (the built-in tools) and `tests` (the fixture components).
//!
//! The target is made sure of first: `rust-toolchain.toml` names it, but rustup adds a
//! toolchain file's targets only when it auto-installs, and many CI images (and this
//! project's own machines) set `RUSTUP_AUTO_INSTALL=0`. So a missing target is added with
//! `rustup target add` (under a lock: two build scripts may run at once), and where that
//! cannot be done the build stops with the one command to run.

use std::env;
use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::process::Command;

/// The guest target.
pub const TARGET: &str = "wasm32-wasip2";

/// Tells cargo to rerun the build script when a source file under `paths` changes: one
/// `rerun-if-changed` line per `*.rs`, `*.wit`, `Cargo.toml`, `Cargo.lock` and
/// `rust-toolchain.toml`, never one for a folder. Cargo rescans a watched folder's whole tree
/// and reruns on any newer file in it, so a README, an editor's backup or a build folder
/// (`target/`, skipped here with hidden folders) would rebuild every guest. A new source
/// file is always named by one already watched (a `mod` line, a workspace member, a WIT
/// `use`), so it is seen on the next run.
pub fn watch_sources(paths: &[PathBuf]) {
    let mut files = Vec::new();
    for path in paths {
        collect_sources(path, &mut files);
    }
    files.sort();
    for file in files {
        println!("cargo:rerun-if-changed={}", file.display());
    }
}

/// The source files at or under `path` (see [`watch_sources`]).
fn collect_sources(path: &Path, files: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(path) else {
        if is_source(path) {
            files.push(path.to_path_buf());
        }
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let name = name.to_string_lossy();
        let is_dir = entry.file_type().is_ok_and(|t| t.is_dir());
        if is_dir && (name == "target" || name.starts_with('.')) {
            continue;
        }
        if is_dir || is_source(&entry.path()) {
            collect_sources(&entry.path(), files);
        }
    }
}

fn is_source(path: &Path) -> bool {
    let name = path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
    matches!(path.extension().and_then(|e| e.to_str()), Some("rs" | "wit"))
        || matches!(&*name, "Cargo.toml" | "Cargo.lock" | "rust-toolchain.toml")
}

/// Runs `cargo build --release --target wasm32-wasip2` on a guest workspace and returns
/// the folder that holds the `.wasm` files.
pub fn build_workspace(manifest: &Path, target_dir: &Path) -> PathBuf {
    ensure_target(target_dir);
    let cargo = env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.args(["build", "--release", "--locked", "--target", TARGET, "--manifest-path"])
        .arg(manifest)
        .arg("--target-dir")
        .arg(target_dir);
    // Settings meant for the host build must not leak into the guest build.
    for var in [
        "CARGO_ENCODED_RUSTFLAGS",
        "RUSTFLAGS",
        "CARGO_BUILD_RUSTFLAGS",
        "CARGO_TARGET_DIR",
        // A shared build folder is locked by the outer build of the same profile (a release
        // build or bench): the guest build waiting on it would wait for ever.
        "CARGO_BUILD_BUILD_DIR",
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
        fail(&format!("building the guest components in {} for {TARGET} failed (see above)", manifest.display()));
    }
    target_dir.join(TARGET).join("release")
}

/// Where the toolchain keeps the target's standard library, and whether it is there.
fn target_libdir() -> Option<(PathBuf, bool)> {
    let rustc = env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let output = Command::new(rustc).args(["--print", "target-libdir", "--target", TARGET]).output().ok()?;
    if !output.status.success() {
        return None;
    }
    let dir = PathBuf::from(String::from_utf8_lossy(&output.stdout).trim());
    let installed = dir.join("libstd.rlib").is_file()
        || fs::read_dir(&dir)
            .is_ok_and(|entries| entries.flatten().any(|e| e.file_name().to_string_lossy().starts_with("libstd-")));
    Some((dir, installed))
}

/// Adds the target when it is missing, or stops the build saying what to run.
fn ensure_target(target_dir: &Path) {
    if target_libdir().is_some_and(|(_, installed)| installed) {
        return;
    }
    // Both build scripts may get here at once; rustup does not expect two installs of one
    // component side by side.
    let _ = fs::create_dir_all(target_dir);
    let lock = File::create(target_dir.join(".target-add.lock")).ok();
    if let Some(lock) = &lock {
        let _ = lock.lock();
    }
    if target_libdir().is_some_and(|(_, installed)| installed) {
        return;
    }
    let toolchain = env::var("RUSTUP_TOOLCHAIN").ok().filter(|t| !t.is_empty());
    let command = format!(
        "rustup target add {TARGET}{}",
        toolchain.as_deref().map(|t| format!(" --toolchain {t}")).unwrap_or_default()
    );
    // An offline build (`CARGO_NET_OFFLINE=true`) must not reach the network.
    if env::var("CARGO_NET_OFFLINE").is_ok_and(|v| v == "true" || v == "1") {
        fail(&format!(
            "the {TARGET} target is not installed and this build is offline: run `{command}`, then build again"
        ));
    }
    let mut add = Command::new("rustup");
    add.args(["target", "add", TARGET]);
    if let Some(toolchain) = &toolchain {
        add.args(["--toolchain", toolchain]);
    }
    match add.status() {
        Ok(status) if status.success() && target_libdir().is_some_and(|(_, installed)| installed) => {
            println!(
                "cargo:warning=added the {TARGET} target (the built-in tools are WebAssembly components): {command}"
            );
        }
        Ok(_) => fail(&format!(
            "the {TARGET} target is not installed and `{command}` failed (see above); run it yourself, then build again"
        )),
        Err(e) => {
            let place = target_libdir().map(|(dir, _)| format!(" (expected in {})", dir.display())).unwrap_or_default();
            fail(&format!(
                "the {TARGET} target is not installed{place} and rustup cannot be run ({e}): install the target \
                 for this Rust toolchain (with rustup: `rustup target add {TARGET}`), then build again"
            ))
        }
    }
}

/// Stops the build with one clear line.
pub fn fail(message: &str) -> ! {
    #[allow(clippy::print_stderr)]
    {
        eprintln!("error: {message}");
    }
    std::process::exit(1)
}
