#!/usr/bin/env python3
"""Policies from outside (--filter, --seccomp-profile), judged by the kernel.

Each profile is compiled once by seccomp-emu-bpf --export (the same loader
--seccomp-profile uses: libseccomp, for x86_64), then:
  native:   launch FILE.bpf... -- filter_probe64   (no_new_privs, seccomp(), execve)
  emulated: seccomp-emu --seccomp-profile=FILE.json ... filter_probe64
            seccomp-emu --filter=FILE.bpf ... filter_probe64
stdout and the exit status must agree.  Then malformed inputs: each must
give one line on stderr, status 2, and nothing of the guest (empty stdout).

usage: check_outside.py --emu E --bpf-tool T --launch L --probe64 P --probe32 P32
"""
import argparse
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
from native_oracle import runs_i386  # noqa: E402

PROFILES = {
    'errno_getpid': {
        'defaultAction': 'SCMP_ACT_ALLOW',
        'syscalls': [{'names': ['getpid'], 'action': 'SCMP_ACT_ERRNO', 'errnoRet': 38}],
    },
    'close_arg': {
        'defaultAction': 'SCMP_ACT_ALLOW',
        'architectures': ['SCMP_ARCH_X86_64', 'SCMP_ARCH_X86', 'SCMP_ARCH_X32'],
        'syscalls': [{'names': ['close'], 'action': 'SCMP_ACT_ERRNO', 'errnoRet': 13,
                      'args': [{'index': 0, 'value': 101, 'op': 'SCMP_CMP_EQ'}]}],
    },
    'kill_getppid': {
        'defaultAction': 'SCMP_ACT_ALLOW',
        'syscalls': [{'names': ['getppid'], 'action': 'SCMP_ACT_KILL_PROCESS'}],
    },
    'trace_getpid': {
        'defaultAction': 'SCMP_ACT_ALLOW',
        'syscalls': [{'names': ['getpid', 'getppid'], 'action': 'SCMP_ACT_TRACE', 'errnoRet': 5}],
    },
    'masked_close': {
        'defaultAction': 'SCMP_ACT_ALLOW',
        'syscalls': [{'names': ['close'], 'action': 'SCMP_ACT_ERRNO', 'errnoRet': 7,
                      'args': [{'index': 0, 'value': 0xf0, 'valueTwo': 0x60,
                                'op': 'SCMP_CMP_MASKED_EQ'}]}],
    },
    # Docker's shape: everything refused unless listed.
    'allowlist': {
        'defaultAction': 'SCMP_ACT_ERRNO',
        'defaultErrnoRet': 1,
        'syscalls': [{'names': ['execve', 'brk', 'arch_prctl', 'set_tid_address',
                                'set_robust_list', 'rseq', 'prlimit64', 'readlink', 'readlinkat',
                                'getrandom', 'mprotect', 'newfstatat', 'fstat', 'write',
                                'exit_group', 'exit', 'prctl', 'uname', 'mmap', 'munmap',
                                'getppid', 'set_thread_area', 'mmap2', 'fstat64',
                                'fstatat64', 'statx', 'ugetrlimit'],
                      'action': 'SCMP_ACT_ALLOW'}],
    },
}

# [name, profiles in order (newest last), probe args]
CASES = [
    ['errno_getpid', ['errno_getpid'], []],
    ['close_arg', ['close_arg'], []],
    ['kill_getppid', ['kill_getppid'], []],
    ['masked_close', ['masked_close'], []],
    ['allowlist', ['allowlist'], ['getuid']],
    # Stacked: TRACE(5) and ERRNO(38) on getpid; ERRNO ranks lower, either order.
    ['stack_trace_errno', ['trace_getpid', 'errno_getpid'], []],
    ['stack_errno_trace', ['errno_getpid', 'trace_getpid'], []],
    ['stack_three', ['close_arg', 'masked_close', 'kill_getppid'], []],
]

failures = 0


def fail(msg):
    global failures
    failures += 1
    print('FAIL: ' + msg)


