#!/usr/bin/env bash
# Builds everything and runs all tests: unit tests (cmocka) and the
# differential tests that compare seccomp-emu with the real kernel.
. "$(dirname "$0")/lib/fail-loudly.bash"
cd "$(dirname "$0")/.."
scripts/build.sh
scripts/libseccomp-src.sh build   # libseccomp's regression tests (test libseccomp-suite)
# A host that cannot run every case natively (no IA-32 emulation, rdtsc not
# turned off by strict mode, ...): a real kernel in a VM judges the cases
# that have no recording (docs/differential-testing.md), so fetch it.
if build/tests/hostcaps | grep -q ' no$'; then
    scripts/vm-kernel.sh build ||
        echo "test: no kernel for the judge VM: the cases this host cannot run and that have no recording will fail" >&2
fi
meson test -C build --print-errorlogs "$@"
