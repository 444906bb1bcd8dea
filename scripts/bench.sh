#!/usr/bin/env bash
# The benchmark suite: fetches the i386 packages its real-program jobs use
# (scripts/bench-deps.sh), builds, then runs every bench/ guest natively,
# under QEMU user mode (when installed) and under seccomp-emu, in
# alternation, and prints medians, ratios and peak memory (bench/run.py
# --help for options: --reps N, --quick, --only REGEX, --compare OLD.json,
# --table FILE, --smoke).
. "$(dirname "$0")/lib/fail-loudly.bash"
cd "$(dirname "$0")/.."
scripts/bench-deps.sh
scripts/build.sh
# An existing build dir was configured before the i386 libzstd.a or liblua5.4.a was there.
if { [ -f bench/debian-i386/usr/lib/i386-linux-gnu/libzstd.a ] && [ ! -x build/bench/zstd32 ]; } ||
   { [ -f bench/debian-i386/usr/lib/i386-linux-gnu/liblua5.4.a ] && [ ! -x build/bench/lua32 ]; }; then
    quiet meson setup --reconfigure build
    quiet meson compile -C build
fi
exec python3 bench/run.py "$@"
