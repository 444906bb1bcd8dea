#!/usr/bin/env bash
# The benchmark suite: builds, then runs every bench/ guest natively, under
# QEMU user mode (when installed) and under seccomp-emu, in alternation, and
# prints medians, ratios and peak memory (bench/run.py --help for options:
# --reps N, --only REGEX, --compare OLD.json, --readme README.md, --smoke).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/build.sh
exec python3 bench/run.py "$@"