def run(cmd):
    # The environment passes through: a sanitizer build's options must reach
    # seccomp-emu (its guest starts with an empty environment anyway).
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL,
                       timeout=60)
    return p.returncode, p.stdout.decode(errors='replace'), p.stderr.decode(errors='replace')


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--emu', required=True)
    ap.add_argument('--bpf-tool', required=True)
    ap.add_argument('--launch', required=True)
    ap.add_argument('--probe64', required=True)
    ap.add_argument('--probe32', required=True)
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix='seccomp-emu-filter-')
    # Each profile twice: for x86_64 as written, and for i386 with both
    # arches listed (natively the 64-bit launcher's execve meets it too).
    files = {}
    for name, prof in PROFILES.items():
        for abi in ('x86_64', 'i386'):
            if abi == 'i386' and not prof.get('architectures'):
                prof = dict(prof, architectures=['SCMP_ARCH_X86_64', 'SCMP_ARCH_X86'])
            js = os.path.join(tmp, '%s-%s.json' % (name, abi))
            with open(js, 'w') as f:
                json.dump(prof, f)
            bpf = os.path.join(tmp, '%s-%s.bpf' % (name, abi))
            rc, _, err = run([a.bpf_tool, '--abi=' + abi, '--profile=' + js, '--export=' + bpf])
            if rc != 0:
                fail('%s: seccomp-emu-bpf --export: %s' % (name, err.strip()))
                continue
            files[(name, abi)] = (js, bpf)
        if (name, 'x86_64') in files:
            files[name] = files[(name, 'x86_64')]

    # Can this host run i386 programs?  (Where it cannot, the i386 leg is
    # reported as not run; the emulated side is still checked for agreement
    # with the x86_64 leg's expectations by the case below.)
    ia32 = runs_i386(a.emu)
    for name, profs, args in CASES:
        for abi, probe in (('x86_64', a.probe64), ('i386', a.probe32)):
            if any((p, abi) not in files for p in profs):
                continue
            if abi == 'i386' and not ia32:
                print('not run: %s (i386): this host cannot run i386 programs' % name)
                continue
            native = run([a.launch] + [files[(p, abi)][1] for p in profs] + ['--', probe] + args)
            if native[0] == 125:
                fail('%s (%s): the launcher failed: %s' % (name, abi, native[2].strip()))
                continue
            for how, opts in [('profile', ['--seccomp-profile=' + files[(p, abi)][0] for p in profs]),
                              ('filter', ['--filter=' + files[(p, abi)][1] for p in profs])]:
                emu = run([a.emu, '-q'] + opts + [probe] + args)
                if emu[:2] != native[:2]:
                    fail('%s (%s, --%s): native status %d stdout %r; emulated status %d stdout %r'
                         % (name, abi, how, native[0], native[1], emu[0], emu[1]))
                else:
                    print('ok: %s (%s, --%s): status %d, %d lines agree' %
                          (name, abi, how, emu[0], len(emu[1].splitlines())))

    # The i386 guest under the x86_64-only profile: the arch check sends
    # every ia32 call to libseccomp's bad-arch action, KILL_THREAD.
    if 'errno_getpid' in files:
        rc, out, err = run([a.emu, '-q', '--filter=' + files['errno_getpid'][1], a.probe32])
        if rc != -31 or out:
            fail('i386 guest, x86_64-only filter: status %d stdout %r' % (rc, out))
        else:
            print('ok: i386 guest under an x86_64-only filter dies of SIGSYS at its first call')

    # seccomp-emu-bpf: the listing, a run, and its own bad input.
    if 'errno_getpid' in files:
        bpf = files['errno_getpid'][1]
        rc, out, err = run([a.bpf_tool, bpf])
        lines = out.splitlines()
        if rc != 0 or not lines or lines[0] != ' 0000: 0x20 0x00 0x00 0x00000004  ld [arch]' \
                or ' 0x00050026  ret ERRNO(38)' not in out or not lines[-1].endswith('ret KILL_THREAD'):
            fail('seccomp-emu-bpf listing: status %d:\n%s' % (rc, out))
        else:
            print('ok: seccomp-emu-bpf lists %d instructions' % len(lines))
        rc, out, err = run([a.bpf_tool, bpf, '--run=getpid'])
        if rc != 0 or not out.rstrip().endswith('returns 0x00050026: ERRNO(38)') or ' ld [nr]' not in out:
            fail('seccomp-emu-bpf --run=getpid: status %d:\n%s' % (rc, out))
        else:
            print('ok: seccomp-emu-bpf --run=getpid: ERRNO(38) after %d instructions'
                  % (len(out.splitlines()) - 2))
        rc, out, err = run([a.bpf_tool, bpf, '--run=getpid', '--arch=0x40000003'])
        if rc != 0 or not out.rstrip().endswith('KILL_THREAD'):
            fail('seccomp-emu-bpf --arch=I386 on an x86_64-only filter: %d %s' % (rc, out))
        else:
            print('ok: seccomp-emu-bpf: an arch the profile lacks meets KILL_THREAD')
        for args in (['--run=no_such_call'], ['--run=getpid', '--arg=zz'], ['--arg=1']):
            rc, out, err = run([a.bpf_tool, bpf] + args)
            if rc != 2 or out or len(err.splitlines()) != 1:
                fail('seccomp-emu-bpf %s: status %d, stderr %r' % (args, rc, err))
            else:
                print('ok: seccomp-emu-bpf %s: %s' % (' '.join(args), err.strip()))

    # --trace-bpf: the executed instructions of each filter run, text and JSON.
    if 'errno_getpid' in files:
        rc, out, err = run([a.emu, '--trace-bpf', '--filter=' + files['errno_getpid'][1],
                            a.probe64])
        lines = err.splitlines()
        idx = [i for i, l in enumerate(lines) if 'getpid()' in l]
        before = lines[max(0, idx[0] - 8):idx[0]] if idx else []
        if rc != 0 or not idx or not any('bpf #1 0000: ld [arch]' in l for l in before) \
                or not any('ret ERRNO(38)' in l for l in before):
            fail('--trace-bpf: status %d, the lines before getpid: %r' % (rc, before))
        else:
            print('ok: --trace-bpf shows the filter reaching ret ERRNO(38) before getpid')
        rc, out, err = run([a.emu, '--trace-bpf', '--trace-format=json',
                            '--filter=' + files['errno_getpid'][1], a.probe64])
        events = [json.loads(l) for l in err.splitlines() if l.startswith('{')]
        bpf = [e for e in events if e['event'] == 'bpf']
        heads = [e for e in events if e['event'] == 'bpf_filter']
        keys = {'event', 'filter', 'pc', 'insn', 'code', 'jt', 'jf', 'k', 'a', 'x'}
        if rc != 0 or not bpf or any(set(e) != keys for e in bpf) or not heads \
                or not any(e['insn'] == 'ret ERRNO(38)' for e in bpf) \
                or set(heads[0]) != {'event', 'filter', 'nr', 'arch', 'ip', 'args'}:
            fail('--trace-bpf JSON: status %d, %d bpf events, first %r' % (rc, len(bpf), bpf[:1]))
        else:
            print('ok: --trace-bpf JSON: %d bpf events, %d filter runs' % (len(bpf), len(heads)))

    bad = {}
    def put(name, data):
        path = os.path.join(tmp, name)
        with open(path, 'wb') as f:
            f.write(data)
        bad[name] = path
    ret_allow = struct.pack('<HBBI', 0x06, 0, 0, 0x7fff0000)
    put('empty.bpf', b'')
    put('odd.bpf', ret_allow + b'\x06\x00\x00')
    put('long.bpf', ret_allow * 4097)
    put('misaligned.bpf', struct.pack('<HBBI', 0x20, 0, 0, 2) + ret_allow)   # ld [2]
    put('no_ret.bpf', struct.pack('<HBBI', 0x20, 0, 0, 0))                  # falls off the end
    put('mod.bpf', struct.pack('<HBBI', 0x94, 0, 0, 3) + ret_allow)         # MOD: socket filters only
    put('bad.json', b'{"defaultAction": "SCMP_ACT_ALLOW",')
    put('notobject.json', b'[1, 2]')
    put('action.json', json.dumps({'defaultAction': 'SCMP_ACT_MAYBE'}).encode())
    put('name.json', json.dumps({'defaultAction': 'SCMP_ACT_ALLOW', 'syscalls': [
        {'names': ['getpid', 'no_such_call'], 'action': 'SCMP_ACT_ERRNO'}]}).encode())
    put('arch.json', json.dumps({'defaultAction': 'SCMP_ACT_ALLOW',
                                 'architectures': ['SCMP_ARCH_Z80']}).encode())
    put('op.json', json.dumps({'defaultAction': 'SCMP_ACT_ALLOW', 'syscalls': [
        {'names': ['close'], 'action': 'SCMP_ACT_ERRNO',
         'args': [{'index': 7, 'value': 1, 'op': 'SCMP_CMP_EQ'}]}]}).encode())
    bad['missing.bpf'] = os.path.join(tmp, 'does-not-exist.bpf')
    for name, path in sorted(bad.items()):
        opt = '--seccomp-profile=' if name.endswith('.json') else '--filter='
        rc, out, err = run([a.emu, opt + path, a.probe64])
        lines = err.splitlines()
        if rc != 2 or out or len(lines) != 1:
            fail('%s: status %d, stdout %r, stderr %r' % (name, rc, out, err))
        else:
            print('ok: %s: %s' % (name, lines[0]))
    shutil.rmtree(tmp)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
