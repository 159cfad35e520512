#!/usr/bin/env bash
# Builds an airlock plugin written in JavaScript into a WebAssembly component.
#
#   build.sh [PROJECT_DIR [OUT.wasm]]
#
# PROJECT_DIR (default: this script's folder) holds app.js, the module that calls
# definePlugin; OUT defaults to PROJECT_DIR/<package.json name>.wasm, else <folder name>.wasm. The contract is found at
# $HERE/wit or $HERE/../wit, the kit's WIT (wit-js/) and helper layer (airlock-tool.js,
# airlock-wasi.js) next to this script (HERE). Needs node and componentize-js 0.23.0 (on
# PATH, or in node_modules/.bin of the project or of this folder: `npm install`).
#
# app.js and the modules it imports must lie in the project folder, or, for a project below
# HERE (the kit's examples), below HERE. Everything is staged in a temporary folder, so the
# project folder receives nothing but OUT.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PROJECT="$(cd "${1:-$HERE}" && pwd)"
# The default name: the project's (package.json "name"), else its folder's.
NAME="$(sed -n 's/^[[:space:]]*"name":[[:space:]]*"\([a-z][a-z0-9_-]*\)".*/\1/p' "$PROJECT/package.json" 2>/dev/null | head -n 1 || true)"
OUT="${2:-$PROJECT/${NAME:-$(basename "$PROJECT")}.wasm}"
case "$OUT" in /*) ;; *) OUT="$PWD/$OUT" ;; esac
COMPONENTIZE_JS_VERSION=0.23.0

die() { echo "build.sh: $*" >&2; exit 1; }

[ -f "$PROJECT/app.js" ] || die "no app.js in $PROJECT (the module that calls definePlugin)"
if [ -f "$HERE/wit/tool.wit" ]; then CONTRACT="$HERE/wit"
elif [ -f "$HERE/../wit/tool.wit" ]; then CONTRACT="$(cd "$HERE/../wit" && pwd)"
else die "the airlock contract (wit/tool.wit) is neither in $HERE/wit nor in $HERE/../wit"; fi
[ -f "$CONTRACT/deps/host/host.wit" ] || die "$CONTRACT/deps/host/host.wit is missing"
[ -f "$HERE/wit-js/world.wit" ] || die "$HERE/wit-js/world.wit is missing (the JS kit's world)"
for f in airlock-tool.js airlock-wasi.js; do
  [ -f "$HERE/$f" ] || [ -f "$PROJECT/$f" ] || die "$f is missing (it belongs next to build.sh)"
done

command -v node >/dev/null 2>&1 || die "node is not on PATH: install Node.js 20 or newer"
if ! command -v componentize-js >/dev/null 2>&1; then
  for bin in "$PROJECT/node_modules/.bin" "$HERE/node_modules/.bin"; do
    if [ -x "$bin/componentize-js" ]; then PATH="$bin:$PATH"; break; fi
  done
fi
command -v componentize-js >/dev/null 2>&1 ||
  die "componentize-js is not on PATH: run 'npm install' here (or npm install -g @bytecodealliance/componentize-js@$COMPONENTIZE_JS_VERSION)"
found="$(componentize-js --version 2>/dev/null || true)"
[ "$found" = "$COMPONENTIZE_JS_VERSION" ] ||
  echo "build.sh: warning: componentize-js $found, this kit is tested with $COMPONENTIZE_JS_VERSION" >&2

# The folder the sources are staged from: HERE for a project below it, else the project.
case "$PROJECT/" in
  "$HERE"/*) ROOT="$HERE"; REL="${PROJECT#"$HERE"}"; REL="${REL#/}" ;;
  *) ROOT="$PROJECT"; REL="" ;;
esac

STAGE="$(mktemp -d "${TMPDIR:-/tmp}/airlock-js-build.XXXXXX")"
trap 'rm -rf "$STAGE"' EXIT
tar -C "$ROOT" --exclude=./node_modules --exclude='*/node_modules' --exclude=.git \
  --exclude='*.wasm' --exclude=./wit --exclude=./wit-js -cf - . | tar -C "$STAGE" -xf -
for f in airlock-tool.js airlock-wasi.js; do
  [ -f "$STAGE/$f" ] || cp "$HERE/$f" "$STAGE/$f"
done

# One WIT folder: the kit's world at the top, the contract and WASI as its dependencies.
mkdir -p "$STAGE/wit/deps/tool" "$STAGE/wit/deps/host"
cp "$HERE/wit-js/world.wit" "$STAGE/wit/"
cp "$CONTRACT/tool.wit" "$STAGE/wit/deps/tool/"
cp "$CONTRACT/deps/host/host.wit" "$STAGE/wit/deps/host/"
for dep in "$HERE"/wit-js/deps/*/; do cp -r "$dep" "$STAGE/wit/deps/"; done

APP="./${REL:+$REL/}app.js"
cat > "$STAGE/airlock-entry.js" <<EOF
import './airlock-wasi.js';
import '$APP';
export { airlockTool as tool } from './airlock-tool.js';
EOF

# No wasi:http (fetch) and no fetch event: smaller, ~10x cheaper per call; stdio, clocks and
# random stay (console output is captured by the host, never shown).
(cd "$STAGE" && componentize-js airlock-entry.js --wit wit --world-name airlock:plugin-js/plugin-js \
  -d http fetch-event -o "$STAGE/out.wasm")
mv "$STAGE/out.wasm" "$OUT"
echo "built $OUT ($(wc -c <"$OUT") bytes)"
