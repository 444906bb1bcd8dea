#!/usr/bin/env bash
# Builds everything and runs all tests: unit tests (cmocka) and the
# differential tests that compare seccomp-emu with the real kernel.
. "$(dirname "$0")/lib/fail-loudly.bash"
cd "$(dirname "$0")/.."
scripts/build.sh
scripts/libseccomp-src.sh build   # libseccomp's regression tests (test libseccomp-suite)
meson test -C build --print-errorlogs "$@"
