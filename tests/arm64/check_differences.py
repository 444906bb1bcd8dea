#!/usr/bin/env python3
"""After a meson test run of the arm64 build under qemu-aarch64
(scripts/test-arm64.sh): every failed test must be one that
qemu-user-differences.txt lists for this host's CPU vendor, failing for the
reason listed (the signature must be in its log), and every listed test
that ran must have failed: a listed case that passes means the difference
is gone and the list is stale.  Prints one line per listed case and a
summary; exit 1 on any unlisted failure, missing signature or stale entry.

    check_differences.py TESTLOG.json DIFFERENCES.txt
        judges a run on this host (its vendor: /proc/cpuinfo, by the rule of
        tests/native_oracle.py), or of --vendor intel|amd;
    check_differences.py --replay HOST_DIR DIFFERENCES.txt
        judges the list against a recorded host (tests/hosts/HOST/): the
        failures of its run (arm64-failures.txt), its vendor from its cpuid
        leaves (cpuid.txt); any other test the list names passed there;
    check_differences.py --record FAILURES.txt TESTLOG.json DIFFERENCES.txt
        also writes this run's failures in arm64-failures.txt's form."""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
from native_oracle import host_vendor  # noqa: E402

HOSTS = ('any', 'amd', 'intel')


def load_differences(path, vendor):
    """{test name: (signature, reason)} of the 'name | hosts | signature |
    reason' lines whose hosts take in VENDOR."""
    diffs = {}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith('#'):
                continue
            parts = [p.strip() for p in line.split('|')]
            if len(parts) != 4 or not all(parts) or parts[1] not in HOSTS:
                sys.exit('check_differences: %s:%d: want "test | any|amd|intel | signature | reason"'
                         % (path, n))
            if parts[1] in ('any', vendor):
                if parts[0] in diffs:
                    sys.exit('check_differences: %s:%d: %s listed twice for %s'
                             % (path, n, parts[0], vendor))
                diffs[parts[0]] = (parts[2], parts[3])
    return diffs


def recorded_vendor(cpuid_path):
    """intel or amd from a recorded host's leaf 0 (EBX-EDX-ECX: the vendor
    string), by the same rule as host_vendor()."""
    with open(cpuid_path) as f:
        for line in f:
            if line.startswith('CPUID 00000000:'):
                regs = line.split(':', 1)[1].split()[0].split('-')
                ident = b''.join(bytes.fromhex(regs[i])[::-1] for i in (1, 3, 2)).decode()
                return 'amd' if ident in ('AuthenticAMD', 'HygonGenuine') else 'intel'
    sys.exit('check_differences: %s has no leaf 0' % cpuid_path)


def load_testlog(path):
    results = {}
    with open(path) as f:
        for line in f:
            d = json.loads(line)
            results[d['name'].split(' / ')[-1]] = d
    return results


def load_failures(path, names):
    """A recorded run as a testlog: the failures in PATH ('test | a line
    of its log'), and every other test of NAMES passed."""
    results = {n: {'result': 'OK', 'stdout': ''} for n in names}
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip('\n')
            if not line.strip() or line.startswith('#'):
                continue
            test, sep, log = line.partition(' | ')
            if not sep:
                sys.exit('check_differences: %s:%d: want "test | a line of its log"' % (path, n))
            results[test.strip()] = {'result': 'FAIL', 'stdout': log}
    return results


def record(path, results, diffs):
    """The failures of a run, each with the line of its log that holds its
    listed signature (else its last line)."""
    with open(path, 'w') as f:
        for name, d in sorted(results.items()):
            if d['result'] in ('OK', 'EXPECTEDFAIL', 'SKIP'):
                continue
            lines = [x for x in (d.get('stdout') or '').split('\n') if x.strip()] or ['(no log)']
            sig = diffs.get(name, (None,))[0]
            line = next((x for x in lines if sig and sig in x), lines[-1])
            f.write('%s | %s\n' % (name, line.strip()))


def main():
    p = argparse.ArgumentParser(description=__doc__.split('\n\n')[0])
    p.add_argument('--vendor', choices=['intel', 'amd'])
    p.add_argument('--replay', metavar='HOST_DIR')
    p.add_argument('--record', metavar='FAILURES')
    p.add_argument('paths', nargs='+', metavar='[TESTLOG] DIFFERENCES')
    a = p.parse_args()
    if len(a.paths) != (1 if a.replay else 2):
        p.error('want TESTLOG DIFFERENCES, or --replay HOST_DIR DIFFERENCES')
    if a.replay:
        vendor = recorded_vendor(os.path.join(a.replay, 'cpuid.txt'))
        diffs = load_differences(a.paths[0], vendor)
        results = load_failures(os.path.join(a.replay, 'arm64-failures.txt'), diffs)
        where = 'the recorded host %s (%s)' % (os.path.basename(a.replay.rstrip('/')), vendor)
    else:
        vendor = a.vendor or host_vendor()
        diffs = load_differences(a.paths[1], vendor)
        results = load_testlog(a.paths[0])
        where = 'this host (%s)' % vendor
        if a.record:
            record(a.record, results, diffs)
    bad = 0
    pinned = 0
    for name, d in sorted(results.items()):
        failed = d['result'] not in ('OK', 'EXPECTEDFAIL', 'SKIP')
        # A case's twin through the soft TLB (suite 'softmmu',
        # SECCOMP_EMU_WINDOW=0) runs as the case does on arm64, whose code
        # generator has no base register for direct accesses: where it
        # ran, it differs as the case.
        twin = name[:-len('-softmmu')] if name.endswith('-softmmu') else None
        if name not in diffs and twin in diffs:
            diffs[name] = diffs[twin]
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
    print('arm64 under qemu-aarch64 on %s: %d tests %s, %d failed as listed qemu-user '
          'differences, %d unexplained' % (where, len(results),
                                           'named by the list or failed' if a.replay else 'ran',
                                           pinned, bad))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main())
