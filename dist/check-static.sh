#!/bin/sh
# Runs the release binary where there is no Rust, no libc, no shell: an empty root holding
# only the binary, /dev/null, /proc, /tmp, a home and a workspace, entered with a user, mount
# and PID namespace and chroot. There it runs `airlock --version` and a headless session against a
# model played on 127.0.0.1 (dist/fixtures/mock_model.py, outside the root), whose first
# turn calls list_directory: the built-in components compile or load and run in the root.
# The check fails unless the tool's result, naming the workspace's file, reached the model.
#
# Usage: dist/check-static.sh [ARCHIVE.tar.gz | BINARY]
#        (default: dist/out/<the name dist/release.sh --name prints>)
# Needs: unshare (util-linux), chroot, python3, and user namespaces (or root).
set -eu

root=$(cd "$(dirname "$0")/.." && pwd)
input=${1:-$root/dist/out/$(sh "$root/dist/release.sh" --name)}
[ -f "$input" ] || { echo "error: $input does not exist; build it with dist/release.sh" >&2; exit 1; }

work=$(mktemp -d "${TMPDIR:-/tmp}/airlock-check-static.XXXXXX")
model_pid=""
cleanup() {
    [ -z "$model_pid" ] || kill "$model_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 1' INT TERM

case "$input" in
*.tar.gz)
    tar -xzf "$input" -C "$work"
    binary=$(find "$work" -path '*/airlock-*/airlock' -type f | head -n 1)
    ;;
*) binary=$input ;;
esac
if [ -z "$binary" ] || [ ! -x "$binary" ]; then
    echo "error: no airlock binary in $input" >&2
    exit 1
fi

echo "== the binary"
file -b "$binary"
case "$(file -b "$binary")" in
*static*) ;;
*) echo "error: not a static binary" >&2; exit 1 ;;
esac

jail="$work/root"
mkdir -p "$jail/bin" "$jail/dev" "$jail/proc" "$jail/tmp" "$jail/home" "$jail/work"
chmod 1777 "$jail/tmp"
cp "$binary" "$jail/bin/airlock"
: >"$jail/dev/null"
echo "a file only the root holds" >"$jail/work/hello-from-the-root.txt"

cat >"$work/steps.json" <<'STEPS'
[
  [{"tool": "list_directory", "args": {"dir_path": "."}}],
  "The workspace holds hello-from-the-root.txt."
]
STEPS
python3 "$root/dist/fixtures/mock_model.py" "$work/steps.json" "$work/requests.jsonl" "$work/port" &
model_pid=$!
tries=0
until [ -s "$work/port" ]; do
    tries=$((tries + 1))
    [ "$tries" -lt 100 ] || { echo "error: the mock model did not start" >&2; exit 1; }
    sleep 0.1
done
port=$(cat "$work/port")

echo "== the root (everything in it)"
(cd "$jail" && find . | sort)

# `in_root CMD...`: CMD run in the root, with a clean environment. /dev/null is the host's,
# bound over the empty file, and /proc is the new PID namespace's own (airlock reopens the
# files it holds through /proc/self/fd); nothing else of the host is visible.
in_root() {
    # shellcheck disable=SC2016 # $1 and $jail expand in the inner shell, by design
    env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
        unshare --user --map-root-user --mount --pid --fork \
        sh -c 'jail=$1; chroot=$(command -v chroot); shift; mount --bind /dev/null "$jail/dev/null" &&
            mount -t proc proc "$jail/proc" &&
            exec env -i HOME=/home AIRLOCK_HOME=/home/.airlock TMPDIR=/tmp OPENAI_API_KEY=not-needed \
            "$chroot" "$jail" "$@"' sh "$jail" "$@"
}

echo "== airlock --version, in the root"
in_root /bin/airlock --version

echo "== a headless session, in the root (model on 127.0.0.1:$port)"
started=$(date +%s%N)
in_root /bin/airlock --provider openai --base-url "http://127.0.0.1:$port/v1" -m mock \
    --workspace /work -p "What files does the workspace hold?" >"$work/stdout" 2>"$work/stderr" || {
    echo "error: the session failed" >&2
    cat "$work/stderr" >&2
    exit 1
}
elapsed=$((($(date +%s%N) - started) / 1000000))
echo "-- stderr:"
cat "$work/stderr"
echo "-- stdout:"
cat "$work/stdout"
echo "-- took ${elapsed} ms"

# The second request carries list_directory's result: the tool ran in the root.
requests=$(wc -l <"$work/requests.jsonl" | tr -d ' ')
[ "$requests" -ge 2 ] || { echo "error: the model got $requests request(s), not the tool's result" >&2; exit 1; }
sed -n 2p "$work/requests.jsonl" | grep -q 'hello-from-the-root.txt' ||
    { echo "error: list_directory's result did not name the workspace's file" >&2; exit 1; }
grep -q 'hello-from-the-root.txt' "$work/stdout" || { echo "error: the answer was not printed" >&2; exit 1; }
echo "== ok: list_directory ran in the root and its result reached the model ($requests requests)"
