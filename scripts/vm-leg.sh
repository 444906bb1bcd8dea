#!/usr/bin/env bash
# The VM leg in CI: the i386 half of the native-leg suites (what a host
# without IA-32 emulation cannot judge) and the hostile and raw corpora,
# judged by a real kernel in QEMU alone (SECCOMP_EMU_NATIVE_LEG=vm): one
# boot per QEMU CPU model answers the batch (scripts/vm-judge.sh), then the
# tests run; each recording in tests/native/ is compared with the VM's
# answer, and the emulator with the VM's kernel.  Known VM-CPU differences
# are pinned in tests/native/vm-differences.txt (docs/differential-testing.md).
#   scripts/vm-leg.sh [BUILD]
. "$(dirname "$0")/lib/fail-loudly.bash"
cd "$(dirname "$0")/.."
build=${1:-build}
start=$(date +%s)
mapfile -t tests < <(meson test -C "$build" --no-rebuild --list 2>/dev/null |
    sed -n 's/^seccomp-emu:\(diff\|examples+diff\|signals\|hostile\|raw\|programs\) \/ //p' |
    grep -E '32|^hostile_(tricks|floods)$|^raw-cli$')
scripts/vm-kernel.sh "$build"
SECCOMP_EMU_NATIVE_LEG=vm scripts/vm-judge.sh "$build" "${tests[@]}"
SECCOMP_EMU_NATIVE_LEG=vm meson test -C "$build" --no-rebuild --print-errorlogs \
    --logbase vm-leg "${tests[@]}"
echo "vm-leg: ${#tests[@]} tests judged by the VM, $(($(date +%s) - start)) s in all"
