#!/usr/bin/env python3
"""libseccomp's own regression tests, through seccomp-emu.

libseccomp's source is not in this tree and no Debian binary package ships
its tests: give a checkout of the tag that matches the installed library
(--src, e.g. v2.5.4 for Debian bookworm); without one the script skips (77).

  bpf-sim: each test program writes its filter with -b (seccomp_export_bpf);
      every vector of its .tests file whose arch is x86_64, x86 or x32 runs
      through seccomp-emu's interpreter (seccomp-emu-bpf --batch) and must
      return the result libseccomp's authors wrote down.  Other arches are
      counted as not run.
  live: the program installs its filter and makes a call; run natively (the
      judge: 159 kill, 160 allow, 161 trap, 163 errno, 164 log) and under
      seccomp-emu, the two must agree.  All are in scope: threads and user
      notification between guest tasks are emulated (TASKS.md).

usage: libseccomp_suite.py --src DIR --emu E --bpf-tool T --work DIR [--ledger F]
"""
import argparse
import ctypes
import glob
import itertools
import os
import re
import subprocess
import sys

ARCHES = {  # name -> (libseccomp token, seccomp_data.arch)
    'x86_64': (0xc000003e, 0xc000003e),
    'x86': (0x40000003, 0x40000003),
    'x32': (0x4000003e, 0xc000003e),
}
NATIVE = 'x86_64'
LE = ['x86', 'x86_64', 'x32', 'arm', 'aarch64', 'mipsel', 'mipsel64', 'mipsel64n32',
      'ppc64le', 'riscv64']
BITS32 = ['x86', 'x32', 'arm', 'mips', 'mipsel', 'mips64n32', 'mipsel64n32', 'ppc', 's390',
          'parisc']
BITS64 = ['x86_64', 'aarch64', 'mips64', 'mipsel64', 'ppc64', 'ppc64le', 's390x',
          'parisc64', 'riscv64']
LIVE_IN_SCOPE = ['20-live-basic_die', '21-live-basic_allow', '24-live-arg_allow',
                 '32-live-tsync_allow', '44-live-a2_order', '47-live-kill_process',
                 '51-live-user_notification', '54-live-binary_tree', '58-live-tsync_notify']
ACTION = {'ALLOW': 0x7fff0000, 'KILL': 0, 'KILL_PROCESS': 0x80000000, 'TRAP': 0x30000,
          'LOG': 0x7ffc0000, 'NOTIFY': 0x7fc00000}
LIVE_RC = {159: 'KILL', 160: 'ALLOW', 161: 'TRAP', 162: 'TRACE', 163: 'ERRNO', 164: 'LOG'}

lib = ctypes.CDLL('libseccomp.so.2')
lib.seccomp_syscall_resolve_name_rewrite.argtypes = [ctypes.c_uint32, ctypes.c_char_p]


def expected_value(text):
    m = re.match(r'(ERRNO|TRACE)\((\d+)\)$', text)
    if m:
        return (0x50000 if m.group(1) == 'ERRNO' else 0x7ff00000) | int(m.group(2))
    return ACTION.get(text)


def sim_arches(spec):
    want, avoid = [], []
    for a in spec.split(','):
        if a == 'all':
            want.append(NATIVE)
        elif a in ('all_le', 'all_64'):
            want.append(NATIVE)
        elif a == '+all_le':
            want += LE
        elif a == '+all_64':
            want += BITS64
        elif a == '+all_32':
            want += BITS32
        elif a in ('all_be', 'all_32'):
            pass  # the native arch (x86_64) is neither
        elif a.startswith('+'):
            want.append(a[1:])
        elif a.startswith('-'):
            avoid.append(a[1:])
        elif a == NATIVE:
            want.append(a)
    return [a for a in dict.fromkeys(want) if a not in avoid]


def span(text):
    if text == 'N':
        return [0]
    m = re.match(r'^(-?\w+)-(-?\w+)$', text)
    if m and not text.startswith('-'):
        lo, hi = int(m.group(1), 0), int(m.group(2), 0)
        return list(range(lo, hi + 1))
    return [int(text, 0)]


def resolve(arch, name):
    try:
        return [int(name, 0)]
    except ValueError:
        pass
    nr = lib.seccomp_syscall_resolve_name_rewrite(ARCHES[arch][0], name.encode())
    return None if nr == -1 else [nr]


