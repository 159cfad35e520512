//! The guest workspaces' own tests, run by the one test command: the built-in tools
//! (`plugins/`) and the SDK (`plugin-sdk/rust/`) hold unit tests of plain Rust logic (globbing,
//! line ranges, argument errors, schemas) that no `--workspace` run reaches, since those
//! crates build for `wasm32-wasip2` in workspaces of their own. They run here on the host
//! target, each workspace with its own lock file.

use std::process::Command;

use airlock_tests::kits::root;

/// Runs `cargo test` on the guest workspace at `manifest`; returns how many tests passed.
fn cargo_test(manifest: &str) -> usize {
    let _slot = crate::shared();
    let mut cargo = Command::new(std::env::var("CARGO").unwrap_or_else(|_| "cargo".into()));
    cargo.args(["test", "--locked", "--manifest-path"]).arg(root().join(manifest));
    // Settings meant for the outer build must not leak into this one.
    airlock_tests::kits::without_outer_cargo_env(&mut cargo);
    cargo.env("CARGO_TARGET_DIR", root().join("target").join("guest-native"));
    let output = cargo.output().unwrap_or_else(|e| panic!("cannot run cargo: {e}"));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "the tests of {manifest} failed:\n{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    stdout
        .lines()
        .filter_map(|line| line.strip_prefix("test result: ok. "))
        .filter_map(|rest| rest.split(' ').next()?.parse::<usize>().ok())
        .sum()
}

#[test]
fn the_built_in_tools_pass_their_own_tests() {
    let passed = cargo_test("plugins/Cargo.toml");
    assert!(passed >= 10, "only {passed} tests of the built-in tools ran");
}

#[test]
fn the_plugin_sdk_passes_its_own_tests() {
    let passed = cargo_test("plugin-sdk/rust/Cargo.toml");
    assert!(passed >= 10, "only {passed} tests of the SDK ran");
}
