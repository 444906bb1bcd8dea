#!/usr/bin/env bash
# Differential fuzzing of seccomp-emu against this host's kernel (issue 25):
#   scripts/difffuzz.sh SECONDS [SEED [FAMILY]]
# FAMILY: calls (default), mm (the memory-management calls over a region
# with holes, the vDSO, the break and the stack; issue 33), tasks
# (threads, futexes, pipes, tgkill, fork and wait4; issue 31) or ldt
# (segment descriptors: modify_ldt, set_thread_area, arch_prctl, segment
# loads, far transfers, lar/lsl/verr/verw; issue 33).  For what this host
# cannot judge (i386 without IA-32, an LDT its CPU ignores), run
# tests/difffuzz/difffuzz.py ... run SECONDS --judge vm (the judge VM).
# Runs random op lists (tests/difffuzz) natively and under build/seccomp-emu
# for SECONDS, prints every difference (minimised), saves each new one under
# build/difffuzz-new/, and ends with the number of programs and calls run
# and the differences found.  Exit 1 if any difference is not pinned in
# tests/difffuzz/known.txt.  Needs a build (scripts/build.sh).
. "$(dirname "$0")/lib/fail-loudly.bash"
cd "$(dirname "$0")/.."
if [ $# -lt 1 ] || ! [[ $1 =~ ^[0-9]+$ ]]; then
    echo "usage: scripts/difffuzz.sh SECONDS [SEED [FAMILY]]" >&2
    exit 2
fi
for f in build/seccomp-emu build/tests/guests/difffuzz32 build/tests/guests/difffuzz64; do
    if [ ! -x "$f" ]; then
        echo "difffuzz: $f missing: run scripts/build.sh first" >&2
        exit 2
    fi
done
seed=()
[ $# -ge 2 ] && seed=(--seed "$2")
[ $# -ge 3 ] && seed+=(--family "$3")
exec python3 -u tests/difffuzz/difffuzz.py --emu build/seccomp-emu \
    --guest32 build/tests/guests/difffuzz32 --guest64 build/tests/guests/difffuzz64 \
    run "$1" "${seed[@]}" --save build/difffuzz-new
