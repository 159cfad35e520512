#!/bin/sh
# Builds the release: a static x86_64 Linux binary (musl), in
#   dist/out/airlock-VERSION-x86_64-unknown-linux-musl.tar.gz
# holding airlock-VERSION-x86_64-unknown-linux-musl/{airlock, README.md, LICENSE, BUILD.json,
# completions/, man/}, beside it its .sha256 (`sha256sum` format), the build record
# (…BUILD.json: commit, dirty flag, toolchain, target, profile, flags, date) and install.sh.
#
# Usage: dist/release.sh          build and package
#        dist/release.sh --name   print the archive's name and stop (tests, install.sh)
#
# Needs the target (`rustup target add x86_64-unknown-linux-musl`) and musl-gcc (Debian:
# musl-tools) for the C the dependencies compile (ring, zstd, tree-sitter's grammars). The
# built-in tools' native code is still precompiled into the binary: a musl build on an
# x86_64 glibc host is the same machine to wasmtime (engine/build.rs).
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

target=x86_64-unknown-linux-musl
profile=release
version=$(sed -n '/^\[workspace\.package\]/,/^\[/s/^version = "\(.*\)"$/\1/p' Cargo.toml)
[ -n "$version" ] || { echo "error: no [workspace.package] version in Cargo.toml" >&2; exit 1; }
name="airlock-$version-$target"
archive="$name.tar.gz"

if [ "${1:-}" = --name ]; then
    echo "$archive"
    exit 0
fi

say() { printf 'release: %s\n' "$*" >&2; }

export CC_x86_64_unknown_linux_musl="${CC_x86_64_unknown_linux_musl:-musl-gcc}"
command -v "$CC_x86_64_unknown_linux_musl" >/dev/null 2>&1 ||
    { echo "error: $CC_x86_64_unknown_linux_musl is not installed (Debian: apt-get install musl-tools)" >&2; exit 1; }

commit=$(git rev-parse HEAD)
if [ -n "$(git status --porcelain --untracked-files=no)" ]; then dirty=true; else dirty=false; fi
started=$(date +%s)
say "building $name ($profile, commit $commit, dirty $dirty)"
cargo build --locked --profile "$profile" --target "$target" -p airlock
seconds=$(($(date +%s) - started))

target_dir=$(cargo metadata --format-version 1 --no-deps | sed -n 's/.*"target_directory":"\([^"]*\)".*/\1/p')
binary="$target_dir/$target/$profile/airlock"
[ -x "$binary" ] || { echo "error: the build left no $binary" >&2; exit 1; }

# Static, or not a release: `file` says "static-pie linked" or "statically linked".
case "$(file -b "$binary")" in
*static*) ;;
*) echo "error: $binary is not static: $(file -b "$binary")" >&2; exit 1 ;;
esac
if ldd "$binary" >/dev/null 2>&1 && ! ldd "$binary" 2>&1 | grep -q 'statically linked'; then
    echo "error: ldd lists libraries for $binary:" >&2
    ldd "$binary" >&2
    exit 1
fi

out="$root/dist/out"
stage="$out/$name"
rm -rf "${stage:?}" "${out:?}/$archive" "${out:?}/$archive.sha256"
mkdir -p "$stage/completions" "$stage/man"
cp "$binary" "$stage/airlock"
cp README.md LICENSE "$stage/"

# Completions and the manual page come from the binary itself (its clap definitions).
notes=""
for shell_file in bash:airlock.bash zsh:_airlock fish:airlock.fish elvish:airlock.elv powershell:_airlock.ps1; do
    shell=${shell_file%%:*}
    if ! "$stage/airlock" completions "$shell" >"$stage/completions/${shell_file#*:}" 2>"$out/.note"; then
        rm -f "$stage/completions/${shell_file#*:}"
        notes="$notes completions $shell skipped ($(head -n 1 "$out/.note"));"
    fi
done
if ! "$stage/airlock" man --out "$stage/man" 2>"$out/.note"; then
    notes="$notes man page skipped ($(head -n 1 "$out/.note"));"
fi
rm -f "$out/.note"
rmdir "$stage/completions" "$stage/man" 2>/dev/null || true
[ -z "$notes" ] || say "note:$notes"

json_string() { printf '"%s"' "$(printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g')"; }
binary_sha256=$(sha256sum "$stage/airlock" | cut -d ' ' -f 1)
{
    printf '{\n'
    printf '  "name": %s,\n' "$(json_string "$name")"
    printf '  "version": %s,\n' "$(json_string "$version")"
    printf '  "commit": %s,\n' "$(json_string "$commit")"
    printf '  "dirty": %s,\n' "$dirty"
    printf '  "rustc": %s,\n' "$(json_string "$(rustc -V)")"
    printf '  "cargo": %s,\n' "$(json_string "$(cargo -V)")"
    printf '  "target": %s,\n' "$(json_string "$target")"
    printf '  "profile": %s,\n' "$(json_string "$profile")"
    printf '  "rustflags": %s,\n' "$(json_string "${RUSTFLAGS:-}")"
    printf '  "cc": %s,\n' "$(json_string "$CC_x86_64_unknown_linux_musl")"
    printf '  "date": %s,\n' "$(json_string "$(date -u +%Y-%m-%dT%H:%M:%SZ)")"
    printf '  "build_seconds": %s,\n' "$seconds"
    printf '  "binary_sha256": %s,\n' "$(json_string "$binary_sha256")"
    printf '  "binary_bytes": %s,\n' "$(wc -c <"$stage/airlock" | tr -d ' ')"
    printf '  "notes": %s\n' "$(json_string "${notes# }")"
    printf '}\n'
} >"$stage/BUILD.json"
cp "$stage/BUILD.json" "$out/$name.BUILD.json"

# Same bytes from the same files: sorted names, no owners, the commit's time, gzip -n.
mtime=$(git log -1 --format=%ct)
(cd "$out" && tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$mtime" -cf - "$name" | gzip -9 -n >"$archive")
(cd "$out" && sha256sum "$archive" >"$archive.sha256")
cp dist/install.sh "$out/install.sh"
rm -rf "$stage"
say "$out/$archive ($(wc -c <"$out/$archive" | tr -d ' ') bytes, binary $(wc -c <"$binary" | tr -d ' ') bytes, built in ${seconds}s)"
cat "$out/$archive.sha256"
