#!/usr/bin/env bash
# The seed's experiment, end to end: a safe job and a malicious job, each
# run by seccomp-emu in strict mode (set before the job's first instruction,
# as the cpushare loader did).  Reports each job's exit code and signal.
set -uo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh || exit 1

emu=build/seccomp-emu
status=0
run_job() { # name, expected "exit_code E signal S", program
    local name=$1 want=$2 prog=$3
    "$emu" --strict "$prog"
    local rc=$? code=0 sig=0
    if [ $rc -gt 128 ]; then sig=$((rc - 128)); else code=$rc; fi
    local got="exit_code $code signal $sig"
    if [ "$got" = "$want" ]; then
        echo "demo: $name: $got (as expected)"
    else
        echo "demo: $name: $got, expected $want" >&2
        status=1
    fi
}

for bits in 64 32; do
    run_job "safe job ($bits-bit)" "exit_code 0 signal 0" build/examples/safe_job$bits
    run_job "malicious job ($bits-bit)" "exit_code 0 signal 9" build/examples/malicious_job$bits
done
exit $status
