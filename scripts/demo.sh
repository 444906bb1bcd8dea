#!/usr/bin/env bash
# The seed's experiment, end to end over real sockets: examples/master.py
# listens on loopback and hands each job to seccomp-emu with the job's
# descriptors mapped to its sockets (fd 0 input, fd 1 results, nothing
# else).  Raw bytecode jobs start in strict mode from their first
# instruction; the ELF jobs under --strict, as the cpushare loader did.
# For each job the master reports "exit_code E signal S": the safe jobs
# count and report and exit 0, the malicious ones are killed by signal 9.
. "$(dirname "$0")/lib/fail-loudly.bash"
cd "$(dirname "$0")/.."
scripts/build.sh || exit 1
exec python3 examples/master.py --emu build/seccomp-emu --build build
