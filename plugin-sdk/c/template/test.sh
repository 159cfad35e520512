#!/usr/bin/env bash
# Runs the native unit test (test.c) of this plugin with the host C compiler: no wasm, no
# airlock needed. The tool's *.c files are compiled as build.sh does, plus airlock_tool.c.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
if [[ -f "$HERE/airlock_tool.c" ]]; then KIT="$HERE"
elif [[ -f "$HERE/../airlock_tool.c" ]]; then KIT="$(cd "$HERE/.." && pwd)"
else echo "test.sh: airlock_tool.c not found next to test.sh" >&2; exit 1; fi
HOSTCC="${HOSTCC:-cc}"
command -v "$HOSTCC" >/dev/null 2>&1 || { echo "test.sh: no host C compiler ($HOSTCC): install gcc or clang, or set HOSTCC" >&2; exit 1; }
SOURCES=()
for f in "$HERE"/*.c; do
    case "$(basename "$f")" in test.c | test_*.c | *_test.c | airlock_tool.c) ;; *) SOURCES+=("$f") ;; esac
done
BIN="$(mktemp "${TMPDIR:-/tmp}/airlock-c-test.XXXXXX")"
trap 'rm -f "$BIN"' EXIT
# With AddressSanitizer and UBSan when the compiler has them (SANITIZE= turns them off).
SANITIZE="${SANITIZE--fsanitize=address,undefined}"
build() {
    "$HOSTCC" -std=c11 -D_DEFAULT_SOURCE -Wall -Wextra -g "$@" -I "$HERE" -I "$KIT" \
        -o "$BIN" "$HERE/test.c" "${SOURCES[@]}" "$KIT/airlock_tool.c"
}
# shellcheck disable=SC2086
build $SANITIZE 2>/dev/null || build
"$BIN"
