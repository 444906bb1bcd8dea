#!/usr/bin/env bash
# What the benchmark's i386 real-program jobs need beyond
# scripts/install-deps.sh (which installs the x86_64 busybox-static,
# libzstd-dev and liblua5.4-dev): Debian's i386 busybox-static, libzstd-dev
# and liblua5.4-dev, unpacked, not installed, into bench/debian-i386/
# (bin/busybox, usr/lib/i386-linux-gnu/libzstd.a and liblua5.4.a; VERSIONS
# says which packages).  `apt-get download` needs the
# i386 architecture in apt's lists, so it is added (that installs nothing
# by itself).  Without apt, or when the download fails, it says so and the
# bench notes the i386 real-program jobs as skipped.
. "$(dirname "$0")/lib/fail-loudly.bash"
cd "$(dirname "$0")/.."
dest=bench/debian-i386
[ -x "$dest/bin/busybox" ] && [ -f "$dest/usr/lib/i386-linux-gnu/libzstd.a" ] &&
    [ -f "$dest/usr/lib/i386-linux-gnu/liblua5.4.a" ] && exit 0
if ! command -v apt-get >/dev/null 2>&1 || ! command -v dpkg >/dev/null 2>&1; then
    echo "bench-deps: no apt-get/dpkg here: the i386 busybox, zstd and lua jobs will be skipped" >&2
    exit 0
fi
SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
pkgs=(busybox-static:i386 libzstd-dev:i386 liblua5.4-dev:i386)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
chmod a+rwx "$tmp"  # apt's download user writes here
fetch() { (cd "$tmp" && apt-get download -q "${pkgs[@]}" >/dev/null 2>&1); }
if ! fetch; then
    # The i386 architecture is added only for this download and taken away
    # again (nothing of i386 gets installed): left in place, every later
    # `apt-get update` (scripts/install-deps.sh's too) would fetch i386 lists,
    # and fail whenever a mirror is mid-sync on one of them (seen here for
    # bookworm-security's i386 list), which the download itself survives.
    added=
    if ! dpkg --print-foreign-architectures | grep -qx i386; then
        $SUDO dpkg --add-architecture i386
        added=yes
    fi
    $SUDO apt-get update -q >/dev/null 2>&1 || echo "bench-deps: apt-get update reported errors; trying the lists it has" >&2
    ok=yes
    fetch || ok=
    if [ -n "$added" ]; then
        $SUDO dpkg --remove-architecture i386 || true
        $SUDO apt-get update -q >/dev/null 2>&1 || true
    fi
    [ -n "$ok" ] || { echo "bench-deps: apt-get download ${pkgs[*]} failed: the i386 busybox, zstd and lua jobs will be skipped" >&2; exit 0; }
fi
rm -rf "$dest"
mkdir -p "$dest"
for deb in "$tmp"/*.deb; do
    dpkg-deb -x "$deb" "$dest"
    dpkg-deb -f "$deb" Package Architecture Version | tr '\n' ' ' >> "$dest/VERSIONS"
    echo >> "$dest/VERSIONS"
done
echo "bench-deps: unpacked $(wc -l < "$dest/VERSIONS") i386 packages into $dest" >&2
