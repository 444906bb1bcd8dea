#!/usr/bin/env python3
"""Container seccomp profiles as Docker and Podman users have them (issue 32).

Moby's default.json and containers-common's seccomp.json (this folder,
byte for byte as Debian ships them) are checked four ways:

1. The rules.  An independent model of Docker's and containers'
   resolution (moby's profiles/seccomp/seccomp_linux.go, containers/common's
   pkg/seccomp, written again here in Python) says, for every system call
   number of both ABIs and for argument values on both sides of every
   condition, which answer the profile prescribes and which rule gives it,
   for several capability sets and kernel releases.  seccomp-emu's compiled
   program (seccomp-emu-bpf --batch, the interpreter seccomp-emu runs)
   must give that value and name that rule.  The ledger of every rule and
   how it was checked is generated and must equal
   docs/filter-profiles-ledger.md.
2. Real programs (static glibc start-up, busybox applets, a probe of the
   calls a container may not make, made with arguments the kernel would
   refuse harmlessly) run natively under the same exported program
   (tests/filter/launch: the kernel enforces it) and under seccomp-emu
   --seccomp-profile: stdout and status must agree.  The i386 builds are
   judged by the x86_64 native run (this host runs no i386).
3. --trace names the rule of the profile that decided every filtered call.
4. What cannot be honoured exactly is refused with its position, one line,
   status 2: "name" and "names" together, numbers past uint64 or negative,
   unknown fields, disagreeing errnos, listeners, malformed minKernel,
   architectures and archMap together, a truncated or huge profile, a FIFO,
   /dev/zero; and 18446744073709551615 is accepted, exactly.

usage: check_profiles.py --emu E --bpf-tool T --launch L --dir PROFILES --names64 C
                         --names32 C --probe64 P --probe32 P --hello64 H --hello32 H
                         --busybox B [--ledger FILE] [--write-ledger]
"""
import argparse
import errno as errnos
import json
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile

failures = 0
PROFILES = [('moby-default.json', 'Moby (Docker) default.json'),
            ('containers-seccomp.json', 'containers-common seccomp.json')]
X86_64, X86 = 0xC000003E, 0x40000003
MACHINE = 'amd64'
ACTIONS = {'SCMP_ACT_KILL': 0, 'SCMP_ACT_KILL_THREAD': 0, 'SCMP_ACT_KILL_PROCESS': 0x80000000,
           'SCMP_ACT_TRAP': 0x30000, 'SCMP_ACT_ERRNO': 0x50000, 'SCMP_ACT_TRACE': 0x7ff00000,
           'SCMP_ACT_ALLOW': 0x7fff0000, 'SCMP_ACT_LOG': 0x7ffc0000}
DOCKER = ['CAP_CHOWN', 'CAP_DAC_OVERRIDE', 'CAP_FSETID', 'CAP_FOWNER', 'CAP_MKNOD', 'CAP_NET_RAW',
          'CAP_SETGID', 'CAP_SETUID', 'CAP_SETFCAP', 'CAP_SETPCAP', 'CAP_NET_BIND_SERVICE',
          'CAP_SYS_CHROOT', 'CAP_KILL', 'CAP_AUDIT_WRITE']
