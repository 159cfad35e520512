//! The MCP test toolchain: the official Python SDK (PyPI `mcp`, a real client for the tests of
//! `airlock mcp serve` and the library the fixture servers in `tests/mcp/servers/` are written
//! with) and a published reference server (`@modelcontextprotocol/server-filesystem` from npm),
//! run the way users run them. Both are pinned in `tests/mcp/` and installed once per checkout
//! into `target/kits/mcp/`, from the package registries, the way the kits install theirs
//! ([`crate::kits`]); a marker holding the manifests' digest says an install is complete.

use std::path::PathBuf;
use std::process::Command;
use std::sync::OnceLock;

use crate::kits::{digest, ensure, kits_dir, lock, root, run};

/// The installed MCP toolchain.
#[derive(Debug)]
pub struct Toolchain {
    /// The venv's `python` (3.10 or later), with `mcp` importable.
    pub python: PathBuf,
    /// The `mcp-server-filesystem` program (a Node script; `node` on `PATH` runs it).
    pub server_filesystem: PathBuf,
    /// `tests/mcp/`: the fixture servers (`servers/`) and client scripts (`clients/`).
    pub dir: PathBuf,
}

/// The toolchain, installed on first use (test binaries and threads wait on one file lock).
pub fn toolchain() -> &'static Toolchain {
    static TOOLCHAIN: OnceLock<Toolchain> = OnceLock::new();
    TOOLCHAIN.get_or_init(|| {
        let _locked = lock();
        let manifests = root().join("tests").join("mcp");
        let dir = kits_dir().join("mcp");

        let venv = dir.join("venv");
        let requirements = [manifests.join("requirements.txt")];
        ensure(&venv.join(".installed"), &digest(&requirements), || {
            let _ = std::fs::remove_dir_all(&venv);
            run("python3 -m venv", Command::new("python3").args(["-m", "venv"]).arg(&venv));
            let mut pip = Command::new(venv.join("bin/pip"));
            pip.args(["install", "--quiet", "--disable-pip-version-check", "-r"]).arg(&requirements[0]);
            run("pip install (the MCP Python SDK)", &mut pip);
        });

        let node = dir.join("node");
        let packages = [manifests.join("package.json"), manifests.join("package-lock.json")];
        ensure(&node.join(".installed"), &digest(&packages), || {
            let _ = std::fs::remove_dir_all(&node);
            std::fs::create_dir_all(&node).unwrap_or_else(|e| panic!("mkdir {}: {e}", node.display()));
            for file in &packages {
                let name = file.file_name().unwrap_or_default();
                std::fs::copy(file, node.join(name)).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
            }
            run(
                "npm ci (the published MCP servers)",
                Command::new("npm").args(["ci", "--no-audit", "--no-fund", "--loglevel=error"]).current_dir(&node),
            );
        });

        Toolchain {
            python: venv.join("bin/python"),
            server_filesystem: node.join("node_modules/.bin/mcp-server-filesystem"),
            dir: manifests,
        }
    })
}
