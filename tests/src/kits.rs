//! The language kits' toolchains and builds, for the tests that build every kit's example
//! from source. The toolchains are installed once per checkout into `target/kits/`, from
//! the kits' own pinned manifests and the package registries (PyPI: componentize-py, zig
//! and wasm-tools; npm: componentize-js), the way `rustup target add` is run for the Rust
//! guests; a marker holding the manifests' digest says the install is complete. Each
//! component is built by the kit's own `build.sh` and kept until its sources change, so a
//! rerun builds nothing; test binaries and threads that need the same thing wait on one
//! file lock.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use sha2::{Digest, Sha256};

/// The checkout.
pub fn root() -> PathBuf {
    let manifest = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    manifest.parent().map(Path::to_path_buf).unwrap_or(manifest)
}

/// Where the toolchains and built components live.
pub(crate) fn kits_dir() -> PathBuf {
    root().join("target").join("kits")
}

/// The installed toolchains.
#[derive(Debug)]
pub struct Toolchains {
    /// Holds `componentize-py`, `wasm-tools` and `python` with `ziglang`.
    pub python_bin: PathBuf,
    /// Holds `componentize-js`.
    pub node_bin: PathBuf,
    /// The WASI preview1 reactor adapter, at wasmtime's version.
    pub adapter: PathBuf,
}

impl Toolchains {
    /// `PATH` with the toolchains first.
    pub fn path(&self) -> String {
        let system = std::env::var("PATH").unwrap_or_else(|_| "/usr/local/bin:/usr/bin:/bin".into());
        format!("{}:{}:{system}", self.python_bin.display(), self.node_bin.display())
    }
}

/// Holds the kits' lock file while alive.
pub(crate) struct Locked(File);

impl Drop for Locked {
    fn drop(&mut self) {
        let _ = self.0.unlock();
    }
}

pub(crate) fn lock() -> Locked {
    let dir = kits_dir();
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("mkdir {}: {e}", dir.display()));
    let file = File::create(dir.join(".lock")).unwrap_or_else(|e| panic!("lock file: {e}"));
    file.lock().unwrap_or_else(|e| panic!("lock {}: {e}", dir.display()));
    Locked(file)
}

/// The hex sha-256 of the files (and every file below the folders) in `inputs`, paths included.
pub(crate) fn digest(inputs: &[PathBuf]) -> String {
    let mut files = Vec::new();
    for input in inputs {
        let mut pending = vec![input.clone()];
        while let Some(path) = pending.pop() {
            if path.is_dir() {
                for entry in std::fs::read_dir(&path).into_iter().flatten().flatten() {
                    let name = entry.file_name().to_string_lossy().into_owned();
                    if !["target", "node_modules", "__pycache__"].contains(&name.as_str()) && !name.ends_with(".wasm") {
                        pending.push(entry.path());
                    }
                }
            } else if path.is_file() {
                files.push(path);
            }
        }
    }
    files.sort();
    let mut hasher = Sha256::new();
    for file in files {
        hasher.update(file.display().to_string().as_bytes());
        hasher.update(std::fs::read(&file).unwrap_or_default());
    }
    format!("{:x}", hasher.finalize())
}

/// Settings of the outer `cargo test` that must not leak into a guest build it starts.
const OUTER_CARGO_ENV: [&str; 5] =
    ["RUSTFLAGS", "CARGO_ENCODED_RUSTFLAGS", "CARGO_BUILD_RUSTFLAGS", "CARGO_BUILD_TARGET", "CARGO_MANIFEST_DIR"];

/// `command` without the outer cargo's settings ([`OUTER_CARGO_ENV`]), for a guest build.
pub fn without_outer_cargo_env(command: &mut Command) -> &mut Command {
    for var in OUTER_CARGO_ENV {
        command.env_remove(var);
    }
    command
}

