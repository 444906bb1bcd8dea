#!/usr/bin/env bash
# The VM leg in CI: every case of the native-leg suites that can run in the
# judge VM is answered by a real kernel there (one boot per QEMU CPU model,
# scripts/vm-judge.sh), then the suites run judged by the VM alone
# (SECCOMP_EMU_NATIVE_LEG=vm): each recording in tests/native/ is compared
# with the VM's answer, and the emulator with the VM's kernel.  Known
# VM-CPU differences are pinned in tests/native/vm-differences.txt.
#   scripts/vm-leg.sh [BUILD]
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
suites=(diff examples+diff signals hostile raw trace)
start=$(date +%s)
SECCOMP_EMU_NATIVE_LEG=vm scripts/vm-judge.sh "$build" "${suites[@]}"
args=()
for s in "${suites[@]}"; do args+=(--suite "$s"); done
SECCOMP_EMU_NATIVE_LEG=vm meson test -C "$build" --no-rebuild --print-errorlogs \
    --logbase vm-leg "${args[@]}"
echo "vm-leg: $(($(date +%s) - start)) s in all"