ALL = ['CAP_CHOWN', 'CAP_DAC_OVERRIDE', 'CAP_DAC_READ_SEARCH', 'CAP_FOWNER', 'CAP_FSETID',
       'CAP_KILL', 'CAP_SETGID', 'CAP_SETUID', 'CAP_SETPCAP', 'CAP_LINUX_IMMUTABLE',
       'CAP_NET_BIND_SERVICE', 'CAP_NET_BROADCAST', 'CAP_NET_ADMIN', 'CAP_NET_RAW', 'CAP_IPC_LOCK',
       'CAP_IPC_OWNER', 'CAP_SYS_MODULE', 'CAP_SYS_RAWIO', 'CAP_SYS_CHROOT', 'CAP_SYS_PTRACE',
       'CAP_SYS_PACCT', 'CAP_SYS_ADMIN', 'CAP_SYS_BOOT', 'CAP_SYS_NICE', 'CAP_SYS_RESOURCE',
       'CAP_SYS_TIME', 'CAP_SYS_TTY_CONFIG', 'CAP_MKNOD', 'CAP_LEASE', 'CAP_AUDIT_WRITE',
       'CAP_AUDIT_CONTROL', 'CAP_SETFCAP', 'CAP_MAC_OVERRIDE', 'CAP_MAC_ADMIN', 'CAP_SYSLOG',
       'CAP_WAKE_ALARM', 'CAP_BLOCK_SUSPEND', 'CAP_AUDIT_READ', 'CAP_PERFMON', 'CAP_BPF',
       'CAP_CHECKPOINT_RESTORE']
# (label, --caps, the set, kernel release)
CONFIGS = [('docker caps, 6.1', 'docker', DOCKER, (6, 1)),
           ('all caps, 6.1', 'all', ALL, (6, 1)),
           ('docker+SYS_ADMIN, 4.4', 'docker,sys_admin', DOCKER + ['CAP_SYS_ADMIN'], (4, 4)),
           ('no caps, 3.10', 'none', [], (3, 10))]


def check(ok, msg):
    global failures
    if not ok:
        failures += 1
    print(('ok   ' if ok else 'FAIL ') + msg)
    sys.stdout.flush()


def run(argv, stdin=None, timeout=120):
    p = subprocess.run(argv, input=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=timeout, stdin=None if stdin is not None else subprocess.DEVNULL)
    return p.returncode, p.stdout.decode(errors='replace'), p.stderr.decode(errors='replace')


def syscall_numbers(path):
    """name -> number, from the project's tables generated from unistd.h."""
    out = {}
    for nr, name in re.findall(r'\[(\d+)\] = "([^"]+)"', open(path).read()):
        out[name] = int(nr)
    return out


# ---- the model ----------------------------------------------------------

def errno_value(rule, ret_key, name_key, default):
    if rule.get(name_key):
        v = rule[name_key]
        return int(v) if v.isdigit() else getattr(errnos, v)
    if rule.get(ret_key) is not None:
        return rule[ret_key]
    return default


def action_value(rule, top):
    act = rule['defaultAction' if top else 'action']
    base = ACTIONS[act]
    if act in ('SCMP_ACT_ERRNO', 'SCMP_ACT_TRACE'):
        e = errno_value(rule, 'defaultErrnoRet' if top else 'errnoRet',
                        'defaultErrno' if top else 'errno', 1)
        return base | e
    return base


def kernel_ge(release, mk):
    a, b = (int(x) for x in mk.split('.'))
    return release >= (a, b)


def applies(rule, caps, release):
    """moby's setupSeccomp conditions (containers' are the same, without
    minKernel)."""
    ex, inc = rule.get('excludes') or {}, rule.get('includes') or {}
    if MACHINE in (ex.get('arches') or []):
        return False
    if any(c in caps for c in (ex.get('caps') or [])):
        return False
    if ex.get('minKernel') and kernel_ge(release, ex['minKernel']):
        return False
    if inc.get('arches') and MACHINE not in inc['arches']:
        return False
    if any(c not in caps for c in (inc.get('caps') or [])):
        return False
    if inc.get('minKernel') and not kernel_ge(release, inc['minKernel']):
        return False
    return True


def holds(cond, args, narrow):
    arg = args[cond['index']]
    a, b = cond.get('value', 0), cond.get('valueTwo', 0)
    if narrow:
        arg, a, b = arg & 0xffffffff, a & 0xffffffff, b & 0xffffffff
    op = cond['op']
    return {'SCMP_CMP_NE': arg != a, 'SCMP_CMP_LT': arg < a, 'SCMP_CMP_LE': arg <= a,
            'SCMP_CMP_EQ': arg == a, 'SCMP_CMP_GE': arg >= a, 'SCMP_CMP_GT': arg > a,
            'SCMP_CMP_MASKED_EQ': (arg & a) == b}[op]


