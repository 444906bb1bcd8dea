#!/usr/bin/env python3
"""Threads and processes, judged by the kernel.

    check_tasks.py --emu SECCOMP_EMU [--emu-arg ARG]... PROGRAM [ARG...]

Runs PROGRAM natively (the host's kernel, or the judge VM's where the host
cannot run it: i386 here) and under seccomp-emu, and compares exit status,
stdout and stderr after the normalisations below.  Each one is written down
with its reason; none hides a difference in what the program checks:

  * timing buckets.  The measuring programs (TASKS.md's t09) print how long
    a wait took in buckets ("<20ms (immediately)", "20-45ms", "~50ms",
    ">300ms").  What TASKS.md states is whether a 50 ms timeout was waited
    for or the call returned early; on a loaded host (or in the VM, or
    under emulation) a wait only ever gets longer.  So both sides keep
    "returned before 45ms" against "waited 45ms or more".
  * t03's "main: pthread_join returned, Threads=N" right after a thread
    seccomp killed: the joiner is woken by CLEARTID in the dying thread's
    mm_release, before exit_notify unhashes it, so natively the count
    races (the host's kernel printed 1, the judge VM's 2, for the same
    exit_group case).  Both sides print "Threads=1-2" there.
  * t03's last section (strict mode inherited by threads and processes,
    TASKS.md 1.11) can only be observed through ptrace's
    PTRACE_O_SUSPEND_SECCOMP; seccomp-emu emulates no ptrace (it answers
    ENOSYS).  The section is cut from both sides at its heading, and the
    test says so.
  * t04's core-dump section runs natively only where
    /proc/sys/kernel/core_pattern is "core"; seccomp-emu's guest sees no
    /proc/sys and seccomp-emu never writes core files
    (docs/signals-and-limits.md), so it prints that the section is skipped.
    Both sides are cut at the section's first line.
"""
import argparse
import os
import re
import signal
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
from native_oracle import Oracle, vmjudge  # noqa: E402

TIMEOUT = 120

BUCKETS = [
    (re.compile(rb'after (<20ms \(immediately\)|20-45ms)'), b'after <45ms'),
    (re.compile(rb'after (~50ms|>300ms)'), b'after >=45ms'),
    (re.compile(rb'(main: pthread_join returned, Threads=)[12],'), rb'\g<1>1-2,'),
]
CUTS = [
    (rb'inheritance of strict mode (tracer uses PTRACE_O_SUSPEND_SECCOMP):',
     b'[cut: ptrace is not emulated (TASKS.md 1.11)]\n'),
    (rb'[RLIMIT_CORE soft=hard=', b'[cut: core dumps (no core files under seccomp-emu)]\n'),
    (rb'[core-dump part skipped:', b'[cut: core dumps (no core files under seccomp-emu)]\n'),
]


def normalise(out):
    for pat, rep in BUCKETS:
        out = pat.sub(rep, out)
    for head, marker in CUTS:
        at = out.find(head)
        if at >= 0 and (at == 0 or out[at - 1:at] == b'\n'):
            out = out[:at] + marker
    return out


def outcome(status):
    if status is None:
        return 'hang'
    if os.WIFSIGNALED(status):
        return 'signal %s' % signal.Signals(os.WTERMSIG(status)).name
    return 'exit %d' % os.WEXITSTATUS(status)


def run(argv, cwd):
    p = subprocess.Popen(argv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, cwd=cwd, start_new_session=True)
    try:
        out, err = p.communicate(timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
        return None, out, err
    st = p.returncode
    status = (-st) & 0x7f if st < 0 else st << 8
    return status, out, err


def main():
    p = argparse.ArgumentParser()
    p.add_argument('--emu', required=True)
    p.add_argument('--emu-arg', action='append', default=[])
    p.add_argument('--native-needs', action='append', default=[],
                   help='what the native leg needs beyond the ELF class (hostcaps: tsc-off, ia32)')
    p.add_argument('cmd', nargs='+')
    a = p.parse_args()
    a.emu = os.path.abspath(a.emu)
    needs = tuple(n for v in a.native_needs for n in v.split(',') if n)
    prog = os.path.abspath(a.cmd[0])
    argv = [prog] + a.cmd[1:]
    with tempfile.TemporaryDirectory() as d:
        def live():
            st, out, err = run(argv, d)
            return outcome(st), normalise(out), normalise(err)

        def emulated():
            # --caps=host: the native leg runs with seccomp-emu's own
            # capabilities, not Docker's default set.
            st, out, err = run([a.emu, '--quiet', '--caps=host'] + a.emu_arg + argv, d)
            return outcome(st), normalise(out), normalise(err)

        key = ' '.join([os.path.basename(prog)] + a.cmd[1:])
        request = vmjudge.Request(argv, timeout=TIMEOUT)
        oracle = Oracle('tasks', a.emu)
        want, label, problems = oracle.judge(
            key, prog, live, emulated, needs, request,
            lambda ans: (outcome(ans.status), normalise(ans.stdout), normalise(ans.stderr)))
        if oracle.collecting:
            return 0
        got = emulated()
    ok = not problems
    why = list(problems)
    if want is not None:
        for i, what in enumerate(('status', 'stdout', 'stderr')):
            if want[i] != got[i]:
                ok = False
                why.append('%s differs' % what)
    sys.stdout.write('--- native (%s): %s\n' % (label, want[0] if want else '?'))
    if want is not None and want[1] != got[1]:
        sys.stdout.write(want[1].decode(errors='replace'))
    sys.stdout.write('--- seccomp-emu: %s\n' % got[0])
    sys.stdout.write(got[1].decode(errors='replace'))
    if got[2]:
        sys.stdout.write('--- seccomp-emu stderr:\n' + got[2].decode(errors='replace'))
    if not ok:
        sys.stdout.write('FAIL: %s\n' % '; '.join(why))
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
