#!/usr/bin/env bash
# Installs what seccomp-emu needs to build and test, on a fresh machine.
# Debian: apt (Unicorn >= 2.1 comes from a pinned trixie source on bookworm,
# because bookworm's 2.0.1 takes the slow store path: SPEC section 7).
# libseccomp-dev: the self-sandbox; clang + libclang-rt-dev: the libFuzzer
# harnesses (scripts/fuzz.sh, CI smoke runs); busybox-static + libzstd-dev:
# the benchmark's real programs (bench/; their i386 builds: scripts/bench-deps.sh).
# macOS: prints the Homebrew line instead of guessing.
set -euo pipefail

if [ "$(uname -s)" = Darwin ]; then
    echo "macOS: brew install meson ninja pkg-config glib unicorn capstone cmocka" >&2
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-deps: no apt-get here; install meson, ninja, pkg-config, glib-2.0, unicorn>=2.1, capstone, cmocka" >&2
    exit 0
fi

SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo

need=()
have() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }
for p in meson ninja-build pkg-config gcc gcc-multilib libglib2.0-dev libcapstone-dev \
         libcmocka-dev python3 qemu-user libseccomp-dev clang libclang-rt-dev strace binutils \
         busybox-static libzstd-dev; do
    have "$p" || need+=("$p")
done

unicorn_ok() {
    pkg-config --atleast-version=2.1 unicorn 2>/dev/null
}

if [ ${#need[@]} -eq 0 ] && unicorn_ok; then
    exit 0
fi

export DEBIAN_FRONTEND=noninteractive
codename=$(. /etc/os-release; echo "${VERSION_CODENAME:-}")
if ! unicorn_ok && [ "$codename" = bookworm ]; then
    # Only the two Unicorn packages come from trixie; everything else stays bookworm.
    echo "deb http://deb.debian.org/debian trixie main" | $SUDO tee /etc/apt/sources.list.d/seccomp-emu-trixie.list >/dev/null
    $SUDO tee /etc/apt/preferences.d/seccomp-emu-trixie >/dev/null <<'PIN'
Package: *
Pin: release n=trixie
Pin-Priority: 100

Package: libunicorn-dev libunicorn2t64
Pin: release n=trixie
Pin-Priority: 990
PIN
fi
$SUDO apt-get update -q >/dev/null
if ! unicorn_ok; then need+=(libunicorn-dev); fi
$SUDO apt-get install -y -q --no-install-recommends "${need[@]}" >/dev/null
unicorn_ok || { echo "install-deps: Unicorn >= 2.1 could not be installed" >&2; exit 1; }
