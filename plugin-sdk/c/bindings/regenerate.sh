#!/usr/bin/env bash
# Regenerates plugin.c and plugin.h, the C bindings for the C kit's world
# airlock:plugin-c/plugin (../wit-c/world.wit): the `plugin` world of the contract in
# ../../wit (airlock:tool@0.2.0) plus wasi:http 0.2.12 (types, outgoing-handler). They are
# checked in so that building a plugin never needs wit-bindgen (building it with
# `cargo install` takes minutes).
#
# Exact tool and command used for the checked-in files:
#   wit-bindgen-cli 0.61.1   (cargo install wit-bindgen-cli --version 0.61.1 --locked)
#   wit-bindgen c WIT --world airlock:plugin-c/plugin --no-object-file --out-dir .
# where WIT is the folder build.sh assembles too: ../wit-c/world.wit, the contract as
# deps/tool and deps/host, and ../wit-c/deps/wasi-*.
#
# --no-object-file: the component type is embedded at build time by build.sh with
# `wasm-tools component embed WIT --world airlock:plugin-c/plugin`, so no binary
# plugin_component_type.o is checked in. plugin.c still references
# `__component_type_object_force_link_plugin`; airlock_tool.c defines it as an empty function.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
WIT_BINDGEN="${WIT_BINDGEN:-wit-bindgen}"
want="wit-bindgen-cli 0.61.1"
have="$("$WIT_BINDGEN" --version 2>/dev/null || true)"
if [[ "$have" != "$want" ]]; then
    echo "regenerate.sh: need $want (found: ${have:-none}); cargo install wit-bindgen-cli --version 0.61.1 --locked, or set WIT_BINDGEN" >&2
    exit 1
fi
KIT="$(cd "$HERE/.." && pwd)"
CONTRACT="$(cd "$KIT/../wit" && pwd)"
WIT="$(mktemp -d "${TMPDIR:-/tmp}/airlock-c-wit.XXXXXX")"
trap 'rm -rf "$WIT"' EXIT
mkdir -p "$WIT/deps/tool" "$WIT/deps/host"
cp "$KIT/wit-c/world.wit" "$WIT/"
cp "$CONTRACT/tool.wit" "$WIT/deps/tool/"
cp "$CONTRACT/deps/host/host.wit" "$WIT/deps/host/"
for dep in "$KIT"/wit-c/deps/*/; do cp -r "$dep" "$WIT/deps/"; done
cd "$HERE"
"$WIT_BINDGEN" c "$WIT" --world airlock:plugin-c/plugin --no-object-file --out-dir .
