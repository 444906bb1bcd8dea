#!/usr/bin/env python3
"""Tests of seccomp-emu --trace: golden lines per entry path and verdict,
the CVE-2009-0835 marking, mode changes, faults, the JSON form, and that
tracing changes nothing the guest does.

Addresses in the golden lines come from the built binaries (nm): the
examples put a global label on each trapping instruction (examples/guest.h).
Addresses that only the emulator knows (the vDSO's) are matched by pattern.

    check_trace.py --emu EMU --diff DIFF --nm NM --bin NAME=PATH... CASE
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
from native_oracle import Oracle, vmjudge  # noqa: E402

ARGS = None


def fail(msg):
    print('FAIL: ' + msg)
    sys.exit(1)


def binary(name):
    for b in ARGS.bin:
        k, _, v = b.partition('=')
        if k == name:
            return v
    fail('no binary %s given' % name)


def symbol(prog, name):
    """Address of a global symbol of the program, as the trace prints it."""
    out = subprocess.run([ARGS.nm, binary(prog)], capture_output=True, text=True, check=True)
    for line in out.stdout.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[2] == name:
            return '%#x' % int(parts[0], 16)
    fail('%s has no symbol %s' % (prog, name))


def run(prog, argv=(), opts=(), stdin=None, stdout=None):
    """seccomp-emu OPTS PROG ARGV -> (status, stdout, stderr)."""
    cmd = [ARGS.emu] + list(opts) + [binary(prog)] + list(argv)
    p = subprocess.run(cmd, stdin=stdin if stdin is not None else subprocess.DEVNULL,
                       stdout=stdout if stdout is not None else subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=60)
    return p.returncode, p.stdout, p.stderr.decode('utf-8', 'replace')


def trace_lines(prog, argv=(), opts=(), **kw):
    """The text trace of a run (to a file, so stderr stays the guest's)."""
    with tempfile.NamedTemporaryFile(mode='r', suffix='.trace') as f:
        status, out, err = run(prog, argv, ['--trace=' + f.name] + list(opts), **kw)
        return status, f.read().splitlines(), out, err


def expect_lines(got, want, what):
    """Every pattern of `want`, in order, each matching one whole line (a
    str is literal, a compiled regex is matched with fullmatch)."""
    i = 0
    for w in want:
        while i < len(got):
            line = got[i]
            i += 1
            if (w.fullmatch(line) if isinstance(w, re.Pattern) else line == w):
                break
        else:
            fail('%s: no line %r in the trace:\n%s' % (what, w.pattern if isinstance(w, re.Pattern) else w,
                                                        '\n'.join(got)))


def expect_status(status, want, what):
    if status != want:
        fail('%s: status %d, expected %d' % (what, status, want))


HEX = r'0x[0-9a-f]+'
X64_LIST = '{read, write, exit, rt_sigreturn}'
IA32_LIST = '{read, write, exit, sigreturn}'
SIGKILL = -9


# ---- golden lines per entry path ----

def case_syscall64():
    pc = symbol('hello_strict64', 'guest_sys_insn')
    status, lines, out, _ = trace_lines('hello_strict64', opts=['--cpu=amd'])
    expect_status(status, 0, 'hello_strict64')
    expect_lines(lines, [
        '+++ %s: x86_64 program; kernel linux, cpu amd; mode 0 +++' % os.path.realpath(binary('hello_strict64')),
        '%s: syscall  [x86_64 syscall, mode 0]  prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT) = 0' % pc,
        '--- strict mode on via prctl(PR_SET_SECCOMP, 1) ---',
        '%s: syscall  [x86_64 syscall, strict]  write(1, "hello from strict mode\\n", 23) = 23' % pc,
        '%s: syscall  [x86_64 syscall, strict]  exit(0) = ?' % pc,
        '+++ exited with 0 +++',
    ], 'syscall64')
    if len(lines) != 6:
        fail('syscall64: 6 lines expected, got:\n' + '\n'.join(lines))


def case_int80():
    pc = symbol('hello_strict32', 'guest_sys_insn')
    status, lines, _, _ = trace_lines('hello_strict32')
    expect_status(status, 0, 'hello_strict32')
    expect_lines(lines, [
        '%s: int 0x80  [ia32 int 0x80, mode 0]  prctl(PR_SET_SECCOMP, SECCOMP_MODE_STRICT) = 0' % pc,
        '--- strict mode on via prctl(PR_SET_SECCOMP, 1) ---',
        '%s: int 0x80  [ia32 int 0x80, strict]  write(1, "hello from strict mode\\n", 23) = 23' % pc,
        '%s: int 0x80  [ia32 int 0x80, strict]  exit(0) = ?' % pc,
        '+++ exited with 0 +++',
    ], 'int80')


def vdso_entry(cpu, insn, entry):
    buf = symbol('allowed_calls32', 'buf')
    status, lines, _, _ = trace_lines('allowed_calls32', opts=['--cpu=' + cpu])
    expect_status(status, 0, 'allowed_calls32 --cpu=' + cpu)
    int80 = symbol('allowed_calls32', 'guest_int80_insn')
    expect_lines(lines, [
        '%s: int 0x80  [ia32 int 0x80, strict]  read(0, %s, 64) = 0' % (int80, buf),
        # The vDSO's instruction: its address is the emulator's, not nm's.
        re.compile(r'%s: %s  \[%s, strict\]  read\(0, %s, 64\) = 0' % (HEX, insn, re.escape(entry), buf)),
        re.compile(r'%s: %s  \[%s, strict\]  write\(1, "write: allowed\\n", 15\) = 15'
                   % (HEX, insn, re.escape(entry))),
        '%s: int 0x80  [ia32 int 0x80, strict]  exit(0) = ?' % int80,
    ], 'vdso ' + cpu)


def case_sysenter():
    vdso_entry('intel', 'sysenter', 'ia32 sysenter')


def case_syscall32():
    vdso_entry('amd', 'syscall', 'ia32 syscall')


def case_int80_from64():
    pc = symbol('int80_from64', 'guest_int80_insn')
    status, lines, _, _ = trace_lines('int80_from64')
    expect_status(status, 0, 'int80_from64')
    entry = '[ia32 int 0x80 from 64-bit code, strict]'
    expect_lines(lines, [
        '%s: int 0x80  %s  write(1, "int $0x80 from 64-bit code: writ"..., 47) = 47' % (pc, entry),
        # The stack buffer's address, cut to 32 bits, is unreadable: shown
        # as an address, and the call fails.
        re.compile(r'%s: int 0x80  %s  write\(1, %s, 14\) = -1 EFAULT \(Bad address\)'
                   % (pc, re.escape(entry), HEX)),
        '%s: int 0x80  %s  exit(0) = ?' % (pc, entry),
    ], 'int80 from 64-bit code')


def case_fast_efault():
    for cpu, label, insn, entry in (('intel', 'fast_sysenter', 'sysenter', 'ia32 sysenter'),
                                    ('amd', 'fast_syscall32', 'syscall', 'ia32 syscall')):
        pc = symbol('fast_efault32', label)
        status, lines, _, _ = trace_lines('fast_efault32', [cpu], ['--strict', '--cpu=' + cpu])
        expect_lines(lines, [
            '%s: %s  [%s, strict]  write(1, "hi\\n", 3) = -1 EFAULT (Bad address)  (not checked: '
            "the 6th argument's stack slot is unreadable, and the kernel reads it before the filter)"
            % (pc, insn, entry),
        ], 'fast entry with an unreadable stack, ' + cpu)


# ---- verdicts ----

def case_killed():
    for bits, lst, name_nr in (('64', X64_LIST, 'exit_group (231) via syscall'),
                               ('32', IA32_LIST, 'exit_group (252) via int 0x80')):
        prog = 'exit_vs_group' + bits
        pc = symbol(prog, 'guest_sys_insn')
        insn, entry = ('syscall', 'x86_64 syscall') if bits == '64' else ('int 0x80', 'ia32 int 0x80')
        abi = 'x86_64' if bits == '64' else 'ia32'
        status, lines, _, err = trace_lines(prog, ['exit_group'])
        expect_status(status, SIGKILL, prog)
        expect_lines(lines, [
            '%s: %s  [%s, strict]  exit_group(0) KILLED: not in the %s strict list %s' % (pc, insn, entry, abi, lst),
            '+++ killed by SIGKILL: %s is not in the %s strict list %s +++' % (name_nr, abi, lst),
        ], 'killed ' + bits)
        if lines[-1] != '+++ killed by SIGKILL: %s is not in the %s strict list %s +++' % (name_nr, abi, lst):
            fail('killed %s: the kill is not the last line' % bits)


def case_killed_ia32_list_from64():
    pc = symbol('int80_from64', 'guest_int80_insn')
    status, lines, _, _ = trace_lines('int80_from64', ['umask'])
    expect_status(status, SIGKILL, 'int80_from64 umask')
    expect_lines(lines, [
        '%s: int 0x80  [ia32 int 0x80 from 64-bit code, strict]  umask(0) KILLED: not in the ia32 strict list %s'
        % (pc, IA32_LIST),
    ], 'umask through int 0x80')


def case_cve():
    pc = symbol('cve_2009_0835', 'guest_int80_insn')
    sys_pc = symbol('cve_2009_0835', 'guest_sys_insn')
    entry = '[ia32 int 0x80 from 64-bit code, strict]'
    call = 'chmod("/tmp/seccomp-emu-cve-2009-0835", 0777)'
    status, lines, out, _ = trace_lines('cve_2009_0835', opts=['--kernel=2.6.11'])
    expect_status(status, 0, 'cve_2009_0835 --kernel=2.6.11')
    expect_lines(lines, [
        re.compile(r'\+\+\+ .*: x86_64 program; kernel 2\.6\.11, cpu (intel|amd); mode 0 \+\+\+'),
        '%s: syscall  [x86_64 syscall, mode 0]  open("/proc/self/seccomp", O_WRONLY) = 3' % sys_pc,
        '%s: syscall  [x86_64 syscall, mode 0]  write(3, "1", 1) = 1' % sys_pc,
        '--- strict mode on via a write to /proc/self/seccomp ---',
        '%s: int 0x80  %s  %s = -1 ENOSYS (Function not implemented)  '
        'ALLOWED (CVE-2009-0835: ia32 chmod checked against the x86_64 list)' % (pc, entry, call),
        '+++ exited with 0 +++',
    ], 'CVE-2009-0835 under 2.6.11')
    # Today's kernel: the same call, killed, and no CVE mark anywhere.
    status, lines, _, _ = trace_lines('cve_2009_0835')
    expect_status(status, SIGKILL, 'cve_2009_0835')
    expect_lines(lines, [
        '%s: syscall  [x86_64 syscall, mode 0]  open("/proc/self/seccomp", O_WRONLY) = -1 ENOENT '
        '(No such file or directory)' % sys_pc,
        '%s: int 0x80  %s  %s KILLED: not in the ia32 strict list %s' % (pc, entry, call, IA32_LIST),
    ], 'CVE-2009-0835 under linux')
    if any('CVE' in l for l in lines):
        fail('the CVE mark appears under --kernel=linux')


def case_personality_kill():
    # 2.6.11 checks a 64-bit task against the x86_64 list whatever the
    # entry: ia32 getpid (20) through int $0x80 is not in it either.
    pc = symbol('cve_2009_0835', 'guest_int80_insn')
    status, lines, _, _ = trace_lines('cve_2009_0835', ['getpid'], ['--kernel=2.6.11'])
    expect_status(status, SIGKILL, 'cve_2009_0835 getpid --kernel=2.6.11')
    expect_lines(lines, [
        '%s: int 0x80  [ia32 int 0x80 from 64-bit code, strict]  getpid() KILLED: not in the x86_64 strict '
        "list %s (the 2005 rule: the list follows the task's personality, not the entry)" % (pc, X64_LIST),
    ], 'a kill by the 2005 rule')


def case_strict_option():
    status, lines, _, _ = trace_lines('malicious_job64', opts=['--strict'])
    expect_status(status, SIGKILL, 'malicious_job64 --strict')
    expect_lines(lines, [
        re.compile(r'\+\+\+ .*: x86_64 program; kernel linux, cpu (intel|amd); mode 0 \+\+\+'),
        '--- strict mode on before the first instruction ---',
        re.compile(r'%s: syscall  \[x86_64 syscall, strict\]  open\("/etc/passwd", O_RDONLY\) '
                   r'KILLED: not in the x86_64 strict list %s' % (HEX, re.escape(X64_LIST))),
    ], '--strict')


# ---- mode changes, faults, signals ----

def case_seccomp_syscall():
    status, lines, _, _ = trace_lines('enter64', ['seccomp'])
    expect_status(status, SIGKILL, 'enter64 seccomp')
    expect_lines(lines, [
        re.compile(r'%s: syscall  \[x86_64 syscall, mode 0\]  seccomp\(SECCOMP_SET_MODE_STRICT, 0, NULL\) = 0' % HEX),
        '--- strict mode on via seccomp(SECCOMP_SET_MODE_STRICT, 0, NULL) ---',
        re.compile(r'%s: syscall  \[x86_64 syscall, strict\]  getpid\(\) KILLED: not in the x86_64 strict list %s'
                   % (HEX, re.escape(X64_LIST))),
    ], 'seccomp(2)')


def case_faults():
    # rdtsc after strict mode: #GP, SIGSEGV with SI_KERNEL, as on Linux.
    status, lines, _, _ = trace_lines('rdtsc64', ['after'])
    expect_status(status, -11, 'rdtsc64 after')
    expect_lines(lines, [
        '--- SIGSEGV {si_signo=SIGSEGV, si_code=SI_KERNEL, si_addr=0} ---',
        '+++ killed by SIGSEGV: general protection fault at 0x0 +++',
    ], 'rdtsc fault')
    # AMD refuses sysenter in 32-bit code (#UD): the instruction is shown.
    pc = symbol('fast_efault32', 'fast_sysenter')
    status, lines, _, _ = trace_lines('fast_efault32', ['intel'], ['--cpu=amd'])
    expect_status(status, -4, 'sysenter on amd')
    expect_lines(lines, [
        '--- SIGILL {si_signo=SIGILL, si_code=ILL_ILLOPN, si_addr=%s} at %s: sysenter ---' % (pc, pc),
        '+++ killed by SIGILL: invalid instruction at %s +++' % pc,
    ], 'sysenter #UD')


def case_sigpipe():
    r, w = os.pipe()
    os.close(r)
    try:
        status, lines, _, _ = trace_lines('hello_strict64', stdout=w)
    finally:
        os.close(w)
    expect_status(status, -13, 'hello_strict64 > closed pipe')
    # The kernel queues SIGPIPE inside the write, which returns -EPIPE;
    # the signal is delivered (and kills) on the way back to the guest.
    pc = symbol('hello_strict64', 'guest_sys_insn')
    expect_lines(lines, [
        '--- SIGPIPE {si_signo=SIGPIPE} sent by the kernel ---',
        '%s: syscall  [x86_64 syscall, strict]  write(1, "hello from strict mode\\n", 23) = -1 EPIPE (Broken pipe)' % pc,
        '+++ killed by SIGPIPE: write to a pipe or socket with no reader +++',
    ], 'SIGPIPE')


# ---- user notification ----

def case_notify():
    """A call that waited for a supervisor thread: its line names the
    notification, the caller, the receiver and the answer, and shows the
    path as the call read it when it ran (examples/toctou_notify.c)."""
    status, lines, out, _ = trace_lines('toctou_notify64')
    expect_status(status, 0, 'toctou_notify64')
    openat = re.compile(r'%s: syscall  \[x86_64 syscall, filter\]  openat\(AT_FDCWD, "/dev/urandom", '
                        r'O_RDONLY\) = (\d+)  filters #1=USER_NOTIF; verdict USER_NOTIF from filter #1: '
                        r'notification %s from task (\d+), received by task (\d+), answered CONTINUE: '
                        r'the call runs, reading its pointer arguments now, not as the supervisor saw '
                        r'them' % (HEX, HEX))
    expect_lines(lines, [
        re.compile(r'%s: syscall  \[x86_64 syscall, mode 0\]  ioctl\(\d+, SECCOMP_IOCTL_NOTIF_RECV, %s\) = 0'
                   % (HEX, HEX)),
        re.compile(r'%s: syscall  \[x86_64 syscall, mode 0\]  ioctl\(\d+, SECCOMP_IOCTL_NOTIF_SEND, %s\) = 0'
                   % (HEX, HEX)),
        openat,
    ], 'notify')
    m = next(openat.fullmatch(l) for l in lines if openat.fullmatch(l))
    if m.group(2) == m.group(3):
        fail('notify: the caller and the receiver are different threads: %s' % m.group(0))
    status, lines, out, _ = trace_lines('toctou_notify64', ['addfd'])
    expect_status(status, 0, 'toctou_notify64 addfd')
    expect_lines(lines, [
        re.compile(r'%s: syscall  \[x86_64 syscall, filter\]  openat\(AT_FDCWD, "/dev/urandom", '
                   r'O_RDONLY\) = (\d+)  filters #1=USER_NOTIF; verdict USER_NOTIF from filter #1: '
                   r'notification %s from task \d+, received by task \d+, answered by ADDFD\+SEND: '
                   r'not run, returns the new descriptor \1' % (HEX, HEX)),
    ], 'notify addfd')
    with tempfile.NamedTemporaryFile(mode='r', suffix='.jsonl') as f:
        run('toctou_notify64', (), ['--trace=' + f.name, '--trace-format=json'])
        events = [json.loads(l) for l in f.read().splitlines()]
    notified = [e for e in events if e.get('verdict', '').startswith('notified')]
    if len(notified) != 1 or notified[0]['verdict'] != 'notified-continue' or \
            notified[0]['notif_end'] != 'continue' or notified[0]['name'] != 'openat' or \
            notified[0]['notif_receiver'] in (0, notified[0]['notif_caller']):
        fail('notify: JSON: one notified-continue openat expected, got %r' % notified)


# ---- the JSON form ----

EVENT_KEYS = {
    'start': {'event', 'program', 'abi', 'kernel', 'cpu', 'mode'},
    'syscall': {'event', 'pc', 'insn', 'entry', 'abi', 'code_bits', 'mode', 'nr', 'name', 'args', 'raw',
                'call', 'verdict', 'list', 'cve_2009_0835', 'returned', 'result', 'errno', 'note'},
    'mode': {'event', 'from', 'to', 'via'},
    'signal': {'event', 'what', 'signal', 'signo', 'si_code', 'si_addr', 'pc', 'insn'},
    'exit': {'event', 'how', 'code'},
    'exit-killed': {'event', 'how', 'signal', 'signo', 'reason'},
}


def json_events(prog, argv=(), opts=()):
    with tempfile.NamedTemporaryFile(mode='r', suffix='.jsonl') as f:
        status, _, _ = run(prog, argv, ['--trace=' + f.name, '--trace-format=json'] + list(opts))
        text = f.read()
    events = []
    for n, line in enumerate(text.splitlines(), 1):
        try:
            ev = json.loads(line)
        except ValueError as e:
            fail('%s: line %d is not JSON (%s): %r' % (prog, n, e, line))
        if not isinstance(ev, dict):
            fail('%s: line %d is not an object' % (prog, n))
        kind = ev.get('event')
        keys = EVENT_KEYS.get('exit-killed' if kind == 'exit' and ev.get('how') == 'killed' else kind)
        if keys is None or set(ev) != keys:
            fail('%s: line %d: fields %s, expected %s' % (prog, n, sorted(ev), sorted(keys or [])))
        events.append(ev)
    if not events or events[0]['event'] != 'start' or events[-1]['event'] != 'exit':
        fail('%s: the JSON trace must start with "start" and end with "exit"' % prog)
    return status, events


def case_json():
    pc = symbol('hello_strict64', 'guest_sys_insn')
    status, ev = json_events('hello_strict64')
    expect_status(status, 0, 'hello_strict64 json')
    calls = [e for e in ev if e['event'] == 'syscall']
    want = [('prctl', 'disabled', 'none', 0), ('write', 'strict', 'allowed', 23), ('exit', 'strict', 'allowed', None)]
    got = [(c['name'], c['mode'], c['verdict'], c['result']) for c in calls]
    if got != want:
        fail('json calls: %s, expected %s' % (got, want))
    if calls[0]['args'] != ['PR_SET_SECCOMP', 'SECCOMP_MODE_STRICT'] or calls[0]['raw'][1:3] != ['0x1', '0x0']:
        fail('json prctl args: %s %s' % (calls[0]['args'], calls[0]['raw']))
    c = calls[1]
    if (c['pc'], c['insn'], c['entry'], c['abi'], c['code_bits'], c['nr']) != (pc, 'syscall', 'syscall64', 'x86_64', 64, 1):
        fail('json write: %s' % c)
    if c['args'] != ['1', '"hello from strict mode\\n"', '23'] or c['raw'][0] != '0x1' or c['raw'][2] != '0x17':
        fail('json write args: %s %s' % (c['args'], c['raw']))
    if c['call'] != 'write(1, "hello from strict mode\\n", 23)' or c['returned'] is not True:
        fail('json write call: %s' % c)
    if calls[2]['returned'] is not False:
        fail('json: exit does not return')
    modes = [e for e in ev if e['event'] == 'mode']
    if modes != [{'event': 'mode', 'from': 'disabled', 'to': 'strict', 'via': 'prctl'}]:
        fail('json mode: %s' % modes)
    if ev[-1] != {'event': 'exit', 'how': 'exited', 'code': 0}:
        fail('json exit: %s' % ev[-1])

    status, ev = json_events('exit_vs_group32', ['exit_group'])
    killed = [e for e in ev if e['event'] == 'syscall' and e['verdict'] == 'killed']
    if len(killed) != 1 or killed[0]['name'] != 'exit_group' or killed[0]['list'] != 'ia32' \
            or killed[0]['nr'] != 252 or killed[0]['result'] is not None \
            or killed[0]['note'] != 'KILLED: not in the ia32 strict list ' + IA32_LIST:
        fail('json kill: %s' % killed)
    if (ev[-1]['how'], ev[-1]['signal'], ev[-1]['signo']) != ('killed', 'SIGKILL', 9):
        fail('json kill exit: %s' % ev[-1])

    status, ev = json_events('cve_2009_0835', opts=['--kernel=2.6.11'])
    cve = [e for e in ev if e['event'] == 'syscall' and e['cve_2009_0835']]
    if len(cve) != 1 or (cve[0]['name'], cve[0]['list'], cve[0]['entry'], cve[0]['verdict'],
                         cve[0]['errno'], cve[0]['code_bits']) != ('chmod', 'x86_64', 'int80', 'allowed', 'ENOSYS', 64):
        fail('json cve: %s' % cve)
    if [e['via'] for e in ev if e['event'] == 'mode'] != ['proc']:
        fail('json: strict mode via /proc expected')

    status, ev = json_events('fast_efault32', ['intel'], ['--cpu=amd'])
    sig = [e for e in ev if e['event'] == 'signal']
    pc = symbol('fast_efault32', 'fast_sysenter')
    if sig != [{'event': 'signal', 'what': 'fault', 'signal': 'SIGILL', 'signo': 4, 'si_code': 'ILL_ILLOPN',
                'si_addr': pc, 'pc': pc, 'insn': 'sysenter'}]:
        fail('json signal: %s' % sig)

    status, ev = json_events('fast_efault32', ['intel'], ['--cpu=intel', '--strict'])
    c = [e for e in ev if e['event'] == 'syscall']
    if not c or (c[0]['verdict'], c[0]['list'], c[0]['errno'], c[0]['entry']) != ('unchecked', None, 'EFAULT', 'sysenter32'):
        fail('json unchecked: %s' % c)
    if [e['via'] for e in ev if e['event'] == 'mode'] != ['start']:
        fail('json: --strict is via start')


# ---- tracing changes nothing ----

def case_identity():
    cases = [('safe_job64', [], []), ('safe_job32', [], []), ('malicious_job64', [], ['--strict']),
             ('exit_vs_group32', ['exit_group'], []), ('int80_from64', [], []),
             ('allowed_calls32', [], ['--cpu=intel']), ('allowed_calls32', [], ['--cpu=amd']),
             ('cve_2009_0835', [], ['--kernel=2.6.11']), ('glibc_hello64', ['hello'], []),
             ('glibc_hello32', ['hello'], []), ('rdtsc32', ['after'], []), ('fast_efault32', ['intel'], ['--cpu=amd'])]
    for prog, argv, opts in cases:
        plain = run(prog, argv, opts)
        with tempfile.NamedTemporaryFile(suffix='.trace') as f:
            to_file = run(prog, argv, ['--trace=' + f.name] + opts)
            if os.path.getsize(f.name) == 0:
                fail('%s: empty trace' % prog)
        json_file = run(prog, argv, ['--trace=/dev/null', '--trace-format=json'] + opts)
        to_stderr = run(prog, argv, ['--trace'] + opts)
        what = ' '.join([prog] + argv + opts)
        for name, r in (('--trace=FILE', to_file), ('--trace-format=json', json_file)):
            if r != plain:
                fail('%s: with %s the run differs: %s against %s' % (what, name, r, plain))
        # Traced to stderr: same status and stdout; the guest's own stderr
        # lines are still there, between the trace's.
        if to_stderr[:2] != plain[:2]:
            fail('%s: with --trace the status or stdout differ' % what)
        for line in plain[2].splitlines():
            if line not in to_stderr[2].splitlines():
                fail('%s: stderr line %r lost under --trace' % (what, line))
        if '+++ ' not in to_stderr[2]:
            fail('%s: bare --trace wrote no trace to stderr' % what)


def case_options():
    # A bare --trace must not take PROGRAM as its file.
    prog = binary('hello_strict64')
    before = os.path.getsize(prog)
    p = subprocess.run([ARGS.emu, '--trace', prog], capture_output=True, text=True, timeout=60)
    if p.returncode != 0 or p.stdout != 'hello from strict mode\n' or os.path.getsize(prog) != before:
        fail('--trace PROGRAM: %d %r' % (p.returncode, p.stdout))
    for bad, msg in ((['--trace-format=xml'], '--trace-format must be text or json'),
                     (['--trace='], '--trace=FILE needs a file name'),
                     (['--trace=/nonexistent-dir/t'], '/nonexistent-dir/t')):
        p = subprocess.run([ARGS.emu] + bad + [prog], capture_output=True, text=True, timeout=60)
        if p.returncode != 2 or msg not in p.stderr or p.stdout:
            fail('%s: status %d, stderr %r' % (bad, p.returncode, p.stderr))


def case_raw_job():
    # Lesson 7: raw bytecode runs in strict mode from its first instruction,
    # at the fixed addresses of raw.ld, so nm of the linked ELF (the same
    # code at the same addresses) gives the trapping instruction.
    for arch, insn, entry in (('x86_64', 'syscall', 'x86_64 syscall'), ('i386', 'int 0x80', 'ia32 int 0x80')):
        elf = binary('raw_job_%s.elf' % arch)
        images = '%s,%s' % (binary('raw_job_%s.text' % arch), binary('raw_job_%s.data' % arch))
        raw = [ARGS.emu, '--raw', images, '--arch=' + arch]
        emulated = subprocess.run(raw, input=b'hello, raw\n', capture_output=True, timeout=60)
        got = (emulated.returncode, emulated.stdout)

        def native():
            p = subprocess.run([elf], input=b'hello, raw\n', capture_output=True, timeout=60)
            return p.returncode, p.stdout
        # an i386 ELF on a host without IA-32 emulation: the kernel's recording
        want, label, problems = Oracle('trace', ARGS.emu).judge(
            'raw_job_%s.elf input=hello' % arch, elf, native, lambda: got, (),
            vmjudge.Request([elf], stdin='feed', data=b'hello, raw\n', timeout=60),
            lambda a: (a.returncode(), a.stdout))
        for p in problems:
            fail('raw_job %s: %s' % (arch, p))
        if got != want or got != (0, b'HELLO, RAW\n'):
            fail('raw_job %s: emulated %s, native %s (%s)' % (arch, got, want, label))
        killed = subprocess.run(raw, input=b'!\n', capture_output=True, timeout=60)
        if (killed.returncode, killed.stdout) != (SIGKILL, b''):
            fail('raw_job %s with "!": %s' % (arch, (killed.returncode, killed.stdout)))
        pc = symbol('raw_job_%s.elf' % arch, 'guest_sys_insn')
        with tempfile.NamedTemporaryFile(mode='r', suffix='.trace') as f:
            subprocess.run(raw[:1] + ['--trace=' + f.name] + raw[1:], input=b'hello, raw\n',
                           capture_output=True, timeout=60)
            lines = f.read().splitlines()
        expect_lines(lines, [
            '--- strict mode on before the first instruction ---',
            '%s: %s  [%s, strict]  read(0, "hello, raw\\n", 256) = 11' % (pc, insn, entry),
            '%s: %s  [%s, strict]  write(1, "HELLO, RAW\\n", 11) = 11' % (pc, insn, entry),
            '%s: %s  [%s, strict]  exit(0) = ?' % (pc, insn, entry),
            '+++ exited with 0 +++',
        ], 'raw_job ' + arch)
        if not lines[1].startswith('--- strict mode on'):
            fail('raw_job %s: strict mode is not on before the first call' % arch)


def case_diff_trace():
    # seccomp-emu-diff --trace passes --trace to the emulator and shows it,
    # without changing what is compared.
    with tempfile.NamedTemporaryFile(mode='r', suffix='.log') as f:
        p = subprocess.run([ARGS.diff, '--emu=' + ARGS.emu, '--trace=' + f.name, binary('hello_strict64')],
                           capture_output=True, text=True, timeout=60)
        log = f.read()
    if p.returncode != 0 or 'RESULT: agree' not in p.stdout:
        fail('seccomp-emu-diff --trace: %d\n%s' % (p.returncode, p.stdout))
    pc = symbol('hello_strict64', 'guest_sys_insn')
    expect_lines(log.splitlines(), [
        re.compile(r'\[trace\] emu trace \(seccomp-emu --trace, \d+ bytes\):'),
        '%s: syscall  [x86_64 syscall, strict]  write(1, "hello from strict mode\\n", 23) = 23' % pc,
        '+++ exited with 0 +++',
    ], 'seccomp-emu-diff --trace')


def main():
    global ARGS
    ap = argparse.ArgumentParser()
    ap.add_argument('--emu', required=True)
    ap.add_argument('--diff', required=True)
    ap.add_argument('--nm', required=True)
    ap.add_argument('--bin', action='append', default=[])
    ap.add_argument('case')
    ARGS = ap.parse_args()
    fn = globals().get('case_' + ARGS.case)
    if not fn:
        fail('no case ' + ARGS.case)
    fn()
    print('ok: ' + ARGS.case)


if __name__ == '__main__':
    main()
