#!/usr/bin/env bash
# Installs what is missing, then configures and builds seccomp-emu in build/.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
if [ ! -f build/build.ninja ]; then
    meson setup build >/dev/null
fi
meson compile -C build >/dev/null
