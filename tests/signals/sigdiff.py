#!/usr/bin/env python3
"""Run a guest natively and under seccomp-emu; compare stdout and how each
ended (exit code, or the signal that killed it).

    sigdiff.py --emu EMU [options] -- PROGRAM [ARG...]

The real kernel is the judge.  Native children get RLIMIT_CORE 0 (a core
file is nobody's business here) and the same rlimits the emulator is told
to impose with --emu-arg; the core-dump bit of the wait status is not
compared, only the signal number.  With --no-native the emulated run is
checked against --expect-status/--expect-stdout instead (for what no native
run can judge); without it, --expect-status is what the native answer must
be as well (two hangs agree, and still fail).  Where this host cannot run a case natively (an i386 guest
on a kernel without IA-32 emulation, --native-needs=tsc-off on a hypervisor
that ignores it), the kernel's recorded answer judges it
(tests/native_oracle.py).  Exit 0 if all agree, 1 if not, 2 on a usage error.

(tools/seccomp-emu-diff, in another branch, is the project's general
runner; this one adds what the signal tests need: rlimits on the native
side, a blocking or reader-less stdin, stdout to a regular file, a host
signal sent once the guest says it is ready, and a bound on the emulator's
own memory.)
"""
import argparse
import os
import re
import resource
import select
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
from native_oracle import Oracle, vmjudge  # noqa: E402

RLIMITS = {
    'cpu': resource.RLIMIT_CPU,
    'as': resource.RLIMIT_AS,
    'fsize': resource.RLIMIT_FSIZE,
    'stack': resource.RLIMIT_STACK,
}


def describe(status):
    if status is None:
        return 'hang (killed by the runner)'
    if os.WIFEXITED(status):
        return 'exit %d' % os.WEXITSTATUS(status)
    if os.WIFSIGNALED(status):
        n = os.WTERMSIG(status)
        try:
            name = signal.Signals(n).name
        except ValueError:
            name = 'SIGRTMIN+%d' % (n - signal.SIGRTMIN)
        return 'signal %d (%s)' % (n, name)
    return 'status %#x' % status


def parse_rlimit(text):
    name, _, value = text.partition('=')
    soft, _, hard = value.partition(':')
    return RLIMITS[name], int(soft), int(hard or soft)


class Run:
    def __init__(self, label, argv, args, rlimits):
        self.label, self.argv, self.args, self.rlimits = label, argv, args, rlimits
        self.stdout = b''
        self.stderr = b''
        self.status = None
        self.maxrss_kb = 0

    def start(self):
        a = self.args
        self.tmp = None
        keep = []
        if a.stdin == 'null':
            stdin = subprocess.DEVNULL
        elif a.stdin == 'pipe':
            # A reader that blocks: the write end stays open, nothing comes.
            r, w = os.pipe()
            stdin, self.hold = r, w
            keep.append(r)
        elif a.stdin == 'noreader':
            # fd 0 is a write end whose read end is closed: EPIPE.
            r, w = os.pipe()
            os.close(r)
            stdin = w
            keep.append(w)
        if a.stdout_file:
            self.tmp = tempfile.TemporaryFile()
            stdout = self.tmp
        else:
            stdout = subprocess.PIPE

        def child():
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
            for res, soft, hard in self.rlimits:
                resource.setrlimit(res, (soft, hard))
            os.setsid()
            # What an exec'd program inherits from its parent.
            for name in a.parent_ignore:
                signal.signal(signal.Signals[name], signal.SIG_IGN)
            if a.parent_block:
                signal.pthread_sigmask(signal.SIG_BLOCK,
                                       [signal.Signals[n] for n in a.parent_block])

        self.t0 = time.monotonic()
        self.proc = subprocess.Popen(self.argv, stdin=stdin, stdout=stdout,
                                     stderr=subprocess.PIPE, env={}, preexec_fn=child,
                                     close_fds=True)
        LIVE.append(self.proc)
        for fd in keep:
            os.close(fd)

    def finish(self):
        a = self.args
        deadline = self.t0 + a.timeout
        out = []
        err = []
        streams = {self.proc.stderr: err}
        if self.proc.stdout:
            streams[self.proc.stdout] = out
        sent = False
        while streams:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            ready, _, _ = select.select(list(streams), [], [], min(left, 0.1))
            for f in ready:
                chunk = os.read(f.fileno(), 65536)
                if not chunk:
                    del streams[f]
                    continue
                streams[f].append(chunk)
            if a.send and not sent and b'ready\n' in b''.join(out):
                time.sleep(a.send_delay)
                os.kill(self.proc.pid, signal.Signals[a.send])
                sent = True
        _, status, ru = self.wait_bounded(deadline)
        self.status = status
        if ru:
            self.maxrss_kb = ru.ru_maxrss
        if hasattr(self, 'hold'):
            os.close(self.hold)
        self.stdout = b''.join(out)
        self.stderr = b''.join(err)
        if self.tmp:
            self.tmp.seek(0)
            self.stdout = self.tmp.read()

    def wait_bounded(self, deadline):
        while time.monotonic() < deadline:
            pid, status, ru = os.wait4(self.proc.pid, os.WNOHANG)
            if pid:
                return pid, status, ru
            time.sleep(0.05)
        os.killpg(self.proc.pid, signal.SIGKILL)
        os.wait4(self.proc.pid, 0)
        return self.proc.pid, None, None


