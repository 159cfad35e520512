#!/bin/sh
# Packages the publishable crates: `airlock` with every workspace crate it depends on
# (`airlock-engine`, `airlock-door`, ...), `airlock-ui`, and the Rust plugin kit
# `airlock-plugin-sdk` (a workspace of its own). `cargo package` verifies each package by
# building it from its tarball alone, so this also shows the packaged `airlock` builds.
#
# A package cannot reach outside its crate, so two things are copied in first (both
# git-ignored, both listed in their crate's `include`):
# - engine/builtins/: the built-in tools' .wasm files, built exactly as a checkout's
#   engine/build.rs builds them (same command, same target folder), and SHA256SUMS naming
#   their digests; a packaged engine embeds them only after checking every digest.
# - host/plugin-sdk/: the kits `airlock plugins new` writes (the tracked files of plugin-sdk/),
#   each Cargo.toml renamed Cargo.toml.packaged, since cargo leaves a folder holding a
#   Cargo.toml out of a package.
#
# Usage: dist/package.sh [cargo package options, e.g. --no-verify or --target-dir DIR]
# The .crate files land in <target dir>/package/. Refuses a working tree with uncommitted
# changes to tracked files (AIRLOCK_PACKAGE_DIRTY=1 allows it); the copies above make cargo
# see the tree as dirty, so it is always given --allow-dirty.
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

if [ -n "$(git status --porcelain --untracked-files=no)" ] && [ "${AIRLOCK_PACKAGE_DIRTY:-}" != 1 ]; then
    echo "error: the working tree has uncommitted changes (git status); commit them first, or set AIRLOCK_PACKAGE_DIRTY=1" >&2
    exit 1
fi

cleanup() { rm -rf engine/builtins host/plugin-sdk; }
trap cleanup EXIT INT TERM
cleanup

# The built-ins, as engine/build.rs builds them (guest::build_workspace): the host build's
# settings must not reach the guest build.
echo "building the built-in tools (wasm32-wasip2)" >&2
env -u CARGO_BUILD_BUILD_DIR -u CARGO_TARGET_DIR -u CARGO_BUILD_TARGET -u RUSTFLAGS \
    -u CARGO_ENCODED_RUSTFLAGS -u CARGO_BUILD_RUSTFLAGS -u RUSTC_WORKSPACE_WRAPPER \
    cargo build --release --locked --target wasm32-wasip2 --manifest-path plugins/Cargo.toml --target-dir target/wasm

# The names engine/build.rs embeds: its BUILTINS list is the one source.
names=$(sed -n '/^const BUILTINS/,/^];/p' engine/build.rs | sed -n 's/^ *"\([a-z_]*\)",$/\1/p')
[ -n "$names" ] || { echo "error: no built-in names found in engine/build.rs" >&2; exit 1; }
mkdir engine/builtins
for name in $names; do
    cp "target/wasm/wasm32-wasip2/release/$name.wasm" engine/builtins/
done
(cd engine/builtins && sha256sum -- *.wasm > SHA256SUMS)
echo "engine/builtins: $(echo "$names" | wc -l) built-ins, SHA256SUMS written" >&2

mkdir host/plugin-sdk
git ls-files -z plugin-sdk | tar --null -T - -cf - | tar -xf - -C host
find host/plugin-sdk -name Cargo.toml -exec sh -c 'for f; do mv "$f" "$f.packaged"; done' sh {} +

# Every workspace crate but those never published (tests, fuzz targets, fixtures' corpora).
cargo package --locked --allow-dirty --workspace \
    --exclude airlock-tests --exclude airlock-fuzz --exclude web-fetch-corpus "$@"
cargo package --locked --allow-dirty --manifest-path plugin-sdk/rust/Cargo.toml "$@"