def sections(path):
    kind, out = None, []
    for line in open(path):
        line = line.strip()
        if line.startswith('test type:'):
            kind = line.split(':', 1)[1].strip()
        elif line and not line.startswith('#'):
            out.append((kind, line.split()))
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--src')
    ap.add_argument('--emu', required=True)
    ap.add_argument('--bpf-tool', required=True)
    ap.add_argument('--work', required=True)
    ap.add_argument('--ledger')
    ap.add_argument('--cc', default='cc')
    a = ap.parse_args()
    if not a.src or not os.path.isdir(os.path.join(a.src, 'tests')):
        print('SKIP: no libseccomp source at %s (scripts/libseccomp-src.sh fetches it; see docs/filter.md)' % a.src)
        return 77
    os.makedirs(a.work, exist_ok=True)
    tdir = os.path.join(a.src, 'tests')
    sim = {'pass': 0, 'fail': 0, 'not run (arch)': 0, 'not built': 0}
    fails = []
    live_rows = []
    built = {}

    def build(name):
        if name not in built:
            exe = os.path.join(a.work, name)
            r = subprocess.run([a.cc, '-O1', '-static', '-w', '-I', tdir, '-o', exe,
                                os.path.join(tdir, name + '.c'), os.path.join(tdir, 'util.c'),
                                '-lseccomp'], capture_output=True)
            built[name] = exe if r.returncode == 0 else None
        return built[name]

    for tests in sorted(glob.glob(os.path.join(tdir, '*.tests'))):
        for kind, f in sections(tests):
            if kind == 'bpf-sim' and len(f) == 10:
                name = f[0]
                exe = build(name)
                arches = sim_arches(f[1])
                ours = [x for x in arches if x in ARCHES]
                if not exe:
                    sim['not built'] += 1
                    continue
                if not ours:
                    sim['not run (arch)'] += 1
                    continue
                bpf = exe + '.bpf'
                if not os.path.exists(bpf):
                    with open(bpf, 'wb') as out:
                        subprocess.run([exe, '-b'], stdout=out, check=False)
                want = expected_value(f[9])
                lines, labels = [], []
                for arch in ours:
                    lo_hi = f[2].split('-') if re.match(r'^[a-z_0-9]+-[a-z_0-9]+$', f[2]) and \
                        not f[2][0].isdigit() else None
                    nrs = resolve(arch, f[2]) if not re.match(r'^\d+-\d+$', f[2]) else span(f[2])
                    if nrs is None:
                        sim['fail'] += 1
                        fails.append('%s %s: cannot resolve %s' % (name, arch, f[2]))
                        continue
                    for combo in itertools.product(nrs, *[span(x) for x in f[3:9]]):
                        vals = [v & 0xffffffffffffffff for v in combo[1:]]
                        lines.append('%d %d %s' % (ARCHES[arch][1], combo[0] & 0xffffffff,
                                                   ' '.join(str(v) for v in vals)))
                        labels.append('%s %s nr=%d args=%s' % (name, arch, combo[0], vals))
                if not lines:
                    continue
                r = subprocess.run([a.bpf_tool, bpf, '--batch'], input='\n'.join(lines) + '\n',
                                   capture_output=True, text=True)
                got = r.stdout.split()
                if r.returncode != 0 or len(got) != len(lines):
                    sim['fail'] += len(lines)
                    fails.append('%s: seccomp-emu-bpf: %s' % (name, r.stderr.strip()))
                    continue
                for label, g in zip(labels, got):
                    if want is not None and int(g, 16) == want:
                        sim['pass'] += 1
                    else:
                        sim['fail'] += 1
                        fails.append('%s: got %s, want %s' % (label, g, f[9]))
            elif kind == 'live' and len(f) >= 3:
                name, act = f[0], f[2]
                exe = build(name)
                if not exe:
                    live_rows.append((name, act, 'not built', '', ''))
                    continue
                def rc(cmd):
                    try:
                        p = subprocess.run(cmd, capture_output=True, timeout=60)
                        return 128 - p.returncode if p.returncode < 0 else p.returncode
                    except subprocess.TimeoutExpired:
                        return 'hang'
                n = rc([exe, act])
                e = rc([a.emu, '-q', exe, act])
                scope = name in LIVE_IN_SCOPE
                verdict = ('native-fails' if LIVE_RC.get(n) != act.split('(')[0] and
                           not (act == 'KILL_PROCESS' and n == 159)
                           else 'agree' if n == e else 'differ')
                live_rows.append((name, act, verdict, n, e, scope))
    for f in fails[:40]:
        print('FAIL: ' + f)
    live_in = [r for r in live_rows if len(r) > 5 and r[5]]
    live_out = [r for r in live_rows if len(r) > 5 and not r[5]]
    for r in live_rows:
        print('live %s %s: native %s emulated %s: %s' % (r[0], r[1], r[3], r[4], r[2]))
    summary = ('bpf-sim vectors (x86_64/x86/x32 through seccomp-emu\'s interpreter): %d pass, '
               '%d fail, %d lines for other arches not run, %d lines of tests that did not '
               'build.  live (judged natively): %d cases, %d agree, %d differ, '
               '%d fail natively; live out of scope: %d cases, %d agree'
               % (sim['pass'], sim['fail'], sim['not run (arch)'], sim['not built'],
                  len(live_in), sum(r[2] == 'agree' for r in live_in),
                  sum(r[2] == 'differ' for r in live_in),
                  sum(r[2] == 'native-fails' for r in live_in), len(live_out),
                  sum(r[2] == 'agree' for r in live_out)))
    print(summary)
    if a.ledger:
        with open(a.ledger, 'w') as f:
            f.write('# libseccomp regression tests under seccomp-emu (generated)\n\n%s\n\n'
                    % summary)
            f.write('| live test | action | native rc | seccomp-emu rc | result |\n|---|---|---|---|---|\n')
            for r in live_rows:
                f.write('| %s | %s | %s | %s | %s%s |\n' % (r[0], r[1], r[3], r[4], r[2],
                        '' if len(r) > 5 and r[5] else ' (out of scope)'))
            if fails:
                f.write('\nbpf-sim failures:\n\n' + ''.join('- %s\n' % x for x in fails))
    return 1 if sim['fail'] or any(r[2] != 'agree' for r in live_in) else 0


if __name__ == '__main__':
    sys.exit(main())
