#!/usr/bin/env bash
# What the benchmark's i386 real-program jobs need beyond
# scripts/install-deps.sh (which installs the x86_64 busybox-static and
# libzstd-dev): Debian's i386 busybox-static and libzstd-dev, unpacked, not
# installed, into bench/debian-i386/ (bin/busybox, usr/lib/i386-linux-gnu/
# libzstd.a; VERSIONS says which packages).  `apt-get download` needs the
# i386 architecture in apt's lists, so it is added (that installs nothing
# by itself).  Without apt, or when the download fails, it says so and the
# bench notes the i386 real-program jobs as skipped.
set -euo pipefail
cd "$(dirname "$0")/.."
dest=bench/debian-i386
[ -x "$dest/bin/busybox" ] && [ -f "$dest/usr/lib/i386-linux-gnu/libzstd.a" ] && exit 0
if ! command -v apt-get >/dev/null 2>&1 || ! command -v dpkg >/dev/null 2>&1; then
    echo "bench-deps: no apt-get/dpkg here: the i386 busybox and zstd jobs will be skipped" >&2
    exit 0
fi
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
pkgs=(busybox-static:i386 libzstd-dev:i386)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod a+rwx "$tmp"  # apt's download user writes here
fetch() { (cd "$tmp" && apt-get download -q "${pkgs[@]}" >/dev/null 2>&1); }
if ! fetch; then
    if ! dpkg --print-foreign-architectures | grep -qx i386; then
        $SUDO dpkg --add-architecture i386
    fi
    # A mirror mid-sync can fail one index (seen for bookworm-security's
    # i386 list); the main archive's lists still serve the download.
    $SUDO apt-get update -q >/dev/null 2>&1 || echo "bench-deps: apt-get update reported errors; trying the lists it has" >&2
    fetch || { echo "bench-deps: apt-get download ${pkgs[*]} failed: the i386 busybox and zstd jobs will be skipped" >&2; exit 0; }
fi
rm -rf "$dest"
mkdir -p "$dest"
for deb in "$tmp"/*.deb; do
    dpkg-deb -x "$deb" "$dest"
    dpkg-deb -f "$deb" Package Architecture Version | tr '\n' ' ' >> "$dest/VERSIONS"
    echo >> "$dest/VERSIONS"
done
echo "bench-deps: unpacked $(wc -l < "$dest/VERSIONS") i386 packages into $dest" >&2
