#!/usr/bin/env bash
# Regenerates plugin.c and plugin.h, the C bindings for the `plugin` world of the contract
# in ../../wit (airlock:tool@0.2.0). They are checked in so that building a plugin never
# needs wit-bindgen (building it with `cargo install` takes minutes).
#
# Exact tool and command used for the checked-in files:
#   wit-bindgen-cli 0.61.1   (cargo install wit-bindgen-cli --version 0.61.1 --locked)
#   wit-bindgen c ../../wit --world plugin --no-object-file --out-dir .
#
# --no-object-file: the component type is embedded at build time by build.sh with
# `wasm-tools component embed WIT --world plugin`, so no binary plugin_component_type.o is
# checked in. plugin.c still references `__component_type_object_force_link_plugin`;
# airlock_tool.c defines it as an empty function.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
WIT_BINDGEN="${WIT_BINDGEN:-wit-bindgen}"
want="wit-bindgen-cli 0.61.1"
have="$("$WIT_BINDGEN" --version 2>/dev/null || true)"
if [[ "$have" != "$want" ]]; then
    echo "regenerate.sh: need $want (found: ${have:-none}); cargo install wit-bindgen-cli --version 0.61.1 --locked, or set WIT_BINDGEN" >&2
    exit 1
fi
cd "$HERE"
"$WIT_BINDGEN" c ../../wit --world plugin --no-object-file --out-dir .
