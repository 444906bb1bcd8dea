#!/usr/bin/env bash
# The VM leg's batch: every case of the native-leg suites that the judge VM
# should answer (the host lacks what it needs, or SECCOMP_EMU_NATIVE_LEG=vm
# asks for the VM everywhere) is collected by one pass of the suites with
# SECCOMP_EMU_NATIVE=collect (nothing is judged), then answered in one boot
# per QEMU CPU model (tools/vm/vmjudge.py spool); the test run that follows
# reads the answers from BUILD/vm-cache.  Cached answers are not asked again.
#   scripts/vm-judge.sh [BUILD] [MESON TEST ARGUMENT...]
# Default: --suite diff --suite examples+diff --suite signals --suite hostile
# --suite raw --suite trace --suite programs.
. "$(dirname "$0")/lib/fail-loudly.bash"
cd "$(dirname "$0")/.."
build=${1:-build}
shift || true
args=("$@")
[ ${#args[@]} -gt 0 ] || args=(--suite diff --suite examples+diff --suite signals
                               --suite hostile --suite raw --suite trace --suite programs)
scripts/vm-kernel.sh "$build"
rm -rf "$build/vm-spool"
start=$(date +%s)
# the collect pass fails every case it does not judge: its status says nothing
SECCOMP_EMU_NATIVE=collect meson test -C "$build" --no-rebuild "${args[@]}" \
    --logbase vm-collect >/dev/null 2>&1 || true
collected=$(date +%s)
n=0
[ -d "$build/vm-spool" ] && n=$(ls "$build/vm-spool" | wc -l)
python3 tools/vm/vmjudge.py spool --build "$build"
echo "vm-judge: $n cases collected in $((collected - start)) s, answered in $(($(date +%s) - collected)) s"
