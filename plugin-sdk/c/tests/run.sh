#!/usr/bin/env bash
# Native tests of the C kit: the helper layer, the examples and the template.
# Needs only a host C compiler (HOSTCC, default cc); no wasm toolchain.
set -euo pipefail
KIT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
HOSTCC="${HOSTCC:-cc}"
SANITIZE="${SANITIZE--fsanitize=address,undefined,float-cast-overflow}"
BIN="$(mktemp -d "${TMPDIR:-/tmp}/airlock-c-tests.XXXXXX")"
trap 'rm -rf "$BIN"' EXIT
cc_test() { # OUT SOURCES...
    local out="$1"; shift
    # shellcheck disable=SC2086
    "$HOSTCC" -std=c11 -D_DEFAULT_SOURCE -Wall -Wextra -Werror -g $SANITIZE -I "$KIT" -o "$BIN/$out" "$@" "$KIT/airlock_tool.c"
}
# One command per line: under `set -e` a failure on the left of `&&` would not stop the script.
cc_test helper "$KIT/tests/helper_test.c"
"$BIN/helper"
E="$KIT/examples/checksum"
cc_test checksum -I "$E" "$E/test.c" "$E/checksum.c" "$E/hashes.c"
"$BIN/checksum"
E="$KIT/examples/http_and_process"
cc_test http_and_process "$E/test.c" "$E/http_and_process.c"
"$BIN/http_and_process"
"$KIT/template/test.sh"
