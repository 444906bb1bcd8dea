#!/usr/bin/env bash
# The whole test suite with seccomp-emu and its tests built with ASan+UBSan
# (build-asan/).  Any sanitizer report fails the test that triggered it.
. "$(dirname "$0")/lib/fail-loudly.bash"
cd "$(dirname "$0")/.."
scripts/install-deps.sh
if [ ! -f build-asan/build.ninja ]; then
    quiet meson setup build-asan -Db_sanitize=address,undefined -Db_lundef=false
fi
quiet meson compile -C build-asan
scripts/libseccomp-src.sh build-asan
# Leak checking is off: Unicorn keeps its translation caches to exit, and
# seccomp-emu leaves by _exit() like the guest.  halt_on_error makes UBSan fatal.
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
meson test -C build-asan --print-errorlogs "$@"