/// Runs `command`, panicking with its output when it fails.
pub fn run(what: &str, command: &mut Command) -> String {
    let output = command.output().unwrap_or_else(|e| panic!("{what}: cannot start: {e}"));
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    assert!(
        output.status.success(),
        "{what} failed ({}):\n{stdout}\n{}",
        output.status,
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
}

/// Installs what `install` does unless `marker` holds `stamp`; then writes it.
pub(crate) fn ensure(marker: &Path, stamp: &str, install: impl FnOnce()) {
    if std::fs::read_to_string(marker).is_ok_and(|s| s == stamp) {
        return;
    }
    install();
    std::fs::write(marker, stamp).unwrap_or_else(|e| panic!("{}: {e}", marker.display()));
}

/// The toolchains, installed on first use.
pub fn toolchains() -> &'static Toolchains {
    static TOOLCHAINS: OnceLock<Toolchains> = OnceLock::new();
    TOOLCHAINS.get_or_init(|| {
        let _locked = lock();
        let sdk = root().join("plugin-sdk");
        let dir = kits_dir();

        let venv = dir.join("venv");
        let requirements = [sdk.join("python/requirements.txt"), sdk.join("c/requirements.txt")];
        ensure(&venv.join(".installed"), &digest(&requirements), || {
            let _ = std::fs::remove_dir_all(&venv);
            run("python3 -m venv", Command::new("python3").args(["-m", "venv"]).arg(&venv));
            let mut pip = Command::new(venv.join("bin/pip"));
            pip.args(["install", "--quiet", "--disable-pip-version-check"]);
            for file in &requirements {
                pip.arg("-r").arg(file);
            }
            run("pip install (the Python and C kits' toolchains)", &mut pip);
        });

        let node = dir.join("node");
        let manifests = [sdk.join("js/package.json"), sdk.join("js/package-lock.json")];
        ensure(&node.join(".installed"), &digest(&manifests), || {
            let _ = std::fs::remove_dir_all(&node);
            std::fs::create_dir_all(&node).unwrap_or_else(|e| panic!("{e}"));
            for file in &manifests {
                let name = file.file_name().unwrap_or_default();
                std::fs::copy(file, node.join(name)).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            }
            run(
                "npm ci (the JavaScript kit's toolchain)",
                Command::new("npm").args(["ci", "--no-audit", "--no-fund", "--loglevel=error"]).current_dir(&node),
            );
        });

        let adapter = dir.join("wasi_snapshot_preview1.reactor.wasm");
        std::fs::write(&adapter, wasi_preview1_component_adapter_provider::WASI_SNAPSHOT_PREVIEW1_REACTOR_ADAPTER)
            .unwrap_or_else(|e| panic!("{}: {e}", adapter.display()));
        Toolchains { python_bin: venv.join("bin"), node_bin: node.join("node_modules/.bin"), adapter }
    })
}

/// Builds the project in `project` with `build_script` (a kit's `build.sh`, or a new
/// project's own) into `target/kits/out/NAME.wasm`, unless it was built from the same
/// sources before; returns the component.
pub fn build(name: &str, build_script: &Path, project: &Path, inputs: &[PathBuf]) -> PathBuf {
    let tools = toolchains();
    let out_dir = kits_dir().join("out");
    std::fs::create_dir_all(&out_dir).unwrap_or_else(|e| panic!("{e}"));
    let out = out_dir.join(format!("{name}.wasm"));
    let stamp_file = out_dir.join(format!("{name}.stamp"));
    let mut all = inputs.to_vec();
    all.extend([project.to_path_buf(), build_script.to_path_buf()]);
    let stamp = digest(&all);
    let _locked = lock();
    if out.is_file() && std::fs::read_to_string(&stamp_file).is_ok_and(|s| s == stamp) {
        return out;
    }
    let mut command = Command::new("bash");
    command
        .arg(build_script)
        .arg(project)
        .arg(&out)
        .env("PATH", tools.path())
        .env("WASI_ADAPTER", &tools.adapter)
        .env("CARGO_TARGET_DIR", root().join("target/wasm"))
        .env("CARGO_NET_OFFLINE", "true");
    without_outer_cargo_env(&mut command);
    run(&format!("building {name} with {}", build_script.display()), &mut command);
    assert!(out.is_file(), "{} wrote no {}", build_script.display(), out.display());
    std::fs::write(&stamp_file, stamp).unwrap_or_else(|e| panic!("{e}"));
    out
}