def prescribe(prof, rules, nums, arch, nr, args):
    """(value, rule index or None) the profile prescribes."""
    narrow = arch == X86
    found = {}
    unconditional = True
    for idx, rule in rules:
        names = [n for n in rule['names'] if nums[arch].get(n) == nr]
        if not names:
            continue
        conds = rule.get('args') or []
        indexes = [c['index'] for c in conds]
        if len(set(indexes)) < len(indexes):
            ok = any(holds(c, args, narrow) for c in conds)   # runc: one rule each, OR
        else:
            ok = all(holds(c, args, narrow) for c in conds)
        if ok:
            if action_value(rule, False) != action_value(prof, True):
                found.setdefault(action_value(rule, False), idx)
                unconditional &= not conds
    default = action_value(prof, True)
    # runc leaves rules with the default action out; of several that name
    # the call with no condition, libseccomp keeps the first one added.
    if len(found) > 1 and unconditional:
        first = min(found.items(), key=lambda kv: kv[1])
        found = {first[0]: first[1]}
    if len(found) > 1:
        return ('ambiguous', sorted(found.items()))
    if found:
        (value, idx), = found.items()
        return value, idx
    return default, None


def vectors_for(rule, nums, arch):
    """Calls that meet a rule's conditions and calls that miss them."""
    out = []
    for name in rule['names']:
        if name not in nums[arch]:
            continue
        nr = nums[arch][name]
        conds = rule.get('args') or []
        argsets = [[0] * 6]
        for c in conds:
            a, b = c.get('value', 0), c.get('valueTwo', 0)
            for v in (a, a + 1, a - 1 if a else 1, b, b | (a & ~b & -(a & ~b) if a & ~b else 0),
                      0xffffffff, 0xffffffffffffffff):
                args = [0] * 6
                args[c['index']] = v & 0xffffffffffffffff
                argsets.append(args)
        for args in argsets:
            out.append((arch, nr, tuple(args)))
    return out


def resolve(prof, caps, release):
    return [(i, r) for i, r in enumerate(prof['syscalls']) if applies(r, caps, release)]


# ---- the checks ---------------------------------------------------------

