#!/usr/bin/env bash
# Builds an airlock plugin written in Python into a WebAssembly component.
#
#   build.sh [PROJECT_DIR [OUT.wasm]]
#
# PROJECT_DIR (default: this script's folder) holds app.py, the module whose class `Tool`
# componentize-py exports; OUT defaults to <PROJECT_DIR>/<plugin name>.wasm. The contract
# comes from ./wit or ../wit next to this script, the helper layer (airlock_tool.py) from
# this script's folder. Needs componentize-py 0.25.1 on PATH (requirements.txt).
set -euo pipefail

fail() { echo "build.sh: $*" >&2; exit 1; }

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
PROJECT="$(cd "${1:-$HERE}" && pwd)" || fail "no project folder ${1:-}"
[ -f "$PROJECT/app.py" ] || fail "no app.py in $PROJECT"
# The default output is named after the plugin (`plugin(name="demo")` in app.py), else
# after the folder.
NAME="$(sed -n 's/.*plugin( *name *= *"\([a-z][a-z0-9_-]*\)".*/\1/p' "$PROJECT/app.py" | head -n 1)"
OUT="${2:-$PROJECT/${NAME:-$(basename "$PROJECT")}.wasm}"
case "$OUT" in /*) ;; *) OUT="$PWD/$OUT" ;; esac

WANTED=0.25.1
command -v componentize-py >/dev/null 2>&1 \
  || fail "componentize-py not found on PATH; install it: python3 -m pip install componentize-py==$WANTED"
VERSION="$(componentize-py --version 2>/dev/null | awk '{print $2}')"
[ "$VERSION" = "$WANTED" ] \
  || echo "build.sh: warning: componentize-py $VERSION found, the kit is tested with $WANTED" >&2

if [ -f "$HERE/wit/tool.wit" ]; then WIT="$HERE/wit"
elif [ -f "$HERE/../wit/tool.wit" ]; then WIT="$(cd "$HERE/../wit" && pwd)"
else fail "no contract: expected $HERE/wit/tool.wit or $HERE/../wit/tool.wit"; fi
[ -f "$HERE/airlock_tool.py" ] || fail "no helper layer: expected $HERE/airlock_tool.py"
[ -f "$HERE/wit-py/world.wit" ] || fail "no kit world: expected $HERE/wit-py/world.wit"

# componentize-py runs app.py at build time (pre-initialisation) and keeps only the modules
# loaded by then. Run it on a staging copy of the project (without tests, the .wasm, caches,
# dot-folders or a virtualenv) so the build leaves nothing such as __pycache__ behind.
STAGE="$(mktemp -d "${TMPDIR:-/tmp}/airlock-py-build.XXXXXX")"
trap 'rm -rf "$STAGE"' EXIT
(cd "$PROJECT" && find . -mindepth 1 \( -name '.*' -o -name __pycache__ -o -name wit -o -name wit-py \
    -o -name venv -o -name '*.wasm' -o -name 'test_*.py' -o -name '*_test.py' \) -prune \
    -o -type f -print) \
  | while IFS= read -r file; do
      mkdir -p "$STAGE/$(dirname "$file")"
      cp "$PROJECT/$file" "$STAGE/$file"
    done
cp "$HERE/airlock_tool.py" "$STAGE/airlock_tool.py"
# One WIT folder: the kit's world (the contract plus the wasi:http client) at the top, the
# contract and WASI as its dependencies.
WORLD="$(mktemp -d "${TMPDIR:-/tmp}/airlock-py-wit.XXXXXX")"
trap 'rm -rf "$STAGE" "$WORLD"' EXIT
mkdir -p "$WORLD/deps/tool" "$WORLD/deps/host"
cp "$HERE/wit-py/world.wit" "$WORLD/"
cp "$WIT/tool.wit" "$WORLD/deps/tool/"
cp "$WIT/deps/host/host.wit" "$WORLD/deps/host/"
for dep in "$HERE"/wit-py/deps/*/; do cp -r "$dep" "$WORLD/deps/"; done
mkdir -p "$(dirname "$OUT")"

# Third-party pure-Python packages come from the active virtualenv ($VIRTUAL_ENV), as
# componentize-py finds them; import them at the top of app.py.
START=$(date +%s.%N)
(cd "$STAGE" && componentize-py -q -d "$WORLD" -w plugin-py componentize -p "$STAGE" app -o "$OUT")
END=$(date +%s.%N)
echo "built $OUT ($(wc -c <"$OUT") bytes, $(awk "BEGIN {printf \"%.1f\", $END - $START}") s)"