def answer(run):
    """What a run is judged by, in the form the native oracle records."""
    return outcome(run.status), run.stdout, run.stderr


def describe_outcome(o):
    return ' '.join(str(x) for x in o)


def outcome(status):
    """What is compared: the exit code or the signal, not the core bit."""
    if status is None:
        return ('hang',)
    if os.WIFSIGNALED(status):
        return ('signal', os.WTERMSIG(status))
    return ('exit', os.WEXITSTATUS(status))


def parse_expected(text):
    m = re.fullmatch(r'exit (\d+)', text)
    if m:
        return ('exit', int(m.group(1)))
    m = re.fullmatch(r'signal (\w+)', text)
    if m:
        v = m.group(1)
        return ('signal', int(v) if v.isdigit() else int(signal.Signals[v]))
    raise SystemExit('sigdiff: bad --expect-status %r' % text)


def show(run):
    sys.stdout.write('--- %s: %s\n' % (run.label, describe(run.status)))
    sys.stdout.write(run.stdout.decode(errors='replace'))
    if run.stderr:
        sys.stdout.write('--- %s stderr:\n%s' % (run.label, run.stderr.decode(errors='replace')))


LIVE = []


def on_term(signum, frame):
    """meson's own timeout sends SIGTERM: the guests (each in its own
    session) must not outlive the runner."""
    for proc in LIVE:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    os._exit(128 + signum)