def check_rules(a, tmp, nums):
    ledger = ['# Container profiles: every rule and how it was checked (generated)', '',
              'Written by `tests/profiles/check_profiles.py --write-ledger`; the `profiles` '
              'test fails when this file and the profiles disagree. Each rule is resolved '
              'for four containers (capabilities and kernel release) by the test\'s own model '
              'of Docker\'s and containers\' resolution; every system call it names, on both '
              'ABIs, is run through seccomp-emu\'s compiled program with arguments on both '
              'sides of each condition, and must get the value the model prescribes and name '
              'this rule. Every other system call number of both ABIs is run too and must get '
              'the default action. Columns: the rule\'s position, its names (how many), its '
              'action, its conditions, then per container: `in` (the rule applies) or `out` '
              '(left out), and the vectors it decided.', '']
    for fname, label in PROFILES:
        path = os.path.join(a.dir, fname)
        prof = json.load(open(path))
        per_rule = {}
        for clabel, caps_opt, caps, release in CONFIGS:
            rules = resolve(prof, caps, release)
            vecs = set()
            for idx, rule in rules:
                for arch in (X86_64, X86):
                    vecs.update(vectors_for(rule, nums, arch))
            for arch in (X86_64, X86):
                for nr in sorted(set(nums[arch].values())):
                    vecs.add((arch, nr, (0,) * 6))
            vecs = sorted(vecs)
            lines = '\n'.join('%#x %d %s' % (ar, nr, ' '.join(str(x) for x in args))
                              for ar, nr, args in vecs) + '\n'
            rc, out, err = run([a.bpf_tool, '--profile=' + path, '--caps=' + caps_opt,
                                '--kernel-release=%d.%d' % release, '--batch'], stdin=lines.encode())
            got = out.splitlines()
            if rc != 0 or len(got) != len(vecs):
                check(False, '%s, %s: seccomp-emu-bpf --batch: status %d, %d of %d answers: %s'
                      % (label, clabel, rc, len(got), len(vecs), err.strip()))
                continue
            bad = []
            decided = {}
            for (arch, nr, args), line in zip(vecs, got):
                want = prescribe(prof, rules, nums, arch, nr, list(args))
                value, _, why = line.partition(' ')
                if want[0] == 'ambiguous':
                    bad.append('%#x %d %s: the profile is ambiguous here %r' % (arch, nr, args, want[1]))
                    continue
                m = re.match(r'syscalls\[(\d+)\]', why)
                rule_got = int(m.group(1)) if m else None
                ok = int(value, 16) == want[0] and rule_got == want[1] and \
                    (want[1] is not None or why == 'defaultAction')
                if not ok:
                    bad.append('%s %d %s: want %#x by %s, got %s %s' % (
                        'x86_64' if arch == X86_64 else 'i386', nr, args, want[0],
                        'syscalls[%d]' % want[1] if want[1] is not None else 'defaultAction',
                        value, why))
                key = want[1] if want[1] is not None else 'default'
                decided[key] = decided.get(key, 0) + 1
            check(not bad, '%s, %s: %d calls (both ABIs, every number and both sides of every '
                  'condition) get the answer and the rule the profile prescribes%s' % (
                      label, clabel, len(vecs), '' if not bad else ': ' + '; '.join(bad[:4])))
            applied = {i for i, _ in rules}
            for i in range(len(prof['syscalls'])):
                per_rule.setdefault(i, []).append(
                    'in %d' % decided.get(i, 0) if i in applied else 'out')
            per_rule.setdefault('default', []).append('%d' % decided.get('default', 0))
        ledger += ['## %s (`tests/profiles/%s`)' % (label, fname), '',
                   'defaultAction `%s`%s; %d rules; architectures (archMap for x86_64): %s.' % (
                       prof['defaultAction'],
                       ' (errno %d)' % errno_value(prof, 'defaultErrnoRet', 'defaultErrno', 1)
                       if prof['defaultAction'] == 'SCMP_ACT_ERRNO' else '',
                       len(prof['syscalls']),
                       ', '.join([m['architecture'] for m in prof.get('archMap', [])
                                  if m['architecture'] == 'SCMP_ARCH_X86_64'] +
                                 [s for m in prof.get('archMap', [])
                                  if m['architecture'] == 'SCMP_ARCH_X86_64'
                                  for s in (m.get('subArchitectures') or [])])), '',
                   '| rule | names | action | conditions | ' +
                   ' | '.join(c[0] for c in CONFIGS) + ' |',
                   '|---|---|---|---|' + '---|' * len(CONFIGS)]
        for i, rule in enumerate(prof['syscalls']):
            names = rule['names']
            shown = ', '.join(names[:3]) + (', ... (%d)' % len(names) if len(names) > 3 else '')
            act = rule['action'].replace('SCMP_ACT_', '')
            if rule['action'] in ('SCMP_ACT_ERRNO', 'SCMP_ACT_TRACE'):
                act += '(%d)' % errno_value(rule, 'errnoRet', 'errno', 1)
            conds = []
            for c in rule.get('args') or []:
                conds.append('arg%d %s %s%s' % (c['index'], c['op'].replace('SCMP_CMP_', ''),
                                                c.get('value', 0),
                                                '/%s' % c['valueTwo'] if c.get('valueTwo') else ''))
            for k in ('includes', 'excludes'):
                for kk, v in sorted((rule.get(k) or {}).items()):
                    conds.append('%s %s %s' % (k, kk, ','.join(v) if isinstance(v, list) else v))
            ledger.append('| %d | %s | %s | %s | %s |' % (i, shown, act, '; '.join(conds) or '-',
                                                          ' | '.join(per_rule[i])))
        ledger.append('| default | every other call | | | %s |' % ' | '.join(
            'default %s' % n for n in per_rule['default']))
        ledger.append('')
    text = '\n'.join(ledger)
    if a.write_ledger:
        with open(a.ledger, 'w') as f:
            f.write(text)
        print('wrote ' + a.ledger)
    elif a.ledger:
        ok = os.path.exists(a.ledger) and open(a.ledger).read() == text
        check(ok, 'the ledger %s is what the rules give (regenerate with --write-ledger)'
              % a.ledger)


