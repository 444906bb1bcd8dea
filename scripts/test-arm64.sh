#!/usr/bin/env bash
# seccomp-emu on an arm64 host, from this x86-64 Debian machine: cross-builds
# it for aarch64 (build-arm64/, build-aux/cross/aarch64-linux-gnu.ini: clang
# and the aarch64 binutils, Debian's :arm64 libraries), with the x86 guests
# built natively, then runs the test suite with every seccomp-emu and tool
# run under qemu-aarch64 (binfmt_misc, so the harnesses' own execs of
# seccomp-emu go there too), then the demo (scripts/demo.sh's command).
# The native legs still run on this host's kernel: the x86 guests are the
# same either way, and the kernel judges.
#
# The self-sandbox is left out of this build (-Dself_sandbox=disabled):
# qemu-user answers seccomp(2) with ENOSYS, so every run would exit 126.
#
# usage: scripts/test-arm64.sh [meson test arguments, e.g. --suite unit or --no-suite signals]
. "$(dirname "$0")/lib/fail-loudly.bash"
cd "$(dirname "$0")/.."
scripts/install-deps.sh

SUDO=
[ "$(id -u)" -eq 0 ] || SUDO=sudo
have() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'; }
# gcc-aarch64-linux-gnu is not used: it conflicts with gcc-multilib, which
# the 32-bit guests need.
pkgs=(binutils-aarch64-linux-gnu qemu-user-static clang
      libc6-dev:arm64 libgcc-12-dev:arm64 libglib2.0-dev:arm64 libcapstone-dev:arm64
      libcmocka-dev:arm64 libseccomp-dev:arm64 libjansson-dev:arm64)
need=()
for p in "${pkgs[@]}"; do have "$p" || need+=("$p"); done
if [ ${#need[@]} -gt 0 ]; then
    dpkg --print-foreign-architectures | grep -qx arm64 || $SUDO dpkg --add-architecture arm64
    quiet $SUDO apt-get update -q
    DEBIAN_FRONTEND=noninteractive quiet $SUDO apt-get install -y -q --no-install-recommends "${need[@]}"
fi

# aarch64 programs started by exec (the harnesses start seccomp-emu) go to
# qemu-aarch64 through binfmt_misc; Debian's qemu-user-static ships the
# entry, registered here if the machine has not.
binfmt=/proc/sys/fs/binfmt_misc
if [ ! -e "$binfmt/qemu-aarch64" ]; then
    [ -e "$binfmt/register" ] || $SUDO mount -t binfmt_misc binfmt_misc "$binfmt"
    $SUDO sh -c "cat /usr/lib/binfmt.d/qemu-aarch64.conf > $binfmt/register"
fi
grep -qx enabled "$binfmt/qemu-aarch64" || { echo "test-arm64: binfmt_misc qemu-aarch64 is not enabled" >&2; exit 1; }

if [ ! -f build-arm64/build.ninja ]; then
    quiet meson setup build-arm64 --cross-file build-aux/cross/aarch64-linux-gnu.ini \
        -Dself_sandbox=disabled
fi
quiet meson compile -C build-arm64
file -b build-arm64/seccomp-emu | grep -q aarch64 || { echo "test-arm64: build-arm64/seccomp-emu is not an aarch64 program" >&2; exit 1; }

# Failures are judged after the run: each must be a qemu-user difference
# listed in tests/arm64/qemu-user-differences.txt for this host's CPU
# vendor, failing with its listed signature, and each listed test that ran
# must fail (else the list is stale).  The failures are also written to
# build-arm64/arm64-failures.txt, the form a recorded host keeps them in
# (tests/hosts/README.md).
meson test -C build-arm64 --num-processes 2 "$@" || true
status=0
python3 tests/arm64/check_differences.py --record build-arm64/arm64-failures.txt \
    build-arm64/meson-logs/testlog.json tests/arm64/qemu-user-differences.txt || status=1
echo "== the demo (scripts/demo.sh) with the arm64 seccomp-emu"
python3 examples/master.py --emu build-arm64/seccomp-emu --build build-arm64 || status=1
exit $status
