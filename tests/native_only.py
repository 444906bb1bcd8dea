#!/usr/bin/env python3
"""Run a program natively, for a test with no emulated leg (a probe of the
host CPU itself, tests/signals/cpuid.c), where this host can run it: an
i386 program needs IA-32 emulation (tests/hostcaps).  Where the host
cannot, the test is skipped (status 77) and says why: no other kernel, nor
the judge VM's CPU (QEMU's), can stand in for this host's CPU.

usage: native_only.py HOSTCAPS PROGRAM [ARG...]"""
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from native_oracle import elf_is_i386, host_caps  # noqa: E402

SKIP = 77


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    probe, argv = sys.argv[1], sys.argv[2:]
    if elf_is_i386(argv[0]) and not host_caps(probe)['ia32']:
        print('SKIP: %s is an i386 program and this host runs none (no IA-32 emulation); '
              'the 64-bit run probes the same CPU' % os.path.basename(argv[0]))
        return SKIP
    return subprocess.run(argv).returncode


if __name__ == '__main__':
    sys.exit(main())