def allowed_not_emulated(a, path, prog, nat, emu):
    """The probe's lines where the profile allows the call and seccomp-emu
    answers ENOSYS because it does not emulate it (mount, unshare, ...):
    taken as the native line, and listed.  The JSON trace says which calls
    the profile allowed."""
    rc, out, err = run([a.emu, '-q', '--trace', '--trace-format=json', '--seccomp-profile=' + path,
                        prog])
    allowed = {e['name'] for e in (json.loads(l) for l in err.splitlines() if l.startswith('{'))
               if e.get('event') == 'syscall' and e.get('filter_action') == 'ALLOW'}
    lines, accepted = [], []
    for n, e in zip(nat[1].splitlines(), emu[1].splitlines()):
        call = e.split('(')[0].split(':')[0]
        if n != e and e.endswith(': ENOSYS') and call in allowed:
            accepted.append(call)
            e = n
        lines.append(e)
    return (emu[0], '\n'.join(lines) + '\n', emu[2]), accepted


def check_programs(a, tmp):
    """Native under the exported program (the kernel enforces it) against
    seccomp-emu --seccomp-profile."""
    for fname, label in PROFILES:
        path = os.path.join(a.dir, fname)
        bpf = os.path.join(tmp, fname + '.bpf')
        rc, out, err = run([a.bpf_tool, '--profile=' + path, '--export=' + bpf])
        if rc != 0:
            check(False, '%s: export: %s' % (label, err.strip()))
            continue
        jobs = [('probe', a.probe64, a.probe32, []),
                ('glibc start-up', a.hello64, a.hello32, ['hello']),
                ('busybox echo', a.busybox, None, ['echo', 'hello', 'world']),
                ('busybox seq', a.busybox, None, ['seq', '1', '5']),
                ('busybox printf', a.busybox, None, ['printf', '%s-%d\\n', 'x', '42']),
                ('busybox expr', a.busybox, None, ['expr', '6', '*', '7']),
                ('busybox uname -m', a.busybox, None, ['uname', '-m']),
                ('busybox false', a.busybox, None, ['false']),
                ('busybox sha256sum', a.busybox, None, ['sha256sum']),
                ('busybox mount', a.busybox, None, ['mount', '-t', 'tmpfs', 'none', '/nonexistent']),
                ('busybox hostname', a.busybox, None, ['hostname', '-F', '/nonexistent'])]
        for name, p64, p32, args in jobs:
            nat = run([a.launch, bpf, '--', p64] + args)
            if nat[0] == 125:
                check(False, '%s, %s: the launcher failed: %s' % (label, name, nat[2].strip()))
                continue
            for abi, prog in (('x86_64', p64), ('i386', p32)):
                if not prog:
                    continue
                want = nat
                if abi == 'i386':
                    # The program prints its own width; nothing else differs.
                    want = (nat[0], nat[1].replace('64-bit', '32-bit'), nat[2])
                emu = run([a.emu, '-q', '--seccomp-profile=' + path, prog] + args)
                if name == 'probe':
                    emu, accepted = allowed_not_emulated(a, path, prog, want, emu)
                    if accepted:
                        print('     %s, probe (%s): allowed by the profile but not emulated '
                              '(ENOSYS): %s' % (label, abi, ', '.join(accepted)))
                same = emu[:2] == want[:2]
                check(same, '%s, %s (%s%s): %s' % (
                    label, name, abi, ', judged by the x86_64 native run' if abi == 'i386' else '',
                    'status %d, %d lines agree' % (emu[0], len(emu[1].splitlines())) if same else
                    'native %d %r, emulated %d %r %s' % (nat[0], nat[1], emu[0], emu[1], emu[2])))
    # The probe without any filter answers otherwise: it can tell.
    rc, plain, _ = run([a.probe64])
    rc, moby, _ = run([a.emu, '-q', '--seccomp-profile=' + os.path.join(a.dir, PROFILES[0][0]),
                       a.probe64])
    diff = sum(x != y for x, y in zip(plain.splitlines(), moby.splitlines()))
    check(diff >= 15, 'control: %d of the probe\'s answers differ without the profile' % diff)


