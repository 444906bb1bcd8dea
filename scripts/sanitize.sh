#!/usr/bin/env bash
# The whole test suite with seccomp-emu and its tests built with ASan+UBSan
# (build-asan/).  Any sanitizer report fails the test that triggered it.
#
#   scripts/sanitize.sh [meson test arguments]
#   scripts/sanitize.sh --thread [meson test arguments]
#
# --thread: ThreadSanitizer instead (build-tsan/), on seccomp-emu's own
# threads (one host thread per guest task, the scheduler's timer, the
# parallel engines of issue 35); by default only the suites where guests
# run several threads (tasks, litmus).  It checks the emulator's own state,
# not the guests' memory: the code Unicorn generates is not instrumented.
# That build has no self-sandbox: ThreadSanitizer's runtime opens
# /proc/self/maps from any thread, which the sandbox kills with SIGSYS.
. "$(dirname "$0")/lib/fail-loudly.bash"
cd "$(dirname "$0")/.."
scripts/install-deps.sh
if [ "${1-}" = --thread ]; then
    shift
    [ $# -gt 0 ] || set -- --suite tasks --suite litmus
    if [ ! -f build-tsan/build.ninja ]; then
        quiet meson setup build-tsan -Db_sanitize=thread -Db_lundef=false -Dself_sandbox=disabled
    fi
    quiet meson compile -C build-tsan
    # halt_on_error: the first report fails its test, as under ASan.
    export TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1
    exec meson test -C build-tsan --print-errorlogs "$@"
fi
if [ ! -f build-asan/build.ninja ]; then
    quiet meson setup build-asan -Db_sanitize=address,undefined -Db_lundef=false
fi
quiet meson compile -C build-asan
scripts/libseccomp-src.sh build-asan
# Leak checking is off: Unicorn keeps its translation caches to exit, and
# seccomp-emu leaves by _exit() like the guest.  halt_on_error makes UBSan fatal.
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1
# The kernel's selftests that nothing judges wait out their time here too:
# the README's test command has counted them (tests/selftests).
export SECCOMP_EMU_KST_JUDGED_ONLY=1
meson test -C build-asan --print-errorlogs "$@"
