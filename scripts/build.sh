#!/usr/bin/env bash
# Installs what is missing, then configures and builds seccomp-emu in build/.
. "$(dirname "$0")/lib/fail-loudly.bash"
cd "$(dirname "$0")/.."
scripts/install-deps.sh
if [ ! -f build/build.ninja ]; then
    quiet meson setup build
fi
quiet meson compile -C build
