//! The built-in tools' bytes in a packaged `airlock-engine` (a `cargo package` tarball, a
//! crates.io download), where `../plugins` is not there to build them from. `dist/package.sh`
//! builds the built-ins as a checkout's build does, copies each `<name>.wasm` into
//! `engine/builtins/` and writes `engine/builtins/SHA256SUMS` (`sha256sum`'s format:
//! `<hex>  <file>` per line) before it packages the crate.
//!
//! The invariant: a packaged build embeds only bytes whose sha-256 is the one `SHA256SUMS`
//! names. Each file is read once, checked, and the checked bytes are written to `OUT_DIR`,
//! which is where `include_bytes!` takes them from; a file missing, unlisted or with
//! another digest stops the build with a message naming it.
//!
//! This file is compiled twice: by the build script, and by the engine's unit tests
//! (`build_packaged::`), so it uses only `std`, `sha2` and `hex`.

use std::fs;
use std::path::{Path, PathBuf};

use sha2::{Digest, Sha256};

/// The file beside the built-ins that names their digests.
pub const SUMS: &str = "SHA256SUMS";

/// Checks the built-ins `names` in `dir` against `dir/SHA256SUMS` and copies the checked
/// bytes to `out_dir`; returns the folder that holds them (`out_dir`).
pub fn checked_builtins(dir: &Path, names: &[&str], out_dir: &Path) -> Result<PathBuf, String> {
    let sums_path = dir.join(SUMS);
    let sums = fs::read_to_string(&sums_path).map_err(|e| {
        format!(
            "cannot read {} ({e}): a packaged airlock-engine carries the built-in tools and their digests; \
             package it with dist/package.sh",
            sums_path.display()
        )
    })?;
    let sums = parse_sums(&sums).map_err(|e| format!("{}: {e}", sums_path.display()))?;
    fs::create_dir_all(out_dir).map_err(|e| format!("cannot create {}: {e}", out_dir.display()))?;
    for name in names {
        let file = format!("{name}.wasm");
        let expected = sums
            .iter()
            .find(|(_, listed)| *listed == file)
            .map(|(digest, _)| digest.as_str())
            .ok_or_else(|| format!("the built-in {file} is not listed in {}", sums_path.display()))?;
        let path = dir.join(&file);
        let bytes = fs::read(&path).map_err(|e| format!("cannot read the built-in {} ({e})", path.display()))?;
        let actual = hex::encode(Sha256::digest(&bytes));
        if actual != expected {
            return Err(format!(
                "the built-in {} has sha-256 {actual}, but {} names {expected}: the package's bytes are not \
                 the ones it was made with",
                path.display(),
                sums_path.display()
            ));
        }
        let copy = out_dir.join(&file);
        fs::write(&copy, &bytes).map_err(|e| format!("cannot write {}: {e}", copy.display()))?;
    }
    Ok(out_dir.to_path_buf())
}

/// `sha256sum` lines: 64 lowercase hex digits, two spaces (or a space and `*`), a file name.
fn parse_sums(text: &str) -> Result<Vec<(String, String)>, String> {
    let mut sums = Vec::new();
    for (number, line) in text.lines().enumerate().filter(|(_, l)| !l.trim().is_empty()) {
        let parsed = line.split_once(' ').and_then(|(digest, rest)| {
            let file = rest.strip_prefix(' ').or_else(|| rest.strip_prefix('*'))?;
            let is_digest =
                digest.len() == 64 && digest.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
            (is_digest && !file.is_empty()).then(|| (digest.to_string(), file.to_string()))
        });
        sums.push(parsed.ok_or_else(|| format!("line {} is not `<sha-256 hex>  <file>`", number + 1))?);
    }
    Ok(sums)
}

#[cfg(test)]
#[path = "packaged_tests.rs"]
mod tests;
