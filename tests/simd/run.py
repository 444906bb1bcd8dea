#!/usr/bin/env python3
"""Run the SIMD differential test natively and under seccomp-emu, compare.

    run.py --emu EMU --native PROG [--guest PROG] [--max-report N] [--stats FILE]

PROG is tests/simd's simd64 (both legs), or simd64x32 natively and simd32
under seccomp-emu (--guest): the same instruction bytes, which mean the same
in 32- and 64-bit mode for every case the program runs (the mode-dependent
ones it skips), judged by this CPU, which cannot run an i386 program.

The cases whose CPUID feature only one side has (VAES on an AVX-512 host,
say, which the engine does not offer) are skipped on both sides; those both
lack run on both (they must fault alike).  The destination of RCP and RSQRT
is compared within the architectural relative error of 1.5 * 2^-12 and
exactly where the input is a special value.  Exit 0 if every line agrees.
"""
import argparse
import re
import struct
import subprocess
import sys


def run(argv, timeout):
    p = subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    if p.returncode != 0:
        sys.exit('run.py: %s ended with status %d: %s' % (
            ' '.join(argv), p.returncode, p.stderr.decode(errors='replace')[-2000:]))
    return p.stdout.decode()


def f32(x):
    return struct.unpack('<f', struct.pack('<I', x))[0]


def approx_equal(a, b):
    """Two RCP/RSQRT results: equal, or both finite within 2 * 1.5 * 2^-12."""
    if a == b:
        return True
    fa, fb = f32(a), f32(b)
    if fa != fa or fb != fb or abs(fa) == float('inf') or abs(fb) == float('inf'):
        return False
    if fa == 0 or fb == 0:
        return False
    if (a ^ b) & 0x80000000:
        return False
    return abs(fa - fb) <= 3 * 2 ** -12 * max(abs(fa), abs(fb))


def line_equal(n, e):
    if n == e:
        return True
    mn = re.match(r'(.*) ok (\w+) A ((?:\w+ ?)+)$', n)
    me = re.match(r'(.*) ok (\w+) A ((?:\w+ ?)+)$', e)
    if not mn or not me or mn.group(1) != me.group(1) or mn.group(2) != me.group(2):
        return False
    vn, ve = mn.group(3).split(), me.group(3).split()
    if len(vn) != len(ve):
        return False
    lanes = [(int(x, 16), int(y, 16)) for x, y in zip(vn, ve) if len(x) == 8]
    rest = [(x, y) for x, y in zip(vn, ve) if len(x) != 8]
    return all(x == y for x, y in rest) and all(approx_equal(x, y) for x, y in lanes)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--emu', required=True)
    ap.add_argument('--native', required=True)
    ap.add_argument('--guest', help='the program seccomp-emu runs (default: --native)')
    ap.add_argument('--emu-arg', action='append', default=[])
    ap.add_argument('--max-report', type=int, default=40)
    ap.add_argument('--timeout', type=int, default=1200)
    a = ap.parse_args()
    guest = a.guest or a.native
    emu = [a.emu] + a.emu_arg + [guest]

    nat_feat = set(run([a.native, 'features'], 60).split()[0].split(','))
    emu_feat = set(run(emu + ['features'], 60).split()[0].split(','))
    skip = sorted(nat_feat ^ emu_feat)
    args = ['run']
    if skip:
        args.append('--skip=' + ','.join(skip))
    if 'AVX' in skip:
        args.append('--sse-only')
    print('native features: %s' % ','.join(sorted(nat_feat)))
    print('engine features: %s' % ','.join(sorted(emu_feat)))
    print('skipped (one side only): %s' % (','.join(skip) or 'none'))

    nat = run([a.native] + args, a.timeout).splitlines()
    got = run(emu + args, a.timeout).splitlines()
    if len(nat) != len(got):
        print('FAIL: %d lines natively, %d under seccomp-emu' % (len(nat), len(got)))
        return 1
    cases, skipped, bad_cases, runs, faults, ill = set(), set(), {}, 0, 0, 0
    reasons = {}
    for n, e in zip(nat, got):
        case = n.split(':')[0].split()
        cid, key = case[0], case[1]
        if n.endswith(('skip mode',)) or ': skip ' in n:
            skipped.add(key)
            why = n.split(': skip ')[1]
            reasons[why] = reasons.get(why, 0) + 1
            if n != e:
                bad_cases.setdefault(key, (n, e))
            continue
        cases.add(key)
        runs += 1
        if ' sig 4 ' in n:
            ill += 1
        elif ' sig ' in n:
            faults += 1
        if not line_equal(n, e):
            bad_cases.setdefault(key, (n, e))
    forms = {k.replace('-rip', '').replace('-vvvv', '') for k in cases | skipped}
    covered = {k.replace('-rip', '').replace('-vvvv', '') for k in cases}
    print('forms from the decoder table: %d; run and compared: %d (%d skipped: %s)' % (
        len(forms), len(covered), len(forms - covered),
        ', '.join('%s %d' % kv for kv in sorted(reasons.items())) or '-'))
    print('cases %d, runs %d (%d raised SIGILL natively, %d another signal)' % (
        len(cases), runs, ill, faults))
    if bad_cases:
        print('FAIL: %d cases differ; native first, then seccomp-emu:' % len(bad_cases))
        for key, (n, e) in list(bad_cases.items())[:a.max_report]:
            print('  ' + n)
            print('  ' + e)
        return 1
    print('all %d runs agree' % runs)
    return 0


if __name__ == '__main__':
    sys.exit(main())
