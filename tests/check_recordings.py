#!/usr/bin/env python3
"""Every recording in tests/native/ was made by a real kernel: its `by`
says "the kernel: Linux ..." (the host's, or the judge VM's with QEMU's CPU
model), names the CPU, and never seccomp-emu.  A recording made by the
emulator would let it judge itself.  Exit 1 naming each bad recording."""
import json
import os
import re
import sys

STORE = sys.argv[1] if len(sys.argv) > 1 else os.path.join(
    os.path.dirname(os.path.abspath(__file__)), 'native')


def bys(store):
    """(path, by) of every recording: JSON files (the Python harnesses) and
    directories holding a `by` file (seccomp-emu-diff)."""
    for root, dirs, files in os.walk(store):
        for name in sorted(files):
            path = os.path.join(root, name)
            if name.endswith('.json'):
                with open(path) as f:
                    yield path, json.load(f).get('by', '')
            elif name == 'by':
                with open(path) as f:
                    yield root, f.read().strip()


def fault(by):
    if 'seccomp-emu' in by.lower():
        return 'made by seccomp-emu, not a kernel'
    if not re.fullmatch(r'the kernel: Linux \S+ (on .+|in QEMU \(.+\)), \d{4}-\d\d-\d\d', by):
        return 'does not say which kernel, CPU and date made it'
    return None


def main():
    bad = []
    n = 0
    for path, by in bys(STORE):
        n += 1
        why = fault(by)
        if why:
            bad.append('%s: %s (by %r)' % (os.path.relpath(path, STORE), why, by))
    for b in bad:
        print('FAIL ' + b)
    print('%d recordings, %d not made by a real kernel' % (n, len(bad)))
    print('%d passed, %d failed' % (n - len(bad), len(bad)))
    return 1 if bad or n == 0 else 0


if __name__ == '__main__':
    sys.exit(main())
