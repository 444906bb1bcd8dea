#!/usr/bin/env python3
"""An x86-TSO litmus test (tests/litmus/litmus.c), judged by the CPU.

    check_litmus.py --emu SECCOMP_EMU [--emu-arg ARG]... PROGRAM TEST [INSTANCES]

Runs PROGRAM TEST natively (the host's CPU and kernel; tests/native_oracle.py
says where that cannot be) and under seccomp-emu, and compares the exit
status and the verdict line ("verdict: TEST: ...") only.  The other lines
count outcomes that x86-TSO allows but no machine has to show (store
buffering, the controls' races): how often they appear depends on the
cores and on the scheduling, so they are printed, never compared.  Both
runs must also have held x86-TSO: a native run that breaks it is a host
(or program) fault, reported as such, not a reason to pass.
"""
import argparse
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, '..'))
sys.path.insert(0, os.path.join(HERE, '..', 'tasks'))
from native_oracle import Oracle, elf_is_i386, vmjudge  # noqa: E402
from check_tasks import TIMEOUT, outcome, run  # noqa: E402  (a run with its time limit)


def verdict(out):
    lines = [l for l in out.decode(errors='replace').splitlines() if l.startswith('verdict: ')]
    return lines[-1] if lines else '(no verdict line)'


def main():
    p = argparse.ArgumentParser()
    p.add_argument('--emu', required=True)
    p.add_argument('--emu-arg', action='append', default=[])
    p.add_argument('cmd', nargs='+')
    a = p.parse_args()
    emu = os.path.abspath(a.emu)
    prog = os.path.abspath(a.cmd[0])
    argv = [prog] + a.cmd[1:]
    shown = {}
    with tempfile.TemporaryDirectory() as d:
        def live():
            status, out, err = run(argv, d)
            shown['native'] = out + err
            return outcome(status), verdict(out)

        def emulated():
            status, out, err = run([emu, '--quiet'] + a.emu_arg + argv, d)
            shown['seccomp-emu'] = out + err
            return outcome(status), verdict(out)

        key = ' '.join([os.path.basename(prog)] + a.cmd[1:])
        # The judge VM's CPU is QEMU's TCG, no judge of an emulator's order:
        # an i386 build on a host without IA-32 takes a real CPU's recording.
        request = None if elf_is_i386(prog) else vmjudge.Request(argv, timeout=TIMEOUT)
        oracle = Oracle('litmus', emu)
        want, label, problems = oracle.judge(
            key, prog, live, emulated, (), request,
            lambda ans: (outcome(ans.status), verdict(ans.stdout)))
        if oracle.collecting:
            return 0
        got = emulated()
    why = list(problems)
    if want is not None:
        if want[0] != 'exit 0':
            why.append('the native run did not hold x86-TSO (%s): a host fault, not a pass'
                       % want[0])
        if want != got:
            why.append('status or verdict differs')
    for side in ('native', 'seccomp-emu'):
        if side in shown:
            sys.stdout.write('--- %s%s:\n' % (side, ' (%s)' % label if side == 'native' else ''))
            sys.stdout.write(shown[side].decode(errors='replace'))
    sys.stdout.write('native: %s\nseccomp-emu: %s\n' % (want, got))
    if why:
        sys.stdout.write('FAIL: %s\n' % '; '.join(why))
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
