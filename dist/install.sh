#!/bin/sh
# Installs airlock from a release: downloads the archive for this machine and its .sha256,
# checks the digest, and only then puts the `airlock` binary in place. On a mismatch (or a
# missing or unreadable digest) it stops and installs nothing.
#
#   curl -fsSL https://github.com/airlock-dev/airlock/releases/latest/download/install.sh | sh
#
# Settings (environment):
#   AIRLOCK_VERSION      the version to install (default: the latest release)
#   AIRLOCK_INSTALL_DIR  where the binary goes (default: $HOME/.local/bin)
#   AIRLOCK_RELEASE_URL  the releases page (default: https://github.com/airlock-dev/airlock/releases);
#                        archives are read from $AIRLOCK_RELEASE_URL/download/vVERSION/, and
#                        the latest version from where $AIRLOCK_RELEASE_URL/latest redirects
#                        (.../tag/vVERSION). It must be https; plain http is taken only
#                        from this machine (127.0.0.1, localhost, [::1]), for tests
set -eu

release_url=${AIRLOCK_RELEASE_URL:-https://github.com/airlock-dev/airlock/releases}
release_url=${release_url%/}
install_dir=${AIRLOCK_INSTALL_DIR:-${HOME:?HOME is not set; set AIRLOCK_INSTALL_DIR}/.local/bin}

say() { printf 'airlock install: %s\n' "$*" >&2; }
fail() {
    say "error: $*"
    exit 1
}

# Only https, and no redirect away from it: the digest comes over the same channel as the
# archive, so one plain-http hop would let whoever sits on it replace both. Plain http stays
# possible for a releases page on this machine (a test's server), which no one sits between.
case "$release_url" in
https://*) loopback=false ;;
http://*)
    hostport=${release_url#http://}
    hostport=${hostport%%/*}
    case "$hostport" in
    *@*) loopback=false ;;
    127.0.0.1 | 127.0.0.1:* | localhost | localhost:* | '[::1]' | '[::1]:'*) loopback=true ;;
    *) loopback=false ;;
    esac
    [ "$loopback" = true ] || fail "AIRLOCK_RELEASE_URL must be https (plain http is only taken from 127.0.0.1, localhost or [::1]): $release_url; nothing was downloaded"
    ;;
*) fail "AIRLOCK_RELEASE_URL must be an https address: $release_url; nothing was downloaded" ;;
esac
if [ "$loopback" = true ]; then
    protocols='=http,https'
else
    protocols='=https'
fi

# The one release target: a static binary, which runs on any x86_64 Linux.
case "$(uname -s)/$(uname -m)" in
Linux/x86_64 | Linux/amd64) target=x86_64-unknown-linux-musl ;;
*) fail "no release is built for $(uname -s) $(uname -m); build from source: cargo install --locked --path host (in a clone of the repository)" ;;
esac

if command -v curl >/dev/null 2>&1; then
    download() { curl --proto "$protocols" --proto-redir "$protocols" -fsSL -o "$2" "$1"; }
    final_url() { curl --proto "$protocols" --proto-redir "$protocols" -fsSLI -o /dev/null -w '%{url_effective}' "$1"; }
elif command -v wget >/dev/null 2>&1; then
    if [ "$loopback" = true ]; then
        wget_https=''
    else
        wget_https='--https-only'
    fi
    # $wget_https is left unquoted on purpose: empty, it must be no argument at all.
    # shellcheck disable=SC2086
    download() { wget -q $wget_https -O "$2" "$1"; }
    # shellcheck disable=SC2086
    final_url() { wget -q $wget_https -O /dev/null --server-response "$1" 2>&1 | sed -n 's/^ *[Ll]ocation: *//p' | tail -n 1 | tr -d '\r'; }
else
    fail "neither curl nor wget is installed"
fi

if command -v sha256sum >/dev/null 2>&1; then
    digest_of() { sha256sum "$1" | cut -d ' ' -f 1; }
elif command -v shasum >/dev/null 2>&1; then
    digest_of() { shasum -a 256 "$1" | cut -d ' ' -f 1; }
else
    fail "neither sha256sum nor shasum is installed, so the download cannot be checked"
fi

version=${AIRLOCK_VERSION:-}
if [ -z "$version" ]; then
    latest=$(final_url "$release_url/latest") || fail "cannot reach $release_url/latest"
    version=${latest##*/tag/}
    [ "$version" != "$latest" ] || fail "cannot tell the latest version from $release_url/latest (it led to $latest); set AIRLOCK_VERSION"
fi
version=${version#v}
case "$version" in
*[!0-9A-Za-z.+-]* | '') fail "not a version: $version" ;;
esac

name="airlock-$version-$target"
archive="$name.tar.gz"
url="$release_url/download/v$version/$archive"

work=$(mktemp -d "${TMPDIR:-/tmp}/airlock-install.XXXXXX")
trap 'rm -rf "$work" "$install_dir/.airlock.new.$$"' EXIT
trap 'exit 1' INT TERM

say "downloading $url"
download "$url" "$work/$archive" || fail "cannot download $url"
download "$url.sha256" "$work/$archive.sha256" || fail "cannot download $url.sha256; without it the archive cannot be checked, so nothing was installed"

expected=$(cut -d ' ' -f 1 <"$work/$archive.sha256" | head -n 1)
case "$expected" in
*[!0-9a-f]* | '') fail "$url.sha256 does not hold a sha-256 digest; nothing was installed" ;;
esac
[ "${#expected}" -eq 64 ] || fail "$url.sha256 does not hold a sha-256 digest; nothing was installed"
actual=$(digest_of "$work/$archive")
if [ "$actual" != "$expected" ]; then
    fail "the sha-256 of $archive is $actual, but $archive.sha256 says $expected: the download is not the release; nothing was installed"
fi
say "sha-256 checked: $actual"

mkdir "$work/unpacked"
tar -xzf "$work/$archive" -C "$work/unpacked" || fail "cannot unpack $archive; nothing was installed"
binary="$work/unpacked/$name/airlock"
[ -f "$binary" ] || fail "$archive holds no $name/airlock; nothing was installed"

mkdir -p "$install_dir" || fail "cannot create $install_dir"
# Copied beside the destination, then renamed over it: never a half-written airlock.
cp "$binary" "$install_dir/.airlock.new.$$" || fail "cannot write to $install_dir"
chmod 755 "$install_dir/.airlock.new.$$"
mv -f "$install_dir/.airlock.new.$$" "$install_dir/airlock" || fail "cannot write $install_dir/airlock"
say "installed $("$install_dir/airlock" --version 2>/dev/null || echo "airlock $version") in $install_dir/airlock"

case ":${PATH:-}:" in
*":$install_dir:"*) ;;
*) say "$install_dir is not on your PATH; add it, for instance: echo 'export PATH=\"$install_dir:\$PATH\"' >> ~/.profile" ;;
esac