def main():
    signal.signal(signal.SIGTERM, on_term)
    signal.signal(signal.SIGINT, on_term)
    p = argparse.ArgumentParser()
    p.add_argument('--emu', required=True)
    p.add_argument('--emu-arg', action='append', default=[])
    p.add_argument('--native-rlimit', action='append', default=[],
                   help='NAME=SOFT[:HARD] for the native run (cpu, as, fsize, stack)')
    p.add_argument('--stdin', choices=['null', 'pipe', 'noreader'], default='null')
    p.add_argument('--stdout-file', action='store_true')
    p.add_argument('--compare-stderr', action='store_true')
    p.add_argument('--send', help='host signal (e.g. SIGINT) once the guest prints "ready"')
    p.add_argument('--send-delay', type=float, default=0.2)
    p.add_argument('--parent-ignore', action='append', default=[],
                   help='signal (e.g. SIGPIPE) both runs inherit as ignored')
    p.add_argument('--parent-block', action='append', default=[],
                   help='signal both runs inherit as blocked')
    p.add_argument('--no-native', action='store_true')
    p.add_argument('--native-needs', action='append', default=[],
                   help='a host capability the native run needs besides ia32 for i386 (tsc-off)')
    p.add_argument('--expect-status')
    p.add_argument('--expect-stdout')
    p.add_argument('--stderr-match', help='regex the emulator stderr must match (not --quiet)')
    p.add_argument('--max-rss-mb', type=int, help='bound on the emulator peak RSS')
    p.add_argument('--timeout', type=float, default=60)
    p.add_argument('cmd', nargs='+')
    a = p.parse_args()

    quiet = [] if a.stderr_match else ['--quiet']
    emu_argv = [a.emu] + a.emu_arg + quiet + a.cmd
    emu = Run('seccomp-emu', emu_argv, a, [])
    runs = []

    def run_emu():
        if not emu.proc_done:
            emu.start()
            emu.finish()
            emu.proc_done = True
        return answer(emu)
    emu.proc_done = False

    ok = True
    why = []
    if a.no_native:
        run_emu()
        if a.expect_status and outcome(emu.status) != parse_expected(a.expect_status):
            ok = False
            why.append('status: expected %s' % a.expect_status)
        if a.expect_stdout is not None and emu.stdout.decode() != a.expect_stdout.replace('\\n', '\n'):
            ok = False
            why.append('stdout differs from the expectation')
    else:
        nat = Run('native', a.cmd, a, [parse_rlimit(r) for r in a.native_rlimit])

        def run_native():
            # One after the other: timing-dependent guests must not compete for CPU.
            nat.start()
            nat.finish()
            runs.append(nat)
            return answer(nat)
        # The kernel sees the same case whatever the emulator's options.
        key = ' '.join([os.path.basename(a.cmd[0])] + a.cmd[1:] +
                       ['stdin=' + a.stdin] + (['stdout-file'] if a.stdout_file else []) +
                       (['send=' + a.send] if a.send else []) +
                       ['parent-ignore=' + s for s in a.parent_ignore] +
                       ['parent-block=' + s for s in a.parent_block] +
                       ['rlimit=' + r for r in a.native_rlimit])
        # the same run for the VM's kernel, where this host cannot make it
        request = vmjudge.Request(
            a.cmd, stdin=a.stdin, stdout='file' if a.stdout_file else 'pipe',
            rlimits=[parse_rlimit(r) for r in a.native_rlimit],
            ignore=[signal.Signals[n] for n in a.parent_ignore],
            block=[signal.Signals[n] for n in a.parent_block],
            send=(signal.Signals[a.send], a.send_delay) if a.send else None, timeout=a.timeout)
        oracle = Oracle('sigdiff', a.emu)
        want, label, problems = oracle.judge(
            key, a.cmd[0], run_native, run_emu, a.native_needs, request,
            lambda ans: (outcome(ans.status), ans.stdout, ans.stderr))
        if oracle.collecting:
            return 0
        got = run_emu()
        why += problems
        ok = not problems
        if want is not None:
            if label != 'native':
                sys.stdout.write('--- native answer: %s\n' % label)
            w_out, w_stdout, w_stderr = want
            g_out, g_stdout, g_stderr = got
            if w_out != g_out:
                ok = False
                why.append('status differs (native %s)' % describe_outcome(w_out))
            if w_stdout != g_stdout:
                ok = False
                why.append('stdout differs')
                if not runs:
                    sys.stdout.write('--- %s stdout:\n%s' % (label, w_stdout.decode(errors='replace')))
            if a.compare_stderr and w_stderr != g_stderr:
                ok = False
                why.append('stderr differs')
            # both legs may agree on the wrong end (two hangs, say)
            if a.expect_status and w_out != parse_expected(a.expect_status):
                ok = False
                why.append('native status: expected %s' % a.expect_status)
    runs.append(emu)
    if a.stderr_match and not re.search(a.stderr_match, emu.stderr.decode(errors='replace')):
        ok = False
        why.append('emulator stderr does not match %r' % a.stderr_match)
    if a.max_rss_mb and emu.maxrss_kb > a.max_rss_mb * 1024:
        ok = False
        why.append('emulator peak RSS %d MiB above %d MiB' % (emu.maxrss_kb // 1024, a.max_rss_mb))
    for r in runs:
        show(r)
    if not ok:
        sys.stdout.write('FAIL: %s\n' % '; '.join(why))
        return 1
    return 0


if __name__ == '__main__':
    sys.exit(main())
