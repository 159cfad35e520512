#!/usr/bin/env bash
# Builds a Rust plugin crate into a component: build.sh [CRATE_DIR [OUT.wasm]]
# CRATE_DIR defaults to this script's folder (a project made by `airlock plugins new`), OUT to
# CRATE_DIR/<package name>.wasm. Honours CARGO_TARGET_DIR.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
project="$(cd "${1:-$here}" && pwd)"
package="$(sed -n 's/^name *= *"\(.*\)"/\1/p' "$project/Cargo.toml" | head -n 1)"
if [ -z "$package" ]; then
    echo "build.sh: no package name in $project/Cargo.toml" >&2
    exit 1
fi
out="${2:-$project/$package.wasm}"
if command -v rustup >/dev/null && ! rustup target list --installed | grep -qx wasm32-wasip2; then
    echo "build.sh: the wasm32-wasip2 target is missing: run \`rustup target add wasm32-wasip2\`" >&2
    exit 1
fi
target_dir="${CARGO_TARGET_DIR:-$project/target}"
# The crate is an rlib (so `cargo test` runs natively); the component is its cdylib.
cargo rustc --lib --release --target wasm32-wasip2 --crate-type cdylib \
    --manifest-path "$project/Cargo.toml" --target-dir "$target_dir"
cp "$target_dir/wasm32-wasip2/release/${package//-/_}.wasm" "$out"
echo "built $out"
