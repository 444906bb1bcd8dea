#!/usr/bin/env bash
# Installs what seccomp-emu needs to build and test, on a fresh machine.
# Debian: apt.  Unicorn is not among them: it is built from
# subprojects/unicorn with the project (the host's Unicorn must not decide
# the emulator's speed or behaviour).
# libseccomp-dev: the self-sandbox and --seccomp-profile (with libjansson-dev);
# libcap-dev, xz-utils: the kernel's seccomp selftests (tests/selftests);
# clang + libclang-rt-dev: the libFuzzer harnesses (scripts/fuzz.sh, CI smoke runs);
# groff-base: the manual pages' check.
# qemu-system-x86: the judge VM (tools/vm/, docs/differential-testing.md; its
# kernel comes from scripts/vm-kernel.sh, a Debian .deb unpacked, not installed).
# busybox-static, libzstd-dev, liblua5.4-dev: real programs for the benchmarks (bench/);
# busybox-static, rustc, util-linux (unshare): tests/grants, real programs judged
# by the kernel in a root of read-only bind mounts.
# golang-go, rustc, musl-tools: the stock toolchains that build the
# real-program corpus (tests/programs); Debian's rustc, not rustup's.
# macOS: prints the Homebrew line instead of guessing.
. "$(dirname "$0")/lib/fail-loudly.bash"

if [ "$(uname -s)" = Darwin ]; then
    echo "macOS: brew install meson ninja pkg-config glib capstone cmocka qemu" >&2
    exit 0
fi
if ! command -v apt-get >/dev/null 2>&1; then
    echo "install-deps: no apt-get here; install meson, ninja, pkg-config, a C compiler, glib-2.0, capstone, cmocka" >&2
    exit 0
fi

SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo

need=()
have() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }
for p in meson ninja-build pkg-config gcc gcc-multilib libglib2.0-dev libcapstone-dev \
         libcmocka-dev python3 qemu-user libseccomp-dev libjansson-dev libcap-dev xz-utils clang \
         libclang-rt-dev strace binutils groff-base qemu-system-x86 busybox-static libzstd-dev \
         util-linux golang-go rustc musl-tools liblua5.4-dev; do
    have "$p" || need+=("$p")
done

if [ ${#need[@]} -eq 0 ]; then
    exit 0
fi

export DEBIAN_FRONTEND=noninteractive
quiet $SUDO apt-get update -q
quiet $SUDO apt-get install -y -q --no-install-recommends "${need[@]}"
