#!/usr/bin/env bash
# Builds this plugin into a component: ./build.sh -> {{name}}.wasm (next to this script).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/{{name}}.wasm}"
if command -v rustup >/dev/null && ! rustup target list --installed | grep -qx wasm32-wasip2; then
    echo "build.sh: the wasm32-wasip2 target is missing: run \`rustup target add wasm32-wasip2\`" >&2
    exit 1
fi
target_dir="${CARGO_TARGET_DIR:-$here/target}"
cargo rustc --lib --release --target wasm32-wasip2 --crate-type cdylib \
    --manifest-path "$here/Cargo.toml" --target-dir "$target_dir"
cp "$target_dir/wasm32-wasip2/release/{{tool}}.wasm" "$out"
echo "built $out"