def check_trace(a, tmp):
    for fname, label in PROFILES:
        path = os.path.join(a.dir, fname)
        for abi, probe in (('x86_64', a.probe64), ('i386', a.probe32)):
            rc, out, err = run([a.emu, '--trace', '--seccomp-profile=' + path, probe])
            calls = [l for l in err.splitlines() if 'verdict' in l]
            named = [l for l in calls if '(--seccomp-profile %s: ' % fname in l
                     and 'no rule' not in l]
            # A refused call each profile names: Moby by its default, containers
            # by its first rule (the EPERM list).
            refused, by = (' mount(', 'defaultAction') if fname.startswith('moby') else \
                (' kexec_load(', 'syscalls[0] "kexec_load"')
            seen = [l for l in calls if refused in l]
            getpid = [l for l in calls if ' getpid()' in l]
            ok = calls and len(named) == len(calls) and seen and \
                '%s: %s)' % (fname, by) in seen[0] and getpid and 'syscalls[' in getpid[0]
            check(ok, '%s (%s): --trace names the rule of every one of %d filtered calls '
                  '(%s: %s; getpid: %s)' % (label, abi, len(calls), refused.strip(),
                                            seen[0].split('verdict')[-1] if seen else None,
                                            getpid[0].split('verdict')[-1] if getpid else None))
        rc, out, err = run([a.emu, '--trace', '--trace-format=json', '--seccomp-profile=' + path,
                            a.probe64])
        evs = [json.loads(l) for l in err.splitlines() if l.startswith('{')]
        sc = [e for e in evs if e.get('event') == 'syscall']
        check(sc and all(e.get('filter_rule', '').startswith('--seccomp-profile ' + fname)
                         for e in sc),
              '%s: JSON trace: every call has filter_rule (%r)' % (
                  label, sc[2].get('filter_rule') if len(sc) > 2 else None))


def check_caps(a, tmp):
    """--caps is the task's capability set: /proc/self/status as Docker's
    and Podman's containers show it, and capget."""
    for caps, eff in (('docker', '00000000a80425fb'), ('podman', '00000000800405fb'),
                      ('none', '0000000000000000'), ('all', '000001ffffffffff')):
        rc, out, err = run([a.emu, '--caps=' + caps, a.busybox, 'grep', 'CapEff',
                            '/proc/self/status'])
        check(out.split() == ['CapEff:', eff], '--caps=%s: CapEff %s (%r)' % (caps, eff, out.strip()))
    for k, want in (('linux:4.4', '4.4.0-seccomp-emu'), ('linux:5.10.12', '5.10.12-seccomp-emu'),
                    ('linux', '6.1.0-seccomp-emu')):
        rc, out, err = run([a.emu, '--kernel=' + k, a.busybox, 'uname', '-r'])
        check(out.strip() == want, '--kernel=%s: uname -r says %s' % (k, out.strip()))
    for bad in ('--caps=cap_nonsense', '--kernel=linux:6', '--kernel=linux:x.y', '--kernel=bsd'):
        rc, out, err = run([a.emu, bad, a.busybox, 'true'])
        check(rc == 2 and len(err.strip().splitlines()) == 1, '%s: status %d, one line: %s'
              % (bad, rc, err.strip()))


