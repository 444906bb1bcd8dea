#!/usr/bin/env python3
"""After a meson test run of the arm64 build under qemu-aarch64
(scripts/test-arm64.sh): every failed test must be one that
qemu-user-differences.txt lists, failing for the reason listed (the
signature must be in its log), and every listed test that ran must have
failed: a listed case that passes means the difference is gone and the
list is stale.  Prints one line per listed case and a summary; exit 1 on
any unlisted failure, missing signature or stale entry.

usage: check_differences.py TESTLOG.json DIFFERENCES.txt"""
import json
import re
import sys


def load_differences(path):
    """{test name: (signature, reason)} from 'name | signature | reason' lines."""
    diffs = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith('#'):
                continue
            parts = [p.strip() for p in line.split('|')]
            if len(parts) != 3 or not all(parts):
                sys.exit('check_differences: %s:%d: want "test | signature | reason"' % (path, n))
            diffs[parts[0]] = (parts[1], parts[2])
    return diffs


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    diffs = load_differences(sys.argv[2])
    results = {}
    with open(sys.argv[1]) as f:
        for line in f:
            d = json.loads(line)
            results[d['name'].split(' / ')[-1]] = d
    bad = 0
    pinned = 0
    for name, d in sorted(results.items()):
        failed = d['result'] not in ('OK', 'EXPECTEDFAIL', 'SKIP')
        if name in diffs:
            sig, reason = diffs[name]
            if not failed:
                print('STALE   %s passes: the qemu-user difference (%s) is gone' % (name, reason))
                bad += 1
            elif sig not in (d.get('stdout') or ''):
                print('WRONG   %s fails, but not with "%s"' % (name, sig))
                bad += 1
            else:
                pinned += 1
        elif failed:
            print('FAIL    %s (%s): not a listed qemu-user difference' % (name, d['result']))
            bad += 1
    print('arm64 under qemu-aarch64: %d tests ran, %d failed as listed qemu-user differences, %d unexplained'
          % (len(results), pinned, bad))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