def check_refusals(a, tmp):
    base = {'defaultAction': 'SCMP_ACT_ALLOW'}
    def prof(**kw):
        d = dict(base)
        d.update(kw)
        return json.dumps(d).encode()
    rule = {'names': ['getpid'], 'action': 'SCMP_ACT_ERRNO'}
    cases = [
        ('name and names', prof(syscalls=[rule, dict(rule, name='getppid')]), 'syscalls[1]'),
        ('value past uint64', b'{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": '
         b'["close"], "action": "SCMP_ACT_ERRNO", "args": [{"index": 0, "value": '
         b'18446744073709551616, "op": "SCMP_CMP_EQ"}]}]}', 'JSON'),
        ('negative value', prof(syscalls=[dict(rule, args=[{'index': 0, 'value': -1,
                                                            'op': 'SCMP_CMP_EQ'}])]),
         'syscalls[0].args[0]'),
        ('unknown rule field', prof(syscalls=[rule, dict(rule, nmaes=['x'])]), 'syscalls[1]'),
        ('unknown top field', prof(defaultActoin='SCMP_ACT_ERRNO'), 'profile'),
        ('unknown args field', prof(syscalls=[dict(rule, args=[{'index': 0, 'value': 1,
                                                               'op': 'SCMP_CMP_EQ', 'vaule': 2}])]),
         'syscalls[0].args[0]'),
        ('errno and errnoRet disagree', prof(syscalls=[dict(rule, errnoRet=1, errno='ENOSYS')]),
         'syscalls[0]'),
        ('defaultErrno and defaultErrnoRet disagree',
         prof(defaultAction='SCMP_ACT_ERRNO', defaultErrnoRet=38, defaultErrno='EPERM'), 'profile'),
        ('unknown errno name', prof(syscalls=[dict(rule, errno='ENOTANERRNO')]), 'syscalls[0]'),
        ('errnoRet with ALLOW', prof(syscalls=[{'names': ['getpid'], 'action': 'SCMP_ACT_KILL',
                                                'errnoRet': 1}]), 'syscalls[0]'),
        ('SCMP_ACT_NOTIFY', prof(syscalls=[dict(rule, action='SCMP_ACT_NOTIFY')]), 'syscalls[0]'),
        ('listenerPath', prof(listenerPath='/run/x.sock'), 'listener'),
        ('flag WAIT_KILLABLE_RECV', prof(flags=['SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV']),
         'flags[0]'),
        ('unknown flag', prof(flags=['SECCOMP_FILTER_FLAG_NONE']), 'flags[0]'),
        ('minKernel "4"', prof(syscalls=[dict(rule, includes={'minKernel': '4'})]),
         'syscalls[0].includes'),
        ('unknown includes field', prof(syscalls=[dict(rule, includes={'cap': ['CAP_SYS_ADMIN']})]),
         'syscalls[0].includes'),
        ('architectures and archMap', prof(architectures=['SCMP_ARCH_X86_64'],
                                           archMap=[{'architecture': 'SCMP_ARCH_X86_64'}]),
         'archMap'),
        ('unknown subarchitecture', prof(archMap=[{'architecture': 'SCMP_ARCH_X86_64',
                                                   'subArchitectures': ['SCMP_ARCH_Z80']}]),
         'archMap[0]'),
        ('unknown syscall', prof(syscalls=[dict(rule, names=['getpid', 'getpdi'])]), 'syscalls[0]'),
        ('truncated', open(os.path.join(a.dir, PROFILES[0][0]), 'rb').read()[:5000], 'JSON'),
        ('empty', b'', 'JSON'),
        ('huge', b'{"defaultAction": "SCMP_ACT_ALLOW", "comment": "' + b'x' * (17 << 20) + b'"}',
         'more than the 16 MiB'),
    ]
    paths = []
    for name, data, where in cases:
        p = os.path.join(tmp, re.sub(r'\W+', '_', name) + '.json')
        with open(p, 'wb') as f:
            f.write(data)
        paths.append((name, p, where))
    fifo = os.path.join(tmp, 'fifo.json')
    os.mkfifo(fifo)
    paths += [('/dev/zero', '/dev/zero', 'more than the 16 MiB'),
              ('a directory', tmp, 'is a directory')]
    for name, p, where in paths:
        rc, out, err = run([a.emu, '--seccomp-profile=' + p, a.busybox, 'true'], timeout=30)
        lines = err.strip().splitlines()
        check(rc == 2 and not out and len(lines) == 1 and where in lines[0],
              'refused, %s: status %d, one line naming %s: %s' % (name, rc, where,
                                                                   lines[0] if lines else ''))
    # A stream is read until it ends, within --timeout (loaders/input.h): a
    # FIFO nobody writes is the timeout's SIGKILL, one line, never a hang.
    rc, out, err = run([a.emu, '--timeout=1', '--seccomp-profile=' + fifo, a.busybox, 'true'],
                       timeout=30)
    lines = err.strip().splitlines()
    check(rc == -9 and len(lines) == 1 and '--timeout' in lines[0],
          'a FIFO as the profile: status %d, one line naming --timeout: %s'
          % (rc, lines[0] if lines else ''))
    # 18446744073709551615 is a valid OCI uint64: accepted, compared exactly.
    p = os.path.join(tmp, 'max.json')
    with open(p, 'wb') as f:
        f.write(b'{"defaultAction": "SCMP_ACT_ALLOW", "syscalls": [{"names": ["close"], '
                b'"action": "SCMP_ACT_ERRNO", "errnoRet": 7, "args": [{"index": 0, "value": '
                b'18446744073709551615, "op": "SCMP_CMP_EQ"}]}, {"names": ["getppid"], "action": '
                b'"SCMP_ACT_ERRNO", "errnoRet": 9, "args": [{"index": 1, "value": '
                b'18446744073709551615, "valueTwo": 9223372036854775808, "op": '
                b'"SCMP_CMP_MASKED_EQ"}]}]}')
    vec = ('%#x 3 18446744073709551615 0 0 0 0 0\n%#x 3 18446744073709551614 0 0 0 0 0\n'
           '%#x 110 0 9223372036854775808 0 0 0 0\n%#x 110 0 1 0 0 0 0\n' % ((X86_64,) * 4))
    rc, out, err = run([a.bpf_tool, '--profile=' + p, '--batch'], stdin=vec.encode())
    vals = [l.split()[0] for l in out.splitlines()]
    check(rc == 0 and vals == ['0x00050007', '0x7fff0000', '0x00050009', '0x7fff0000'],
          '"value": 18446744073709551615 accepted and compared exactly (%s %s)'
          % (vals, err.strip()))


def main():
    ap = argparse.ArgumentParser()
    for opt in ('emu', 'bpf_tool', 'launch', 'dir', 'names64', 'names32', 'probe64', 'probe32',
                'hello64', 'hello32', 'busybox'):
        ap.add_argument('--' + opt.replace('_', '-'), required=True)
    ap.add_argument('--ledger')
    ap.add_argument('--write-ledger', action='store_true')
    a = ap.parse_args()
    nums = {X86_64: syscall_numbers(a.names64), X86: syscall_numbers(a.names32)}
    tmp = tempfile.mkdtemp(prefix='seccomp-emu-profiles-')
    try:
        check_rules(a, tmp, nums)
        if not a.write_ledger:
            check_programs(a, tmp)
            check_trace(a, tmp)
            check_caps(a, tmp)
            check_refusals(a, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print('%d failed' % failures)
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
